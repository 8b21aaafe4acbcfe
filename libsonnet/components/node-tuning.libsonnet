// Per-pool kernel tuning: node-level sysctls and huge pages.
//
// backend `daemonset`: one DaemonSet per pool in the tuning namespace (the only namespace this
// component labels Pod Security `privileged`), selecting exactly the pool's nodes and tolerating
// exactly its taints. Its init container runs files/tune-node.sh (privileged, host network so
// net.core.* lands in the host's network namespace) against a per-pool config file; the main
// container is `pause`, unprivileged, so the pod stays Running as proof the node is tuned. The
// pod template carries a hash of the config and script: a change rolls the DaemonSet and
// re-applies. 2Mi pages are set at runtime; 1Gi pages are only checked (`bootReserved`), since
// runtime allocation of 1Gi pages fails on fragmented memory (input error otherwise, see
// generator/inputs/consistency/tuning.py). The kubelet reads huge pages at start only: with
// `tuning.restartKubelet` the script restarts it whenever its record on the host
// (/var/lib/gpu-gitops/kubelet-hugepages: the pages and the boot it restarted for) is missing or
// stale, so a failed restart is retried and a reboot (pages set again after the kubelet started)
// restarts it once more; without it every run logs a warning that allocatable lacks the pages.
// Restarts are bounded: only under systemd (the script checks the host's PID 1), one node of the
// pool at a time (a pool's nodes are created and often rebooted together): the script holds the
// Lease `kubelet-restart-<pool>` in the tuning namespace from before the restart until the
// kubelet answers its health check, and keeps it (marked held, never expiring) when the kubelet
// does not come back (docs/node-platform.md). kubectl comes from registry.k8s.io/kubectl (Debian-based,
// kubernetes build/server-image/kubectl/Dockerfile), copied into the busybox container by a
// first init container; the API token is projected into the tuning container only, for a
// ServiceAccount that may touch nothing but these Leases. A change of script or config rolls
// the DaemonSet one node at a time (maxUnavailable: 1).
//
// backend `tuned`: one Node Tuning Operator `Tuned` per pool: [sysctl] and [bootloader] for the
// huge pages (2Mi and 1Gi) on the kernel command line, applied through the pool's MachineConfigPool (a reboot; generator/inputs/consistency/tuning.py checks
// the pool is one the input says exists). Transparent huge pages are left as the node image
// sets them: nothing in the input asks to change them.
local k = import '../lib/k.libsonnet';
// Images and their sources: versions.json (docs/versions.md).
local labels = import '../lib/labels.libsonnet';
local startup = import '../lib/tuning.libsonnet';
local versions = import '../versions.json';

local defaults = {
  cluster: error 'must provide cluster',
  kubernetesVersion: error 'must provide kubernetesVersion',
  tuning: error 'must provide tuning',
  // spec.admission: where ValidatingAdmissionPolicy is served (enabled), the tuning account is
  // held to removing its own node's startup taint.
  admission: { enabled: false },
  nfd: { enabled: false },
  pools: [],
  images: {
    tune: versions.images.busybox.image,
    // Lease create/get/replace/delete: coordination.k8s.io/v1, unchanged since 1.14
    kubectl: k.kubectlImage(versions, $.kubernetesVersion),
    pause: versions.images.pause.image,
  },
  stateDir: '/var/lib/gpu-gitops',
  serviceAccount: 'kubelet-restart',
  // The account of the other tuning pods: their own, without a token, so that on OpenShift the
  // privileged SCC is granted to it and never to the namespace's `default` account.
  tuningAccount: 'node-tuning',
  lockSeconds: 600,
  tunedNamespace: 'openshift-cluster-node-tuning-operator',
  tunedPriority: 20,
  script: importstr '../files/tune-node.sh',
  imageDigests: {},
};

local kB = { '2Mi': 2048, '1Gi': 1048576 };

local hugepagesOf(pool) = std.get(pool, 'hugepages', { '2Mi': 0, '1Gi': 0, bootReserved: false });

local hasTuning(pool) =
  local h = hugepagesOf(pool);
  std.length(pool.sysctls) > 0 || h['2Mi'] > 0 || h['1Gi'] > 0;

// The tune-node.sh config of a pool, in a stable order.
local configOf(pool) =
  local h = hugepagesOf(pool);
  std.join('\n', ['# node pool ' + pool.name]
                 + ['sysctl %s %s' % [key, pool.sysctls[key]] for key in std.objectFields(pool.sysctls)]
                 + (if h['2Mi'] > 0 then ['hugepages %d %d' % [kB['2Mi'], h['2Mi']]] else [])
                 + (if h['1Gi'] > 0 then ['reserved-hugepages %d %d' % [kB['1Gi'], h['1Gi']]] else [])) + '\n';

// MachineConfigPool role of a pool, from its `node-role.kubernetes.io/<role>` selector label.
local mcpRole(pool) =
  local prefix = 'node-role.kubernetes.io/';
  local n = std.length(prefix);
  local roles = [
    std.substr(key, n, std.length(key) - n)
    for key in std.objectFields(pool.nodeSelector)
    if std.startsWith(key, prefix)
  ];
  if std.length(roles) > 0 then roles[0] else null;

// Tuned `match` rules (nested = AND) for every label of the pool's nodeSelector.
local tunedMatch(selector) =
  local keys = std.objectFields(selector);
  local rule(i) =
    { label: keys[i] }
    + (if selector[keys[i]] != '' then { value: selector[keys[i]] } else {})
    + (if i + 1 < std.length(keys) then { match: [rule(i + 1)] } else {});
  [rule(0)];

function(params)
  local p = defaults + params;
  local component = 'node-tuning';
  local ns = p.tuning.namespace;
  local pools = [pool for pool in p.pools if hasTuning(pool)];
  local scriptName = 'tune-node-script';

  local lockName(pool) = 'kubelet-restart-' + pool.name;
  // Only runtime (2Mi) huge pages need the kubelet restarted: other pools get no restart
  // machinery and no API access.
  local restartsKubelet(pool) = startup.restartsKubelet(p.tuning, pool);
  local restartPools = [pool for pool in pools if restartsKubelet(pool)];

  local daemonSetObjects(pool) =
    local name = 'tune-' + pool.name;
    local restarts = restartsKubelet(pool);
    local config = configOf(pool);
    local poolLabels = k.labels(component, name) + { [labels.nodePool]: pool.name };
    // Why the DaemonSet is an exception to each hardening check it keeps (k.exceptions). The
    // tuning init container writes the host's sysctls and huge pages: privileged and root.
    local exceptions = {
      SEC002: 'writes huge pages under the host /sys' + (if restarts then ' and its kubelet-restart record under ' + p.stateDir else ''),
      CKV_K8S_16: 'the tuning init container writes node sysctls (/proc/sys) and huge pages (/sys)',
      CKV_K8S_20: 'privileged: the tuning init container writes /proc/sys and /sys',
      CKV_K8S_28: 'privileged: the tuning init container holds every capability whatever it drops',
      CKV_K8S_37: 'privileged: the tuning init container holds every capability whatever it drops',
      CKV_K8S_19: 'net.core sysctls take effect in the network namespace they are written in: the host one',
      CKV_K8S_8: 'the long-running container is pause: the tuning runs once as an init container; nothing to probe',
      CKV_K8S_9: 'the long-running container is pause: the tuning runs once as an init container; nothing to probe',
    } + (if restarts then {
           CKV_K8S_17: 'restarts the kubelet through the namespaces of PID 1 (nsenter) after changing huge pages',
         } else {}) + k.unpinned([p.images.tune, p.images.pause] + (if restarts then [p.images.kubectl] else []), p.imageDigests);
    [
      k.object('v1', 'ConfigMap', name, ns, poolLabels) + { data: { 'tuning.conf': config } },
      k.object('apps/v1', 'DaemonSet', name, ns, poolLabels, k.exceptions(exceptions)) + {
        spec: {
          selector: { matchLabels: k.selectorLabels(name) },
          // a new config may restart the kubelet: one node of the pool at a time
          updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } },
          template: {
            metadata: {
              labels: poolLabels,
              annotations: { 'gpu-gitops.io/config-hash': k.hash([config, p.script]) },
            },
            spec: {
              nodeSelector: labels.poolSelector(pool, p.nfd.enabled, needsGpu=true),
              // the startup taint this DaemonSet removes (lib/tuning.libsonnet)
              tolerations: k.tolerationsFor(pool.taints) + (if restarts then [startup.toleration] else []),
              priorityClassName: 'system-node-critical',
              hostNetwork: true,
              // the kubelet restart enters the host's namespaces through PID 1
              [if restarts then 'hostPID']: true,
              serviceAccountName: if restarts then p.serviceAccount else p.tuningAccount,
              automountServiceAccountToken: false,
              // A no-op for the privileged init container (the runtime runs privileged
              // containers unconfined); the others run under the runtime's default profile.
              securityContext: { seccompProfile: { type: 'RuntimeDefault' } },
              initContainers: (if restarts then [{
                                 name: 'kubectl',
                                 image: k.image(p.images.kubectl, p.imageDigests),
                                 command: ['cp', '/bin/kubectl', '/tools/kubectl'],
                                 securityContext: {
                                   allowPrivilegeEscalation: false,
                                   capabilities: { drop: ['ALL'] },
                                   readOnlyRootFilesystem: true,
                                 },
                                 resources: { requests: { cpu: '10m', memory: '16Mi' }, limits: { cpu: '100m', memory: '64Mi' } },
                                 volumeMounts: [{ name: 'tools', mountPath: '/tools' }],
                               }] else []) + [{
                name: 'tune',
                image: k.image(p.images.tune, p.imageDigests),
                command: ['/bin/sh', '/scripts/tune-node.sh', '/config/tuning.conf'],
                env: [
                  { name: 'PROC_SYS', value: '/proc/sys' },
                  { name: 'SYS_ROOT', value: '/host/sys' },
                  { name: 'RESTART_KUBELET', value: std.toString(restarts) },
                ] + (if restarts then [
                       { name: 'STATE_DIR', value: '/host' + p.stateDir },
                       // hostPID: /proc/1 is the host's init
                       { name: 'HOST_PROC', value: '/proc' },
                       { name: 'KUBECTL', value: '/tools/kubectl' },
                       { name: 'LOCK_NAME', value: lockName(pool) },
                       { name: 'LOCK_NAMESPACE', value: ns },
                       { name: 'LOCK_SECONDS', value: std.toString(p.lockSeconds) },
                       { name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
                       // removed once node allocatable shows the pages (lib/tuning.libsonnet)
                       { name: 'STARTUP_TAINT', value: startup.key },
                       // kubectl's discovery cache ($HOME/.kube/cache) goes to the /tmp emptyDir
                       { name: 'HOME', value: '/tmp' },
                     ] else []),
                // Read-only root: files/tune-node.sh writes only /proc/sys, the host's /sys and
                // the state folder (hostPath) and keeps values in shell variables; kubectl's
                // cache goes to /tmp.
                securityContext: { privileged: true, readOnlyRootFilesystem: true },
                // kubectl (a Go binary of ~50 MiB) runs in here for the lock
                resources: { requests: { cpu: '10m', memory: '16Mi' }, limits: { cpu: '500m', memory: if restarts then '192Mi' else '64Mi' } },
                volumeMounts: [
                  { name: 'config', mountPath: '/config', readOnly: true },
                  { name: 'scripts', mountPath: '/scripts', readOnly: true },
                  { name: 'sys', mountPath: '/host/sys' },
                ] + (if restarts then [
                       { name: 'state', mountPath: '/host' + p.stateDir },
                       { name: 'tools', mountPath: '/tools', readOnly: true },
                       { name: 'tmp', mountPath: '/tmp' },
                       // the API token kubectl's in-cluster config reads, in this container only
                       k.apiTokenMount,
                     ] else []),
              }],
              containers: [{
                name: 'pause',
                image: k.image(p.images.pause, p.imageDigests),
                securityContext: {
                  allowPrivilegeEscalation: false,
                  capabilities: { drop: ['ALL'] },
                  readOnlyRootFilesystem: true,
                  runAsNonRoot: true,
                  runAsUser: 65535,
                },
                resources: { requests: { cpu: '1m', memory: '8Mi' }, limits: { cpu: '10m', memory: '16Mi' } },
              }],
              volumes: [
                { name: 'config', configMap: { name: name } },
                { name: 'scripts', configMap: { name: scriptName, defaultMode: std.parseOctal('0555') } },
                { name: 'sys', hostPath: { path: '/sys', type: 'Directory' } },
              ] + (if restarts then [
                     { name: 'state', hostPath: { path: p.stateDir, type: 'DirectoryOrCreate' } },
                     { name: 'tools', emptyDir: {} },
                     k.scratchVolume('tmp'),
                     k.apiTokenVolume,
                   ] else []),
            },
          },
        },
      },
    ];

  local tuned(pool) =
    local name = 'gpu-gitops-' + pool.name;
    local h = hugepagesOf(pool);
    // Every huge page goes on the kernel command line, reserved before the kubelet starts: pages
    // set at runtime (vm.nr_hugepages) are missing from node allocatable until the kubelet
    // restarts. OpenShift's own recipe ("Configuring huge pages at boot time", scalability and
    // performance docs) is this [bootloader] cmdline through the pool's MachineConfigPool.
    local bootArgs = (if h['2Mi'] > 0 then ['hugepagesz=2M hugepages=%d' % h['2Mi']] else [])
                     + (if h['1Gi'] > 0 && !h.bootReserved then ['hugepagesz=1G hugepages=%d' % h['1Gi']] else []);
    local bootPages = std.length(bootArgs) > 0;
    local sysctls = pool.sysctls;
    local section(title, lines) = if std.length(lines) > 0 then ['', '[' + title + ']'] + lines else [];
    local data = std.join(
      '\n',
      ['[main]', 'summary=gpu-gitops tuning for node pool ' + pool.name, 'include=openshift-node']
      + section('sysctl', ['%s=%s' % [key, sysctls[key]] for key in std.objectFields(sysctls)])
      + section('bootloader', if bootPages then ['cmdline_gpu_gitops_hugepages=' + std.join(' ', bootArgs)] else [])
    ) + '\n';
    k.object('tuned.openshift.io/v1',
             'Tuned',
             name,
             p.tunedNamespace,
             k.labels(component, name) + { [labels.nodePool]: pool.name }) + {
      spec: {
        profile: [{ name: name, data: data }],
        recommend: [
          { profile: name, priority: p.tunedPriority }
          // kernel arguments only reach nodes through their MachineConfigPool
          + (if bootPages then { machineConfigLabels: { 'machineconfiguration.openshift.io/role': mcpRole(pool) } }
             else { match: tunedMatch(pool.nodeSelector) }),
        ],
      },
    };


  // The tuning account may change its own Node only, and only by removing the startup taint
  // (the pod-bound token names the node in authentication.kubernetes.io/node-name).
  local nodeAccess = p.serviceAccount + '-nodes';
  local nodeNameKey = 'authentication.kubernetes.io/node-name';
  local taintsOf(o) = 'has(%s.spec.taints) ? %s.spec.taints : []' % [o, o];
  local same(field, empty) = '(has(object.%s) ? object.%s : %s) == (has(oldObject.%s) ? oldObject.%s : %s)'
                             % [field, field, empty, field, field, empty];
  local taintPolicy = [
    k.object('admissionregistration.k8s.io/v1', 'ValidatingAdmissionPolicy', nodeAccess, labels=k.labels(component)) + {
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: { resourceRules: [
          { apiGroups: [''], apiVersions: ['v1'], operations: ['UPDATE'], resources: ['nodes'] },
        ] },
        matchConditions: [{
          name: 'node-tuning',
          expression: "request.userInfo.username == 'system:serviceaccount:%s:%s'" % [ns, p.serviceAccount],
        }],
        variables: [
          { name: 'oldTaints', expression: taintsOf('oldObject') },
          { name: 'newTaints', expression: taintsOf('object') },
          {
            name: 'callerNode',
            expression: "has(request.userInfo.extra) && '%s' in request.userInfo.extra ? request.userInfo.extra['%s'] : []" % [nodeNameKey, nodeNameKey],
          },
        ],
        validations: [
          {
            expression: 'variables.callerNode == [object.metadata.name]',
            message: 'the %s ServiceAccount may only change the Node its own pod runs on' % p.serviceAccount,
          },
          {
            expression: "variables.newTaints.all(t, t in variables.oldTaints) && variables.oldTaints.all(t, t in variables.newTaints || t.key == '%s')" % startup.key,
            message: 'the %s ServiceAccount may only remove the %s taint' % [p.serviceAccount, startup.key],
          },
        ] + [
          {
            expression: same(pair[0], pair[1]),
            message: "the %s ServiceAccount may not change a Node's %s" % [p.serviceAccount, pair[0]],
          }
          for pair in [
            ['metadata.labels', '{}'],
            ['metadata.annotations', '{}'],
            ['metadata.ownerReferences', '[]'],
            ['metadata.finalizers', '[]'],
            ['spec.unschedulable', 'false'],
            ['spec.podCIDR', "''"],
            ['spec.podCIDRs', '[]'],
            ['spec.providerID', "''"],
          ]
        ],
      },
    },
    k.object('admissionregistration.k8s.io/v1', 'ValidatingAdmissionPolicyBinding', nodeAccess, labels=k.labels(component)) + {
      spec: { policyName: nodeAccess, validationActions: ['Deny'] },
    },
  ];

  k.keyed(
    if std.length(pools) == 0 then []
    else if p.tuning.backend == 'tuned' then [tuned(pool) for pool in pools]
    else [
           k.namespace(ns, k.labels(component) + k.podSecurityLabels('privileged', p.kubernetesVersion) + {
             // the tuning pods are privileged by design: audit and warn at the same level
             'pod-security.kubernetes.io/audit': 'privileged',
             'pod-security.kubernetes.io/warn': 'privileged',
           }),
           k.object('v1', 'ConfigMap', scriptName, ns, k.labels(component)) + { data: { 'tune-node.sh': p.script } },
         ]
         // The tuning DaemonSets run system-node-critical.
         + k.criticalPodsQuota(p.providerFacts, ns, k.labels(component))
         // OpenShift: the tuning pods are privileged on the host network, which only the
         // privileged SCC admits (pools that restart the kubelet run as its account).
         + k.privilegedSccAccess(p.providerFacts,
                                 'node-tuning-privileged',
                                 ns,
                                 std.set((if std.length(restartPools) < std.length(pools) then [p.tuningAccount] else [])
                                         + (if std.length(restartPools) > 0 then [p.serviceAccount] else [])),
                                 k.labels(component))
         + (if std.length(restartPools) < std.length(pools) then [
              k.object('v1', 'ServiceAccount', p.tuningAccount, ns, k.labels(component)) + { automountServiceAccountToken: false },
            ] else [])
         + (if std.length(restartPools) > 0 then [
              k.object('v1', 'ServiceAccount', p.serviceAccount, ns, k.labels(component)),
              // create cannot be limited by name (the name is not known at authorization time)
              k.object('rbac.authorization.k8s.io/v1', 'Role', p.serviceAccount, ns, k.labels(component)) + {
                rules: [
                  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
                  {
                    apiGroups: ['coordination.k8s.io'],
                    resources: ['leases'],
                    resourceNames: [lockName(pool) for pool in restartPools],
                    verbs: ['get', 'update', 'delete'],
                  },
                ],
              },
              k.object('rbac.authorization.k8s.io/v1', 'RoleBinding', p.serviceAccount, ns, k.labels(component)) + {
                subjects: [{ kind: 'ServiceAccount', name: p.serviceAccount, namespace: ns }],
                roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: p.serviceAccount },
              },
              // The startup taint: the script reads its Node's taints and allocatable and removes
              // the taint (`kubectl taint`, a patch). RBAC cannot narrow that to one Node or field:
              // the admission policy below holds the account to it.
              k.object('rbac.authorization.k8s.io/v1', 'ClusterRole', nodeAccess, labels=k.labels(component)) + {
                rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get', 'patch'] }],
              },
              k.object('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', nodeAccess, labels=k.labels(component)) + {
                subjects: [{ kind: 'ServiceAccount', name: p.serviceAccount, namespace: ns }],
                roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: nodeAccess },
              },
            ] + (if p.admission.enabled then taintPolicy else []) else [])
         + std.flattenArrays([daemonSetObjects(pool) for pool in pools])
  )
