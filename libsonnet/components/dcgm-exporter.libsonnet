// DCGM exporter (device-plugin mode): per NVIDIA pool a DaemonSet tolerating that pool's taints,
// one Service over all of them and a ServiceMonitor whose honorLabels decides whether the
// exporter's pod/namespace labels survive as `pod` or become `exported_pod` (the autoscaling
// queries read the same setting). In operator mode the operator runs the exporter.
local gpu = import '../lib/gpu.libsonnet';
local k = import '../lib/k.libsonnet';

local defaults = {
  pools: [],
  nvidia: error 'must provide nvidia',
  monitoring: error 'must provide monitoring',
  namespace: 'kube-system',
  image: 'nvcr.io/nvidia/k8s/dcgm-exporter',
  port: 9400,
  scrapeInterval: '15s',
};

function(params)
  local p = defaults + params;
  local component = 'dcgm-exporter';
  local name = 'dcgm-exporter';
  local pools = gpu.poolsOf(p.pools, 'nvidia');
  // Every pool's pods carry the shared selector label, so one Service covers them all.
  local shared = { 'app.kubernetes.io/part-of': name };

  local daemonSet(pool) =
    local dsName = name + '-' + pool.name;
    k.object('apps/v1', 'DaemonSet', dsName, p.namespace, k.labels(component, dsName)) + {
      spec: {
        selector: { matchLabels: k.selectorLabels(dsName) },
        updateStrategy: { type: 'RollingUpdate' },
        template: {
          metadata: { labels: k.labels(component, dsName) + shared },
          spec: {
            nodeSelector: pool.nodeSelector,
            tolerations: k.tolerationsFor(pool.taints),
            priorityClassName: 'system-node-critical',
            runtimeClassName: 'nvidia',
            // Pod metadata comes from the kubelet's pod-resources socket, not the API
            // (upstream dcgm-exporter.yaml and chart: token only with pod labels/UIDs enabled).
            automountServiceAccountToken: false,
            containers: [{
              name: 'dcgm-exporter',
              image: p.image + ':' + p.nvidia.dcgmExporterVersion,
              env: [
                { name: 'DCGM_EXPORTER_KUBERNETES', value: 'true' },
                { name: 'DCGM_EXPORTER_LISTEN', value: ':' + p.port },
                // The `Hostname` label of every series is NODE_NAME, else the pod's own host
                // name (internal/pkg/hostname/hostname.go getLocalHostname, NVIDIA/dcgm-exporter
                // 4.4.1-4.6.0; upstream dcgm-exporter.yaml sets it from spec.nodeName).
                { name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
                // See every GPU without requesting one (the runtime maps them in).
                { name: 'NVIDIA_VISIBLE_DEVICES', value: 'all' },
                { name: 'NVIDIA_DRIVER_CAPABILITIES', value: 'utility' },
              ],
              ports: [{ name: 'metrics', containerPort: p.port, protocol: 'TCP' }],
              // DCGM profiling metrics (DCGM_FI_PROF_*) need SYS_ADMIN; nothing else is kept
              // (upstream chart values securityContext, NVIDIA/dcgm-exporter deployment/values.yaml).
              securityContext: {
                runAsNonRoot: false,
                runAsUser: 0,
                allowPrivilegeEscalation: false,
                capabilities: { drop: ['ALL'], add: ['SYS_ADMIN'] },
              },
              resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '512Mi' } },
              readinessProbe: { httpGet: { path: '/health', port: p.port }, initialDelaySeconds: 30 },
              volumeMounts: [{ name: 'pod-resources', mountPath: '/var/lib/kubelet/pod-resources', readOnly: true }],
            }],
            volumes: [{ name: 'pod-resources', hostPath: { path: '/var/lib/kubelet/pod-resources', type: 'Directory' } }],
          },
        },
      },
    };

  local service = k.object('v1', 'Service', name, p.namespace, k.labels(component, name)) + {
    spec: {
      selector: shared,
      ports: [{ name: 'metrics', port: p.port, targetPort: 'metrics', protocol: 'TCP' }],
    },
  };

  // The Prometheus picks ServiceMonitors by label (kube-prometheus-stack: `release`), so the
  // input's labels go on it; the selector keeps matching the Service by the project's labels.
  local serviceMonitor = k.object('monitoring.coreos.com/v1', 'ServiceMonitor', name, p.namespace,
                                  p.monitoring.serviceMonitorLabels + k.labels(component, name)) + {
    spec: {
      selector: { matchLabels: k.labels(component, name) },
      namespaceSelector: { matchNames: [p.namespace] },
      endpoints: [{ port: 'metrics', interval: p.scrapeInterval, honorLabels: p.monitoring.honorLabels }],
    },
  };

  if p.nvidia.mode != 'device-plugin' || !p.monitoring.dcgmExporter || std.length(pools) == 0 then []
  else [daemonSet(x) for x in pools] + [service]
       + (if p.monitoring.serviceMonitor then [serviceMonitor] else [])
