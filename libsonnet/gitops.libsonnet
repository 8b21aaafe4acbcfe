// The objects that make a cluster's GitOps engine sync its rendered layers: rendered/<cluster>/gitops/.
//
// Evaluated after the components, because it depends on which layers came out non-empty (an
// empty layer is not rendered, so nothing may depend on it). generator/render/gitops.py passes the
// facts: the cluster's `gitops` block and, per rendered layer in apply order, the kinds it
// holds and whether the cluster's Kubernetes version serves them natively (`builtin`).
//
// Flux: a GitRepository (unless gitops.sourceName names an existing one), a Kustomization per
// layer that depends on the earlier waited-on layers it needs (registry.json `dependsOn`, else
// every earlier waited-on layer), and one for gitops/ itself so that changes to these objects
// are synced too. Argo CD: an Application per layer ordered by sync waves (one past the last
// wave it depends on when registry.json names its dependsOn, else its place in the registry),
// and a parent Application for gitops/ (app of apps).
//
// State the platform does not own never gates a platform layer: a ScaledObject is Ready only
// once the application's Deployment exists (KEDA scaledobject_controller, v2.20: "ScaledObject
// doesn't have correct scaleTargetRef specification") and turns Degraded in Argo CD's KEDA
// health check while its metric cannot be read (Fallback condition), so 30-autoscaling is not
// waited on, and 40-per-node depends only on the operators and the platform layer it needs.
//
// A layer registered with `"wait": false` (per-node DaemonSets that fail on a bad node by
// design) must report a bad node without holding back the rollout:
//   Flux     its Kustomization has `wait: false` and no healthChecks, so it is Ready once applied
//            (kustomize-controller v1.9.4 CRD, spec.wait: "check the health of all the
//            reconciled resources ... Defaults to false"; spec.healthChecks), and no
//            Kustomization lists it in dependsOn.
//   Argo CD  its Application carries the annotation gpu-gitops.io/wait: "false"; the
//            Application health check that docs/gitops.md has the user install in argocd-cm
//            (resource.customizations.health.argoproj.io_Application, from the Argo CD
//            "Resource Health" docs) reports such an Application to the parent as Healthy, so
//            the parent's sync waves never wait on it ("It then determines the number of the
//            next wave to apply. This is the first number where any resource is out-of-sync or
//            unhealthy", Argo CD "Sync Phases and Waves"). The Application itself still shows
//            its DaemonSets' real health.
local k = import 'lib/k.libsonnet';
local registry = import 'registry.json';

function(params) {
  local defaults = {
    cluster: error 'must provide cluster',
    gitops: error 'must provide gitops',
    layers: error 'must provide layers',
    fluxNamespace: 'flux-system',
    argocdNamespace: 'argocd',
    destinationServer: 'https://kubernetes.default.svc',
    // Layers that install Helm releases wait for operators to roll out: give them longer.
    timeout: '5m',
    operatorTimeout: '15m',
    retryInterval: '2m',
  },
  local p = defaults + params,
  local g = p.gitops,
  local registryLayers = [l.name for l in registry.layers],
  local entry(name) = [l for l in registry.layers if l.name == name][0],
  local waited(layer) = std.get(entry(layer.name), 'wait', true),
  // The rendered layers a layer depends on: those it names, or every earlier waited-on one.
  local needs(i) =
    local named = std.get(entry(p.layers[i].name), 'dependsOn', null);
    [p.layers[j].name for j in std.range(0, i - 1) if waited(p.layers[j]) && (named == null || std.member(named, p.layers[j].name))],
  local registryWave(name) = std.find(name, registryLayers)[0],
  local wave(i) =
    if std.objectHas(entry(p.layers[i].name), 'dependsOn')
    then 1 + std.foldl(std.max, [registryWave(d) for d in entry(p.layers[i].name).dependsOn], -1)
    else registryWave(p.layers[i].name),

  local nameOf(suffix) =
    local n = p.cluster + '-' + suffix;
    // Flux and Argo CD both put this name into a label value on every object they apply.
    assert std.length(n) <= 63 : 'GitOps object name %s is longer than 63 characters' % n;
    n,
  local selfName = nameOf('gitops'),
  local pathOf(folder) = g.path + '/' + folder,
  local has(layer, pred) = std.length([x for x in layer.kinds if pred(x)]) > 0,
  local installsHelm(layer) = has(layer, function(x) x.kind == 'HelmRelease'),
  local hasCrds(layer) = has(layer, function(x) x.kind == 'CustomResourceDefinition'),
  local hasCustomResources(layer) = has(layer, function(x) !x.builtin),
  local labels(name) = k.labels('gitops', name) + { 'app.kubernetes.io/part-of': p.cluster },

  local flux = {
    local sourceName = if std.objectHas(g, 'sourceName') then g.sourceName else p.cluster,
    local sourceRef = { kind: 'GitRepository', name: sourceName },

    repository: k.object('source.toolkit.fluxcd.io/v1', 'GitRepository', p.cluster, p.fluxNamespace, labels(p.cluster)) + {
      spec: { interval: g.interval, url: g.repository, ref: { branch: g.branch } },
    },

    // wait: every object Ready (HelmReleases included) before dependants start.
    kustomization(name, path, timeout, dependsOn=[], wait=true):: k.object('kustomize.toolkit.fluxcd.io/v1', 'Kustomization', name, p.fluxNamespace, labels(name)) + {
      spec: {
        interval: g.interval,
        retryInterval: p.retryInterval,
        timeout: timeout,
        path: './' + path,
        sourceRef: sourceRef,
        prune: true,
        wait: wait,
        [if std.length(dependsOn) > 0 then 'dependsOn']: [{ name: d } for d in dependsOn],
      },
    },

    objects: (if std.objectHas(g, 'sourceName') then [] else [self.repository]) + [
      // gitops/ syncs itself; the layers report their own health, so it does not wait on them.
      self.kustomization(selfName, pathOf('gitops'), p.timeout, wait=false),
    ] + [
      self.kustomization(
        nameOf(p.layers[i].name),
        pathOf(p.layers[i].name),
        if installsHelm(p.layers[i]) then p.operatorTimeout else p.timeout,
        [nameOf(d) for d in needs(i)],
        waited(p.layers[i]),
      )
      for i in std.range(0, std.length(p.layers) - 1)
    ],
  },

  local argocd = {
    application(name, path, syncOptions=[], wave=null, wait=true):: k.object(
      'argoproj.io/v1alpha1',
      'Application',
      name,
      p.argocdNamespace,
      labels(name),
      (if wave == null then {} else { 'argocd.argoproj.io/sync-wave': std.toString(wave) })
      + (if wait then {} else { 'gpu-gitops.io/wait': 'false' }),
    ) + {
      spec: {
        project: g.project,
        source: { repoURL: g.repository, targetRevision: g.branch, path: path },
        destination: { server: p.destinationServer },
        syncPolicy: {
          automated: { prune: true, selfHeal: true },
          [if std.length(syncOptions) > 0 then 'syncOptions']: syncOptions,
          retry: { limit: 5, backoff: { duration: '10s', factor: 2, maxDuration: '5m' } },
        },
      },
    },

    // Large CRDs overflow client-side apply's last-applied annotation (256 KiB); custom
    // resources fail the dry run while their CRD, applied in the same sync, does not exist yet.
    syncOptions(layer)::
      (if hasCrds(layer) then ['ServerSideApply=true'] else [])
      + (if hasCustomResources(layer) then ['SkipDryRunOnMissingResource=true'] else []),

    objects: [self.application(selfName, pathOf('gitops'))] + [
      self.application(nameOf(p.layers[i].name),
                       pathOf(p.layers[i].name),
                       self.syncOptions(p.layers[i]),
                       wave(i),
                       waited(p.layers[i]))
      for i in std.range(0, std.length(p.layers) - 1)
    ],
  },

  assert std.all([std.member(registryLayers, l.name) for l in p.layers]) : 'layers must come from registry.json',
  objects: if g.engine == 'flux' then flux.objects else argocd.objects,
}.objects
