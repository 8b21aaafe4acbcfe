// Guardrails for GPU pods in the workload namespaces: a ValidatingAdmissionPolicy (CEL) and its
// binding. A pod that asks for a GPU (nvidia.com/gpu, nvidia.com/gpu.shared, nvidia.com/mig-*,
// amd.com/*) must tolerate the taints of one of that vendor's pools (computed from the same
// input as the node taints) and set a memory limit in every GPU container (the workload
// namespaces' LimitRange then gives no default one: gpu.requiresMemoryLimit). Each rule is
// switched by admission.*; each message names the offending field and says what to add. Where
// NVIDIA pools have `allocation: dra`, a pod with `spec.resourceClaims` is a GPU pod too: it
// must tolerate the taints of one of those pools, and each container that names a claim in
// `resources.claims` must set a memory limit (the pod API: PodSpec.resourceClaims,
// ResourceRequirements.claims, core/v1 in Kubernetes 1.34; a claim's devices are not visible in
// the pod, so every claim in a workload namespace counts).
//
// Pods are checked on CREATE, and so are the pod templates of the workload kinds that create
// them (Deployment, StatefulSet, DaemonSet, ReplicaSet, ReplicationController, Job, CronJob) on
// CREATE and UPDATE: a Deployment the policy only judged at pod creation would be accepted by
// `kubectl apply`, Flux and Argo CD, and then create no pod, with the denial only in the
// ReplicaSet's events. An UPDATE is only judged when the pod template changes (matchConditions),
// so scaling, relabelling or removing a finalizer from an object created before the policy is
// never blocked.
//
// Upstream: https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/
// (matchConstraints.resourceRules, matchConditions with `request`/`oldObject`, variables,
// messageExpression: a string expression used instead of `message` when the validation fails,
// `message` being the fallback when it errors), and
// https://kubernetes.io/docs/reference/using-api/cel/ (Kubernetes list library: `indexOf`, used to
// name the container by its index in the message).
local gpu = import '../lib/gpu.libsonnet';
local k = import '../lib/k.libsonnet';

local defaults = {
  pools: [],
  workloads: [],
  admission: error 'must provide admission',
  kubernetesVersion: error 'must provide kubernetesVersion',
  name: 'gpu-pod-guardrails',
  fabricName: 'fabric-pod-security',
};

// `workloads[].podSecurity: baseline-ipc-lock`: multi-node training over RDMA pins memory, so
// NCCL's processes need the IPC_LOCK capability, which Pod Security `baseline` refuses (it allows
// adding only the capabilities listed below). Pod Security cannot allow one more capability, so
// such a namespace is `privileged` for Pod Security (workload-isolation) and this policy enforces
// the baseline level in its place, with IPC_LOCK allowed: every control of the baseline profile
// (kubernetes.io/docs/concepts/security/pod-security-standards, "Baseline"; the checks of
// k8s.io/pod-security-admission policy/check_*.go) on the pod and its containers. AppArmor is
// checked on the securityContext field (GA in 1.30), not the deprecated annotations.
local podSecurityIpcLock = 'baseline-ipc-lock';
local baselineCapabilities = [
  'AUDIT_WRITE',
  'CHOWN',
  'DAC_OVERRIDE',
  'FOWNER',
  'FSETID',
  'KILL',
  'MKNOD',
  'NET_BIND_SERVICE',
  'SETFCAP',
  'SETGID',
  'SETPCAP',
  'SETUID',
  'SYS_CHROOT',
];
// Safe sysctls of the baseline profile by the Kubernetes minor that allows them
// (pod-security-admission policy/check_sysctls.go: 1.27 ip_local_reserved_ports, 1.29 the TCP
// keepalive and fin timeout ones, 1.32 tcp_rmem/tcp_wmem).
local safeSysctls(version) =
  local minor = std.parseInt(std.split(version, '.')[1]);
  [
    'kernel.shm_rmid_forced',
    'net.ipv4.ip_local_port_range',
    'net.ipv4.ip_unprivileged_port_start',
    'net.ipv4.tcp_syncookies',
    'net.ipv4.ping_group_range',
    'net.ipv4.ip_local_reserved_ports',
  ]
  + (if minor >= 29 then ['net.ipv4.tcp_keepalive_time', 'net.ipv4.tcp_fin_timeout', 'net.ipv4.tcp_keepalive_intvl', 'net.ipv4.tcp_keepalive_probes'] else [])
  + (if minor >= 32 then ['net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem'] else []);
local seLinuxTypes = ['', 'container_t', 'container_init_t', 'container_kvm_t', 'container_engine_t'];
local celList(xs) = '[' + std.join(', ', ["'%s'" % x for x in xs]) + ']';

// `ok` (CEL over `x`) holds for the pod's securityContext.<field> and every container's.
local bothLevels(field, ok) =
  '(!has(variables.podSpec.securityContext) || !has(variables.podSpec.securityContext.%(f)s) || %(pod)s) && variables.containers.all(c, !has(c.securityContext) || !has(c.securityContext.%(f)s) || %(ctr)s)' % {
    f: field,
    pod: ok('variables.podSpec.securityContext.' + field),
    ctr: ok('c.securityContext.' + field),
  };
local baselineCheck(expression, field, message) = {
  expression: expression,
  message: 'spec%s: %s' % [field, message],
  messageExpression: "variables.podPath + '%s: %s'" % [field, message],
};
local baselineChecks(version) = [
  baselineCheck('!(has(variables.podSpec.hostNetwork) && variables.podSpec.hostNetwork) && !(has(variables.podSpec.hostPID) && variables.podSpec.hostPID) && !(has(variables.podSpec.hostIPC) && variables.podSpec.hostIPC)',
                '',
                'hostNetwork, hostPID and hostIPC are not allowed (Pod Security baseline)'),
  baselineCheck('variables.containers.all(c, !has(c.securityContext) || !has(c.securityContext.privileged) || !c.securityContext.privileged)',
                '.containers',
                'privileged containers are not allowed (Pod Security baseline): remove securityContext.privileged'),
  baselineCheck('variables.containers.all(c, !has(c.securityContext) || !has(c.securityContext.capabilities) || !has(c.securityContext.capabilities.add) || c.securityContext.capabilities.add.all(x, x in %s))' % celList(baselineCapabilities + ['IPC_LOCK']),
                '.containers',
                'securityContext.capabilities.add may only name IPC_LOCK and the capabilities Pod Security baseline allows'),
  baselineCheck('!has(variables.podSpec.volumes) || variables.podSpec.volumes.all(v, !has(v.hostPath))',
                '.volumes',
                'hostPath volumes are not allowed (Pod Security baseline)'),
  baselineCheck('variables.containers.all(c, !has(c.ports) || c.ports.all(port, !has(port.hostPort) || port.hostPort == 0))',
                '.containers',
                'hostPort is not allowed (Pod Security baseline)'),
  baselineCheck(bothLevels('windowsOptions', function(x) '!has(%(x)s.hostProcess) || !%(x)s.hostProcess' % { x: x }),
                '.securityContext',
                'windowsOptions.hostProcess is not allowed (Pod Security baseline)'),
  baselineCheck(bothLevels('appArmorProfile', function(x) "%s.type != 'Unconfined'" % x),
                '.securityContext',
                'appArmorProfile.type Unconfined is not allowed (Pod Security baseline)'),
  baselineCheck(bothLevels('seLinuxOptions', function(x) '(!has(%(x)s.type) || %(x)s.type in %(types)s) && !has(%(x)s.user) && !has(%(x)s.role)' % { x: x, types: celList(seLinuxTypes) }),
                '.securityContext',
                'seLinuxOptions may only set a container type and level (Pod Security baseline)'),
  baselineCheck("variables.containers.all(c, !has(c.securityContext) || !has(c.securityContext.procMount) || c.securityContext.procMount == 'Default')",
                '.containers',
                'securityContext.procMount must be Default (Pod Security baseline)'),
  baselineCheck(bothLevels('seccompProfile', function(x) "%s.type != 'Unconfined'" % x),
                '.securityContext',
                'seccompProfile.type Unconfined is not allowed (Pod Security baseline)'),
  baselineCheck('!has(variables.podSpec.securityContext) || !has(variables.podSpec.securityContext.sysctls) || variables.podSpec.securityContext.sysctls.all(s, s.name in %s)' % celList(safeSysctls(version)),
                '.securityContext.sysctls',
                'only the sysctls Pod Security baseline calls safe are allowed'),
];

// The kinds whose objects carry a pod spec, where it is, and which operations are judged. A Pod's
// spec only changes by adding tolerations after creation, so Pods are judged on CREATE.
local podKinds = [
  { group: '', resource: 'pods', kind: 'Pod', path: 'spec', operations: ['CREATE'] },
  { group: '', resource: 'replicationcontrollers', kind: 'ReplicationController', path: 'spec.template.spec' },
  { group: 'apps', resource: 'daemonsets', kind: 'DaemonSet', path: 'spec.template.spec' },
  { group: 'apps', resource: 'deployments', kind: 'Deployment', path: 'spec.template.spec' },
  { group: 'apps', resource: 'replicasets', kind: 'ReplicaSet', path: 'spec.template.spec' },
  { group: 'apps', resource: 'statefulsets', kind: 'StatefulSet', path: 'spec.template.spec' },
  { group: 'batch', resource: 'cronjobs', kind: 'CronJob', path: 'spec.jobTemplate.spec.template.spec' },
  { group: 'batch', resource: 'jobs', kind: 'Job', path: 'spec.template.spec' },
];
local operations(x) = std.get(x, 'operations', ['CREATE', 'UPDATE']);

// One resource rule per API group and operation set, resources sorted.
local resourceRules = [
  local same = [x for x in podKinds if x.group == key[0] && operations(x) == key[1]];
  { apiGroups: [key[0]], apiVersions: ['v1'], operations: key[1], resources: std.sort([x.resource for x in same]) }
  for key in std.uniq(std.sort([[x.group, operations(x)] for x in podKinds]))
];

// CEL text choosing, by the request's kind, `field(path)` for the pod spec path of `kinds` (the
// admission request's kind is always set; an object's own `kind` is not relied upon).
local byKind(kinds, field) =
  local paths = std.uniq(std.sort([x.path for x in kinds]));
  local last = paths[std.length(paths) - 1];
  std.join('', [
    '(%s) ? %s : ' % [std.join(' || ', ["request.kind.kind == '%s'" % x.kind for x in kinds if x.path == path]), field(path)]
    for path in paths[0:std.length(paths) - 1]
  ]) + field(last);

// An UPDATE that leaves the pod template as it was has nothing for the policy to judge.
local parentOf(path) = std.join('.', std.split(path, '.')[0:std.length(std.split(path, '.')) - 1]);
local templateChanged =
  "request.operation != 'UPDATE' || ("
  + byKind([x for x in podKinds if std.member(operations(x), 'UPDATE')],
           function(path) 'object.%s != oldObject.%s' % [parentOf(path), parentOf(path)]) + ')';

// CEL helpers, as text.
local celString(s) = '"' + std.strReplace(std.strReplace(s, '\\', '\\\\'), '"', '\\"') + '"';
local isGpu(r) = "(%(r)s == 'nvidia.com/gpu' || %(r)s.startsWith('nvidia.com/gpu.') || %(r)s.startsWith('nvidia.com/mig-') || %(r)s.startsWith('amd.com/'))" % { r: r };
local usesGpu(c, claims) = 'has(%(c)s.resources) && ((has(%(c)s.resources.limits) && %(c)s.resources.limits.exists(r, %(g)s)) || (has(%(c)s.resources.requests) && %(c)s.resources.requests.exists(r, %(g)s))%(claims)s)' % {
  c: c,
  g: isGpu('r'),
  claims: if claims then ' || (has(%s.resources.claims) && size(%s.resources.claims) > 0)' % [c, c] else '',
};
local asks(c, prefix) =
  "((has(%(c)s.resources.limits) && %(c)s.resources.limits.exists(r, r.startsWith('%(p)s'))) || (has(%(c)s.resources.requests) && %(c)s.resources.requests.exists(r, r.startsWith('%(p)s'))))" % { c: c, p: prefix };
local str(s) = "'" + s + "'";

// A container rule: the GPU containers for which `bad` (CEL text over `c`) holds go in the
// variable `name`; none may exist. The message starts with the field path of the first, e.g.
// spec.template.spec.containers[1].resources.limits.memory (container names are unique across
// containers and initContainers, so `indexOf` finds it in exactly one of them).
local containerRule(name, bad, field, message) =
  local first = 'variables.%s[0]' % name;
  local path = "(variables.podSpec.containers.indexOf(%(f)s) >= 0 ? variables.podPath + '.containers[' + string(variables.podSpec.containers.indexOf(%(f)s)) : variables.podPath + '.initContainers[' + string(variables.podSpec.initContainers.indexOf(%(f)s)))" % { f: first };
  {
    variable: { name: name, expression: 'variables.gpuContainers.filter(c, %s)' % bad },
    validation: {
      expression: 'variables.%s.size() == 0' % name,
      message: message,
      messageExpression: '%s + %s' % [path, celString(']' + field + ': ' + message)],
    },
  };

// A toleration t tolerates the taint: Exists matches the key (or every key when empty), Equal
// also needs the value; an empty effect matches every effect.
local tolerates(taint) =
  local value = if std.objectHas(taint, 'value') then taint.value else '';
  "variables.tolerations.exists(t, (!has(t.effect) || t.effect == '' || t.effect == %(effect)s) && ((has(t.operator) && t.operator == 'Exists') ? (!has(t.key) || t.key == '' || t.key == %(key)s) : (has(t.key) && t.key == %(key)s && (has(t.value) ? t.value : '') == %(value)s)))" % {
    key: str(taint.key),
    value: str(value),
    effect: str(taint.effect),
  };

// Taints that keep a pod off a node (PreferNoSchedule does not).
local blocking(pool) = [t for t in pool.taints if t.effect != 'PreferNoSchedule'];

local poolTolerated(pool) =
  local taints = blocking(pool);
  if std.length(taints) == 0 then 'true' else '(' + std.join(' && ', [tolerates(t) for t in taints]) + ')';

local showTaint(t) = '{key: %s, operator: Exists, effect: %s}' % [t.key, t.effect];

function(params)
  local p = defaults + params;
  local component = 'admission';
  local labels = k.labels(component, p.name);
  local a = p.admission;
  local namespaces = [w.namespace for w in p.workloads];

  local vendorRule(vendor) =
    local pools = gpu.poolsOf(p.pools, vendor);
    local variants = std.uniq(std.sort([std.join(', ', [showTaint(t) for t in blocking(x)]) for x in pools]));
    local message = "pods that request %s GPUs must tolerate the GPU nodes' taints: add %s" % [
      vendor,
      std.join(' (or, for another pool: ', [v for v in variants]) + std.repeat(')', std.length(variants) - 1),
    ];
    {
      expression: '!variables.asks%s || %s' % [if vendor == 'nvidia' then 'Nvidia' else 'Amd', std.join(' || ', [poolTolerated(x) for x in pools])],
      message: 'spec.tolerations: ' + message,
      messageExpression: "variables.podPath + '.tolerations: ' + " + celString(message),
    };

  local vendors = [v for v in ['nvidia', 'amd'] if std.length(gpu.poolsOf(p.pools, v)) > 0];
  local draPools = gpu.draPools(p.pools);
  local claims = std.length(draPools) > 0;

  local claimRule =
    local variants = std.uniq(std.sort([std.join(', ', [showTaint(t) for t in blocking(x)]) for x in draPools]));
    local message = "pods with resourceClaims must tolerate the DRA GPU nodes' taints: add %s" % [
      std.join(' (or, for another pool: ', variants) + std.repeat(')', std.length(variants) - 1),
    ];
    {
      expression: '!variables.hasClaims || %s' % std.join(' || ', std.set([poolTolerated(x) for x in draPools])),
      message: 'spec.tolerations: ' + message,
      messageExpression: "variables.podPath + '.tolerations: ' + " + celString(message),
    };

  local containerRules =
    // Only what the API server does not refuse by itself. A GPU requested without a limit, or
    // with a request that differs from its limit, never reaches validating admission: core
    // validation of the pod spec (Pods and every pod template alike) rejects both first,
    // "Limit must be set for non overcommitable resources" and "must be equal to ... limit"
    // (kubernetes/kubernetes pkg/apis/core/validation/validation.go
    // ValidateResourceRequirements, v1.33). gpu-gitops lint reports them in Git (GPU001, GPU002).
    if gpu.requiresMemoryLimit(a, p.pools) then [containerRule(
      'withoutMemoryLimit',
      "!(has(c.resources.limits) && 'memory' in c.resources.limits)",
      '.resources.limits.memory',
      'every container that uses a GPU must set a memory limit: add resources.limits.memory (e.g. memory: 64Gi)',
    )] else [];
  local validations = [r.validation for r in containerRules]
                      + (if a.enforceGpuTolerations then [vendorRule(v) for v in vendors] else [])
                      + (if a.enforceGpuTolerations && claims && std.length([x for x in draPools if blocking(x) != []]) > 0 then [claimRule] else []);

  local policy = k.object('admissionregistration.k8s.io/v1', 'ValidatingAdmissionPolicy', p.name, labels=labels) + {
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: { resourceRules: resourceRules },
      matchConditions: [{ name: 'pod-spec-created-or-changed', expression: templateChanged }],
      variables: [
        { name: 'podSpec', expression: byKind(podKinds, function(path) 'object.' + path) },
        { name: 'podPath', expression: byKind(podKinds, str) },
        { name: 'containers', expression: 'variables.podSpec.containers + (has(variables.podSpec.initContainers) ? variables.podSpec.initContainers : [])' },
        { name: 'gpuContainers', expression: 'variables.containers.filter(c, %s)' % usesGpu('c', claims) },
        { name: 'asksNvidia', expression: 'variables.gpuContainers.exists(c, %s)' % asks('c', 'nvidia.com/') },
        { name: 'asksAmd', expression: 'variables.gpuContainers.exists(c, %s)' % asks('c', 'amd.com/') },
        { name: 'tolerations', expression: 'has(variables.podSpec.tolerations) ? variables.podSpec.tolerations : []' },
      ] + (if claims then [
             { name: 'hasClaims', expression: 'has(variables.podSpec.resourceClaims) && size(variables.podSpec.resourceClaims) > 0' },
           ] else []) + [r.variable for r in containerRules],
      validations: validations,
    },
  };

  local binding = k.object('admissionregistration.k8s.io/v1', 'ValidatingAdmissionPolicyBinding', p.name, labels=labels) + {
    spec: {
      policyName: p.name,
      validationActions: [a.action],
      matchResources: { namespaceSelector: { matchExpressions: [
        { key: 'kubernetes.io/metadata.name', operator: 'In', values: namespaces },
      ] } },
    },
  };

  local fabricNamespaces = [w.namespace for w in p.workloads if w.podSecurity == podSecurityIpcLock];
  local fabricPolicy = k.object('admissionregistration.k8s.io/v1', 'ValidatingAdmissionPolicy', p.fabricName, labels=k.labels(component, p.fabricName)) + {
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: { resourceRules: resourceRules },
      matchConditions: [{ name: 'pod-spec-created-or-changed', expression: templateChanged }],
      variables: [
        { name: 'podSpec', expression: byKind(podKinds, function(path) 'object.' + path) },
        { name: 'podPath', expression: byKind(podKinds, str) },
        // Ephemeral containers are added through the pods/ephemeralcontainers subresource, which
        // no policy here matches (kubectl debug needs the privileges of a cluster operator).
        { name: 'containers', expression: 'variables.podSpec.containers + (has(variables.podSpec.initContainers) ? variables.podSpec.initContainers : [])' },
      ],
      validations: baselineChecks(p.kubernetesVersion),
    },
  };
  local fabricBinding = k.object('admissionregistration.k8s.io/v1', 'ValidatingAdmissionPolicyBinding', p.fabricName, labels=k.labels(component, p.fabricName)) + {
    spec: {
      policyName: p.fabricName,
      // Always Deny: Pod Security admits everything in these namespaces, so this policy is
      // their only guard (a Warn or Audit binding would leave them privileged).
      validationActions: ['Deny'],
      matchResources: { namespaceSelector: { matchExpressions: [
        { key: 'kubernetes.io/metadata.name', operator: 'In', values: fabricNamespaces },
      ] } },
    },
  };

  k.keyed(
    (if !a.enabled || std.length(namespaces) == 0 || std.length(vendors) == 0 || std.length(validations) == 0 then []
     else [policy, binding])
    + (if !a.enabled || std.length(fabricNamespaces) == 0 then [] else [fabricPolicy, fabricBinding])
  )
