// Node label keys: the one place they are spelled.
//
// node-feature-rules sets them (NodeFeatureRules matched on PCI vendor/class and block devices),
// node-tuning and local-storage select on them, so a rename cannot leave a DaemonSet waiting for
// a label nothing sets. Unprefixed keys would land in NFD's default namespace anyway; they are
// spelled out so a reader of a nodeSelector knows where the label comes from.
{
  nfdPrefix:: 'feature.node.kubernetes.io/',

  // Set by NFD on nodes with a GPU of the vendor (PCI display controller of that vendor).
  gpu(vendor):: $.nfdPrefix + 'gpu-' + vendor,
  // Set by NFD on nodes with at least one non-rotational NVMe block device.
  localNvme:: $.nfdPrefix + 'local-nvme',
  present:: 'true',

  // Put on every pool-bound DaemonSet (and its pods): the pool it is meant for. Tests and the
  // linter use it to check the DaemonSet tolerates and selects exactly that pool.
  nodePool:: 'gpu-gitops.io/node-pool',

  // PCI ids NFD matches on (vendor ids from the PCI ID registry; 0300 VGA, 0302 3D controller).
  pciVendor:: { nvidia: '10de', amd: '1002' },
  pciDisplayClasses:: ['0300', '0302'],

  // nodeSelector of a DaemonSet for `pool`: the pool's own labels, plus the NFD labels that
  // prove the hardware the DaemonSet needs is there (only when NFD runs and sets them).
  poolSelector(pool, nfdEnabled, needsGpu=false, needsNvme=false)::
    pool.nodeSelector
    + (if nfdEnabled && needsGpu && std.objectHas(pool, 'gpu') then { [$.gpu(pool.gpu.vendor)]: $.present } else {})
    + (if nfdEnabled && needsNvme then { [$.localNvme]: $.present } else {}),
}
