// Node label keys: the one place they are spelled.
//
// node-feature-rules sets them (NodeFeatureRules matched on PCI vendor/class and block devices),
// node-tuning and local-storage select on them, so a rename cannot leave a DaemonSet waiting for
// a label nothing sets. Unprefixed keys would land in NFD's default namespace anyway; they are
// spelled out so a reader of a nodeSelector knows where the label comes from.
{
  nfdPrefix:: 'feature.node.kubernetes.io/',

  // Set by NFD on nodes with a GPU of the vendor (a PCI device of that vendor in one of its GPU classes).
  gpu(vendor):: $.nfdPrefix + 'gpu-' + vendor,
  // Set by NFD on nodes where files/prepare-disks.sh prepared at least one instance-store disk:
  // it writes `<localNvmeDisks>=<count>` to an NFD feature file (local source), which also
  // becomes the label feature.node.kubernetes.io/local-nvme-disks (0 reports a node without disks).
  localNvme:: $.nfdPrefix + 'local-nvme',
  localNvmeDisks:: 'local-nvme-disks',
  localNvmeFeatureFile:: 'gpu-gitops-local-nvme',
  // Set by NFD on nodes with an NVIDIA (Mellanox) Ethernet or InfiniBand NIC: the label of the
  // Network Operator chart's own rule (templates/nodefeaturerules.yaml, v26.4.1), so the
  // operator's documented node selection holds with the project's NFD too.
  nvidiaNic:: $.nfdPrefix + 'pci-15b3.present',
  present:: 'true',

  // Put on every pool-bound DaemonSet (and its pods): the pool it is meant for. Tests and the
  // linter use it to check the DaemonSet tolerates and selects exactly that pool.
  nodePool:: 'gpu-gitops.io/node-pool',

  // PCI ids NFD matches on (vendor ids and classes from the PCI ID registry). NVIDIA data-centre
  // GPUs are 0302 (3D controller, e.g. H100, A100) or 0300 (VGA, e.g. L40S). AMD Instinct is not
  // a display controller: MI300X/MI300A/MI325X are 1200 (processing accelerator), MI100/MI200
  // 0380 (display controller, other), Radeon Pro 0300; AMD's own NFD setup whitelists classes
  // 03 and 12 for the same reason.
  // NVIDIA NICs keep Mellanox's vendor id 15b3 and are 0200 (Ethernet) or 0207 (InfiniBand).
  pciVendor:: { nvidia: '10de', amd: '1002', mellanox: '15b3' },
  pciClasses:: { nvidia: ['0300', '0302'], amd: ['0300', '0380', '1200'], mellanox: ['0200', '0207'] },

  // nodeSelector of a DaemonSet for `pool`: the pool's own labels, plus the NFD labels that
  // prove the hardware the DaemonSet needs is there (only when NFD runs and sets them).
  poolSelector(pool, nfdEnabled, needsGpu=false, needsNvme=false)::
    pool.nodeSelector
    + (if nfdEnabled && needsGpu && std.objectHas(pool, 'gpu') then { [$.gpu(pool.gpu.vendor)]: $.present } else {})
    + (if nfdEnabled && needsNvme then { [$.localNvme]: $.present } else {}),
}
