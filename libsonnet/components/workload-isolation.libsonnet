// Workload isolation: one namespace per workload type, each with Pod Security, a default-deny
// NetworkPolicy plus the allows a real cluster needs, a GPU/hugepages ResourceQuota, a
// LimitRange, and the PriorityClasses of the workload types in use.
local gpu = import '../lib/gpu.libsonnet';
local k = import '../lib/k.libsonnet';

local defaults = {
  cluster: error 'must provide cluster',
  providerFacts: error 'must provide providerFacts',
  kubernetesVersion: error 'must provide kubernetesVersion',
  monitoring: error 'must provide monitoring',
  workloads: [],
  nodeLocalDNS: { enabled: false, address: '169.254.20.10' },
  admission: error 'must provide admission',
  cilium: error 'must provide cilium',
  apiServerCIDRs: [],
  // Priority per workload type: serving beats training beats batch; batch never preempts.
  priorities: {
    inference: { value: 100000, preemptionPolicy: 'PreemptLowerPriority', description: 'Latency-sensitive GPU inference.' },
    interactive: { value: 90000, preemptionPolicy: 'PreemptLowerPriority', description: 'Interactive GPU notebooks and debugging.' },
    training: { value: 50000, preemptionPolicy: 'PreemptLowerPriority', description: 'GPU training jobs.' },
    batch: { value: 10000, preemptionPolicy: 'Never', description: 'Preemptible GPU batch work; never preempts others.' },
  },
};

function(params)
  local p = defaults + params;
  local component = 'workload-isolation';
  local labels = k.labels(component);
  // The MIG profiles the device plugin advertises as their own resources (strategy mixed; DRA
  // pools advertise none).
  local mixedProfiles = std.set(std.flattenArrays([
    std.objectFields(x.gpu.mig.profiles)
    for x in gpu.devicePluginPools(p.pools)
    if gpu.migStrategy(x) == 'mixed'
  ]));

  // The cluster DNS pods (clusterDns in providers.json). NetworkPolicy sees the pod port after
  // the Service's DNAT: OpenShift's CoreDNS (DNS operator, namespace openshift-dns) listens on
  // 5353 behind Service port 53.
  local dns = p.providerFacts.clusterDns;

  local nsSelector(name) = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': name } } };

  // NodeLocal DNSCache: pods resolve through the cache on their node, at its link-local
  // address (kubernetes.io docs, tasks/administer-cluster/nodelocaldns: 169.254.20.10) when it
  // runs on the host network with kube-proxy, or through its `k8s-app: node-local-dns` pods in
  // kube-system when Cilium's Local Redirect Policy sends DNS to them (docs.cilium.io,
  // network/kubernetes/local-redirect-policy, "Node-local DNS cache").
  local nodeLocal = {
    namespace: 'kube-system',
    pods: { 'k8s-app': 'node-local-dns' },
    cidr: p.nodeLocalDNS.address + '/32',
  };
  local dnsPeers =
    [nsSelector(dns.namespace) + { podSelector: { matchLabels: dns.pods } }]
    + (if p.nodeLocalDNS.enabled then [
         nsSelector(nodeLocal.namespace) + { podSelector: { matchLabels: nodeLocal.pods } },
         { ipBlock: { cidr: nodeLocal.cidr } },
       ] else []);

  local priorityName(type) = 'gpu-' + type;

  local keep = { metadata+: { annotations+: k.keepOnRemoval(p.gitops.engine) } };
  local policy(ns, name, spec) =
    k.object('networking.k8s.io/v1', 'NetworkPolicy', name, ns, labels) + { spec: spec };

  // Egress to DNS names (docs.cilium.io security/policy/language, "DNS based"): `toFQDNs`
  // only matches addresses the agent's DNS proxy saw resolved, so the same policy sends the
  // namespace's DNS through the proxy with an L7 `dns` rule on the DNS pods' ports.
  local ciliumPod(namespace, podLabels) = {
    matchLabels: { 'k8s:io.kubernetes.pod.namespace': namespace } + {
      ['k8s:' + key]: podLabels[key]
      for key in std.objectFields(podLabels)
    },
  };
  local fqdnPolicy(ns, names) =
    k.object('cilium.io/v2', 'CiliumNetworkPolicy', 'allow-egress-to-fqdns', ns, labels) + {
      spec: {
        endpointSelector: {},
        egress: [
          {
            toEndpoints: [ciliumPod(dns.namespace, dns.pods)]
                         + (if p.nodeLocalDNS.enabled then [ciliumPod(nodeLocal.namespace, nodeLocal.pods)] else []),
            toPorts: [{
              ports: [{ port: std.toString(port), protocol: 'ANY' } for port in dns.ports],
              rules: { dns: [{ matchPattern: '*' }] },
            }],
          },
          {
            toFQDNs: [
              if std.startsWith(name, '*.') then { matchPattern: name } else { matchName: name }
              for name in names
            ],
          },
        ],
      },
    };

  // Egress to the API server. Cilium knows its endpoints as the `kube-apiserver` entity,
  // wherever they run (docs.cilium.io security/policy/language, "Entities Based", v1.19). A
  // NetworkPolicy sees the connection after the `kubernetes` Service's translation, so it can
  // only allow the endpoints' addresses (network.apiServerCIDRs;
  // https://kubernetes.io/docs/concepts/services-networking/network-policies/, "what you can't
  // do": policies apply to the translated destination).
  local apiServerPolicy(ns) =
    if p.cilium.enabled then
      k.object('cilium.io/v2', 'CiliumNetworkPolicy', 'allow-egress-to-apiserver', ns, labels) + {
        spec: { endpointSelector: {}, egress: [{ toEntities: ['kube-apiserver'] }] },
      }
    else policy(ns, 'allow-egress-to-apiserver', {
      podSelector: {},
      policyTypes: ['Egress'],
      egress: [{ to: [{ ipBlock: { cidr: c } } for c in p.apiServerCIDRs] }],
    });

  local perWorkload(w) =
    local ns = w.namespace;
    local gpuQuota =
      if std.objectHas(w.quota, 'gpus') && std.objectHas(w, 'gpuVendor')
      then { ['requests.' + k.gpuResource(w.gpuVendor)]: std.toString(w.quota.gpus) }
      else {};
    // Time-sliced pools with renameByDefault advertise nvidia.com/gpu.shared instead of
    // nvidia.com/gpu (NVIDIA/k8s-device-plugin README.md, "Shared Access to GPUs with CUDA
    // Time-Slicing", v0.20.0): a quota on nvidia.com/gpu leaves them unlimited.
    local sharedQuota =
      if std.objectHas(w.quota, 'sharedGpus')
      then { 'requests.nvidia.com/gpu.shared': std.toString(w.quota.sharedGpus) }
      else {};
    // MIG mixed slices are their own extended resources, one quota key per profile. A
    // ResourceQuota leaves every resource it does not name unlimited
    // (https://kubernetes.io/docs/concepts/policy/resource-quotas/), so in a namespace whose
    // quota bounds NVIDIA GPUs, a profile the pools advertise that quota.mig does not name is
    // bounded to 0 rather than left open.
    local named = std.get(w.quota, 'mig', {});
    local boundsNvidia = std.length(named) > 0 || std.objectHas(w.quota, 'sharedGpus')
                         || (std.objectHas(w.quota, 'gpus') && std.get(w, 'gpuVendor', null) == 'nvidia');
    local migQuota = {
      ['requests.nvidia.com/mig-' + profile]: std.toString(std.get(named, profile, 0))
      for profile in std.setUnion(std.objectFields(named), if boundsNvidia then mixedProfiles else [])
    };
    // DRA devices per DeviceClass in the namespace's ResourceClaims (Kubernetes docs, "Resource
    // Quotas", quota for DRA resource claims; pkg/quota/v1/evaluator/core/resource_claims.go).
    local deviceQuota = {
      [cls + '.deviceclass.resource.k8s.io/devices']: std.toString(w.quota.devices[cls])
      for cls in std.objectFields(std.get(w.quota, 'devices', {}))
    };
    local otherQuota = {
      [if std.objectHas(w.quota, 'cpu') then 'requests.cpu']: w.quota.cpu,
      [if std.objectHas(w.quota, 'memory') then 'requests.memory']: w.quota.memory,
      [if std.objectHas(w.quota, 'hugepages-2Mi') then 'hugepages-2Mi']: w.quota['hugepages-2Mi'],
      [if std.objectHas(w.quota, 'hugepages-1Gi') then 'hugepages-1Gi']: w.quota['hugepages-1Gi'],
      [if std.objectHas(w.quota, 'pods') then 'pods']: std.toString(w.quota.pods),
    };
    [
      // The applications' own objects and volumes live here: kept when the entry leaves Git.
      // baseline-ipc-lock: Pod Security admits all, the admission component's
      // fabric-pod-security policy enforces baseline with IPC_LOCK.
      k.namespace(ns, labels + k.podSecurityLabels(if w.podSecurity == 'baseline-ipc-lock' then 'privileged' else w.podSecurity, p.kubernetesVersion) + {
        'gpu-gitops.io/workload-type': w.type,
      }, k.keepOnRemoval(p.gitops.engine)),
      // The default deny, the quota and the LimitRange stay with the kept Namespace when the
      // entry leaves Git (k.keepOnRemoval): its pods keep running, and stay isolated and bounded
      // until someone deletes the namespace (docs/gitops.md, "Removing a workload").
      policy(ns, 'default-deny-all', { podSelector: {}, policyTypes: ['Ingress', 'Egress'] }) + keep,
      policy(ns, 'allow-dns', {
        podSelector: {},
        policyTypes: ['Egress'],
        egress: [{
          to: dnsPeers,
          ports: [{ protocol: proto, port: port } for port in dns.ports for proto in ['UDP', 'TCP']],
        }],
      }),
      // Distributed training (NCCL, torchrun rendezvous) talks pod to pod inside the namespace.
      policy(ns, 'allow-same-namespace', {
        podSelector: {},
        policyTypes: ['Ingress', 'Egress'],
        ingress: [{ from: [{ podSelector: {} }] }],
        egress: [{ to: [{ podSelector: {} }] }],
      }),
      policy(ns, 'allow-metrics-scraping', {
        podSelector: {},
        policyTypes: ['Ingress'],
        ingress: [{ from: [nsSelector(p.monitoring.namespace)] }],
      }),
    ]
    // The provider's own ingress router (OpenShift's Routes) into the namespaces that serve
    // users (providers.json routerIngressPeers).
    + (if std.member(['interactive', 'inference'], w.type) && std.length(p.providerFacts.routerIngressPeers) > 0 then [
         policy(ns, 'allow-from-router', {
           podSelector: {},
           policyTypes: ['Ingress'],
           ingress: [{ from: p.providerFacts.routerIngressPeers }],
         }),
       ] else [])
    + (if std.length(w.allowIngressFrom) > 0 then [
         policy(ns, 'allow-ingress-from-namespaces', {
           podSelector: {},
           policyTypes: ['Ingress'],
           ingress: [{ from: [nsSelector(n) for n in w.allowIngressFrom] }],
         }),
       ] else [])
    + (if std.length(w.allowEgressTo) > 0 then [
         policy(ns, 'allow-egress-to-cidrs', {
           podSelector: {},
           policyTypes: ['Egress'],
           egress: [{ to: [{ ipBlock: { cidr: c } } for c in w.allowEgressTo] }],
         }),
       ] else [])
    + (if std.length(w.allowEgressToFQDNs) > 0 then [fqdnPolicy(ns, w.allowEgressToFQDNs)] else [])
    + (if w.allowEgressToApiServer then [apiServerPolicy(ns)] else [])
    + (if std.length(gpuQuota + sharedQuota + migQuota + deviceQuota + otherQuota) > 0 then [
         k.object('v1', 'ResourceQuota', 'gpu-quota', ns, labels, k.keepOnRemoval(p.gitops.engine)) + { spec: { hard: gpuQuota + sharedQuota + migQuota + deviceQuota + otherQuota } },
       ] else [])
    + [
      // Default requests only, never limits. The LimitRanger admission plugin gives a container
      // without a limit the `default` limit whatever its request (plugin/pkg/admission/limitranger
      // admission.go mergeContainerResources), and the API server then refuses a request above
      // its limit (core validation): a container asking for 32 CPUs or 64Gi without a limit would
      // get 1 CPU or 2Gi and be rejected. Core defaulting already copies a limit into an unset
      // request, so `defaultRequest` reaches only containers that set neither. (No default memory
      // limit also keeps a bare GPU Pod and a Deployment's template judged alike where the GPU
      // policy requires one: gpu.requiresMemoryLimit.)
      k.object('v1', 'LimitRange', 'container-defaults', ns, labels, k.keepOnRemoval(p.gitops.engine)) + {
        spec: { limits: [{
          type: 'Container',
          defaultRequest: { cpu: w.limits.defaultCpu, memory: w.limits.defaultMemory },
        }] },
      },
    ];

  local types = std.set([w.type for w in p.workloads]);
  k.keyed(
    [
      k.object('scheduling.k8s.io/v1', 'PriorityClass', priorityName(t), labels=labels) + {
        value: p.priorities[t].value,
        globalDefault: false,
        preemptionPolicy: p.priorities[t].preemptionPolicy,
        description: p.priorities[t].description,
      }
      for t in types
    ]
    + std.flattenArrays([perWorkload(w) for w in p.workloads])
  )
