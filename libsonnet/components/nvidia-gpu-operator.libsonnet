// NVIDIA GPU Operator (operator mode) as a pinned Helm release with typed values: driver,
// toolkit, device plugin configs (one per pool), MIG strategy and mig-parted layouts (one per
// MIG pool), DCGM exporter with its ServiceMonitor, validator, and operand tolerations computed
// from the NVIDIA pools' taints so no operand DaemonSet stays at zero pods on a tainted pool.
// The configs are keyed by pool name; gpu-node-config labels each pool's nodes with them.
local gpu = import '../lib/gpu.libsonnet';
local helm = import '../lib/helm.libsonnet';
local k = import '../lib/k.libsonnet';

local defaults = {
  cluster: error 'must provide cluster',
  providerFacts: error 'must provide providerFacts',
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
};

function(params)
  local p = defaults + params;
  local pools = gpu.poolsOf(p.pools, 'nvidia');
  local migPools = [x for x in pools if gpu.usesMig(x)];
  // One strategy for the cluster (input check IN213, docs/input-checks.md).
  local strategy = if std.length(migPools) > 0 then gpu.migStrategy(migPools[0]) else 'none';
  // The device plugin config of a node that has no label yet (config-manager DEFAULT_CONFIG):
  // the pools' config when they all share one, so their nodes are right from the start.
  local poolConfigs = std.set([std.manifestJsonMinified(gpu.devicePluginConfig(x)) for x in pools]);
  local defaultConfig =
    if std.length(poolConfigs) == 1 then gpu.devicePluginConfig(pools[0])
    else { version: 'v1', flags: { migStrategy: strategy, failOnInitError: true } };

  local tolerations = gpu.tolerationsForPools(pools);
  local driver = p.nvidia.driver;
  // Pools with allocation: dra (nvidia-dra-driver): the operator's device plugin is off on their
  // nodes (gpu-node-config labels them nvidia.com/gpu.deploy.device-plugin=false), or everywhere
  // when every NVIDIA pool is one; the driver manager evicts the DRA kubelet plugin, by its node
  // label, before it reloads the driver. NVIDIA's "Install the NVIDIA GPU Operator (for DRA)":
  // devicePlugin.enabled=false, driver.manager.env NODE_LABEL_FOR_GPU_POD_EVICTION=
  // nvidia.com/dra-kubelet-plugin (k8s-driver-manager flag node-label-for-gpu-pod-eviction).
  local draPools = gpu.draPools(pools);
  local devicePluginPools = gpu.devicePluginPools(pools);
  // dcgm-exporter maps DRA-allocated GPUs to pods with KUBERNETES_ENABLE_DRA (dcgm-exporter
  // 4.4.1-4.6.0 pkg/cmd/app.go); the operator mounts the exporter's API token only when pod
  // metadata is on (controllers/object_controls.go dcgmExporterEnvRequiresAPIAccess, v26.7.0),
  // so the pod UID is turned on too, and its ClusterRole has no resourceslices
  // (assets/state-dcgm-exporter/0210_clusterrole.yaml): draExporterAccess grants them.
  local draMetrics = p.nvidia.draPodMetrics && std.length(draPools) > 0 && p.monitoring.dcgmExporter;

  // OpenShift (nvidiaGpuOperatorValues in providers.json): operands get their SCCs and the
  // driver is built for RHCOS.
  // One exporter for every pool: the pods of shared GPUs only with virtual GPUs on
  // (gpu.sharesGpus; values.yaml dcgmExporter.env, v26.7.0), DRA-allocated GPUs with DRA on.
  local exporterEnv = (if std.length([x for x in pools if gpu.sharesGpus(x)]) > 0 then gpu.virtualGpuEnv else [])
                      + (if draMetrics then [
                           { name: 'KUBERNETES_ENABLE_DRA', value: 'true' },
                           { name: 'DCGM_EXPORTER_KUBERNETES_ENABLE_POD_UID', value: 'true' },
                         ] else []);
  local values = p.providerFacts.nvidiaGpuOperatorValues {
    // The project's own node-feature-discovery labels the nodes when it is enabled.
    nfd: { enabled: !p.nfd.enabled },
    daemonsets: { priorityClassName: 'system-node-critical', tolerations: tolerations },
    driver: {
      enabled: driver.managed,
      [if driver.managed && std.length(draPools) > 0 then 'manager']: {
        env: [{ name: 'NODE_LABEL_FOR_GPU_POD_EVICTION', value: gpu.draPluginLabel }],
      },
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
      enabled: std.length(devicePluginPools) > 0,
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
      [if std.length(exporterEnv) > 0 then 'env']: exporterEnv,
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

  // The operator's exporter account (assets/state-dcgm-exporter/0100_service_account.yaml,
  // nvidia-dcgm-exporter in the operator's namespace) may read the ResourceSlices that map
  // DRA devices to GPUs, at the version the exporter's informer reads (resource.k8s.io/v1beta1:
  // RBAC names no version).
  local draExporterAccess = [
    k.object('rbac.authorization.k8s.io/v1', 'ClusterRole', 'nvidia-dcgm-exporter-read-resourceslices', labels=k.labels('nvidia-gpu-operator')) + {
      rules: [{ apiGroups: ['resource.k8s.io'], resources: ['resourceslices'], verbs: ['get', 'list', 'watch'] }],
    },
    k.object('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', 'nvidia-dcgm-exporter-read-resourceslices', labels=k.labels('nvidia-gpu-operator')) + {
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'nvidia-dcgm-exporter-read-resourceslices' },
      subjects: [{ kind: 'ServiceAccount', name: 'nvidia-dcgm-exporter', namespace: p.namespace }],
    },
  ];

  k.keyed(
    if p.nvidia.mode != 'operator' || std.length(pools) == 0 then []
    else [
           // The release's namespace holds its Helm storage and operands: kept with the release.
           k.namespace(p.namespace, k.labels('nvidia-gpu-operator') + {
             // Operands (driver, toolkit, MIG manager) are privileged host agents.
             'pod-security.kubernetes.io/enforce': 'privileged',
           }, k.keepOnRemoval(p.gitops.engine)),
         ]
         // The operator and its operands run system-node-critical (values operator and
         // daemonsets.priorityClassName), and so does gpu-node-config in this namespace.
         + k.criticalPodsQuota(p.providerFacts, p.namespace, k.labels('nvidia-gpu-operator'))
         + helm.release(p, 'gpu-operator', p.namespace, p.repoURL, p.chart, p.nvidia.operatorVersion, values)
         + (if draMetrics then draExporterAccess else [])
  )
