// NVIDIA k8s-device-plugin (device-plugin mode), after upstream's static manifest: per NVIDIA
// pool one DaemonSet in kube-system with that pool's config file (MIG strategy, time-slicing),
// its nodeSelector and exactly its taints tolerated; plus the `nvidia` RuntimeClass that pods
// use when the NVIDIA runtime is not the node's default (the exporter and the validation of
// every NVIDIA pool use it too). Renders nothing in operator mode, where the operator runs the
// plugin with the configs from nvidia-gpu-operator. A pool with `allocation: dra` gets no
// plugin: the DRA driver publishes its GPUs (nvidia-dra-driver).
local gpu = import '../lib/gpu.libsonnet';
local k = import '../lib/k.libsonnet';
// Images and their sources: versions.json (docs/versions.md).
local versions = import '../versions.json';

local defaults = {
  pools: [],
  nvidia: error 'must provide nvidia',
  namespace: 'kube-system',
  image: versions.repositories.nvidiaDevicePlugin.repository,
  imageDigests: {},
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
    local image = p.image + ':' + p.nvidia.devicePluginVersion;
    // What the plugin keeps of the hardening checks, and why (k.exceptions: read by checkov
    // and `gpu-gitops lint`). It runs as root, as upstream's manifest and chart do: it creates
    // its registration socket in the kubelet's root-owned /var/lib/kubelet/device-plugins.
    local exceptions = {
      SEC002: 'registers with the kubelet through the socket folder /var/lib/kubelet/device-plugins',
      CKV_K8S_23: 'creates its registration socket in the root-owned /var/lib/kubelet/device-plugins',
      CKV_K8S_40: 'runs as root like upstream: the kubelet socket folder is root-owned',
      // No endpoint to probe: the plugin serves only gRPC on its socket, and the kubelet
      // notices a dead plugin by the socket (upstream's manifest and chart have no probes).
      CKV_K8S_8: 'the plugin serves no health endpoint (upstream has no probes)',
      CKV_K8S_9: 'the plugin serves no readiness endpoint (upstream has no probes)',
    } + (if mig then {
           CKV_K8S_25: 'MIG pool: listing MIG devices through /dev/nvidia-caps needs SYS_ADMIN (upstream chart requiresCapSysAdmin)',
           CKV_K8S_39: 'MIG pool: listing MIG devices through /dev/nvidia-caps needs SYS_ADMIN (upstream chart requiresCapSysAdmin)',
         } else {}) + k.unpinned([image], p.imageDigests);
    [
      k.object('v1', 'ConfigMap', name, p.namespace, labels) + {
        data: { 'config.yaml': k.yaml(gpu.devicePluginConfig(pool)) },
      },
      k.object('apps/v1', 'DaemonSet', name, p.namespace, labels, k.exceptions(exceptions)) + {
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
              // The plugin never talks to the API server (static manifest: no service account).
              automountServiceAccountToken: false,
              securityContext: { seccompProfile: { type: 'RuntimeDefault' } },
              containers: [{
                name: 'nvidia-device-plugin-ctr',
                image: k.image(image, p.imageDigests),
                env: [{ name: 'CONFIG_FILE', value: '/config/config.yaml' }]
                     + (if mig then [{ name: 'NVIDIA_MIG_MONITOR_DEVICES', value: 'all' }] else []),
                // Read-only root: the plugin writes only its socket (in the hostPath) and logs to
                // stderr. The NVIDIA runtime's hook mounts the driver libraries before runc
                // makes the root read-only (runc libcontainer/rootfs_linux.go: prestart and
                // createContainer hooks run in prepareRootfs, the read-only remount in
                // finalizeRootfs).
                securityContext: {
                  readOnlyRootFilesystem: true,
                  allowPrivilegeEscalation: false,
                  capabilities: { drop: ['ALL'] } + (if mig then { add: ['SYS_ADMIN'] } else {}),
                },
                resources: { requests: { cpu: '10m', memory: '32Mi' }, limits: { cpu: '200m', memory: '128Mi' } },
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

  k.keyed(
    if p.nvidia.mode != 'device-plugin' || std.length(pools) == 0 then []
    else [
      k.object('node.k8s.io/v1', 'RuntimeClass', 'nvidia', labels=k.labels(component, 'nvidia')) + { handler: 'nvidia' },
    ] + std.flattenArrays([perPool(x) for x in gpu.devicePluginPools(pools)])
  )
