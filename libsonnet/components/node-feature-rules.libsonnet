// NodeFeatureRules that label GPU and NVMe nodes, with the keys from lib/labels.libsonnet that
// node-tuning and local-storage select on.
//
// GPU: a PCI device of the vendor (10de NVIDIA, 1002 AMD) in one of that vendor's GPU classes
// (lib/labels.libsonnet pciClasses: an MI300X is a 1200 processing accelerator, not a display
// controller); one rule per vendor present in the node pools. NVMe: a non-rotational block device whose
// name starts with `nvme` (NFD does not label NVMe by default: class 0108 is not in its PCI
// whitelist). Only rendered when some pool declares local NVMe.
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
  local nvme = std.length([pool for pool in p.pools if std.objectHas(pool, 'localNvme')]) > 0;
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
      feature: 'storage.block',
      matchExpressions: {
        name: { op: 'InRegexp', value: ['^nvme'] },
        rotational: { op: 'In', value: ['0'] },
      },
    }],
  };
  local rules = [gpuRule(v) for v in vendors] + (if nvme then [nvmeRule] else []);
  if !p.nfd.enabled || std.length(rules) == 0 then []
  else [
    k.object('nfd.k8s-sigs.io/v1alpha1', 'NodeFeatureRule', 'gpu-gitops-hardware', labels=k.labels(component)) + {
      spec: { rules: rules },
    },
  ]
