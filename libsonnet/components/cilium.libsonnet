// Cilium eBPF CNI as a pinned Helm release for the cluster's GitOps engine.
//
// The typed input (schemas/cluster.schema.json `network.cilium`) maps one to one onto chart
// values; `values` is merged last for what the typed fields do not cover. Cross-field rules
// (kube-proxy replacement needs k8sServiceHost, native routing needs its CIDR, BBR needs the
// bandwidth manager, BIG TCP prerequisites) are the input checks IN330-IN350 (docs/input-checks.md),
// so what reaches this file is already coherent.
//
// The CNI must exist before the engine's own controllers can run pods, so on a new cluster
// Cilium is bootstrapped once with the same chart version and values; the release rendered here
// then adopts it and keeps it in Git from there on.
local fabric = import '../lib/fabric.libsonnet';
local helm = import '../lib/helm.libsonnet';
local k = import '../lib/k.libsonnet';

local defaults = {
  cluster: error 'must provide cluster',
  providerFacts: error 'must provide providerFacts',
  gitops: error 'must provide gitops',
  cilium: error 'must provide cilium',
  namespace: 'kube-system',
  repoURL: 'https://helm.cilium.io/',
  chart: 'cilium',
  pools: [],
};

// Pod addressing. In cluster-pool mode the pool is always written out: the chart's own default
// (10.0.0.0/8) is rarely what the network routes. In kubernetes mode the node's spec.podCIDR is
// used and podCIDRs is only the input's record of the cluster CIDR (checked, not rendered).
local ipamOf(ipam) =
  if ipam.mode == 'kubernetes' then { mode: 'kubernetes' }
  else {
    mode: 'cluster-pool',
    operator: {
      [if std.objectHas(ipam, 'podCIDRs') then 'clusterPoolIPv4PodCIDRList']: ipam.podCIDRs,
      clusterPoolIPv4MaskSize: ipam.maskSize,
    },
  };

// Chart values of the typed input (tests validate the rendered ones against the chart's
// values.schema.json).
local valuesOf(c, engine, providerFacts, pools) =
  local routing = c.routing;
  local native = routing.mode == 'native';
  // The managed-cloud integration for the provider (ciliumValues in providers.json): self-managed
  // Cilium on AKS is "bring your own CNI" (tunnel routing only); on GKE it runs natively on the
  // VPC-routed node pod CIDRs, with the node-init DaemonSet preparing the nodes and the CNI
  // binaries where GKE's kubelet looks for them.
  providerFacts.ciliumValues {
    kubeProxyReplacement: c.kubeProxyReplacement,
    [if std.objectHas(c, 'k8sServiceHost') then 'k8sServiceHost']: c.k8sServiceHost,
    [if std.objectHas(c, 'k8sServiceHost') then 'k8sServicePort']: c.k8sServicePort,
    routingMode: routing.mode,
    [if !native then 'tunnelProtocol']: routing.tunnelProtocol,
    // destinations in it are not masqueraded, in either routing mode
    [if std.objectHas(routing, 'ipv4NativeRoutingCIDR') then 'ipv4NativeRoutingCIDR']: routing.ipv4NativeRoutingCIDR,
    [if native then 'autoDirectNodeRoutes']: routing.autoDirectNodeRoutes,
    ipam: ipamOf(c.ipam),
    bpf: {
      masquerade: c.bpf.masquerade,
      hostLegacyRouting: c.bpf.hostLegacyRouting,
      datapathMode: c.bpf.datapathMode,
    },
    bandwidthManager: { enabled: c.bandwidthManager.enabled, bbr: c.bandwidthManager.bbr },
    enableIPv4BIGTCP: c.bigTCP.ipv4,
    enableIPv6BIGTCP: c.bigTCP.ipv6,
    // dsrDispatch: the chart passes it to the agent's --bpf-lb-dsr-dispatch (opt when unset);
    // tunnel routing with DSR needs geneve (input check IN338).
    loadBalancer: {
      acceleration: c.loadBalancer.acceleration,
      mode: c.loadBalancer.mode,
      [if std.objectHas(c.loadBalancer, 'dsrDispatch') then 'dsrDispatch']: c.loadBalancer.dsrDispatch,
    },
    // The chart joins the list into the agent's --devices; without it the agent attaches to
    // every device with a non-local route (and XDP acceleration to all of them).
    [if std.objectHas(c, 'devices') then 'devices']: c.devices,
    hubble: {
      enabled: c.hubble.enabled,
      // Argo CD renders the chart on every sync; Helm-generated certificates would differ each
      // time (a release that is never in sync). A CronJob generates them in the cluster instead.
      [if engine == 'argocd' && c.hubble.enabled then 'tls']: { auto: { method: 'cronJob' } },
      relay: { enabled: c.hubble.enabled && c.hubble.relay },
      ui: { enabled: c.hubble.enabled && c.hubble.ui },
    },
    // Multus (the Network Operator's, for a pool's secondary network on its fabric) writes its
    // 00-multus.conf beside Cilium's; the chart's default cni.exclusive renames every other CNI
    // config in /etc/cni/net.d to *.cilium_bak (values.yaml, cni.exclusive).
    [if fabric.networkPools(pools) != [] then 'cni']+: { exclusive: false },
    // The agent must run on every node, whatever its taints (upstream's default, kept explicit
    // so a values override cannot silently drop it).
    tolerations: [{ operator: 'Exists' }],
  };

function(params)
  local p = defaults + params;
  local c = p.cilium;
  k.keyed(
    if !c.enabled then []
    else helm.release(p,
                      'cilium',
                      p.namespace,
                      p.repoURL,
                      p.chart,
                      c.version,
                      std.mergePatch(valuesOf(c, p.gitops.engine, p.providerFacts, p.pools), c.values),
                      createNamespace=false,
                      syncWave=-10)
  )
