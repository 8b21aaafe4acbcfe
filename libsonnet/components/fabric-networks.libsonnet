// The secondary network of each InfiniBand/RoCE pool with `fabric.network`: a
// NetworkAttachmentDefinition `fabric-<pool>` (k8s.cni.cncf.io/v1, the Network Plumbing Working
// Group's multi-net spec, served by the CRD the Network Operator chart installs) in every
// workload namespace whose pods use the fabric (`podSecurity: baseline-ipc-lock`), and the nv-ipam
// IPPool `fabric-<pool>` its addresses come from. Multus (deployed by the NicClusterPolicy,
// components/training-fabric.libsonnet) reads the pod annotation
// `k8s.v1.cni.cncf.io/networks: fabric-<pool>` and runs this CNI config for a second interface
// beside the pod network.
//
// The CNI configs are the ones the operator's IPoIBNetwork and MacvlanNetwork controllers write
// (Mellanox/network-operator v26.4.1 manifests/state-ipoib-network/0010-ipoib-net-cr.yaml,
// state-macvlan-network/0010-macvlan-net-cr.yml: cniVersion 0.3.1, `master`, macvlan `mode`).
// Those CRs are cluster-scoped and make one NAD named after the CR in one namespace, outside Git,
// where the lint cannot see it; rendering the NAD itself keeps one name in every namespace and
// the config reviewable.
//
// IPAM: nv-ipam, the Network Operator's own (NicClusterPolicy `nvIpam`), since the operator no
// longer deploys whereabouts (v25.10, Mellanox/network-operator #1748). The NAD names its pool
// (`{"type": "nv-ipam", "poolName": ...}`, Mellanox/nvidia-k8s-ipam network-operator-v26.4.1
// pkg/cni/types/types.go IPAMConf), and the IPPool (nv-ipam.nvidia.com/v1alpha1,
// api/v1alpha1/ippool_type.go at the same tag) holds the range: the controller hands each node its
// nodeSelector matches a block of `perNodeBlockSize` consecutive addresses of `subnet`
// (pkg/ipam-controller/allocator), and the node daemon gives pods addresses of its node's block,
// skipping `exclusions`. nodeSelector keeps blocks to the pool's nodes with the NVIDIA NIC (where
// the NicClusterPolicy runs nv-ipam's node daemon); without it every node of the cluster would
// take a block. No gateway: the fabric is one L2 network (IPoIB partition, RoCE VLAN). IPPools
// live in the operator's namespace: the controller and node daemon read them there
// (`--ippools-namespace=$(POD_NAMESPACE)`, manifests/state-nv-ipam-cni/040-nv-ipam-*.yaml).
//
// The operator creates the IPPool CRD when it deploys nv-ipam (state-nv-ipam-cni
// 005-nv-ipam.nvidia.com_ippools.yaml), at its first reconcile of the NicClusterPolicy in
// 10-platform; this layer is applied after that one is ready. Should the CRD still be missing,
// Flux retries the layer (retryInterval) and Argo CD's sync skips the dry run of kinds it does not
// know yet and retries (gitops.libsonnet).
local fabric = import '../lib/fabric.libsonnet';
local k = import '../lib/k.libsonnet';
local labels = import '../lib/labels.libsonnet';

local defaults = {
  pools: [],
  workloads: [],
  nfd: { enabled: true },
  cniVersion: '0.3.1',
  macvlanMode: 'bridge',
};

function(params)
  local p = defaults + params;
  local component = 'fabric-networks';
  local poolLabels(pool, name) = k.labels(component, name) + { [labels.nodePool]: pool.name };

  local config(pool, name) =
    local network = pool.fabric.network;
    local type = fabric.cniType[pool.fabric.type];
    {
      cniVersion: p.cniVersion,
      name: name,
      type: type,
      master: network.master,
      [if type == 'macvlan' then 'mode']: p.macvlanMode,
      ipam: { type: 'nv-ipam', poolName: name },
    };

  local attachment(pool, namespace) =
    local name = fabric.attachmentName(pool);
    k.object('k8s.cni.cncf.io/v1', 'NetworkAttachmentDefinition', name, namespace, poolLabels(pool, name)) + {
      spec: { config: k.json(config(pool, name)) },
    };

  local ipPool(pool) =
    local name = fabric.attachmentName(pool);
    local network = pool.fabric.network;
    k.object('nv-ipam.nvidia.com/v1alpha1', 'IPPool', name, fabric.networkOperatorNamespace, poolLabels(pool, name)) + {
      spec: {
        subnet: network.range,
        perNodeBlockSize: network.perNodeBlockSize,
        [if std.objectHas(network, 'exclude') then 'exclusions']: [
          { startIP: std.split(cidr, '/')[0], endIP: fabric.lastAddress(cidr) }
          for cidr in network.exclude
        ],
        nodeSelector: { nodeSelectorTerms: [fabric.nicNodeTerm(pool, p.nfd)] },
      },
    };

  local namespaces = fabric.fabricNamespaces(p.workloads);
  k.keyed(
    [attachment(pool, namespace) for pool in fabric.networkPools(p.pools) for namespace in namespaces]
    + (if namespaces == [] then [] else [ipPool(pool) for pool in fabric.networkPools(p.pools)])
  )
