// The training fabric of each pool with one (`nodePools[].fabric`): what advertises its NICs to
// the kubelet, so a training pod requests the fabric like a GPU.
//
// InfiniBand and RoCE (NVIDIA ConnectX NICs): one NicNodePolicy per pool (mellanox.com/v1alpha1,
// Mellanox/network-operator v26.4.1 api/v1alpha1/nicnodepolicy_types.go: nodeSelector,
// tolerations, rdmaSharedDevicePlugin), which the Network Operator turns into the RDMA shared
// device plugin on the pool's nodes only. A NicClusterPolicy would run one plugin config on every
// node it selects; a NicNodePolicy per pool keeps each pool's resource name on its own nodes, and is
// NVIDIA's recommendation for the per-node components of new deployments
// (docs.nvidia.com/networking/display/kubernetes2640, "Heterogeneous Clusters with NicNodePolicy"). The
// plugin (Mellanox/k8s-rdma-shared-dev-plugin README.md, "RDMA Shared Device Plugin
// Configurations") advertises `rdma/<resourceName>`, `rdmaHcaMax` units per node, one per pod
// that shares the node's HCAs; the selectors take the pool's NVIDIA NICs (vendor 15b3) of the
// fabric's link type. 63 is NVIDIA's value in every Network Operator guide
// (docs.nvidia.com/networking/display/kubernetes2640, quick-start "IP over InfiniBand with RDMA
// Shared Device"). No driver container is rendered: the node image's inbox mlx5 drivers carry
// RDMA, and GPUDirect RDMA goes through the GPU driver's DMA-BUF (docs/network.md).
//
// Pools with a secondary network (`fabric.network`) add the NicClusterPolicy, the operator's
// singleton `nic-cluster-policy` (its controller reconciles no other name), for what the operator
// deploys only cluster-wide (Mellanox/network-operator v26.4.1 docs/heterogeneous-cluster-
// support.md: CNI plugins and Multus stay in the NicClusterPolicy beside per-pool NicNodePolicies):
// `secondaryNetwork` with Multus (thin plugin), the containernetworking CNI plugins (macvlan) and,
// for InfiniBand, the IPoIB CNI, the images of the operator's release as in its example
// (example/crs/mellanox.com_v1alpha1_nicclusterpolicy_cr-ipoib.yaml). `nodeAffinity` and
// `tolerations` go to every DaemonSet the policy makes (api/v1alpha1 NicClusterPolicySpec), so they
// run on those pools' nodes only and tolerate their taints. The NetworkAttachmentDefinitions are
// the fabric-networks component's.
//
// EFA (EKS): per pool a release of the EFA device plugin chart (aws/eks-charts
// stable/aws-efa-k8s-device-plugin v0.5.30), which advertises `vpc.amazonaws.com/efa`. The chart
// already keeps the DaemonSet to EFA instance types (templates/daemonset.yaml node affinity on
// supportedInstanceLabels); `nodeSelector` and `tolerations` (values.yaml) bind it to the pool.
// kube-system as in the EKS guide (docs.aws.amazon.com/eks/latest/userguide/device-management-efa.html).
local fabric = import '../lib/fabric.libsonnet';
local helm = import '../lib/helm.libsonnet';
local k = import '../lib/k.libsonnet';
local labels = import '../lib/labels.libsonnet';

local defaults = {
  gitops: error 'must provide gitops',
  fabric: error 'must provide fabric',
  nfd: { enabled: true },
  pools: [],
  efaNamespace: 'kube-system',
  efaRepoURL: 'https://aws.github.io/eks-charts',
  efaChart: 'aws-efa-k8s-device-plugin',
  rdmaHcaMax: 63,
};

function(params)
  local p = defaults + params;
  local component = 'training-fabric';

  local rdmaConfig(pool) = {
    configList: [{
      resourceName: std.substr(pool.fabric.resourceName, std.length(fabric.rdmaPrefix), 63),
      rdmaHcaMax: p.rdmaHcaMax,
      selectors: { vendors: [labels.pciVendor.mellanox], linkTypes: [fabric.linkType[pool.fabric.type]] },
    }],
  };

  local nicNodePolicy(pool) =
    k.object('mellanox.com/v1alpha1', 'NicNodePolicy', 'rdma-' + pool.name, labels=k.labels(component) + { [labels.nodePool]: pool.name }) + {
      spec: {
        nodeSelector: fabric.nicNodeLabels(pool, p.nfd),
        [if pool.taints != [] then 'tolerations']: k.tolerationsFor(pool.taints),
        rdmaSharedDevicePlugin: {
          image: 'k8s-rdma-shared-dev-plugin',
          repository: p.fabric.networkOperatorImageRepository,
          version: p.fabric.networkOperatorImageTag,
          config: k.json(rdmaConfig(pool)),
        },
      },
    };

  local networkPools = fabric.networkPools(p.pools);
  local image(name) = {
    image: name,
    repository: p.fabric.networkOperatorImageRepository,
    version: p.fabric.networkOperatorImageTag,
  };
  local clusterPolicy =
    local taints = std.flattenArrays([pool.taints for pool in networkPools]);
    k.object('mellanox.com/v1alpha1', 'NicClusterPolicy', 'nic-cluster-policy', labels=k.labels(component)) + {
      spec: {
        nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [
          fabric.nicNodeTerm(pool, p.nfd)
          for pool in networkPools
        ] } },
        [if taints != [] then 'tolerations']: std.set(k.tolerationsFor(taints), function(t) t.key + ':' + t.effect),
        secondaryNetwork: {
          multus: image('multus-cni'),
          cniPlugins: image('plugins'),
          [if std.member([pool.fabric.type for pool in networkPools], 'infiniband') then 'ipoib']: image('ipoib-cni'),
        },
        // The IPAM of the fabric-networks component's attachments: its controller Deployment and
        // node DaemonSet (placed like the DaemonSets above, manifests/state-nv-ipam-cni). No
        // validating webhook: it takes its certificate from cert-manager, which the project does
        // not install; the input checks IN314, IN315 and IN318 refuse what it would refuse.
        nvIpam: image('nvidia-k8s-ipam') + { enableWebhook: false },
      },
    };

  local efaRelease(pool) =
    local name = 'aws-efa-k8s-device-plugin-' + pool.name;
    helm.release(p, name, p.efaNamespace, p.efaRepoURL, p.efaChart, p.fabric.efaDevicePluginVersion, {
      nodeSelector: pool.nodeSelector,
      [if pool.taints != [] then 'tolerations']: k.tolerationsFor(pool.taints),
    });

  k.keyed(
    [nicNodePolicy(pool) for pool in fabric.rdmaPools(p.pools)]
    + (if networkPools != [] then [clusterPolicy] else [])
    + std.flattenArrays([efaRelease(pool) for pool in fabric.efaPools(p.pools)])
  )
