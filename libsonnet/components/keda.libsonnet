// KEDA as a pinned Helm release, rendered only when some workload scales on GPU metrics.
//
// The API server calls two KEDA components: the metrics server (an aggregated API, for the HPA)
// and the admission webhooks. On EKS with Cilium the managed control plane, outside the cluster
// network, cannot reach pod IPs: with tunnel routing they exist only inside the overlay, and with
// native routing the VPC does not route cluster-pool or node pod CIDRs either. Only Cilium's ENI
// IPAM (set through `values`) gives pods VPC addresses. Otherwise both run on the host network
// (the chart's `useHostNetwork`, "required on EKS with custom CNI"). The metrics server still resolves the operator's Service, hence
// ClusterFirstWithHostNet; the webhooks move their metrics port off the metrics server's (both
// default to 8080) to one no other KEDA default uses (8081-8084 are taken), so the two can share
// a node.
local helm = import '../lib/helm.libsonnet';
local k = import '../lib/k.libsonnet';

local defaults = {
  gitops: error 'must provide gitops',
  providerFacts: error 'must provide providerFacts',
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
  local c = p.cilium;
  local ipamMode = if c.enabled then std.get(std.get(c.values, 'ipam', {}), 'mode', c.ipam.mode) else null;
  p.providerFacts.controlPlaneNeedsVpcPodIps && c.enabled && ipamMode != 'eni';

local hostNetworkValues(p) = {
  metricsServer: { useHostNetwork: true, dnsPolicy: 'ClusterFirstWithHostNet' },
  webhooks: { useHostNetwork: true },
  prometheus: { webhooks: { port: p.webhooksMetricsPort } },
};

function(params)
  local p = defaults + params;
  local used = std.length(std.flattenArrays([w.autoscaling for w in p.workloads])) > 0;
  k.keyed(
    if !used then []
    else helm.release(p,
                      'keda',
                      p.namespace,
                      p.repoURL,
                      p.chart,
                      p.autoscaling.kedaVersion,
                      { crds: { install: true } }
                      + (if controlPlaneOutsidePodNetwork(p) then hostNetworkValues(p) else {}))
  )
