// NVIDIA k8s-device-plugin (device-plugin mode), after upstream's static manifest: per NVIDIA
// pool one DaemonSet in kube-system with that pool's config file (MIG strategy, time-slicing),
// its nodeSelector and exactly its taints tolerated; plus the `nvidia` RuntimeClass that pods
// use when the NVIDIA runtime is not the node's default. Renders nothing in operator mode,
// where the operator runs the plugin with the configs from nvidia-gpu-operator.
local gpu = import '../lib/gpu.libsonnet';
local k = import '../lib/k.libsonnet';

local defaults = {
  pools: [],
  nvidia: error 'must provide nvidia',
  namespace: 'kube-system',
  image: 'nvcr.io/nvidia/k8s-device-plugin',
};

function(params)
  local p = defaults + params;
  local component = 'nvidia-device-plugin';
  local pools = gpu.poolsOf(p.pools, 'nvidia');

  local perPool(pool) =
    local name = 'nvidia-device-plugin-' + pool.name;
    local labels = k.labels(component, name);
    // A MIG pool's plugin enumerates MIG devices through the nvidia-caps files, which needs
    // SYS_ADMIN and the monitor capability (upstream's chart does the same whenever
    // migStrategy is not none); every other pool keeps no capability at all.
    local mig = gpu.usesMig(pool);
    [
      k.object('v1', 'ConfigMap', name, p.namespace, labels) + {
        data: { 'config.yaml': k.yaml(gpu.devicePluginConfig(pool)) },
      },
      k.object('apps/v1', 'DaemonSet', name, p.namespace, labels) + {
        spec: {
          selector: { matchLabels: k.selectorLabels(name) },
          updateStrategy: { type: 'RollingUpdate' },
          template: {
            metadata: {
              labels: labels,
              // A config change rolls the pods: the plugin reads its file only at start.
              annotations: { 'gpu-gitops.io/config-hash': k.hash(gpu.devicePluginConfig(pool)) },
            },
            spec: {
              nodeSelector: pool.nodeSelector,
              tolerations: k.tolerationsFor(pool.taints),
              priorityClassName: 'system-node-critical',
              // The plugin enumerates GPUs through NVML (libnvidia-ml), which only the NVIDIA
              // runtime injects (the image sets NVIDIA_VISIBLE_DEVICES=all for it:
              // NVIDIA/k8s-device-plugin deployments/container/Dockerfile, v0.20.0); where that
              // runtime is not the node's default only the RuntimeClass selects it, as for
              // dcgm-exporter and gpu-validation (upstream chart value runtimeClassName).
              runtimeClassName: 'nvidia',
              containers: [{
                name: 'nvidia-device-plugin-ctr',
                image: p.image + ':' + p.nvidia.devicePluginVersion,
                env: [{ name: 'CONFIG_FILE', value: '/config/config.yaml' }]
                     + (if mig then [{ name: 'NVIDIA_MIG_MONITOR_DEVICES', value: 'all' }] else []),
                securityContext: {
                  allowPrivilegeEscalation: false,
                  capabilities: { drop: ['ALL'] } + (if mig then { add: ['SYS_ADMIN'] } else {}),
                },
                resources: { requests: { cpu: '10m', memory: '32Mi' }, limits: { memory: '128Mi' } },
                volumeMounts: [
                  { name: 'kubelet-device-plugins-dir', mountPath: '/var/lib/kubelet/device-plugins' },
                  { name: 'config', mountPath: '/config', readOnly: true },
                ],
              }],
              volumes: [
                { name: 'kubelet-device-plugins-dir', hostPath: { path: '/var/lib/kubelet/device-plugins', type: 'Directory' } },
                { name: 'config', configMap: { name: name } },
              ],
            },
          },
        },
      },
    ];

  if p.nvidia.mode != 'device-plugin' || std.length(pools) == 0 then []
  else [
    k.object('node.k8s.io/v1', 'RuntimeClass', 'nvidia', labels=k.labels(component, 'nvidia')) + { handler: 'nvidia' },
  ] + std.flattenArrays([perPool(x) for x in pools])
