// DCGM exporter (device-plugin mode): per NVIDIA pool a DaemonSet tolerating that pool's taints,
// one Service over all of them and a ServiceMonitor whose honorLabels decides whether the
// exporter's pod/namespace labels survive as `pod` or become `exported_pod` (the autoscaling
// queries read the same setting). In operator mode the operator runs the exporter.
//
// On a pool with `allocation: dra` the kubelet's pod-resources socket reports GPUs as DRA claim
// devices (pool and device names), not device IDs: with `gpu.nvidia.draPodMetrics` the exporter
// maps them to GPU UUIDs through the driver's ResourceSlices (KUBERNETES_ENABLE_DRA,
// internal/pkg/transformation/dra.go and kubernetes.go toDeviceToPodsDRA, dcgm-exporter
// 4.4.1-4.6.0) and labels the series with the same pod/namespace/container as on device-plugin
// pools, so the autoscaling queries work there unchanged. It reads the slices with an informer
// at resource.k8s.io/v1beta1, as a ServiceAccount that may list and watch them (upstream chart
// deployment/templates/clusterrole.yaml: pods and resourceslices).
local gpu = import '../lib/gpu.libsonnet';
local k = import '../lib/k.libsonnet';
// Images and their sources: versions.json (docs/versions.md).
local versions = import '../versions.json';

local defaults = {
  pools: [],
  nvidia: error 'must provide nvidia',
  monitoring: error 'must provide monitoring',
  namespace: 'kube-system',
  image: versions.repositories.dcgmExporter.repository,
  port: 9400,
  scrapeInterval: '15s',
  imageDigests: {},
};

function(params)
  local p = defaults + params;
  local component = 'dcgm-exporter';
  local name = 'dcgm-exporter';
  local pools = gpu.poolsOf(p.pools, 'nvidia');
  // Every pool's pods carry the shared selector label, so one Service covers them all.
  local shared = { 'app.kubernetes.io/part-of': name };

  local draMapping(pool) = gpu.isDra(pool) && p.nvidia.draPodMetrics;
  local account = name;

  local daemonSet(pool) =
    local dsName = name + '-' + pool.name;
    local dra = draMapping(pool);
    local image = p.image + ':' + p.nvidia.dcgmExporterVersion;
    // What the exporter keeps of the hardening checks, and why (k.exceptions: read by checkov
    // and `gpu-gitops lint`); root and SYS_ADMIN as upstream's chart (deployment/values.yaml
    // securityContext: runAsUser 0, capabilities add SYS_ADMIN).
    local exceptions = {
      SEC002: 'maps GPUs to pods through the kubelet pod-resources socket',
      CKV_K8S_23: 'DCGM runs as root as in upstream chart (runAsUser 0)',
      CKV_K8S_40: 'DCGM runs as root as in upstream chart (runAsUser 0)',
      CKV_K8S_25: 'DCGM profiling metrics (DCGM_FI_PROF_*) need SYS_ADMIN (upstream chart)',
      CKV_K8S_39: 'DCGM profiling metrics (DCGM_FI_PROF_*) need SYS_ADMIN (upstream chart)',
      // Upstream's chart has readOnlyRootFilesystem only as a commented-out example and does not
      // say where the embedded DCGM host engine writes: not made read-only unverified.
      CKV_K8S_22: 'the embedded DCGM host engine may write outside known paths; upstream keeps the root writable',
    } + k.unpinned([image], p.imageDigests);
    k.object('apps/v1', 'DaemonSet', dsName, p.namespace, k.labels(component, dsName), k.exceptions(exceptions)) + {
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
            // (upstream dcgm-exporter.yaml and chart: token only with pod labels/UIDs enabled);
            // the DRA mapping reads ResourceSlices, with the token mounted (k.apiTokenVolume).
            [if dra then 'serviceAccountName']: account,
            automountServiceAccountToken: false,
            // With CAP_SYS_ADMIN granted the runtime's default profile allows the syscalls that
            // capability gates (containerd contrib/seccomp DefaultProfile), so profiling works.
            securityContext: { seccompProfile: { type: 'RuntimeDefault' } },
            containers: [{
              name: 'dcgm-exporter',
              image: k.image(image, p.imageDigests),
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
                   ] + (if gpu.sharesGpus(pool) then gpu.virtualGpuEnv else [])
                   + (if dra then [{ name: 'KUBERNETES_ENABLE_DRA', value: 'true' }] else []),
              ports: [{ name: 'metrics', containerPort: p.port, protocol: 'TCP' }],
              // DCGM profiling metrics (DCGM_FI_PROF_*) need SYS_ADMIN; nothing else is kept
              // (upstream chart values securityContext, NVIDIA/dcgm-exporter deployment/values.yaml).
              securityContext: {
                runAsNonRoot: false,
                runAsUser: 0,
                allowPrivilegeEscalation: false,
                capabilities: { drop: ['ALL'], add: ['SYS_ADMIN'] },
              },
              resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '1', memory: '512Mi' } },
              // The exporter serves /health on its metrics port; upstream's chart probes it for
              // both liveness and readiness (deployment/templates/daemonset.yaml).
              livenessProbe: { httpGet: { path: '/health', port: p.port }, initialDelaySeconds: 45, periodSeconds: 10 },
              readinessProbe: { httpGet: { path: '/health', port: p.port }, initialDelaySeconds: 30 },
              volumeMounts: [{ name: 'pod-resources', mountPath: '/var/lib/kubelet/pod-resources', readOnly: true }]
                            + (if dra then [k.apiTokenMount] else []),
            }],
            volumes: [{ name: 'pod-resources', hostPath: { path: '/var/lib/kubelet/pod-resources', type: 'Directory' } }]
                     + (if dra then [k.apiTokenVolume] else []),
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
  local serviceMonitor = k.object('monitoring.coreos.com/v1',
                                  'ServiceMonitor',
                                  name,
                                  p.namespace,
                                  p.monitoring.serviceMonitorLabels + k.labels(component, name)) + {
    spec: {
      selector: { matchLabels: k.labels(component, name) },
      namespaceSelector: { matchNames: [p.namespace] },
      endpoints: [{ port: 'metrics', interval: p.scrapeInterval, honorLabels: p.monitoring.honorLabels }],
    },
  };

  local draAccess = [
    k.object('v1', 'ServiceAccount', account, p.namespace, k.labels(component, account)),
    k.object('rbac.authorization.k8s.io/v1', 'ClusterRole', 'dcgm-exporter-read-resourceslices', labels=k.labels(component, 'dcgm-exporter-read-resourceslices')) + {
      rules: [{ apiGroups: ['resource.k8s.io'], resources: ['resourceslices'], verbs: ['get', 'list', 'watch'] }],
    },
    k.object('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', 'dcgm-exporter-read-resourceslices', labels=k.labels(component, 'dcgm-exporter-read-resourceslices')) + {
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'dcgm-exporter-read-resourceslices' },
      subjects: [{ kind: 'ServiceAccount', name: account, namespace: p.namespace }],
    },
  ];

  k.keyed(
    if p.nvidia.mode != 'device-plugin' || !p.monitoring.dcgmExporter || std.length(pools) == 0 then []
    else [daemonSet(x) for x in pools] + [service]
         + (if p.monitoring.serviceMonitor then [serviceMonitor] else [])
         + (if std.length([x for x in pools if draMapping(x)]) > 0 then draAccess else [])
  )
