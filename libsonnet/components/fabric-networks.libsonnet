// The secondary network of each InfiniBand/RoCE pool with `fabric.network`: a
// NetworkAttachmentDefinition `fabric-<pool>` (k8s.cni.cncf.io/v1, the Network Plumbing Working
// Group's multi-net spec, served by the CRD the Network Operator chart installs) in every
// workload namespace whose pods use the fabric (`podSecurity: baseline-ipc-lock`). Multus
// (deployed by the NicClusterPolicy, components/training-fabric.libsonnet) reads the pod
// annotation `k8s.v1.cni.cncf.io/networks: fabric-<pool>` and runs this CNI config for a second
// interface beside the pod network.
//
// The CNI configs are the ones the operator's IPoIBNetwork and MacvlanNetwork controllers write
// (Mellanox/network-operator v26.4.1 manifests/state-ipoib-network/0010-ipoib-net-cr.yaml,
// state-macvlan-network/0010-macvlan-net-cr.yml: cniVersion 0.3.1, `master`, macvlan `mode`).
// Those CRs are cluster-scoped and make one NAD named after the CR in one namespace, outside Git,
// where the lint cannot see it; rendering the NAD itself keeps one name in every namespace and
// the config reviewable.
//
// IPAM: whereabouts (k8snetworkplumbingwg/whereabouts README, "Example IPAM Config": `range`,
// `exclude`), whose whole config lives in the NAD and which hands out cluster-wide unique
// addresses (host-local would hand each node the same ones). The Network Operator stopped
// deploying whereabouts in v25.10 (Mellanox/network-operator #1748, "Whereabouts removal"), and
// its nv-ipam needs IPPool objects whose CRD the operator creates only at run time: whereabouts
// is a prerequisite of the cluster (docs/network.md, "Secondary network").
local fabric = import '../lib/fabric.libsonnet';
local k = import '../lib/k.libsonnet';
local labels = import '../lib/labels.libsonnet';

local defaults = {
  pools: [],
  workloads: [],
  cniVersion: '0.3.1',
  macvlanMode: 'bridge',
};

function(params)
  local p = defaults + params;
  local component = 'fabric-networks';

  local config(pool, name) =
    local network = pool.fabric.network;
    local type = fabric.cniType[pool.fabric.type];
    {
      cniVersion: p.cniVersion,
      name: name,
      type: type,
      master: network.master,
      [if type == 'macvlan' then 'mode']: p.macvlanMode,
      ipam: {
        type: 'whereabouts',
        range: network.range,
        [if std.objectHas(network, 'exclude') then 'exclude']: network.exclude,
      },
    };

  local attachment(pool, namespace) =
    local name = fabric.attachmentName(pool);
    k.object('k8s.cni.cncf.io/v1', 'NetworkAttachmentDefinition', name, namespace, k.labels(component, name) + { [labels.nodePool]: pool.name }) + {
      spec: { config: k.json(config(pool, name)) },
    };

  k.keyed([
    attachment(pool, namespace)
    for pool in fabric.networkPools(p.pools)
    for namespace in fabric.fabricNamespaces(p.workloads)
  ])
