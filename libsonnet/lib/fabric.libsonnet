// The training fabric of the node pools (`nodePools[].fabric`): which pools have one, and the
// names the network-operator and training-fabric components share.
{
  // Where the Network Operator runs and creates its operands (the namespace of NVIDIA's
  // deployment guide, docs.nvidia.com/networking/display/kubernetes2640, Helm install).
  networkOperatorNamespace:: 'nvidia-network-operator',

  // Pools whose NVIDIA NICs the RDMA shared device plugin advertises.
  rdmaPools(pools):: [p for p in pools if std.member(['infiniband', 'roce'], p.fabric.type)],
  efaPools(pools):: [p for p in pools if p.fabric.type == 'efa'],

  // The net device link type of the fabric's NICs, as the RDMA shared device plugin's
  // `linkTypes` selector names it (the netlink encapsulation type: `infiniband`, `ether`).
  linkType:: { infiniband: 'infiniband', roce: 'ether' },

  // The RDMA shared device plugin advertises `rdma/<resourceName>` (its default resource
  // prefix); the input's resourceName is the full name, checked to start with `rdma/`.
  rdmaPrefix:: 'rdma/',
}
