// Per workload namespace, the ResourceClaimTemplates the input offers on `allocation: dra` pools
// and its ComputeDomains, so workloads write `resourceClaims` against names the platform
// guarantees. The DeviceClasses come from the DRA driver's chart (nvidia-dra-driver).
//
// A claim template (resource.k8s.io/v1 ResourceClaimTemplate, Kubernetes 1.34) has one request,
// `gpu`, of `count` devices of DeviceClass gpu.nvidia.com (whole GPUs) or mig.nvidia.com (MIG
// devices), narrowed to the pool's model and MIG profile (gpu.claimSelectors).
// Sharing is the driver's opaque config for the request: GpuConfig (whole GPUs) or
// MigDeviceConfig (MIG devices), resource.nvidia.com/v1beta1, `sharing.strategy` MPS (with
// mpsConfig) or TimeSlicing (with timeSlicingConfig for whole GPUs):
// api/nvidia.com/resource/v1beta1/{gpuconfig,migconfig,sharing}.go.
//
// A ComputeDomain (resource.nvidia.com/v1beta1, CRD from the chart) makes the driver generate
// the ResourceClaimTemplate `<name>-channel` in the namespace, which the domain's pods claim for
// their IMEX channel. Its spec is immutable (CRD rule `self == oldSelf`): changing one in the
// input makes the GitOps engine's apply fail until the ComputeDomain is deleted or renamed.
local gpu = import '../lib/gpu.libsonnet';
local k = import '../lib/k.libsonnet';

local defaults = {
  pools: [],
  workloads: [],
};

function(params)
  local p = defaults + params;
  local component = 'gpu-claims';
  local pools = { [x.name]: x for x in gpu.draPools(p.pools) };

  local sharingConfig(claim) =
    local s = claim.sharing;
    local mig = std.objectHas(claim, 'mig');
    {
      apiVersion: 'resource.nvidia.com/v1beta1',
      kind: if mig then 'MigDeviceConfig' else 'GpuConfig',
      sharing: { strategy: s.strategy }
               + (if s.strategy == 'MPS' && (std.objectHas(s, 'activeThreadPercentage') || std.objectHas(s, 'pinnedMemoryLimit')) then {
                    mpsConfig: {
                      [if std.objectHas(s, 'activeThreadPercentage') then 'defaultActiveThreadPercentage']: s.activeThreadPercentage,
                      [if std.objectHas(s, 'pinnedMemoryLimit') then 'defaultPinnedDeviceMemoryLimit']: s.pinnedMemoryLimit,
                    },
                  } else {})
               + (if std.objectHas(s, 'interval') then { timeSlicingConfig: { interval: s.interval } } else {}),
    };

  local claimTemplate(namespace, claim) =
    local pool = pools[claim.pool];
    local profile = std.get(claim, 'mig', null);
    k.object('resource.k8s.io/v1', 'ResourceClaimTemplate', claim.name, namespace, k.labels(component, claim.name)) + {
      spec: { spec: { devices: {
        requests: [{
          name: 'gpu',
          exactly: {
            deviceClassName: if profile == null then 'gpu.nvidia.com' else 'mig.nvidia.com',
            allocationMode: 'ExactCount',
            count: claim.count,
            [if std.length(gpu.claimSelectors(pool, profile)) > 0 then 'selectors']:
              [{ cel: { expression: e } } for e in gpu.claimSelectors(pool, profile)],
          },
        }],
        [if std.objectHas(claim, 'sharing') then 'config']: [{
          requests: ['gpu'],
          opaque: { driver: 'gpu.nvidia.com', parameters: sharingConfig(claim) },
        }],
      } } },
    };

  local computeDomain(namespace, domain) =
    k.object('resource.nvidia.com/v1beta1', 'ComputeDomain', domain.name, namespace, k.labels(component, domain.name)) + {
      spec: {
        numNodes: domain.numNodes,
        channel: {
          resourceClaimTemplate: { name: domain.name + '-channel' },
          allocationMode: if domain.allChannels then 'All' else 'Single',
        },
      },
    };

  k.keyed(std.flattenArrays([
    [claimTemplate(w.namespace, c) for c in w.claims]
    + [computeDomain(w.namespace, d) for d in w.computeDomains]
    for w in p.workloads
  ]))
