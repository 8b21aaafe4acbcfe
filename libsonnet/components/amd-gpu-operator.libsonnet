// AMD GPU Operator (operator mode) as a pinned Helm release; the per-pool DeviceConfigs that
// drive it are rendered by amd-device-plugin. The chart needs cert-manager (its KMM webhooks'
// certificates), which the cluster must already run.
local gpu = import '../lib/gpu.libsonnet';
local helm = import '../lib/helm.libsonnet';
local k = import '../lib/k.libsonnet';

local defaults = {
  gitops: error 'must provide gitops',
  pools: [],
  amd: error 'must provide amd',
  nfd: { enabled: true },
  namespace: 'kube-amd-gpu',
  repoURL: 'https://rocm.github.io/gpu-operator',
  chart: 'gpu-operator-charts',
};

function(params)
  local p = defaults + params;
  local pools = gpu.poolsOf(p.pools, 'amd');
  local values = {
    // The project's own node-feature-discovery labels the nodes when it is enabled.
    'node-feature-discovery': { enabled: !p.nfd.enabled },
    // The chart's rule labels by device id (feature.node.kubernetes.io/amd-gpu); with NFD
    // enabled node-feature-rules labels the nodes and nothing here selects on that label.
    installdefaultNFDRule: !p.nfd.enabled,
    // The chart would install a DeviceConfig `default` over every AMD node, a second owner of
    // the nodes that amd-device-plugin's per-pool DeviceConfigs already cover.
    crds: { defaultCR: { install: false, upgrade: false } },
  };
  k.keyed(
    if p.amd.mode != 'operator' || std.length(pools) == 0 then []
    else [
      // The release's namespace holds its Helm storage and operands: kept with the release.
      k.namespace(p.namespace,
                  k.labels('amd-gpu-operator') + { 'pod-security.kubernetes.io/enforce': 'privileged' },
                  k.keepOnRemoval(p.gitops.engine)),
    ] + helm.release(p, 'amd-gpu-operator', p.namespace, p.repoURL, p.chart, p.amd.operatorVersion, values)
  )
