// GPU facts derived from the node pools, shared by the GPU components so that the device
// plugin, the operator values, the exporters and the validators all read one source.
local k = import 'k.libsonnet';

{
  poolsOf(pools, vendor):: [p for p in pools if std.objectHas(p, 'gpu') && p.gpu.vendor == vendor],

  migStrategy(pool):: pool.gpu.mig.strategy,
  usesMig(pool):: $.migStrategy(pool) != 'none',

  // Tolerations for the union of the pools' taints (one per key and effect, operator Exists).
  tolerationsForPools(pools)::
    local taints = std.flattenArrays([p.taints for p in pools]);
    local unique = std.uniq(std.sort(taints, function(t) t.key + ':' + t.effect), function(t) t.key + ':' + t.effect);
    k.tolerationsFor(unique),

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
