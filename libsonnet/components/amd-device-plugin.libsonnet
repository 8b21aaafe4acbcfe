// AMD GPUs. Device-plugin mode: per AMD pool the ROCm device plugin and node labeller
// DaemonSets, with the pool's taints tolerated (upstream's static manifests tolerate only
// CriticalAddonsOnly, so a tainted GPU node would never get them). Operator mode: one
// DeviceConfig (amd.com/v1alpha1) per pool, with the same tolerations for every operand.
local gpu = import '../lib/gpu.libsonnet';
local k = import '../lib/k.libsonnet';
// Images and their sources: versions.json (docs/versions.md).
local versions = import '../versions.json';

local defaults = {
  pools: [],
  providerFacts: error 'must provide providerFacts',
  amd: error 'must provide amd',
  monitoring: error 'must provide monitoring',
  namespace: 'kube-system',
  operatorNamespace: 'kube-amd-gpu',
  image: versions.repositories.amdDevicePlugin.repository,
  imageDigests: {},
  // spec.admission: where ValidatingAdmissionPolicy is served (enabled), the labeller's
  // ServiceAccount is held to the AMD GPU labels of its own Node.
  admission: { enabled: false },
};

function(params)
  local p = defaults + params;
  local component = 'amd-device-plugin';
  local pools = gpu.poolsOf(p.pools, 'amd');
  local labellerName = 'amdgpu-node-labeller';
  local labellerLabels = k.labels(component, labellerName);
  local pluginImage = p.image + ':' + p.amd.devicePluginVersion;
  local labellerImage = p.image + ':labeller-' + p.amd.devicePluginVersion;

  // Both run as root, as upstream's manifests (k8s-ds-amdgpu-dp.yaml, k8s-ds-amdgpu-labeller.yaml)
  // and images (no USER) do, with a read-only root: the plugin logs to stderr
  // (-logtostderr) and writes only its socket in the hostPath, the labeller logs to stderr (zap)
  // and writes nothing (cmd/k8s-device-plugin/main.go, cmd/k8s-node-labeller/main.go). Neither
  // serves a health endpoint (the labeller's controller-runtime manager gets no probe address)
  // and upstream probes neither. `exceptions` says why for each check kept (k.exceptions).
  local common = {
    CKV_K8S_23: 'runs as root as upstream (image without USER; root-owned kubelet and device files)',
    CKV_K8S_40: 'runs as root as upstream (image without USER; root-owned kubelet and device files)',
    CKV_K8S_8: 'serves no health endpoint (upstream has no probes)',
    CKV_K8S_9: 'serves no readiness endpoint (upstream has no probes)',
  };
  local daemonSet(name, pool, container, volumes, exceptions, serviceAccount=null) =
    k.object('apps/v1',
             'DaemonSet',
             name,
             p.namespace,
             k.labels(component, name),
             k.exceptions(common + exceptions + k.unpinned([container.image], p.imageDigests))) + {
      spec: {
        selector: { matchLabels: k.selectorLabels(name) },
        updateStrategy: { type: 'RollingUpdate' },
        template: {
          metadata: { labels: k.labels(component, name) },
          spec: {
            nodeSelector: pool.nodeSelector,
            tolerations: k.tolerationsFor(pool.taints),
            priorityClassName: 'system-node-critical',
            [if serviceAccount != null then 'serviceAccountName']: serviceAccount,
            // Only the labeller talks to the API server (it patches its Node).
            automountServiceAccountToken: serviceAccount != null,
            // A no-op for the privileged labeller (the runtime runs privileged containers
            // unconfined); the plugin runs under the runtime's default profile.
            securityContext: { seccompProfile: { type: 'RuntimeDefault' } },
            containers: [container { image: k.image(super.image, p.imageDigests) }],
            volumes: volumes,
          },
        },
      },
    };

  local hostPath(name, path) = { name: name, hostPath: { path: path, type: 'Directory' } };

  local devicePlugin(pool) = daemonSet('amdgpu-device-plugin-' + pool.name, pool, {
    name: 'amdgpu-dp-cntr',
    image: pluginImage,
    // The image has no ENTRYPOINT, only `CMD ["./k8s-device-plugin", ...]` in WORKDIR /root
    // (ROCm/k8s-device-plugin Dockerfile, v1.31.0.9): `args` alone would replace that CMD and
    // run the flag as the program, so the command is named as upstream's labeller manifest
    // does (k8s-ds-amdgpu-labeller.yaml: workingDir /root, command ./k8s-node-labeller).
    // -resource_naming_strategy is the plugin's flag (cmd/k8s-device-plugin/main.go).
    workingDir: '/root',
    command: ['./k8s-device-plugin'],
    args: ['-logtostderr=true', '-resource_naming_strategy=' + pool.gpu.resourceNaming],
    securityContext: { readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
    resources: { requests: { cpu: '10m', memory: '32Mi' }, limits: { cpu: '200m', memory: '128Mi' } },
    volumeMounts: [
      { name: 'dp', mountPath: '/var/lib/kubelet/device-plugins' },
      { name: 'sys', mountPath: '/sys', readOnly: true },
    ],
  }, [hostPath('dp', '/var/lib/kubelet/device-plugins'), hostPath('sys', '/sys')], {
    SEC002: 'registers with the kubelet through /var/lib/kubelet/device-plugins and reads the GPUs from /sys',
  });

  local labeller(pool) = daemonSet(labellerName + '-' + pool.name, pool, {
    name: 'amdgpu-lr-cntr',
    image: labellerImage,
    workingDir: '/root',
    command: ['./k8s-node-labeller'],
    args: ['-vram', '-cu-count', '-simd-count', '-device-id', '-family', '-driver-version'],
    env: [{ name: 'DS_NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }],
    // Reading the devices under /dev needs privilege (as upstream).
    securityContext: { privileged: true, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
    resources: { requests: { cpu: '10m', memory: '32Mi' }, limits: { cpu: '200m', memory: '128Mi' } },
    // /sys read-only as upstream (k8s-ds-amdgpu-labeller.yaml and the amd-gpu chart's labeller.yaml).
    volumeMounts: [{ name: 'sys', mountPath: '/sys', readOnly: true }, { name: 'dev', mountPath: '/dev' }],
  }, [hostPath('sys', '/sys'), hostPath('dev', '/dev')], {
    SEC002: 'reads the GPU properties from /sys and the device files under /dev',
    CKV_K8S_16: 'opens the GPU device files under /dev as upstream (privileged)',
    CKV_K8S_20: 'privileged as upstream to open the GPU device files',
    CKV_K8S_38: 'patches its own Node labels through the API',
  }, labellerName);

  // The labeller updates its own Node: nodes are cluster-scoped, so a ClusterRole, with the verbs
  // upstream grants (watch, get, list, update: cmd/k8s-node-labeller/README.md and
  // k8s-ds-amdgpu-labeller.yaml; it writes with Update, never Patch).
  local labellerRbac = [
    k.object('v1', 'ServiceAccount', labellerName, p.namespace, labellerLabels),
    k.object('rbac.authorization.k8s.io/v1', 'ClusterRole', labellerName, labels=labellerLabels) + {
      rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch', 'update'] }],
    },
    k.object('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', labellerName, labels=labellerLabels) + {
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: labellerName },
      subjects: [{ kind: 'ServiceAccount', name: labellerName, namespace: p.namespace }],
    },
  ];

  // The labeller is privileged with the host's /dev and /sys, and `update` on nodes lets its
  // ServiceAccount rewrite any Node: held, as gpu-node-config's, to the labels it owns
  // (amd.com/gpu.* and beta.amd.com/gpu.*: cmd/k8s-node-labeller, which also removes the stale
  // ones) on the Node its own pod runs on (k.ownNodeLabelsPolicy; its automounted token is
  // pod-bound and names the node).
  local labellerPolicy = k.ownNodeLabelsPolicy(
    labellerName,
    p.namespace,
    labellerName,
    labellerLabels,
    mayChange="l.startsWith('amd.com/gpu.') || l.startsWith('beta.amd.com/gpu.')",
    labelsText='amd.com/gpu.* and beta.amd.com/gpu.*',
  );

  local deviceConfig(pool) =
    local tolerations = k.tolerationsFor(pool.taints);
    k.object('amd.com/v1alpha1', 'DeviceConfig', 'amd-gpu-' + pool.name, p.operatorNamespace, k.labels(component, 'amd-gpu-' + pool.name)) + {
      spec: {
        selector: pool.nodeSelector,
        driver: if p.amd.driverManaged then {
          enable: true,
          // The inbox amdgpu module must not load before the operator's out-of-tree one (takes
          // effect after a reboot). OpenShift ignores it: there a MachineConfig blacklists it.
          blacklist: p.providerFacts.amdInboxDriverBlacklist,
          // Where KMM pushes the driver image it builds (required input except on OpenShift,
          // whose internal registry is the CRD default).
          [if std.objectHas(p.amd, 'driverImage') then 'image']: p.amd.driverImage,
          [if std.objectHas(p.amd, 'imageRegistrySecret') then 'imageRegistrySecret']: { name: p.amd.imageRegistrySecret },
          version: p.amd.driverVersion,
          tolerations: tolerations,
          upgradePolicy: { enable: true, maxParallelUpgrades: 1, maxUnavailableNodes: '25%', rebootRequired: true },
        } else { enable: false },
        // The v1.4.0 DeviceConfig CRD (ROCm/gpu-operator config/crd/bases/amd.com_deviceconfigs.yaml
        // at v1.4.0) has no enableDevicePlugin: the operator always runs the plugin; the flag
        // arrived with a later release and the deployed CRD would prune or refuse it.
        // The pinned images (and their images.digests pins), not the operator's defaults:
        // v1.4.0 runs rocm/k8s-device-plugin:latest and labeller-latest when these are unset
        // (ROCm/gpu-operator internal/kmmmodule/kmmmodule.go defaultDevicePluginImage,
        // v1.4.0), so a node added later could run another plugin than the others.
        devicePlugin: {
          devicePluginImage: k.image(pluginImage, p.imageDigests),
          nodeLabellerImage: k.image(labellerImage, p.imageDigests),
          enableNodeLabeller: true,
          devicePluginArguments: { resource_naming_strategy: pool.gpu.resourceNaming },
          devicePluginTolerations: tolerations,
          nodeLabellerTolerations: tolerations,
        },
        metricsExporter: {
          enable: true,
          tolerations: tolerations,
          prometheus: {
            serviceMonitor: {
              enable: p.monitoring.serviceMonitor,
              [if p.monitoring.serviceMonitor && p.monitoring.serviceMonitorLabels != {} then 'labels']: p.monitoring.serviceMonitorLabels,
            },
          },
        },
      },
    };

  k.keyed(
    if std.length(pools) == 0 then []
    else if p.amd.mode == 'operator' then [deviceConfig(x) for x in pools]
    else labellerRbac + (if p.admission.enabled then labellerPolicy else [])
         + std.flattenArrays([[devicePlugin(x), labeller(x)] for x in pools])
  )
