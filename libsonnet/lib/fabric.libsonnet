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

  // The pools with a secondary network on their fabric (`fabric.network`), and the CNI plugin
  // that makes a pod's interface on it: IP over InfiniBand child interfaces (Mellanox/ipoib-cni)
  // on InfiniBand, Macvlan interfaces of the RoCE netdev (containernetworking/plugins macvlan) on
  // RoCE; the Network Operator's IPoIBNetwork and MacvlanNetwork templates use the same plugins
  // (Mellanox/network-operator v26.4.1 manifests/state-ipoib-network, state-macvlan-network).
  networkPools(pools):: [p for p in $.rdmaPools(pools) if std.objectHas(p.fabric, 'network')],
  cniType:: { infiniband: 'ipoib', roce: 'macvlan' },

  // The NetworkAttachmentDefinition a pod of `pool` names in `k8s.v1.cni.cncf.io/networks`.
  attachmentName(pool):: 'fabric-' + pool.name,

  // The workload namespaces whose pods use the fabric: those that admit IPC_LOCK.
  fabricNamespaces(workloads):: [w.namespace for w in workloads if w.podSecurity == 'baseline-ipc-lock'],
}
