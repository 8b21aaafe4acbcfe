// Guardrails for GPU pods in the workload namespaces: a ValidatingAdmissionPolicy (CEL) and its
// binding. A pod that asks for a GPU (nvidia.com/gpu, nvidia.com/gpu.shared, nvidia.com/mig-*,
// amd.com/*) must put it in limits, with any request equal to the limit, tolerate the taints of
// one of that vendor's pools (computed from the same input as the node taints) and set a memory
// limit. Each rule is switched by admission.*; each message says what to add.
local gpu = import '../lib/gpu.libsonnet';
local k = import '../lib/k.libsonnet';

local defaults = {
  pools: [],
  workloads: [],
  admission: error 'must provide admission',
  name: 'gpu-pod-guardrails',
};

// CEL helpers, as text.
local isGpu(r) = "(%(r)s == 'nvidia.com/gpu' || %(r)s.startsWith('nvidia.com/gpu.') || %(r)s.startsWith('nvidia.com/mig-') || %(r)s.startsWith('amd.com/'))" % { r: r };
local asks(c, prefix) =
  "((has(%(c)s.resources.limits) && %(c)s.resources.limits.exists(r, r.startsWith('%(p)s'))) || (has(%(c)s.resources.requests) && %(c)s.resources.requests.exists(r, r.startsWith('%(p)s'))))" % { c: c, p: prefix };
local str(s) = "'" + s + "'";

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
    {
      expression: '!variables.asks%s || %s' % [if vendor == 'nvidia' then 'Nvidia' else 'Amd', std.join(' || ', [poolTolerated(x) for x in pools])],
      message: 'pods that request %s GPUs must tolerate the GPU nodes\' taints: add to spec.tolerations %s' % [
        vendor,
        std.join(' (or, for another pool: ', [v for v in variants]) + std.repeat(')', std.length(variants) - 1),
      ],
    };

  local vendors = [v for v in ['nvidia', 'amd'] if std.length(gpu.poolsOf(p.pools, v)) > 0];

  local validations =
    (if a.enforceGpuLimits then [
       {
         expression: 'variables.gpuContainers.all(c, !has(c.resources.requests) || c.resources.requests.all(r, !%s || (has(c.resources.limits) && r in c.resources.limits)))' % isGpu('r'),
         message: 'a container requests a GPU without a limit: GPUs go in resources.limits (add e.g. limits: {nvidia.com/gpu: 1}); a request, if set, must equal the limit',
       },
       {
         expression: 'variables.gpuContainers.all(c, !has(c.resources.requests) || !has(c.resources.limits) || c.resources.requests.all(r, !%s || !(r in c.resources.limits) || c.resources.requests[r] == c.resources.limits[r]))' % isGpu('r'),
         message: 'a container\'s GPU request differs from its limit: set resources.requests to the same GPU count as resources.limits, or remove the request',
       },
     ] else [])
    + (if a.enforceGpuTolerations then [vendorRule(v) for v in vendors] else [])
    + (if a.enforceMemoryLimits then [{
         expression: "variables.gpuContainers.all(c, has(c.resources.limits) && 'memory' in c.resources.limits)",
         message: 'every container that uses a GPU must set a memory limit: add resources.limits.memory (e.g. memory: 64Gi)',
       }] else []);

  local policy = k.object('admissionregistration.k8s.io/v1', 'ValidatingAdmissionPolicy', p.name, labels=labels) + {
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: {
        resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
      },
      variables: [
        { name: 'containers', expression: 'object.spec.containers + (has(object.spec.initContainers) ? object.spec.initContainers : [])' },
        {
          name: 'gpuContainers',
          expression: 'variables.containers.filter(c, has(c.resources) && ((has(c.resources.limits) && c.resources.limits.exists(r, %(g)s)) || (has(c.resources.requests) && c.resources.requests.exists(r, %(g)s))))' % { g: isGpu('r') },
        },
        { name: 'asksNvidia', expression: 'variables.gpuContainers.exists(c, %s)' % asks('c', 'nvidia.com/') },
        { name: 'asksAmd', expression: 'variables.gpuContainers.exists(c, %s)' % asks('c', 'amd.com/') },
        { name: 'tolerations', expression: 'has(object.spec.tolerations) ? object.spec.tolerations : []' },
      ],
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

  if !a.enabled || std.length(namespaces) == 0 || std.length(vendors) == 0 || std.length(validations) == 0 then []
  else [policy, binding]
