// node-feature-discovery as a pinned Helm release.
//
// The worker must run on GPU nodes, which are tainted: it tolerates every pool's taints with
// `operator: Exists` (an `Equal` toleration with the wrong value schedules zero pods without
// an error: NVIDIA/k8s-device-plugin#1934). The labels it sets come from node-feature-rules.
// With `deploy: external` (default on OpenShift, where the OLM NFD Operator runs NFD) nothing is
// rendered here: node-feature-rules still renders the rules that NFD serves.
local helm = import '../lib/helm.libsonnet';
local k = import '../lib/k.libsonnet';
local startup = import '../lib/tuning.libsonnet';

local defaults = {
  cluster: error 'must provide cluster',
  gitops: error 'must provide gitops',
  nfd: error 'must provide nfd',
  pools: [],
  tuning: { restartKubelet: false },
  namespace: 'node-feature-discovery',
  repoURL: 'https://kubernetes-sigs.github.io/node-feature-discovery/charts',
  chart: 'node-feature-discovery',
};

function(params)
  local p = defaults + params;
  local taints = std.flattenArrays([pool.taints for pool in p.pools]);
  // one toleration per distinct key/effect, in a stable order
  // and the node tuning's startup taint: the tuning DaemonSet selects the label NFD sets
  // (lib/tuning.libsonnet)
  local tuned = [pool for pool in p.pools if startup.restartsKubelet(p.tuning, pool)] != [];
  local tolerations = std.set(k.tolerationsFor(taints) + (if tuned then [startup.toleration] else []), function(t) t.key + '|' + t.effect);
  k.keyed(
    if !p.nfd.enabled || p.nfd.deploy != 'helm' then []
    else helm.release(p, 'node-feature-discovery', p.namespace, p.repoURL, p.chart, p.nfd.version, {
      worker: { tolerations: tolerations },
    }, syncWave=-5)
  )
