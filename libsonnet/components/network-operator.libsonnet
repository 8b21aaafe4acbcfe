// The NVIDIA Network Operator (chart network-operator) as a pinned Helm release, when a pool has
// an `infiniband` or `roce` fabric: its controller turns the NicNodePolicies the training-fabric
// component renders into the RDMA shared device plugin DaemonSets on the pools' nodes.
//
// Values, against the chart's values.yaml and templates (Mellanox/network-operator v26.4.1,
// deployment/network-operator):
//   nfd.enabled               the chart's own node-feature-discovery subchart only when the
//                             project's NFD is off (as the GPU operators do): one NFD per cluster.
//   nfd.deployNodeFeatureRules the chart's NodeFeatureRule `nvidia-nics-rules`
//                             (templates/nodefeaturerules.yaml: PCI vendor 15b3, classes 0200 and
//                             0207, label pci-15b3.present) only with its own NFD; otherwise the
//                             node-feature-rules component renders the same rule.
//   sriovNetworkOperator, maintenanceOperator   off, as the chart's defaults: the shared device
//                             plugin needs neither.
// The operator's operands (the device plugin) are privileged host agents created in the
// release's namespace, so the Namespace is rendered here with Pod Security `privileged`.
local fabric = import '../lib/fabric.libsonnet';
local helm = import '../lib/helm.libsonnet';
local k = import '../lib/k.libsonnet';

local defaults = {
  kubernetesVersion: error 'must provide kubernetesVersion',
  gitops: error 'must provide gitops',
  fabric: error 'must provide fabric',
  nfd: { enabled: true },
  pools: [],
  namespace: fabric.networkOperatorNamespace,
  repoURL: 'https://helm.ngc.nvidia.com/nvidia',
  chart: 'network-operator',
  release: 'network-operator',
};

function(params)
  local p = defaults + params;
  local pools = fabric.rdmaPools(p.pools);
  local values = {
    nfd: { enabled: !p.nfd.enabled, deployNodeFeatureRules: !p.nfd.enabled },
    sriovNetworkOperator: { enabled: false },
    maintenanceOperator: { enabled: false },
  };
  k.keyed(
    if std.length(pools) == 0 then []
    else [
      k.namespace(p.namespace, k.labels('network-operator') + k.podSecurityLabels('privileged', p.kubernetesVersion)),
    ] + helm.release(p,
                     p.release,
                     p.namespace,
                     p.repoURL,
                     p.chart,
                     p.fabric.networkOperatorVersion,
                     values,
                     createNamespace=false)
  )
