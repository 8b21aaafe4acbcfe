// Kueue's queues from the pools and the workloads' quotas (docs/queues.md), all kueue.x-k8s.io/v1beta2
// (the storage version of kubernetes-sigs/kueue v0.19.2 config/components/crd/bases):
//   ResourceFlavor  one per GPU pool a queue admits to, named after it: nodeLabels from its
//                   nodeSelector (Kueue adds them to the admitted pods' nodeSelector),
//                   tolerations for its taints (added to the admitted pods, so they pass the
//                   GPU-toleration admission policy), and topologyName where the pool has a
//                   Topology. Kueue forbids changing nodeLabels, tolerations or topologyName of
//                   a flavor with a topology (CRD x-kubernetes-validations): a change to a
//                   pool's nodeSelector or taints there is a replacement, shown by review.
//   Topology        per pool with topologyLevels (by default the provider's network levels of
//                   providers.json, nvidia.com/gpu.clique on multiNodeNVLink pools, then
//                   kubernetes.io/hostname, last as the CRD requires). Its levels are immutable.
//   ClusterQueue    one per queued namespace, named after it, admitting only that namespace's
//                   LocalQueues: one resource group with the accelerator resources of its
//                   flavors (the same names generator/inputs/queues.py counts), nominal quota,
//                   borrowing and lending limits, cohort, fair-sharing weight and preemption.
//   LocalQueue      `default` in the namespace: Kueue puts every job without a queue label there.
//   ServiceMonitor  Kueue's metrics (the chart's HTTPS endpoint, authorised for a Prometheus
//                   allowed `get` on the /metrics non-resource URL, as kube-prometheus-stack's is).
local k = import '../lib/k.libsonnet';

local component = 'queues';

local defaults = {
  monitoring: error 'must provide monitoring',
  workloads: [],
  gpuPools: [],
  kueueNamespace: 'kueue-system',
};

local resources(amounts, vendor) =
  (if std.objectHas(amounts, 'gpus') && vendor != null then { [k.gpuResource(vendor)]: amounts.gpus } else {})
  + (if std.objectHas(amounts, 'sharedGpus') then { 'nvidia.com/gpu.shared': amounts.sharedGpus } else {})
  + { ['nvidia.com/mig-' + m]: std.get(amounts, 'mig', {})[m] for m in std.objectFields(std.get(amounts, 'mig', {})) }
  + { [c + '/devices']: std.get(amounts, 'devices', {})[c] for c in std.objectFields(std.get(amounts, 'devices', {})) };

function(params)
  local p = defaults + params;
  local queued = [w for w in p.workloads if std.objectHas(w, 'queue')];
  local used = std.set([f.pool for w in queued for f in w.queue.flavors]);
  local pools = [x for x in p.gpuPools if std.member(used, x.name)];
  // nodePools[].topologyLevels, defaulted from the provider's levels (generator/inputs/queues.py)
  local levels(pool) = std.get(pool, 'topologyLevels', []);

  local flavor(pool) = k.object('kueue.x-k8s.io/v1beta2', 'ResourceFlavor', pool.name, labels=k.labels(component, pool.name)) + {
    spec: {
      nodeLabels: pool.nodeSelector,
      [if pool.taints != [] then 'tolerations']: k.tolerationsFor(pool.taints),
      [if levels(pool) != [] then 'topologyName']: pool.name,
    },
  };

  local topology(pool) = k.object('kueue.x-k8s.io/v1beta2', 'Topology', pool.name, labels=k.labels(component, pool.name)) + {
    spec: { levels: [{ nodeLabel: l } for l in levels(pool)] },
  };

  local clusterQueue(w) =
    local q = w.queue;
    local vendor = std.get(w, 'gpuVendor', null);
    local inCohort = std.objectHas(q, 'cohort');
    local covered = std.set(std.flattenArrays([std.objectFields(resources(f.quota, vendor)) for f in q.flavors]));
    local preemption = std.get(q, 'preemption', {});
    k.object('kueue.x-k8s.io/v1beta2', 'ClusterQueue', w.namespace, labels=k.labels(component, w.namespace)) + {
      spec: {
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': w.namespace } },
        [if inCohort then 'cohortName']: q.cohort,
        [if inCohort then 'fairSharing']: { weight: std.toString(q.weight) },
        queueingStrategy: 'BestEffortFIFO',
        resourceGroups: [{
          coveredResources: covered,
          flavors: [
            local nominal = resources(f.quota, vendor);
            local borrow = resources(std.get(f, 'borrowingLimit', {}), vendor);
            local lend = resources(std.get(f, 'lendingLimit', {}), vendor);
            {
              name: f.pool,
              resources: [
                {
                  name: r,
                  nominalQuota: std.toString(std.get(nominal, r, 0)),
                  // Kueue reads a missing borrowingLimit as "no limit": in a cohort one is always
                  // written, 0 unless the input gives it.
                  [if inCohort then 'borrowingLimit']: std.toString(std.get(borrow, r, 0)),
                  [if inCohort && std.objectHas(lend, r) then 'lendingLimit']: std.toString(lend[r]),
                }
                for r in covered
              ],
            }
            for f in q.flavors
          ],
        }],
        preemption: {
          withinClusterQueue: std.get(preemption, 'withinQueue', 'LowerPriority'),
          reclaimWithinCohort: std.get(preemption, 'reclaimWithinCohort', 'Any'),
          borrowWithinCohort: { policy: std.get(preemption, 'borrowWithinCohort', 'Never') },
        },
      },
    };

  local localQueue(w) = k.object('kueue.x-k8s.io/v1beta2', 'LocalQueue', 'default', w.namespace, k.labels(component, 'default')) + {
    spec: { clusterQueue: w.namespace },
  };

  local serviceMonitor = k.object('monitoring.coreos.com/v1',
                                  'ServiceMonitor',
                                  'kueue-controller-manager',
                                  p.kueueNamespace,
                                  p.monitoring.serviceMonitorLabels + k.labels(component, 'kueue-controller-manager')) + {
    spec: {
      // the chart's metrics Service (templates/manager/auth_proxy_service.yaml, kueue.metricsService.labels)
      selector: { matchLabels: {
        'app.kubernetes.io/name': 'kueue',
        'app.kubernetes.io/instance': 'kueue',
        'app.kubernetes.io/component': 'metrics-service',
      } },
      namespaceSelector: { matchNames: [p.kueueNamespace] },
      // as the chart's own (templates/prometheus/monitor.yaml): the manager's self-signed serving certificate
      endpoints: [{
        port: 'https',
        scheme: 'https',
        path: '/metrics',
        bearerTokenFile: '/var/run/secrets/kubernetes.io/serviceaccount/token',
        tlsConfig: { insecureSkipVerify: true },
      }],
    },
  };

  k.keyed(
    if queued == [] then []
    else [flavor(x) for x in pools]
         + [topology(x) for x in pools if levels(x) != []]
         + [clusterQueue(w) for w in queued]
         + [localQueue(w) for w in queued]
         + (if p.monitoring.serviceMonitor then [serviceMonitor] else [])
  )
