// NodeFeatureRules that label GPU and NVMe nodes, with the keys from lib/labels.libsonnet that
// node-tuning and local-storage select on.
//
// GPU: a PCI device of the vendor (10de NVIDIA, 1002 AMD) in one of that vendor's GPU classes
// (lib/labels.libsonnet pciClasses: an MI300X is a 1200 processing accelerator, not a display
// controller); one rule per vendor present in the node pools. NVMe: the nodes where
// files/prepare-disks.sh prepared at least one disk matching the pool's `diskIdPattern` (it writes
// the count to an NFD feature file: the `local.feature` feature, node-feature-discovery
// source/local/local.go). NFD's own storage.block feature cannot tell instance storage from EBS:
// it has name, dax, rotational, nr_zones and zoned only (source/storage/storage.go queueAttrs),
// and on Nitro instances EBS volumes are non-rotational nvme devices too. Only rendered when
// some pool prepares its local NVMe disks (nothing else writes the feature). NIC: nodes with an
// NVIDIA (Mellanox) NIC, when a pool has an infiniband or roce fabric: the rule the Network
// Operator chart would render with its own NFD (network-operator.libsonnet), which the
// training fabric's NicNodePolicies select on.
local fabric = import '../lib/fabric.libsonnet';
local k = import '../lib/k.libsonnet';
local labels = import '../lib/labels.libsonnet';

local defaults = {
  cluster: error 'must provide cluster',
  nfd: error 'must provide nfd',
  pools: [],
};

function(params)
  local p = defaults + params;
  local component = 'node-feature-rules';
  local vendors = std.set([pool.gpu.vendor for pool in p.pools if std.objectHas(pool, 'gpu')]);
  local nvme = std.length([
    pool
    for pool in p.pools
    if std.objectHas(pool, 'localNvme') && pool.localNvme.prepare.enabled
  ]) > 0;
  local gpuRule(vendor) = {
    name: 'gpu-' + vendor,
    labels: { [labels.gpu(vendor)]: labels.present },
    matchFeatures: [{
      feature: 'pci.device',
      matchExpressions: {
        vendor: { op: 'In', value: [labels.pciVendor[vendor]] },
        class: { op: 'In', value: labels.pciClasses[vendor] },
      },
    }],
  };
  local nvmeRule = {
    name: 'local-nvme',
    labels: { [labels.localNvme]: labels.present },
    matchFeatures: [{
      feature: 'local.feature',
      matchExpressions: { [labels.localNvmeDisks]: { op: 'Gt', value: ['0'] } },
    }],
  };
  local nicRule = {
    name: 'nic-nvidia',
    labels: { [labels.nvidiaNic]: labels.present },
    matchFeatures: [{
      feature: 'pci.device',
      matchExpressions: {
        vendor: { op: 'In', value: [labels.pciVendor.mellanox] },
        class: { op: 'In', value: labels.pciClasses.mellanox },
      },
    }],
  };
  local nics = std.length(fabric.rdmaPools(p.pools)) > 0;
  local rules = [gpuRule(v) for v in vendors] + (if nvme then [nvmeRule] else []) + (if nics then [nicRule] else []);
  k.keyed(
    if !p.nfd.enabled || std.length(rules) == 0 then []
    else [
      k.object('nfd.k8s-sigs.io/v1alpha1', 'NodeFeatureRule', 'gpu-gitops-hardware', labels=k.labels(component)) + {
        spec: { rules: rules },
      },
    ]
  )
