// NVIDIA GPU Operator (operator mode) as a pinned Helm release with typed values: driver,
// toolkit, device plugin configs (one per pool), MIG strategy and mig-parted layouts (one per
// MIG pool), DCGM exporter with its ServiceMonitor, validator, and operand tolerations computed
// from the NVIDIA pools' taints so no operand DaemonSet stays at zero pods on a tainted pool.
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
// select a pool's nodes by their nodeSelector. So per pool a DaemonSet with the pool's
// nodeSelector labels its own node once (init container) and then idles.
local gpu = import '../lib/gpu.libsonnet';
local helm = import '../lib/helm.libsonnet';
local k = import '../lib/k.libsonnet';

local defaults = {
  cluster: error 'must provide cluster',
  provider: error 'must provide provider',
  kubernetesVersion: error 'must provide kubernetesVersion',
  gitops: error 'must provide gitops',
  pools: [],
  nvidia: error 'must provide nvidia',
  monitoring: error 'must provide monitoring',
  nfd: { enabled: true },
  namespace: 'gpu-operator',
  repoURL: 'https://helm.ngc.nvidia.com/nvidia',
  chart: 'gpu-operator',
  // Names of the ConfigMaps the chart creates from the values below.
  devicePluginConfigName: 'gpu-gitops-device-plugin-config',
  migConfigName: 'gpu-gitops-mig-parted-config',
  // The official kubectl image (ENTRYPOINT ["/bin/kubectl"]: kubernetes/kubernetes
  // build/server-image/kubectl/Dockerfile, published from v1.28); `kubectl label` on a Node
  // uses only the stable core/v1 API.
  kubectlImage: 'registry.k8s.io/kubectl:v1.32.8',
  pauseImage: 'registry.k8s.io/pause:3.10',
};

function(params)
  local p = defaults + params;
  local pools = gpu.poolsOf(p.pools, 'nvidia');
  local migPools = [x for x in pools if gpu.usesMig(x)];
  // One strategy for the cluster (checked in generator/consistency/gpu.py).
  local strategy = if std.length(migPools) > 0 then gpu.migStrategy(migPools[0]) else 'none';
  // The device plugin config of a node that has no label yet (config-manager DEFAULT_CONFIG):
  // the pools' config when they all share one, so their nodes are right from the start.
  local poolConfigs = std.set([std.manifestJsonMinified(gpu.devicePluginConfig(x)) for x in pools]);
  local defaultConfig =
    if std.length(poolConfigs) == 1 then gpu.devicePluginConfig(pools[0])
    else { version: 'v1', flags: { migStrategy: strategy, failOnInitError: true } };
  // The labels that select a pool's configs on its nodes (see the header).
  local nodeConfigLabels(pool) = {
    'nvidia.com/device-plugin.config': pool.name,
    [if std.length(migPools) > 0 then 'nvidia.com/mig.config']: if gpu.usesMig(pool) then pool.name else 'all-disabled',
  };
  local tolerations = gpu.tolerationsForPools(pools);
  local driver = p.nvidia.driver;

  local values = {
    // OpenShift: operands get their SCCs and the driver is built for RHCOS.
    [if p.provider == 'openshift' then 'platform']: { openshift: true },
    // The project's own node-feature-discovery labels the nodes when it is enabled.
    nfd: { enabled: !p.nfd.enabled },
    daemonsets: { priorityClassName: 'system-node-critical', tolerations: tolerations },
    driver: {
      enabled: driver.managed,
      [if driver.managed then 'version']: driver.version,
      [if driver.managed then 'upgradePolicy']: {
        autoUpgrade: driver.upgradePolicy.autoUpgrade,
        maxParallelUpgrades: driver.upgradePolicy.maxParallelUpgrades,
        maxUnavailable: driver.upgradePolicy.maxUnavailable,
        drain: { enable: driver.upgradePolicy.drain, force: false, timeoutSeconds: 300, deleteEmptyDir: false },
      },
    },
    toolkit: { enabled: p.nvidia.toolkit.enabled },
    devicePlugin: {
      enabled: true,
      // A pool's nodes select their config with nvidia.com/device-plugin.config=<pool name>;
      // `default` serves a node not labelled yet.
      config: {
        create: true,
        name: p.devicePluginConfigName,
        default: 'default',
        data: { default: k.yaml(defaultConfig) } + {
          [x.name]: k.yaml(gpu.devicePluginConfig(x))
          for x in pools
        },
      },
    },
    mig: { strategy: strategy },
    migManager: {
      enabled: std.length(migPools) > 0,
      [if std.length(migPools) > 0 then 'config']: {
        create: true,
        name: p.migConfigName,
        default: 'all-disabled',
        data: { 'config.yaml': k.yaml(gpu.migPartedConfig(migPools)) },
      },
    },
    dcgmExporter: {
      enabled: p.monitoring.dcgmExporter,
      serviceMonitor: {
        enabled: p.monitoring.dcgmExporter && p.monitoring.serviceMonitor,
        honorLabels: p.monitoring.honorLabels,
        // so the cluster's Prometheus selects it (kube-prometheus-stack: `release`)
        [if p.monitoring.serviceMonitorLabels != {} then 'additionalLabels']: p.monitoring.serviceMonitorLabels,
      },
    },
    // The plugin validation would otherwise start a pod that takes a GPU on every node.
    validator: { plugin: { env: [{ name: 'WITH_WORKLOAD', value: 'false' }] } },
  } + (if p.nfd.enabled then {} else {
         'node-feature-discovery': { worker: { tolerations: tolerations } },
       });

  local component = 'nvidia-gpu-operator';
  local labeller = 'gpu-node-config';
  local labellerLabels = k.labels(component, labeller);
  // OpenShift's restricted-v2 SCC assigns the UID from the namespace's range (MustRunAsRange).
  local restricted = {
    runAsNonRoot: true,
    [if p.provider != 'openshift' then 'runAsUser']: 65534,
    allowPrivilegeEscalation: false,
    capabilities: { drop: ['ALL'] },
    seccompProfile: { type: 'RuntimeDefault' },
  };
  // `kubectl label` reads the Node and patches its labels: nodes are cluster-scoped.
  local labellerRbac = [
    k.object('v1', 'ServiceAccount', labeller, p.namespace, labellerLabels),
    k.object('rbac.authorization.k8s.io/v1', 'ClusterRole', labeller, labels=labellerLabels) + {
      rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get', 'patch'] }],
    },
    k.object('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', labeller, labels=labellerLabels) + {
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: labeller },
      subjects: [{ kind: 'ServiceAccount', name: labeller, namespace: p.namespace }],
    },
  ];
  local nodeConfig(pool) =
    local name = labeller + '-' + pool.name;
    local labels = nodeConfigLabels(pool);
    k.object('apps/v1', 'DaemonSet', name, p.namespace, k.labels(component, name)) + {
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
            initContainers: [{
              name: 'label',
              image: p.kubectlImage,
              // The discovery cache goes to /tmp: the image's HOME (/root) is not writable
              // for the non-root UID.
              args: ['label', 'node', '$(NODE_NAME)', '--overwrite', '--cache-dir=/tmp/kubectl-cache']
                    + [key + '=' + labels[key] for key in std.objectFields(labels)],
              env: [{ name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }],
              securityContext: restricted,
              resources: { requests: { cpu: '10m', memory: '32Mi' }, limits: { memory: '128Mi' } },
            }],
            containers: [{
              name: 'configured',
              image: p.pauseImage,
              securityContext: restricted,
              resources: { requests: { cpu: '1m', memory: '8Mi' }, limits: { memory: '16Mi' } },
            }],
          },
        },
      },
    };

  if p.nvidia.mode != 'operator' || std.length(pools) == 0 then []
  else [
    k.namespace(p.namespace, k.labels(component) + {
      // Operands (driver, toolkit, MIG manager) are privileged host agents.
      'pod-security.kubernetes.io/enforce': 'privileged',
    }),
  ] + helm.release(p, 'gpu-operator', p.namespace, p.repoURL, p.chart, p.nvidia.operatorVersion, values)
  + labellerRbac + [nodeConfig(x) for x in pools]
