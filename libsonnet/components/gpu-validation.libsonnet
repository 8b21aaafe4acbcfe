// Per GPU pool a DaemonSet that checks every node of the pool: the driver is at least the
// pinned minimum, the node has `perNode` GPUs, on NVIDIA every GPU carries exactly the pool's
// MIG layout (none when MIG is off), and the Node's allocatable has exactly what the pool's
// GPUs should advertise (gpu.advertisedPerNode: whole GPUs, MIG slices per profile,
// time-sliced replicas), read by a second init container with a node-reading account; on a pool
// with `allocation: dra` that container checks instead what the DRA driver's ResourceSlices
// publish for the node (gpu.draDevicesPerNode: whole GPUs, or MIG devices per profile), since
// such a node advertises no GPU in its allocatable. The check (scripts/validate-gpu-node.sh) runs
// as the init container, so a failing node shows Init:Error / Init:CrashLoopBackOff in the pod
// status and one "gpu-validation: FAIL ..." line in its log; a passing node keeps a Running pod
// whose init log says "gpu-validation: PASS ...". On a pool with a training fabric
// (`nodePools[].fabric`) a third init container checks the fabric's RDMA devices in sysfs and their
// link state (`fabric` mode of the script; sysfs is readable unprivileged), and the Node's
// allocatable includes the fabric resource (what the RDMA shared device plugin or the EFA device
// plugin registers: advertised.fabric_offer in the generator says the same).
local gpu = import '../lib/gpu.libsonnet';
local k = import '../lib/k.libsonnet';
// Images and their sources: versions.json (docs/versions.md).
local versions = import '../versions.json';

local defaults = {
  providerFacts: error 'must provide providerFacts',
  kubernetesVersion: error 'must provide kubernetesVersion',
  gpuPools: [],
  nvidia: error 'must provide nvidia',
  amd: error 'must provide amd',
  validation: error 'must provide validation',
  namespace: 'gpu-validation',
  pauseImage: versions.images.pause.image,
  // The official kubectl image (ENTRYPOINT /bin/kubectl on a Debian base with sh and sed:
  // kubernetes/kubernetes build/server-image/kubectl/Dockerfile, published from v1.28).
  kubectlImage: k.kubectlImage(versions, self.kubernetesVersion),
  script: importstr '../scripts/validate-gpu-node.sh',
  imageDigests: {},
};

function(params)
  local p = defaults + params;
  local component = 'gpu-validation';
  local scriptName = 'gpu-validation-script';
  // OpenShift's SecurityContextConstraints admit the pods (securityContextConstraints in providers.json).
  local openshift = p.providerFacts.securityContextConstraints;
  // Every check reads its own Node (allocatable); on OpenShift the checks that need more than
  // restricted-v2 run as a second account that may use the privileged SCC (see vendorSpec).
  local account = 'gpu-validation';
  local privilegedAccount = 'gpu-validation-privileged';
  local accountOf(v) = if openshift && v.privileged then privilegedAccount else account;
  // The API token only in the container that reads the Node (k.apiTokenVolume).

  // Which SCC admits a pod decides who picks its UID. OpenShift's restricted-v2 SCC assigns each
  // pod a UID from the namespace's range (runAsUser MustRunAsRange) and rejects a fixed one
  // outside it, so no runAsUser there; runAsNonRoot still holds. The `privileged` SCC (the
  // privileged account's pods) is runAsUser RunAsAny: it assigns no UID, so the image's USER
  // runs, root for the kubectl and CUDA images, and the kubelet refuses a runAsNonRoot
  // container that would run as root ("container has runAsNonRoot and image will run as root":
  // kubernetes/kubernetes pkg/kubelet/kuberuntime/security_context_others.go verifyRunAsNonRoot,
  // v1.30). Those pods, like every pod elsewhere, name an explicit non-root UID.
  // SCC strategies: docs.openshift.com/container-platform/4.16 authentication/
  // managing-security-context-constraints ("Default security context constraints").
  // Read-only roots: the script writes only under /tmp (kubectl's cache and error file), an
  // emptyDir; nvidia-smi and pause write nothing.
  local restricted(assignsUid) = {
    runAsNonRoot: true,
    [if !assignsUid then 'runAsUser']: 65534,
    readOnlyRootFilesystem: true,
    allowPrivilegeEscalation: false,
    capabilities: { drop: ['ALL'] },
    seccompProfile: { type: 'RuntimeDefault' },
  };

  // The per-GPU MIG layout the script compares with `nvidia-smi -L`: "none" or
  // "<profile>=<count>,...".
  local migLayout(pool) =
    if gpu.usesMig(pool)
    then std.join(',', [name + '=' + pool.gpu.mig.profiles[name] for name in std.objectFields(pool.gpu.mig.profiles)])
    else 'none';

  // NVIDIA: the runtime injects nvidia-smi and every GPU without the pod requesting one. On a
  // MIG pool, listing every MIG device needs the runtime's MIG monitor capability
  // (NVIDIA_MIG_MONITOR_DEVICES=all), which the runtime only grants with CAP_SYS_ADMIN, held
  // effectively by root only: as upstream's device plugin chart does whenever migStrategy is
  // not none (NVIDIA/k8s-device-plugin deployments/helm/nvidia-device-plugin/templates/
  // _helpers.tpl requiresCapSysAdmin, v0.20.0).
  // AMD: amd-smi opens /dev/kfd and the render nodes (root:render 0660 on the host), which
  // needs a privileged container running as root: rocm/rocm-terminal's user is rocm-user,
  // in the render group only when the image is built with the host's RENDER_GID
  // (ROCm/ROCm-docker rocm-terminal/Dockerfile-ubuntu-22.04: USER rocm-user).
  local vendorSpec(pool) =
    if pool.gpu.vendor == 'nvidia' then {
      local mig = gpu.usesMig(pool),
      image: p.validation.nvidiaImage,
      minVersion: p.nvidia.driver.minVersion,
      args: [migLayout(pool)],
      env: [
        { name: 'NVIDIA_VISIBLE_DEVICES', value: 'all' },
        { name: 'NVIDIA_DRIVER_CAPABILITIES', value: 'utility' },
        // The CUDA base images carry NVIDIA_REQUIRE_CUDA (cuda:12.9.1-base: cuda>=12.9 and driver
        // branches), which the runtime enforces before the container starts: on an older driver
        // the pod would fail to start instead of the script printing FAIL with the versions.
        // NVIDIA_DISABLE_REQUIRE=true skips that check (NVIDIA/nvidia-container-toolkit
        // internal/config/image/cuda_image.go, HasDisableRequire); the script compares the
        // driver with gpu.nvidia.driver.minVersion itself.
        { name: 'NVIDIA_DISABLE_REQUIRE', value: 'true' },
      ] + (if mig then [{ name: 'NVIDIA_MIG_MONITOR_DEVICES', value: 'all' }] else []),
      privileged: mig,
      securityContext: if mig then {
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'], add: ['SYS_ADMIN'] },
        seccompProfile: { type: 'RuntimeDefault' },
      } else restricted(openshift),
      pod: { runtimeClassName: 'nvidia' },
      mounts: [],
      volumes: [],
      exceptions: if mig then {
        CKV_K8S_23: 'MIG pool: the MIG monitor capability the check needs is granted to root only',
        CKV_K8S_40: 'MIG pool: the MIG monitor capability the check needs is granted to root only',
        CKV_K8S_25: 'MIG pool: listing MIG devices through /dev/nvidia-caps needs SYS_ADMIN',
        CKV_K8S_39: 'MIG pool: listing MIG devices through /dev/nvidia-caps needs SYS_ADMIN',
      } else {},
    } else {
      image: p.validation.amdImage,
      minVersion: p.amd.minDriverVersion,
      args: [],
      env: [],
      privileged: true,
      securityContext: { privileged: true, runAsUser: 0 },
      pod: {},
      mounts: [{ name: 'dev', mountPath: '/dev' }],
      volumes: [{ name: 'dev', hostPath: { path: '/dev', type: 'Directory' } }],
      exceptions: {
        SEC002: 'amd-smi opens the GPU device files under /dev',
        CKV_K8S_16: 'amd-smi opens /dev/kfd and the render nodes (root:render 0660)',
        CKV_K8S_20: 'privileged to open the GPU device files',
        CKV_K8S_28: 'privileged: holds every capability whatever it drops',
        CKV_K8S_37: 'privileged: holds every capability whatever it drops',
        CKV_K8S_23: 'amd-smi opens /dev/kfd and the render nodes (root:render 0660) as root',
        CKV_K8S_40: 'amd-smi opens /dev/kfd and the render nodes (root:render 0660) as root',
        // rocm-terminal's amd-smi is a Python tool whose writes (logs, caches) are not
        // documented: its container keeps a writable root.
        CKV_K8S_22: 'the AMD check container runs amd-smi whose writes are not documented',
      },
    };
  local anyPrivileged = std.length([x for x in p.gpuPools if vendorSpec(x).privileged]) > 0;

  local daemonSet(pool) =
    local name = 'gpu-validation-' + pool.name;
    local v = vendorSpec(pool);
    // restricted-v2 assigns the pod's UID; the privileged SCC does not.
    local assignsUid = openshift && !v.privileged;
    local dra = pool.gpu.vendor == 'nvidia' && gpu.isDra(pool);
    local fabricType = pool.fabric.type;
    local hasFabric = fabricType != 'none';
    // Units of the fabric resource one node registers (training-fabric.libsonnet: rdmaHcaMax 63;
    // EFA: one per interface, known when the input gives `nics`).
    local fabricUnits = if fabricType == 'efa' then std.get(pool.fabric, 'nics', null) else 63;
    local fabricAdvertised = if hasFabric && !dra && fabricUnits != null then { [pool.fabric.resourceName]: fabricUnits } else {};
    local advertised = std.mapWithKey(function(_, n) std.toString(n), if dra then gpu.draDevicesPerNode(pool) else gpu.advertisedPerNode(pool) + fabricAdvertised);
    // Why the pool's DaemonSet is an exception to each hardening check it keeps (k.exceptions).
    local exceptions = {
      CKV_K8S_8: 'the long-running container is pause: the checks run once as init containers; nothing to probe',
      CKV_K8S_9: 'the long-running container is pause: the checks run once as init containers; nothing to probe',
    } + v.exceptions + (if assignsUid then {
                          CKV_K8S_40: "OpenShift's restricted-v2 SCC assigns the UID from the namespace's range",
                        } else {}) + k.unpinned([v.image, p.kubectlImage, p.pauseImage], p.imageDigests);
    local tmp = { name: 'tmp', mountPath: '/tmp' };
    k.object('apps/v1', 'DaemonSet', name, p.namespace, k.labels(component, name), k.exceptions(exceptions)) + {
      spec: {
        selector: { matchLabels: k.selectorLabels(name) },
        updateStrategy: { type: 'RollingUpdate' },
        template: {
          metadata: {
            labels: k.labels(component, name),
            // A new script re-validates every node: the pods roll when it changes.
            annotations: { 'gpu-gitops.io/script-hash': k.hash(p.script) },
          },
          spec: v.pod {
            nodeSelector: pool.nodeSelector,
            tolerations: k.tolerationsFor(pool.taints),
            // OpenShift admits the privileged check only through an SCC its account may use.
            serviceAccountName: accountOf(v),
            automountServiceAccountToken: false,
            // A no-op for the privileged AMD check (the runtime runs privileged containers unconfined).
            securityContext: { seccompProfile: { type: 'RuntimeDefault' } },
            initContainers: [{
              name: 'validate',
              image: k.image(v.image, p.imageDigests),
              command: ['sh', '/scripts/validate-gpu-node.sh', pool.gpu.vendor, v.minVersion, std.toString(pool.gpu.perNode)] + v.args,
              env: v.env + [{ name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }],
              securityContext: v.securityContext,
              resources: { requests: { cpu: '10m', memory: '32Mi' }, limits: { cpu: '500m', memory: '256Mi' } },
              volumeMounts: [{ name: 'script', mountPath: '/scripts', readOnly: true }, tmp] + v.mounts,
            }] + (if hasFabric then [{
                    // The fabric's RDMA devices, each with an active port.
                    name: 'fabric',
                    image: k.image(v.image, p.imageDigests),
                    command: ['sh', '/scripts/validate-gpu-node.sh', 'fabric', fabricType, std.toString(std.get(pool.fabric, 'nics', 1))],
                    env: [{ name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }],
                    securityContext: restricted(assignsUid),
                    resources: { requests: { cpu: '10m', memory: '16Mi' }, limits: { cpu: '100m', memory: '64Mi' } },
                    volumeMounts: [{ name: 'script', mountPath: '/scripts', readOnly: true }],
                  }] else []) + [{
              // Then what the device plugin registered: the Node's allocatable per resource.
              name: 'advertised',
              image: k.image(p.kubectlImage, p.imageDigests),
              command: ['sh', '/scripts/validate-gpu-node.sh', if dra then 'slices' else 'advertised']
                       + [r + '=' + advertised[r] for r in std.objectFields(advertised)],
              env: [{ name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }],
              securityContext: restricted(assignsUid),
              resources: { requests: { cpu: '10m', memory: '32Mi' }, limits: { cpu: '500m', memory: '128Mi' } },
              volumeMounts: [{ name: 'script', mountPath: '/scripts', readOnly: true }, tmp, k.apiTokenMount],
            }],
            containers: [{
              name: 'validated',
              image: k.image(p.pauseImage, p.imageDigests),
              securityContext: restricted(assignsUid),
              resources: { requests: { cpu: '1m', memory: '8Mi' }, limits: { cpu: '10m', memory: '16Mi' } },
            }],
            volumes: [{ name: 'script', configMap: { name: scriptName } }, k.scratchVolume('tmp'), k.apiTokenVolume] + v.volumes,
          },
        },
      },
    };

  local accounts = [account] + (if openshift && anyPrivileged then [privilegedAccount] else []);
  // Reading a Node: nodes are cluster-scoped.
  local nodeReader = [
    k.object('v1', 'ServiceAccount', x, p.namespace, k.labels(component, x))
    for x in accounts
  ] + [
    k.object('rbac.authorization.k8s.io/v1', 'ClusterRole', 'gpu-validation-node-reader', labels=k.labels(component, 'gpu-validation-node-reader')) + {
      rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get'] }]
             // a DRA pool's check lists its node's ResourceSlices (cluster-scoped)
             + (if std.length(gpu.draPools(p.gpuPools)) > 0 then [{ apiGroups: ['resource.k8s.io'], resources: ['resourceslices'], verbs: ['list'] }] else []),
    },
    k.object('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', 'gpu-validation-node-reader', labels=k.labels(component, 'gpu-validation-node-reader')) + {
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'gpu-validation-node-reader' },
      subjects: [{ kind: 'ServiceAccount', name: x, namespace: p.namespace } for x in accounts],
    },
  ];

  // OpenShift: the account of the privileged checks may use the `privileged` SCC.
  local openshiftAccess = k.privilegedSccAccess(p.providerFacts, privilegedAccount, p.namespace, [privilegedAccount], k.labels(component, privilegedAccount));

  k.keyed(
    if !p.validation.enabled || std.length(p.gpuPools) == 0 then []
    else [
           k.namespace(p.namespace, k.labels(component) + k.podSecurityLabels(if anyPrivileged then 'privileged' else 'baseline', p.kubernetesVersion)),
           k.object('v1', 'ConfigMap', scriptName, p.namespace, k.labels(component, scriptName)) + {
             data: { 'validate-gpu-node.sh': p.script },
           },
         ] + nodeReader + (if openshift && anyPrivileged then openshiftAccess else [])
         + [daemonSet(x) for x in p.gpuPools]
  )
