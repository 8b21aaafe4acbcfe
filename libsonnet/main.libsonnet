// The cluster's spec fanned out to the components: the only file that knows every component.
//
// The generator evaluates `flatten(components(spec) + overrides)`: an overrides.libsonnet is a
// mixin on the components, and they are flattened to lists once, after it (docs/overrides.md).
//
// `values::` holds one parameter object per component, derived from the validated and fully
// defaulted spec (schemas/cluster.schema.json). Each component is an object of Kubernetes
// objects keyed by the file each renders to (k.keyed). An override may patch `values+::`
// (late-bound, so the components see the patched values), patch one object of a component
// with `+:` or hide it with `::`, and add components of its own.
local providers = import 'providers.json';
local registry = import 'registry.json';

local components(spec) = {
  local common = {
    cluster: spec.name,
    // The provider's conventions (providers.json): components branch on these facts, never on
    // the provider's name.
    providerFacts: providers.providers[spec.provider].facts,
    kubernetesVersion: spec.kubernetesVersion,
    gitops: spec.gitops,
    monitoring: spec.monitoring,
    pools: spec.nodePools,
    gpuPools: [p for p in spec.nodePools if std.objectHas(p, 'gpu')],
    // Digests to pin the rendered images by (k.image).
    imageDigests: spec.images.digests,
    // The Helm release that installs the CNI, which every other release waits for (lib/helm).
    cniRelease: if spec.network.cilium.enabled then 'cilium' else null,
  },

  values:: {
    cilium: common { cilium: spec.network.cilium },
    nodeFeatureDiscovery: common { nfd: spec.nodeFeatureDiscovery, tuning: spec.tuning },
    keda: common { autoscaling: spec.autoscaling, workloads: spec.workloads, cilium: spec.network.cilium },
    kueue: common { queues: spec.queues, workloads: spec.workloads },
    nvidiaGpuOperator: common { nvidia: spec.gpu.nvidia, nfd: spec.nodeFeatureDiscovery },
    amdGpuOperator: common { amd: spec.gpu.amd, nfd: spec.nodeFeatureDiscovery },
    networkOperator: common { fabric: spec.fabric, nfd: spec.nodeFeatureDiscovery },
    trainingFabric: common { fabric: spec.fabric, nfd: spec.nodeFeatureDiscovery },
    ncclTest: common { fabric: spec.fabric },
    fabricNetworks: common { workloads: spec.workloads, nfd: spec.nodeFeatureDiscovery },
    nodeFeatureRules: common { nfd: spec.nodeFeatureDiscovery },
    nodeTuning: common { tuning: spec.tuning, nfd: spec.nodeFeatureDiscovery, admission: spec.admission },
    localStorage: common { storage: spec.storage, nfd: spec.nodeFeatureDiscovery },
    nvidiaDevicePlugin: common { nvidia: spec.gpu.nvidia },
    nvidiaDraDriver: common { nvidia: spec.gpu.nvidia, workloads: spec.workloads },
    gpuClaims: common { workloads: spec.workloads },
    gpuNodeConfig: common { nvidia: spec.gpu.nvidia, admission: spec.admission },
    amdDevicePlugin: common { amd: spec.gpu.amd, admission: spec.admission },
    dcgmExporter: common { nvidia: spec.gpu.nvidia },
    // With a platform-managed NVIDIA stack (gpu.nvidia.mode managed: GKE) a pod sees GPUs only
    // by requesting them from the platform's device plugin (no `nvidia` runtime to inject
    // them), so the NVIDIA pools get no validation DaemonSet: it would hold every GPU.
    gpuValidation: common {
      nvidia: spec.gpu.nvidia,
      amd: spec.gpu.amd,
      validation: spec.gpu.validation,
      gpuPools: [p for p in super.gpuPools if !(p.gpu.vendor == 'nvidia' && spec.gpu.nvidia.mode == 'managed')],
    },
    admission: common { admission: spec.admission, workloads: spec.workloads },
    workloadIsolation: common {
      workloads: spec.workloads,
      nodeLocalDNS: spec.network.nodeLocalDNS,
      admission: spec.admission,
      cilium: spec.network.cilium,
      apiServerCIDRs: spec.network.apiServerCIDRs,
    },
    autoscaling: common { autoscaling: spec.autoscaling, workloads: spec.workloads },
    queues: common { workloads: spec.workloads },
    nodeProvisioning: common { workloads: spec.workloads, cilium: spec.network.cilium, nvidia: spec.gpu.nvidia, tuning: spec.tuning },
  },

  cilium: (import 'components/cilium.libsonnet')(self.values.cilium),
  'node-feature-discovery': (import 'components/node-feature-discovery.libsonnet')(self.values.nodeFeatureDiscovery),
  keda: (import 'components/keda.libsonnet')(self.values.keda),
  kueue: (import 'components/kueue.libsonnet')(self.values.kueue),
  'nvidia-gpu-operator': (import 'components/nvidia-gpu-operator.libsonnet')(self.values.nvidiaGpuOperator),
  'amd-gpu-operator': (import 'components/amd-gpu-operator.libsonnet')(self.values.amdGpuOperator),
  'network-operator': (import 'components/network-operator.libsonnet')(self.values.networkOperator),
  'training-fabric': (import 'components/training-fabric.libsonnet')(self.values.trainingFabric),
  'nccl-test': (import 'components/nccl-test.libsonnet')(self.values.ncclTest),
  'fabric-networks': (import 'components/fabric-networks.libsonnet')(self.values.fabricNetworks),
  'node-feature-rules': (import 'components/node-feature-rules.libsonnet')(self.values.nodeFeatureRules),
  'node-tuning': (import 'components/node-tuning.libsonnet')(self.values.nodeTuning),
  'local-storage': (import 'components/local-storage.libsonnet')(self.values.localStorage),
  'nvidia-device-plugin': (import 'components/nvidia-device-plugin.libsonnet')(self.values.nvidiaDevicePlugin),
  'nvidia-dra-driver': (import 'components/nvidia-dra-driver.libsonnet')(self.values.nvidiaDraDriver),
  'gpu-claims': (import 'components/gpu-claims.libsonnet')(self.values.gpuClaims),
  'amd-device-plugin': (import 'components/amd-device-plugin.libsonnet')(self.values.amdDevicePlugin),
  'dcgm-exporter': (import 'components/dcgm-exporter.libsonnet')(self.values.dcgmExporter),
  'gpu-node-config': (import 'components/gpu-node-config.libsonnet')(self.values.gpuNodeConfig),
  'gpu-validation': (import 'components/gpu-validation.libsonnet')(self.values.gpuValidation),
  admission: (import 'components/admission.libsonnet')(self.values.admission),
  'workload-isolation': (import 'components/workload-isolation.libsonnet')(self.values.workloadIsolation),
  autoscaling: (import 'components/autoscaling.libsonnet')(self.values.autoscaling),
  queues: (import 'components/queues.libsonnet')(self.values.queues),
  'node-provisioning': (import 'components/node-provisioning.libsonnet')(self.values.nodeProvisioning),

  // An overrides.libsonnet may add components of its own (laid out in registry.ownLayer);
  // every registered component must stay.
  local registered = std.set([c.name for c in registry.components]),
  local missing = std.setDiff(registered, std.objectFields(self)),
  assert missing == [] : 'components in registry.json must all be rendered; missing: ' + std.join(', ', missing),
};

// A keyed component's objects in key order, its hidden fields left out. An object without a
// kind is a patch (`+:`) of a key the component does not have, most likely mistyped.
local objectsOf(name, component) = [
  local o = component[key];
  if std.isObject(o) && !std.objectHas(o, 'kind') then
    error "component '%s' has no object '%s' to patch: an object's key is the name of its rendered file without .yaml (docs/overrides.md)" % [name, key]
  else o
  for key in std.objectFields(component)
];

// {component: [objects]} as the generator lays it out. A component an override adds or
// replaces may be a list, taken as it is; anything else is passed on for the generator to
// refuse with the component's name.
local flatten(patched) = {
  [name]: (
    local component = patched[name];
    if std.isObject(component) then objectsOf(name, component) else component
  )
  for name in std.objectFields(patched)
};

{
  components:: components,
  flatten:: flatten,
}
