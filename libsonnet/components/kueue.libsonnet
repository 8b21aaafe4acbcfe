// Kueue as a pinned Helm release, rendered only when some workload has a `queue`
// (docs/queues.md). Its queues (flavors, ClusterQueues, LocalQueues, Topologies) are the
// `queues` component, applied once this release is Ready.
//
// The chart is the published one (oci://registry.k8s.io/kueue/charts/kueue): its packaging
// (kubernetes-sigs/kueue v0.19.2 hack/helm-chart-package.sh) sets the image to
// registry.k8s.io/kueue/kueue:v<version> with pullPolicy IfNotPresent, so no image is set here.
// The manager's configuration replaces the chart's `managerConfig.controllerManagerConfigYaml`
// whole (templates/manager/manager-config.yaml reads it as YAML and only adds
// internalCertManagement): the chart's own settings are kept (ports, leader election, client
// QPS), and these are added, each from kubernetes-sigs/kueue v0.19.2 apis/config/v1beta2:
//   managedJobsNamespaceSelector  only the queued namespaces: the chart's webhooks take the same
//                                 selector (templates/webhook/manifests.yaml), so nothing outside
//                                 them passes through Kueue's fail-closed webhooks.
//   integrations.frameworks       the job kinds the input names (queues.integrations).
//   waitForPodsReady              gang admission: evicted and requeued when not all Ready in time.
//   resources.quotaCheckStrategy  IgnoreUndeclared: the ClusterQueues cover accelerators only,
//                                 CPU, memory and huge pages stay with the ResourceQuota.
//   resources.deviceClassMappings DRA devices counted per DeviceClass (KueueDRAIntegration).
//   fairSharing                   when a queue is in a cohort and queues.fairSharing is on.
// Metrics: the chart's ServiceMonitor carries no labels of ours, so it stays off and the
// `queues` component renders one a labelled Prometheus selects.
local helm = import '../lib/helm.libsonnet';
local k = import '../lib/k.libsonnet';

local defaults = {
  gitops: error 'must provide gitops',
  queues: error 'must provide queues',
  workloads: [],
  namespace: 'kueue-system',
  repoURL: 'oci://registry.k8s.io/kueue/charts',
  chart: 'kueue',
};

local queued(p) = [w for w in p.workloads if std.objectHas(w, 'queue')];

// Every DeviceClass a queued namespace's ResourceClaimTemplates use: Kueue makes a workload
// whose claim names an unmapped class inadmissible (pkg/dra/claims.go
// GetResourceRequestsForResourceClaimTemplates, "DeviceClass ... is not mapped"). The claims'
// classes (gpu-claims.libsonnet), the ComputeDomain channel class of the templates the DRA
// driver generates (its chart's deviceclass-compute-domain-default-channel.yaml, v25.12.0), and
// the classes the queues count, as queues.libsonnet names them. A mapped class no ClusterQueue
// covers is not counted (quotaCheckStrategy IgnoreUndeclared).
local deviceClasses(p) = std.set(std.flattenArrays([
  std.objectFields(std.get(f.quota, 'devices', {}))
  for w in queued(p)
  for f in w.queue.flavors
] + [
  [if std.objectHas(c, 'mig') then 'mig.nvidia.com' else 'gpu.nvidia.com' for c in std.get(w, 'claims', [])]
  + (if std.get(w, 'computeDomains', []) != [] then ['compute-domain-default-channel.nvidia.com'] else [])
  for w in queued(p)
]));

local managerConfig(p) = {
  apiVersion: 'config.kueue.x-k8s.io/v1beta2',
  kind: 'Configuration',
  // The chart's defaults (values.yaml managerConfig), kept.
  health: { healthProbeBindAddress: ':8081' },
  metrics: { bindAddress: ':8443' },
  webhook: { port: 9443 },
  leaderElection: { leaderElect: true, resourceName: 'c1f6bfd2.kueue.x-k8s.io' },
  controller: { groupKindConcurrency: {
    'Job.batch': 5,
    Pod: 5,
    'Workload.kueue.x-k8s.io': 10,
    'LocalQueue.kueue.x-k8s.io': 5,
    'ClusterQueue.kueue.x-k8s.io': 5,
    'ResourceFlavor.kueue.x-k8s.io': 1,
  } },
  clientConnection: { qps: 300, burst: 500 },
  managedJobsNamespaceSelector: { matchExpressions: [
    { key: 'kubernetes.io/metadata.name', operator: 'In', values: std.sort([w.namespace for w in queued(p)]) },
  ] },
  integrations: { frameworks: p.queues.integrations },
  waitForPodsReady: p.queues.waitForPodsReady,
  resources: {
    quotaCheckStrategy: 'IgnoreUndeclared',
    [if deviceClasses(p) != [] then 'deviceClassMappings']: [
      { name: c + '/devices', deviceClassNames: [c] }
      for c in deviceClasses(p)
    ],
  },
  [if p.queues.fairSharing && std.length([w for w in queued(p) if std.objectHas(w.queue, 'cohort')]) > 0 then 'fairSharing']: {
    // Kueue's default strategies (apis/config/v1beta2 defaults.go), written out.
    preemptionStrategies: ['LessThanOrEqualToFinalShare', 'LessThanInitialShare'],
  },
};

function(params)
  local p = defaults + params;
  k.keyed(
    if queued(p) == [] then []
    else helm.release(p,
                      'kueue',
                      p.namespace,
                      p.repoURL,
                      p.chart,
                      p.queues.kueueVersion,
                      {
                        managerConfig: { controllerManagerConfigYaml: k.yaml(managerConfig(p)) },
                        enablePrometheus: false,
                      })
  )
