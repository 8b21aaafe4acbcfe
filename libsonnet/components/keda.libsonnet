// KEDA as a pinned Helm release, rendered only when some workload scales on GPU metrics.
//
// The API server calls two KEDA components: the metrics server (an aggregated API, for the HPA)
// and the admission webhooks. On EKS with Cilium's overlay (tunnel routing) pod IPs exist only
// inside the tunnel and the managed control plane, outside the cluster network, cannot reach
// them: both then run on the host network (the chart's `useHostNetwork`, "required on EKS with
// custom CNI"). The metrics server still resolves the operator's Service, hence
// ClusterFirstWithHostNet; the webhooks move their metrics port off the metrics server's (both
// default to 8080) to one no other KEDA default uses (8081-8084 are taken), so the two can share
// a node.
local helm = import '../lib/helm.libsonnet';

local defaults = {
  gitops: error 'must provide gitops',
  provider: error 'must provide provider',
  autoscaling: error 'must provide autoscaling',
  cilium: { enabled: false },
  workloads: [],
  namespace: 'keda',
  repoURL: 'https://kedacore.github.io/charts',
  chart: 'keda',
  webhooksMetricsPort: 8085,
};

// Whether the control plane cannot reach pod IPs, so its callees need the host network.
local controlPlaneOutsidePodNetwork(p) =
  p.provider == 'eks' && p.cilium.enabled && p.cilium.routing.mode == 'tunnel';

local hostNetworkValues(p) = {
  metricsServer: { useHostNetwork: true, dnsPolicy: 'ClusterFirstWithHostNet' },
  webhooks: { useHostNetwork: true },
  prometheus: { webhooks: { port: p.webhooksMetricsPort } },
};

function(params)
  local p = defaults + params;
  local used = std.length(std.flattenArrays([w.autoscaling for w in p.workloads])) > 0;
  if !used then []
  else helm.release(p, 'keda', p.namespace, p.repoURL, p.chart, p.autoscaling.kedaVersion,
                    { crds: { install: true } }
                    + (if controlPlaneOutsidePodNetwork(p) then hostNetworkValues(p) else {}))
