// Per GPU pool a DaemonSet that checks every node of the pool: the driver is at least the
// pinned minimum and the node has `perNode` GPUs. The check (scripts/validate-gpu-node.sh) runs
// as the init container, so a failing node shows Init:Error / Init:CrashLoopBackOff in the pod
// status and one "gpu-validation: FAIL ..." line in its log; a passing node keeps a Running pod
// whose init log says "gpu-validation: PASS ...".
local k = import '../lib/k.libsonnet';

local defaults = {
  kubernetesVersion: error 'must provide kubernetesVersion',
  gpuPools: [],
  nvidia: error 'must provide nvidia',
  amd: error 'must provide amd',
  validation: error 'must provide validation',
  namespace: 'gpu-validation',
  pauseImage: 'registry.k8s.io/pause:3.10',
  script: importstr '../scripts/validate-gpu-node.sh',
};

function(params)
  local p = defaults + params;
  local component = 'gpu-validation';
  local scriptName = 'gpu-validation-script';
  local hasAmd = std.length([x for x in p.gpuPools if x.gpu.vendor == 'amd']) > 0;

  local restricted = {
    runAsNonRoot: true,
    runAsUser: 65534,
    allowPrivilegeEscalation: false,
    capabilities: { drop: ['ALL'] },
    seccompProfile: { type: 'RuntimeDefault' },
  };

  // NVIDIA: the runtime injects nvidia-smi and every GPU without the pod requesting one.
  // AMD: amd-smi opens the render nodes under /dev, which needs a privileged container.
  local vendorSpec(pool) =
    if pool.gpu.vendor == 'nvidia' then {
      image: p.validation.nvidiaImage,
      minVersion: p.nvidia.driver.minVersion,
      env: [
        { name: 'NVIDIA_VISIBLE_DEVICES', value: 'all' },
        { name: 'NVIDIA_DRIVER_CAPABILITIES', value: 'utility' },
      ],
      securityContext: restricted,
      pod: { runtimeClassName: 'nvidia' },
      mounts: [],
      volumes: [],
    } else {
      image: p.validation.amdImage,
      minVersion: p.amd.minDriverVersion,
      env: [],
      securityContext: { privileged: true },
      pod: {},
      mounts: [{ name: 'dev', mountPath: '/dev' }],
      volumes: [{ name: 'dev', hostPath: { path: '/dev', type: 'Directory' } }],
    };

  local daemonSet(pool) =
    local name = 'gpu-validation-' + pool.name;
    local v = vendorSpec(pool);
    k.object('apps/v1', 'DaemonSet', name, p.namespace, k.labels(component, name)) + {
      spec: {
        selector: { matchLabels: k.selectorLabels(name) },
        updateStrategy: { type: 'RollingUpdate' },
        template: {
          metadata: {
            labels: k.labels(component, name),
            // A new script re-validates every node: the pods roll when it changes.
            annotations: { 'gpu-gitops.io/script-hash': k.hash(p.script) },
          },
          spec: v.pod + {
            nodeSelector: pool.nodeSelector,
            tolerations: k.tolerationsFor(pool.taints),
            automountServiceAccountToken: false,
            initContainers: [{
              name: 'validate',
              image: v.image,
              command: ['sh', '/scripts/validate-gpu-node.sh', pool.gpu.vendor, v.minVersion, std.toString(pool.gpu.perNode)],
              env: v.env + [{ name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }],
              securityContext: v.securityContext,
              resources: { requests: { cpu: '10m', memory: '32Mi' }, limits: { memory: '256Mi' } },
              volumeMounts: [{ name: 'script', mountPath: '/scripts', readOnly: true }] + v.mounts,
            }],
            containers: [{
              name: 'validated',
              image: p.pauseImage,
              securityContext: restricted,
              resources: { requests: { cpu: '1m', memory: '8Mi' }, limits: { memory: '16Mi' } },
            }],
            volumes: [{ name: 'script', configMap: { name: scriptName } }] + v.volumes,
          },
        },
      },
    };

  if !p.validation.enabled || std.length(p.gpuPools) == 0 then []
  else [
    k.namespace(p.namespace, k.labels(component) + k.podSecurityLabels(if hasAmd then 'privileged' else 'baseline', p.kubernetesVersion)),
    k.object('v1', 'ConfigMap', scriptName, p.namespace, k.labels(component, scriptName)) + {
      data: { 'validate-gpu-node.sh': p.script },
    },
  ] + [daemonSet(x) for x in p.gpuPools]
