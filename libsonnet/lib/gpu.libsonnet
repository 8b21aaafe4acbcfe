// GPU facts derived from the node pools, shared by the GPU components so that the device
// plugin, the operator values, the exporters and the validators all read one source.
local k = import 'k.libsonnet';

{
  poolsOf(pools, vendor):: [p for p in pools if std.objectHas(p, 'gpu') && p.gpu.vendor == vendor],

  // Whether the admission component's GPU policy requires every GPU container to set its own
  // memory limit (rendered where admission is on and the cluster has GPU pools). The
  // LimitRanger mutating plugin runs before validating admission, so a LimitRange default
  // memory limit would fill it in on a bare Pod and the policy would admit it, while the same
  // pod spec in a Deployment (templates are not defaulted) is denied: the workload namespaces'
  // LimitRange defaults requests only
  // (https://kubernetes.io/docs/reference/access-authn-authz/admission-controllers/, "LimitRanger"
  // mutating, "ValidatingAdmissionPolicy" validating; admission runs mutating then validating).
  requiresMemoryLimit(admission, pools)::
    admission.enabled && admission.enforceMemoryLimits
    && std.length([x for x in pools if std.objectHas(x, 'gpu')]) > 0,

  // A pool whose GPUs several pods share (time-slicing replicas). dcgm-exporter maps a GPU to
  // the pod holding it from the kubelet's pod-resources; a shared GPU is advertised as several
  // device IDs (<uuid>::<n>), which it maps to their pods only with KUBERNETES_VIRTUAL_GPUS=true
  // (NVIDIA/dcgm-exporter pkg/cmd/app.go "Capture metrics associated with virtual GPUs exposed
  // by Kubernetes device plugins when using GPU sharing strategies, e.g. time-sharing or MPS",
  // 4.x): without it the sharers' series carry no pod, so autoscaling on them under-counts.
  sharesGpus(pool):: std.objectHas(pool.gpu, 'timeSlicing'),
  virtualGpuEnv:: [{ name: 'KUBERNETES_VIRTUAL_GPUS', value: 'true' }],

  migStrategy(pool):: pool.gpu.mig.strategy,
  usesMig(pool):: $.migStrategy(pool) != 'none',

  // Dynamic Resource Allocation: a pool with `allocation: dra` gets its GPUs to pods through the
  // NVIDIA DRA driver's ResourceSlices and claims, never through the device plugin (the two
  // cannot share a node: nvidia-dra-driver-gpu 25.12.0 templates/validation.yaml).
  isDra(pool):: std.get(pool.gpu, 'allocation', 'device-plugin') == 'dra',
  draPools(pools):: [p for p in $.poolsOf(pools, 'nvidia') if $.isDra(p)],
  devicePluginPools(pools):: [p for p in $.poolsOf(pools, 'nvidia') if !$.isDra(p)],

  // The node label the DRA driver's kubelet plugin is scheduled by in operator mode, and that the
  // GPU Operator's driver manager is told (NODE_LABEL_FOR_GPU_POD_EVICTION) so it evicts the
  // plugin before reloading the driver: NVIDIA's "Install the NVIDIA GPU Operator (for DRA)"
  // (k8s-dra-driver-gpu docs, with `kubeletPlugin.nodeSelector` on the same label).
  draPluginLabel:: 'nvidia.com/dra-kubelet-plugin',

  // A DRA pool with MIG under the GPU Operator: its kubelet plugin lists devices once, when it
  // starts (cmd/gpu-kubelet-plugin/device_state.go NewDeviceState, v25.12.0), so gpu-node-config
  // labels it onto a node only once mig-manager reports the layout applied
  // (nvidia.com/mig.config.state=success) and restarts it when its ResourceSlices differ.
  migGatesDraPlugin(pool):: $.isDra(pool) && $.usesMig(pool),

  // The CEL selectors of a DRA request for `pool`'s devices, on the attributes the kubelet
  // plugin publishes for every device (cmd/gpu-kubelet-plugin/deviceinfo.go and partitions.go,
  // NVIDIA/k8s-dra-driver-gpu v25.12.0): `productName` (NVML's device name, e.g. "NVIDIA B200")
  // matched against the pool's model family, the part of `gpu.model` before its first '-', as a
  // whole word and ignoring case (so B200 never matches GB200), and for MIG devices `profile`
  // (the MIG profile name, e.g. 3g.90gb).
  claimSelectors(pool, profile=null)::
    local family = std.asciiLower(std.split(pool.gpu.model, '-')[0]);
    local attribute(name) = "device.attributes['gpu.nvidia.com'].%s" % name;
    (if std.objectHas(pool.gpu, 'model') then [
       "%s.matches('(?i)(^|[^a-z0-9])%s([^a-z0-9]|$)')" % [attribute('productName'), family],
     ] else [])
    + (if profile != null then ["%s == '%s'" % [attribute('profile'), profile]] else []),

  // Tolerations for the union of the pools' taints (one per key and effect, operator Exists).
  tolerationsForPools(pools)::
    local taints = std.flattenArrays([p.taints for p in pools]);
    local unique = std.uniq(std.sort(taints, function(t) t.key + ':' + t.effect), function(t) t.key + ':' + t.effect);
    k.tolerationsFor(unique),

  // GPU Operator mode: the labels that select a pool's configs on its nodes, by the config
  // names nvidia-gpu-operator gives them (the pool's name): its device plugin config, and when
  // any of `pools` (the NVIDIA pools) uses MIG, its mig-parted layout or all-disabled.
  // A dra pool's nodes also get the operator's per-node switch that keeps its device plugin
  // off (nvidia.com/gpu.deploy.device-plugin=false: the operator only sets a deploy label that
  // is missing or empty, controllers/state_manager.go addGPUStateLabels, v26.7.0) and the label
  // the DRA kubelet plugin is scheduled by.
  operatorNodeLabels(pools, pool):: {
    'nvidia.com/device-plugin.config': pool.name,
    [if std.length([x for x in pools if $.usesMig(x)]) > 0 then 'nvidia.com/mig.config']:
      if $.usesMig(pool) then pool.name else 'all-disabled',
  } + (if $.isDra(pool) then {
         'nvidia.com/gpu.deploy.device-plugin': 'false',
         [$.draPluginLabel]: 'true',
       } else {}),

  // k8s-device-plugin config file (api/config/v1): MIG strategy and time-slicing of one pool.
  devicePluginConfig(pool):: {
    version: 'v1',
    flags: { migStrategy: $.migStrategy(pool), failOnInitError: true },
    [if std.objectHas(pool.gpu, 'timeSlicing') then 'sharing']: {
      timeSlicing: {
        renameByDefault: pool.gpu.timeSlicing.renameByDefault,
        failRequestsGreaterThanOne: pool.gpu.timeSlicing.failRequestsGreaterThanOne,
        resources: [{ name: 'nvidia.com/gpu', replicas: pool.gpu.timeSlicing.replicas }],
      },
    },
  },

  // What one node of the pool advertises to the kubelet, by resource: MIG `mixed` one resource
  // per profile (nvidia.com/mig-<profile>), `single` every slice as nvidia.com/gpu, time-slicing
  // `replicas` per GPU (nvidia.com/gpu.shared with renameByDefault: k8s-device-plugin
  // api/config/v1 sharing, v0.20.0); AMD `single` naming amd.com/gpu per GPU (ROCm
  // k8s-device-plugin). Empty where the names depend on the hardware (AMD `mixed` partitions).
  // generator/inputs/consistency/workloads.py counts quota capacity the same way.
  // A dra pool advertises no extended resource: its devices are in ResourceSlices
  // (draDevicesPerNode).
  advertisedPerNode(pool)::
    local g = pool.gpu;
    if g.vendor == 'nvidia' && $.isDra(pool) then {}
    else if g.vendor == 'amd' then (if g.resourceNaming == 'single' then { 'amd.com/gpu': g.perNode } else {})
    else if $.migStrategy(pool) == 'mixed' then { ['nvidia.com/mig-' + name]: g.mig.profiles[name] * g.perNode for name in std.objectFields(g.mig.profiles) }
    else if $.migStrategy(pool) == 'single' then { 'nvidia.com/gpu': std.foldl(function(sum, name) sum + g.mig.profiles[name], std.objectFields(g.mig.profiles), 0) * g.perNode }
    else if std.objectHas(g, 'timeSlicing') then { [if g.timeSlicing.renameByDefault then 'nvidia.com/gpu.shared' else 'nvidia.com/gpu']: g.timeSlicing.replicas * g.perNode }
    else { 'nvidia.com/gpu': g.perNode },

  // What the DRA kubelet plugin publishes in one node's ResourceSlices, by device `type`
  // attribute and MIG profile: "gpu" per GPU with MIG off, else "mig/<profile>" per MIG device and
  // no whole GPU (cmd/gpu-kubelet-plugin/nvlib.go enumerateGpusAndMigDevices and deviceinfo.go,
  // NVIDIA/k8s-dra-driver-gpu v25.12.0, static MIG). generator/inputs/consistency/dra.py counts the same.
  draDevicesPerNode(pool)::
    local g = pool.gpu;
    if $.usesMig(pool) then { ['mig/' + name]: g.mig.profiles[name] * g.perNode for name in std.objectFields(g.mig.profiles) }
    else { gpu: g.perNode },

  // mig-parted config (version v1): one named layout per MIG pool, selected on a node by the
  // label nvidia.com/mig.config=<pool name>; all-disabled is the default for every other node.
  migPartedConfig(pools):: {
    version: 'v1',
    'mig-configs': {
      'all-disabled': [{ devices: 'all', 'mig-enabled': false }],
    } + {
      [p.name]: [{ devices: 'all', 'mig-enabled': true, 'mig-devices': p.gpu.mig.profiles }]
      for p in pools
      if $.usesMig(p)
    },
  },

  // Node affinity for "any node of these pools" (each pool's nodeSelector is one term).
  poolsAffinity(pools):: {
    nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [
      { matchExpressions: [
        { key: key, operator: 'In', values: [p.nodeSelector[key]] }
        for key in std.objectFields(p.nodeSelector)
      ] }
      for p in pools
    ] } },
  },
}
