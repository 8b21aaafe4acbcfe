// The training fabric of the node pools (`nodePools[].fabric`): which pools have one, and the
// names the network-operator, training-fabric and fabric-networks components share.
local labels = import 'labels.libsonnet';

{
  // Where the Network Operator runs and creates its operands (the namespace of NVIDIA's
  // deployment guide, docs.nvidia.com/networking/display/kubernetes2640, Helm install).
  networkOperatorNamespace:: 'nvidia-network-operator',

  // The labels of the pool's nodes with an NVIDIA NIC: the pool's selector and, where the project's
  // NFD runs, its NIC label (the node-feature-rules component's rule); and the same as a node
  // selector term (core/v1 NodeSelectorTerm), as the NicClusterPolicy's nodeAffinity and an
  // IPPool's nodeSelector take it.
  nicNodeLabels(pool, nfd):: pool.nodeSelector + (if nfd.enabled then { [labels.nvidiaNic]: labels.present } else {}),
  nicNodeTerm(pool, nfd)::
    local selector = $.nicNodeLabels(pool, nfd);
    { matchExpressions: [{ key: key, operator: 'In', values: [selector[key]] } for key in std.objectFields(selector)] },

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

  // The NetworkAttachmentDefinition a pod of `pool` names in `k8s.v1.cni.cncf.io/networks`, and
  // the nv-ipam IPPool its addresses come from (same name: an IPPool's name must be a valid CNI
  // network name, nvidia-k8s-ipam api/v1alpha1/ippool_validate.go).
  attachmentName(pool):: 'fabric-' + pool.name,

  // The last address of a CIDR whose host bits are zero (IN314), IPv4 or IPv6: an nv-ipam
  // exclusion is a start and end address (nvidia-k8s-ipam api/v1alpha1/common_type.go
  // ExcludeRange), read with Go's net.ParseIP, which takes IPv6 without `::` compression too.
  lastAddress(cidr)::
    local parts = std.split(cidr, '/');
    local prefix = std.parseInt(parts[1]);
    // Each group with the host bits it holds set: `width` bits a group, most significant first.
    local last(groups, width) = [
      local hostBits = std.max(0, std.min(width, width * (i + 1) - prefix));
      groups[i] | (std.pow(2, hostBits) - 1)
      for i in std.range(0, std.length(groups) - 1)
    ];
    if std.length(std.findSubstr(':', parts[0])) == 0 then
      std.join('.', [std.toString(o) for o in last([std.parseInt(o) for o in std.split(parts[0], '.')], 8)])
    else
      local hextets(text) =
        if text == '' then []
        else std.flattenArrays([
          if std.length(std.findSubstr('.', g)) > 0 then
            local o = [std.parseInt(x) for x in std.split(g, '.')];
            [o[0] * 256 + o[1], o[2] * 256 + o[3]]
          else [std.parseHex(g)]
          for g in std.split(text, ':')
        ]);
      local gap = std.findSubstr('::', parts[0]);
      local address = parts[0];
      local head = hextets(if gap == [] then address else std.substr(address, 0, gap[0]));
      local tail = if gap == [] then [] else hextets(std.substr(address, gap[0] + 2, std.length(address)));
      local groups = head + std.makeArray(8 - std.length(head) - std.length(tail), function(_) 0) + tail;
      std.join(':', [std.format('%x', h) for h in last(groups, 16)]),

  // The workload namespaces whose pods use the fabric: those that admit IPC_LOCK.
  fabricNamespaces(workloads):: [w.namespace for w in workloads if w.podSecurity == 'baseline-ipc-lock'],
}
