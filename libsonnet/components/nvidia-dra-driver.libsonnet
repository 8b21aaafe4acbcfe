// NVIDIA DRA Driver for GPUs (chart nvidia-dra-driver-gpu) as a pinned Helm release, when an
// NVIDIA pool has `allocation: dra`: its kubelet plugin publishes the pools' GPUs and MIG devices
// in ResourceSlices, the chart installs the DeviceClasses gpu.nvidia.com and mig.nvidia.com
// (templates/deviceclass-*.yaml) and, for Multi-Node NVLink pools, the ComputeDomain CRD, the
// compute-domain-*.nvidia.com DeviceClasses and the ComputeDomain controller.
//
// Values, against the chart's values.yaml and templates (NVIDIA/k8s-dra-driver-gpu v25.12.0,
// deployments/helm/nvidia-dra-driver-gpu):
//   nvidiaDriverRoot     /run/nvidia/driver where the GPU Operator's driver container mounts the
//                        driver, / where the node image ships it (values.yaml comment).
//   resourceApiVersion   resource.k8s.io/v1, not the chart's .Capabilities auto-detection: the
//                        GitOps engine's view of the cluster's API versions may be wrong (the
//                        values.yaml comment), and a dra pool needs 1.34, where v1 is served.
//   gpuResourcesEnabledOverride  templates/validation.yaml refuses resources.gpus.enabled without
//                        it, because the plugin cannot share a node with the device plugin: the
//                        device plugin is off on every dra pool (nvidia-device-plugin renders none
//                        there; operator mode: gpu-node-config labels the nodes
//                        nvidia.com/gpu.deploy.device-plugin=false, or devicePlugin.enabled false).
//   featureGates         MPSSupport and TimeSlicingSettings (alpha, off: pkg/featuregates) when a
//                        claim template shares devices that way; the driver refuses the sharing
//                        config otherwise.
//   kubeletPlugin        on the dra pools' nodes only (their nodeSelectors; in operator mode also
//                        the label the driver manager evicts it by), tolerating their taints.
//   controller           (ComputeDomains only) on the CPU pools: the chart's default affinity,
//                        control-plane nodes, does not exist on managed control planes.
local gpu = import '../lib/gpu.libsonnet';
local helm = import '../lib/helm.libsonnet';
local k = import '../lib/k.libsonnet';

local defaults = {
  cluster: error 'must provide cluster',
  providerFacts: error 'must provide providerFacts',
  kubernetesVersion: error 'must provide kubernetesVersion',
  gitops: error 'must provide gitops',
  pools: [],
  workloads: [],
  nvidia: error 'must provide nvidia',
  namespace: 'nvidia-dra-driver-gpu',
  repoURL: 'https://helm.ngc.nvidia.com/nvidia',
  chart: 'nvidia-dra-driver-gpu',
  release: 'nvidia-dra-driver-gpu',
};

function(params)
  local p = defaults + params;
  local pools = gpu.draPools(p.pools);
  local nvlink = [x for x in pools if x.gpu.multiNodeNVLink];
  local cpuPools = [x for x in p.pools if !std.objectHas(x, 'gpu')];
  local operator = p.nvidia.mode == 'operator';
  local strategies = std.set([
    c.sharing.strategy
    for w in p.workloads
    for c in w.claims
    if std.objectHas(c, 'sharing')
  ]);
  // The chart runs one kubelet plugin DaemonSet, whose pod has the compute-domains container on
  // every DRA node as soon as resources.computeDomains.enabled (templates/kubeletplugin.yaml), and
  // one FEATURE_GATES for all of them. CrashOnNVLinkFabricErrors (beta, on by default:
  // pkg/featuregates) makes that container crash, taking the node's plugin pod with it, where it
  // reads no healthy NVLink fabric (cmd/compute-domain-kubelet-plugin nvlib.go getCliqueIDStrict)
  // instead of falling back to non-fabric mode: right on a Multi-Node NVLink pool, not on the
  // other DRA pools the same DaemonSet runs on. So it stays on only when every DRA pool is one.
  // The container cannot be scoped to the NVLink pools instead: the chart places it with the
  // gpus container (one pod, kubeletPlugin.affinity), and the plugin reads no node label that
  // would make it stand down (cmd/compute-domain-kubelet-plugin/main.go: flags and env only).
  local strictFabric = std.length(nvlink) == 0 || std.length(nvlink) == std.length(pools);
  local featureGates = {
    [if std.member(strategies, 'MPS') then 'MPSSupport']: true,
    [if std.member(strategies, 'TimeSlicing') then 'TimeSlicingSettings']: true,
    [if !strictFabric then 'CrashOnNVLinkFabricErrors']: false,
  };

  local values = {
    nvidiaDriverRoot: if operator && p.nvidia.driver.managed then '/run/nvidia/driver' else '/',
    resourceApiVersion: 'resource.k8s.io/v1',
    gpuResourcesEnabledOverride: true,
    resources: { gpus: { enabled: true }, computeDomains: { enabled: std.length(nvlink) > 0 } },
    [if featureGates != {} then 'featureGates']: featureGates,
    kubeletPlugin: {
      [if operator then 'nodeSelector']: { [gpu.draPluginLabel]: 'true' },
      affinity: gpu.poolsAffinity(pools),
      [if gpu.tolerationsForPools(pools) != [] then 'tolerations']: gpu.tolerationsForPools(pools),
    },
    [if std.length(nvlink) > 0 && std.length(cpuPools) > 0 then 'controller']: {
      affinity: gpu.poolsAffinity(cpuPools),
      [if gpu.tolerationsForPools(cpuPools) != [] then 'tolerations']: gpu.tolerationsForPools(cpuPools),
    },
  };

  k.keyed(
    if std.length(pools) == 0 then []
    else [
           // The kubelet plugin's containers are privileged host agents (values.yaml
           // kubeletPlugin.containers.*.securityContext.privileged: true).
           k.namespace(p.namespace, k.labels('nvidia-dra-driver') + k.podSecurityLabels('privileged', p.kubernetesVersion)),
         ]
         // The chart's kubelet plugin and controller run system-node-critical, its webhook
         // system-cluster-critical (values.yaml *.priorityClassName).
         + k.criticalPodsQuota(p.providerFacts, p.namespace, k.labels('nvidia-dra-driver'))
         + helm.release(p,
                        p.release,
                        p.namespace,
                        p.repoURL,
                        p.chart,
                        p.nvidia.draDriverVersion,
                        values,
                        createNamespace=false,
                        // After the GPU Operator, whose driver and toolkit the plugin needs.
                        syncWave=if operator then 1 else null,
                        dependsOn=if operator then ['gpu-operator'] else [])
  )
