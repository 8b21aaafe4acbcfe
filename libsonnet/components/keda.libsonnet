// KEDA as a pinned Helm release, rendered only when some workload scales on GPU metrics.
local helm = import '../lib/helm.libsonnet';

local defaults = {
  gitops: error 'must provide gitops',
  autoscaling: error 'must provide autoscaling',
  workloads: [],
  namespace: 'keda',
  repoURL: 'https://kedacore.github.io/charts',
  chart: 'keda',
};

function(params)
  local p = defaults + params;
  local used = std.length(std.flattenArrays([w.autoscaling for w in p.workloads])) > 0;
  if !used then []
  else helm.release(p, 'keda', p.namespace, p.repoURL, p.chart, p.autoscaling.kedaVersion, { crds: { install: true } })
