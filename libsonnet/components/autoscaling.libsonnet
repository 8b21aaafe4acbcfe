// A KEDA ScaledObject per autoscaling entry: a Prometheus trigger on a DCGM exporter metric of
// the Deployment's pods. The label names follow the scrape config (honorLabels keeps `pod` and
// `namespace`, otherwise they arrive as `exported_pod`/`exported_namespace`); an empty result is
// an error rather than 0 (ignoreNullValues "false"), so a Prometheus outage triggers the fallback
// instead of scaling production down. TriggerAuthentication when Prometheus needs a token.
local k = import '../lib/k.libsonnet';

local defaults = {
  workloads: [],
  monitoring: error 'must provide monitoring',
  authName: 'prometheus-bearer',
  fallbackFailureThreshold: 3,
};

function(params)
  local p = defaults + params;
  local component = 'autoscaling';
  local m = p.monitoring;
  local podLabel = if m.honorLabels then 'pod' else 'exported_pod';
  local nsLabel = if m.honorLabels then 'namespace' else 'exported_namespace';
  local useAuth = std.objectHas(m, 'authSecret');

  // dcgm-exporter emits one series per GPU, labelled with the pod (and namespace) holding it
  // (NVIDIA/dcgm-exporter pkg/cmd/app.go and internal/pkg/transformation/kubernetes.go,
  // DCGM_EXPORTER_KUBERNETES). So first the average over each pod's GPUs, then the sum over the
  // Deployment's pods: with metricType AverageValue the HPA divides that sum by the replica
  // count, and the target is a replica's average GPU value whatever its GPU count (a sum over
  // GPUs would count an 8-GPU replica at 70% as 560). KEDA's prometheus scaler needs the query
  // to return one element (kedacore/keda pkg/scalers/prometheus_scaler.go, v2.20: "prometheus
  // query ... returned multiple elements"): the outer sum gives one.
  // DCGM_FI_PROF_* metrics are ratios: scaled to percent.
  local query(ns, a) =
    local selector = '{%s="%s", %s=~"%s-[a-z0-9]+-[a-z0-9]+"}' % [nsLabel, ns, podLabel, a.deployment];
    local expr = 'sum(avg by (%s, %s) (%s%s))' % [nsLabel, podLabel, a.metric, selector];
    if std.startsWith(a.metric, 'DCGM_FI_PROF_') then expr + ' * 100' else expr;

  local scaledObject(ns, a) =
    k.object('keda.sh/v1alpha1', 'ScaledObject', a.deployment, ns, k.labels(component, a.deployment)) + {
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: a.deployment },
        pollingInterval: a.pollingInterval,
        cooldownPeriod: a.cooldownPeriod,
        minReplicaCount: a.minReplicas,
        maxReplicaCount: a.maxReplicas,
        fallback: {
          failureThreshold: p.fallbackFailureThreshold,
          replicas: if std.objectHas(a, 'fallbackReplicas') then a.fallbackReplicas else std.max(a.minReplicas, 1),
          // Never scale down because the metric vanished.
          behavior: 'currentReplicasIfHigher',
        },
        triggers: [{
          type: 'prometheus',
          metricType: 'AverageValue',
          metadata: {
            serverAddress: m.prometheusUrl,
            query: query(ns, a),
            threshold: std.toString(a.gpuUtilization),
            activationThreshold: std.toString(a.activationThreshold),
            ignoreNullValues: 'false',
            [if useAuth then 'authModes']: 'bearer',
          },
          [if useAuth then 'authenticationRef']: { name: p.authName },
        }],
      },
    };

  local scaled = [w for w in p.workloads if std.length(w.autoscaling) > 0];
  k.keyed(
    std.flattenArrays([
      (if useAuth then [
         k.object('keda.sh/v1alpha1', 'TriggerAuthentication', p.authName, w.namespace, k.labels(component, p.authName)) + {
           spec: { secretTargetRef: [{ parameter: 'bearerToken', name: m.authSecret, key: 'bearerToken' }] },
         },
       ] else [])
      + [scaledObject(w.namespace, a) for a in w.autoscaling]
      for w in scaled
    ])
  )
