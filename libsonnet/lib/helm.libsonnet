// A pinned Helm chart installed by the cluster's GitOps engine.
//
// Operators (Cilium, NFD, GPU operators, KEDA) ship as Helm charts. The generator does not run
// Helm: it renders the engine's own objects, so the engine pulls the exact chart version and
// applies the typed values. One function, so every chart is installed the same way:
//
//   local helm = import '../lib/helm.libsonnet';
//   helm.release(p, 'cilium', 'kube-system', 'https://helm.cilium.io/', 'cilium', '1.19.6', values)
//
// `params` is the component's params: it needs `gitops` (engine; `interval` and `project` are
// used when present).
// Returns a list of objects:
//   flux    HelmRepository (source.toolkit.fluxcd.io/v1) + HelmRelease (helm.toolkit.fluxcd.io/v2),
//           both in `flux-system` (no cross-namespace references needed), installed into
//           `namespace` with CRDs created and replaced on upgrade, drift detection on (injected
//           caBundles ignored).
//   argocd  one Application (argoproj.io/v1alpha1) in `argocd` with a Helm source
//           (chart + targetRevision + valuesObject), automated prune/self-heal, server-side apply,
//           injected caBundles left out of the diff.
// Every release here installs the CNI or bears CRDs, so it is kept when it leaves Git
// (k.keepOnRemoval): helm-controller uninstalls a deleted HelmRelease, and Argo CD prunes an
// Application.
// `repoURL` may be https:// or oci://; for Flux an oci:// URL makes the HelmRepository `type: oci`.
// Options (named arguments):
//   repoName          name of the Flux HelmRepository (default: the release name, so two charts
//                     from one repository never render the same object twice).
//   createNamespace   let the engine create `namespace` (default true; set false when the
//                     component renders the Namespace itself, e.g. to label it for Pod Security).
//   syncWave          Argo CD sync wave, for operators that must exist before others.
//   dependsOn         Flux: names of other releases (rendered by this helper) to install first,
//                     e.g. ['node-feature-discovery'] for a GPU operator. Argo CD orders by syncWave.
//                     When `params.cniRelease` names the release that installs the CNI (Cilium),
//                     every other Flux release depends on it too: helm-controller installs a
//                     HelmRelease only once those in spec.dependsOn are Ready, so no operator pod
//                     waits for a pod network that does not exist yet (Argo CD: Cilium's wave -10).
//   fluxNamespace / argocdNamespace   where the engine's objects live.
local k = import 'k.libsonnet';

{
  fluxNamespace:: 'flux-system',
  argocdNamespace:: 'argocd',
  inClusterServer:: 'https://kubernetes.default.svc',

  local isOci(url) = std.startsWith(url, 'oci://'),

  // Drift detection compares each object of the release with a server-side dry run of the
  // chart's manifest. Controllers rewrite some fields after install: cert-manager's CA injector
  // or the operator's own certificate rotation fills in the caBundle of webhook configurations,
  // CRD conversion webhooks and APIServices. Without these rules helm-controller would report
  // drift on every reconcile and write the chart's value back, breaking the webhooks.
  // driftDetection.ignore (helm-controller v1.6.3 CRD, helm.toolkit.fluxcd.io/v2): `paths` are
  // JSON Pointers (RFC 6901), one array element each, no wildcard; fluxcd/pkg ssa/jsondiff
  // removes them from both objects before comparing and allows paths that do not exist
  // (ApplyPatchToUnstructured, AllowMissingPathOnRemove), so the webhook rules list the first
  // 16 elements of `webhooks`.
  driftIgnore:: [
    {
      target: { group: 'admissionregistration.k8s.io', kind: kind },
      paths: ['/webhooks/%d/clientConfig/caBundle' % i for i in std.range(0, 15)],
    }
    for kind in ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']
  ] + [
    { target: { group: 'apiextensions.k8s.io', kind: 'CustomResourceDefinition' }, paths: ['/spec/conversion/webhook/clientConfig/caBundle'] },
    { target: { group: 'apiregistration.k8s.io', kind: 'APIService' }, paths: ['/spec/caBundle'] },
  ],

  fluxRepository(name, repoURL, labels, namespace=$.fluxNamespace)::
    k.object('source.toolkit.fluxcd.io/v1', 'HelmRepository', name, namespace, labels) + {
      spec: {
        interval: '1h',
        url: repoURL,
        [if isOci(repoURL) then 'type']: 'oci',
      },
    },

  fluxRelease(name,
              namespace,
              repoName,
              chart,
              version,
              values,
              labels,
              createNamespace=true,
              fluxNamespace=$.fluxNamespace,
              dependsOn=[],
              interval='30m')::
    k.object('helm.toolkit.fluxcd.io/v2', 'HelmRelease', name, fluxNamespace, labels, k.keepOnRemoval('flux')) + {
      spec: {
        interval: interval,
        releaseName: name,
        [if std.length(dependsOn) > 0 then 'dependsOn']: [{ name: d, namespace: fluxNamespace } for d in dependsOn],
        targetNamespace: namespace,
        storageNamespace: namespace,
        chart: { spec: {
          chart: chart,
          version: version,
          sourceRef: { kind: 'HelmRepository', name: repoName, namespace: fluxNamespace },
        } },
        install: {
          crds: 'CreateReplace',
          createNamespace: createNamespace,
          remediation: { retries: 3 },
        },
        upgrade: {
          crds: 'CreateReplace',
          remediation: { retries: 3, remediateLastFailure: true },
        },
        driftDetection: { mode: 'enabled', ignore: $.driftIgnore },
        values: values,
      },
    },

  // Argo CD's equivalent of driftIgnore: with selfHeal, an injected caBundle would make the
  // Application OutOfSync and be written back on every sync. ignoreDifferences (Argo CD
  // "Diffing Customization": jsonPointers and jqPathExpressions, so one rule covers every
  // webhook) leaves them out of the diff; the sync option RespectIgnoreDifferences=true (Argo CD
  // "Sync Options") keeps the live value when a sync applies the object.
  argocdIgnoreDifferences:: [
    { group: 'admissionregistration.k8s.io', kind: kind, jqPathExpressions: ['.webhooks[]?.clientConfig.caBundle'] }
    for kind in ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']
  ] + [
    { group: 'apiextensions.k8s.io', kind: 'CustomResourceDefinition', jsonPointers: ['/spec/conversion/webhook/clientConfig/caBundle'] },
    { group: 'apiregistration.k8s.io', kind: 'APIService', jsonPointers: ['/spec/caBundle'] },
  ],

  argocdApplication(name,
                    namespace,
                    project,
                    repoURL,
                    chart,
                    version,
                    values,
                    labels,
                    createNamespace=true,
                    syncWave=null,
                    argocdNamespace=$.argocdNamespace)::
    // Argo CD takes OCI chart repositories without the scheme.
    local url = if isOci(repoURL) then std.substr(repoURL, 6, std.length(repoURL) - 6) else repoURL;
    k.object('argoproj.io/v1alpha1',
             'Application',
             name,
             argocdNamespace,
             labels,
             annotations=k.keepOnRemoval('argocd')
                         + (if syncWave != null then { 'argocd.argoproj.io/sync-wave': std.toString(syncWave) } else {})) + {
      spec: {
        project: project,
        source: {
          repoURL: url,
          chart: chart,
          targetRevision: version,
          helm: { releaseName: name, valuesObject: values },
        },
        destination: { server: $.inClusterServer, namespace: namespace },
        ignoreDifferences: $.argocdIgnoreDifferences,
        syncPolicy: {
          automated: { prune: true, selfHeal: true },
          syncOptions: ['ServerSideApply=true', 'RespectIgnoreDifferences=true']
                       + (if createNamespace then ['CreateNamespace=true'] else []),
          retry: { limit: 5, backoff: { duration: '10s', factor: 2, maxDuration: '5m' } },
        },
      },
    },

  release(params,
          name,
          namespace,
          repoURL,
          chart,
          version,
          values,
          repoName=name,
          createNamespace=true,
          syncWave=null,
          dependsOn=[],
          fluxNamespace=$.fluxNamespace,
          argocdNamespace=$.argocdNamespace)::
    local labels = k.labels(name);
    local engine = params.gitops.engine;
    local cni = std.get(params, 'cniRelease', null);
    local after = dependsOn + (if cni == null || cni == name || std.member(dependsOn, cni) then [] else [cni]);
    if engine == 'flux' then [
      $.fluxRepository(repoName, repoURL, labels, fluxNamespace),
      $.fluxRelease(name,
                    namespace,
                    repoName,
                    chart,
                    version,
                    values,
                    labels,
                    createNamespace,
                    fluxNamespace,
                    after,
                    std.get(params.gitops, 'interval', '30m')),
    ]
    else if engine == 'argocd' then [
      $.argocdApplication(name,
                          namespace,
                          std.get(params.gitops, 'project', 'default'),
                          repoURL,
                          chart,
                          version,
                          values,
                          labels,
                          createNamespace,
                          syncWave,
                          argocdNamespace),
    ]
    else error 'unknown gitops engine ' + engine,
}
