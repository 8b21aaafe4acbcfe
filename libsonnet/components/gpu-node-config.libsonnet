// Operator mode: per NVIDIA pool a DaemonSet that labels each of the pool's nodes with the
// names of the pool's configs in the GPU Operator values (nvidia-gpu-operator), first in an
// init container and then again every minute.
//
// A pool's configs only reach its nodes through two node labels: the operator's device plugin
// reads its config name from nvidia.com/device-plugin.config (config-manager NODE_LABEL,
// NVIDIA/gpu-operator controllers/object_controls.go, v26.7.0) and mig-manager applies the
// mig-parted layout named by nvidia.com/mig.config. Nothing else sets them to a pool's name:
// the operator only writes mig.config=all-disabled (controllers/nodelabeling_controller.go),
// and ClusterPolicy admits no other migManager.config.default (CRD enum all-disabled | "").
// A NodeFeatureRule cannot set them per pool either: its matchFeatures read only the features
// nfd-worker publishes (cpu, kernel, local, memory, network, pci, storage, system, usb:
// kubernetes-sigs/node-feature-discovery source/, v0.19), never a node's labels, so it cannot
// select a pool's nodes by their nodeSelector. Both the device plugin's config-manager and
// mig-manager watch their label, so labelling after the operator runs is enough. A pool with
// `allocation: dra` also gets nvidia.com/gpu.deploy.device-plugin=false (the operator's device
// plugin stays off its nodes) and nvidia.com/dra-kubelet-plugin=true (the DRA kubelet plugin's
// nodeSelector, the label the driver manager evicts it by): gpu.operatorNodeLabels.
local gpu = import '../lib/gpu.libsonnet';
local k = import '../lib/k.libsonnet';
// Images and their sources: versions.json (docs/versions.md).
local versions = import '../versions.json';

local defaults = {
  providerFacts: error 'must provide providerFacts',
  kubernetesVersion: error 'must provide kubernetesVersion',
  pools: [],
  nvidia: error 'must provide nvidia',
  // The operator's namespace (nvidia-gpu-operator renders it, privileged).
  namespace: 'gpu-operator',
  // The official kubectl image (ENTRYPOINT ["/bin/kubectl"]: kubernetes/kubernetes
  // build/server-image/kubectl/Dockerfile, published from v1.28); `kubectl label` on a Node
  // uses only the stable core/v1 API.
  kubectlImage: k.kubectlImage(versions, self.kubernetesVersion),
  imageDigests: {},
  script: importstr '../scripts/label-gpu-node.sh',
  // spec.admission: where ValidatingAdmissionPolicy is served (enabled), the labeller's
  // ServiceAccount is held to the two labels it sets.
  admission: { enabled: false },
};

function(params)
  local p = defaults + params;
  local pools = gpu.poolsOf(p.pools, 'nvidia');
  // The labels the labeller may change on a Node (gpu.operatorNodeLabels): on dra pools also
  // the device plugin's deploy switch and the DRA kubelet plugin's label.
  local managedLabels = ['nvidia.com/device-plugin.config', 'nvidia.com/mig.config']
                        + (if std.length(gpu.draPools(pools)) > 0 then ['nvidia.com/gpu.deploy.device-plugin', gpu.draPluginLabel] else []);
  local component = 'gpu-node-config';
  local labeller = component;
  local labellerLabels = k.labels(component, labeller);
  // OpenShift's restricted-v2 SCC assigns the UID from the namespace's range (MustRunAsRange).
  // Read-only roots: kubectl writes only its discovery cache, to the /tmp emptyDir.
  local restricted = {
    runAsNonRoot: true,
    [if !p.providerFacts.securityContextConstraints then 'runAsUser']: 65534,
    readOnlyRootFilesystem: true,
    allowPrivilegeEscalation: false,
    capabilities: { drop: ['ALL'] },
    seccompProfile: { type: 'RuntimeDefault' },
  };
  // `kubectl label` reads the Node and patches its labels: nodes are cluster-scoped.
  // A DRA pool with MIG: the labeller reads the node's ResourceSlices (gpu.migGatesDraPlugin).
  local readsSlices = std.length([x for x in pools if gpu.migGatesDraPlugin(x)]) > 0;
  local labellerRbac = [
    k.object('v1', 'ServiceAccount', labeller, p.namespace, labellerLabels),
    k.object('rbac.authorization.k8s.io/v1', 'ClusterRole', labeller, labels=labellerLabels) + {
      rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get', 'patch'] }]
             + (if readsSlices then [{ apiGroups: ['resource.k8s.io'], resources: ['resourceslices'], verbs: ['list'] }] else []),
    },
    k.object('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', labeller, labels=labellerLabels) + {
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: labeller },
      subjects: [{ kind: 'ServiceAccount', name: labeller, namespace: p.namespace }],
    },
  ];
  // RBAC cannot narrow `patch` on nodes to fields or to one Node: k.ownNodeLabelsPolicy holds
  // the ServiceAccount to the managed labels of the Node its own pod runs on (docs/gpu.md).
  local labellerPolicy = k.ownNodeLabelsPolicy(
    labeller,
    p.namespace,
    labeller,
    labellerLabels,
    variables=[{ name: 'managed', expression: '[%s]' % std.join(', ', ["'%s'" % l for l in managedLabels]) }],
    mayChange='l in variables.managed',
    labelsText=std.join(' and ', managedLabels),
  );

  // How often the labeller re-asserts its labels: a label stripped by hand, by a node image or
  // by a Node re-registered under its name would otherwise leave the device plugin on its
  // `default` config (and mig-manager on no layout) until the pod restarts.
  local reassertSeconds = 60;

  local nodeConfig(pool) =
    local name = labeller + '-' + pool.name;
    local labels = gpu.operatorNodeLabels(pools, pool);
    // scripts/label-gpu-node.sh: one read of the Node, then a patch of the labels that differ,
    // conditional on the Node's resourceVersion; `paused-*` values are left to the driver manager
    // and mig-manager that set them. The discovery cache goes to /tmp: the image's HOME (/root)
    // is not writable for the non-root UID.
    local labelArgs = [key + '=' + labels[key] for key in std.objectFields(labels)];
    local env = [
      { name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
      { name: 'REASSERT_SECONDS', value: std.toString(reassertSeconds) },
    ] + (if gpu.migGatesDraPlugin(pool) then [
           // The DRA kubelet plugin starts only once mig-manager applied the pool's layout, and
           // is restarted when its ResourceSlices do not publish that layout (the script's header).
           { name: 'MIG_GATED_LABEL', value: gpu.draPluginLabel },
           {
             name: 'MIG_GATED_DEVICES',
             local devices = gpu.draDevicesPerNode(pool),
             value: std.join(' ', [d + '=' + devices[d] for d in std.objectFields(devices)]),
           },
         ] else []);
    local command = ['sh', '-c', p.script, 'label-gpu-node'];
    local mounts = [{ name: 'tmp', mountPath: '/tmp' }, k.apiTokenMount];
    // Why the DaemonSet is an exception to each hardening check it keeps (k.exceptions).
    local exceptions = {
      CKV_K8S_8: 'the labeller is a shell loop around kubectl label: a failure exits the container, which restarts; nothing else to probe',
      CKV_K8S_9: 'the labeller is a shell loop around kubectl label: a failure exits the container, which restarts; nothing else to probe',
    } + (if p.providerFacts.securityContextConstraints then {
           CKV_K8S_40: "OpenShift's restricted-v2 SCC assigns the UID from the namespace's range",
         } else {}) + k.unpinned([p.kubectlImage], p.imageDigests);
    k.object('apps/v1', 'DaemonSet', name, p.namespace, k.labels(component, name), k.exceptions(exceptions)) + {
      spec: {
        selector: { matchLabels: k.selectorLabels(name) },
        updateStrategy: { type: 'RollingUpdate' },
        template: {
          metadata: { labels: k.labels(component, name) },
          spec: {
            nodeSelector: pool.nodeSelector,
            tolerations: k.tolerationsFor(pool.taints),
            priorityClassName: 'system-node-critical',
            serviceAccountName: labeller,
            // The token only in the containers that label the Node (k.apiTokenVolume).
            automountServiceAccountToken: false,
            securityContext: { seccompProfile: { type: 'RuntimeDefault' } },
            // First the labels, before the pod is Running: a denied or failed label shows as
            // Init:Error.
            initContainers: [{
              name: 'label',
              image: k.image(p.kubectlImage, p.imageDigests),
              command: command,
              args: ['once'] + labelArgs,
              env: env,
              securityContext: restricted,
              resources: { requests: { cpu: '10m', memory: '32Mi' }, limits: { cpu: '500m', memory: '128Mi' } },
              volumeMounts: mounts,
            }],
            // Then the same pass every reassertSeconds; a failure exits (the pod restarts and
            // shows it). The kubectl image has sh, awk, sort, uniq, paste and sleep (debian-base
            // with coreutils and mawk: kubernetes/kubernetes build/server-image/kubectl/Dockerfile).
            containers: [{
              name: 'reassert',
              image: k.image(p.kubectlImage, p.imageDigests),
              command: command,
              args: ['loop'] + labelArgs,
              env: env,
              securityContext: restricted,
              resources: { requests: { cpu: '1m', memory: '32Mi' }, limits: { cpu: '200m', memory: '128Mi' } },
              volumeMounts: mounts,
            }],
            volumes: [k.scratchVolume('tmp'), k.apiTokenVolume],
          },
        },
      },
    };

  k.keyed(
    if p.nvidia.mode != 'operator' || std.length(pools) == 0 then []
    else labellerRbac + (if p.admission.enabled then labellerPolicy else []) + [nodeConfig(x) for x in pools]
  )
