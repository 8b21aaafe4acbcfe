// The cluster's spec fanned out to the components: the only file that knows every component.
//
// `values::` holds one parameter object per component, derived from the validated and fully
// defaulted spec (schemas/cluster.schema.json). An overrides.libsonnet mixin may patch
// `values+::` (late-bound, so the components see the patched values) or a component's list,
// and add components of its own (docs/overrides.md).
local providers = import 'providers.json';
local registry = import 'registry.json';

function(spec) {
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
    nodeFeatureDiscovery: common { nfd: spec.nodeFeatureDiscovery },
    keda: common { autoscaling: spec.autoscaling, workloads: spec.workloads, cilium: spec.network.cilium },
    nvidiaGpuOperator: common { nvidia: spec.gpu.nvidia, nfd: spec.nodeFeatureDiscovery },
    amdGpuOperator: common { amd: spec.gpu.amd, nfd: spec.nodeFeatureDiscovery },
    nodeFeatureRules: common { nfd: spec.nodeFeatureDiscovery },
    nodeTuning: common { tuning: spec.tuning, nfd: spec.nodeFeatureDiscovery },
    localStorage: common { storage: spec.storage, nfd: spec.nodeFeatureDiscovery },
    nvidiaDevicePlugin: common { nvidia: spec.gpu.nvidia },
    gpuNodeConfig: common { nvidia: spec.gpu.nvidia, admission: spec.admission },
    amdDevicePlugin: common { amd: spec.gpu.amd },
    dcgmExporter: common { nvidia: spec.gpu.nvidia },
    gpuValidation: common { nvidia: spec.gpu.nvidia, amd: spec.gpu.amd, validation: spec.gpu.validation },
    admission: common { admission: spec.admission, workloads: spec.workloads },
    workloadIsolation: common { workloads: spec.workloads, nodeLocalDNS: spec.network.nodeLocalDNS },
    autoscaling: common { autoscaling: spec.autoscaling, workloads: spec.workloads },
  },

  cilium: (import 'components/cilium.libsonnet')(self.values.cilium),
  'node-feature-discovery': (import 'components/node-feature-discovery.libsonnet')(self.values.nodeFeatureDiscovery),
  keda: (import 'components/keda.libsonnet')(self.values.keda),
  'nvidia-gpu-operator': (import 'components/nvidia-gpu-operator.libsonnet')(self.values.nvidiaGpuOperator),
  'amd-gpu-operator': (import 'components/amd-gpu-operator.libsonnet')(self.values.amdGpuOperator),
  'node-feature-rules': (import 'components/node-feature-rules.libsonnet')(self.values.nodeFeatureRules),
  'node-tuning': (import 'components/node-tuning.libsonnet')(self.values.nodeTuning),
  'local-storage': (import 'components/local-storage.libsonnet')(self.values.localStorage),
  'nvidia-device-plugin': (import 'components/nvidia-device-plugin.libsonnet')(self.values.nvidiaDevicePlugin),
  'amd-device-plugin': (import 'components/amd-device-plugin.libsonnet')(self.values.amdDevicePlugin),
  'dcgm-exporter': (import 'components/dcgm-exporter.libsonnet')(self.values.dcgmExporter),
  'gpu-node-config': (import 'components/gpu-node-config.libsonnet')(self.values.gpuNodeConfig),
  'gpu-validation': (import 'components/gpu-validation.libsonnet')(self.values.gpuValidation),
  admission: (import 'components/admission.libsonnet')(self.values.admission),
  'workload-isolation': (import 'components/workload-isolation.libsonnet')(self.values.workloadIsolation),
  autoscaling: (import 'components/autoscaling.libsonnet')(self.values.autoscaling),

  // An overrides.libsonnet may add components of its own (laid out in registry.ownLayer);
  // every registered component must stay.
  local registered = std.set([c.name for c in registry.components]),
  local missing = std.setDiff(registered, std.objectFields(self)),
  assert missing == [] : 'components in registry.json must all be rendered; missing: ' + std.join(', ', missing),
}
