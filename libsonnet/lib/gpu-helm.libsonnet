// A pinned Helm chart as GitOps objects: a Flux HelmRepository + HelmRelease, or an Argo CD
// Application, chosen by gitops.engine. The chart is installed by the engine in the cluster,
// so the rendered tree stays plain YAML and the version pin is reviewed like any other change.
local k = import 'k.libsonnet';

{
  fluxNamespace:: 'flux-system',
  argoNamespace:: 'argocd',

  // params needs `gitops` (engine, interval, project); values is the chart's values object.
  release(params, name, namespace, repoURL, chart, version, values)::
    local labels = k.labels(name);
    if params.gitops.engine == 'flux' then [
      k.object('source.toolkit.fluxcd.io/v1', 'HelmRepository', name, $.fluxNamespace, labels) + {
        spec: { interval: '1h', url: repoURL },
      },
      k.object('helm.toolkit.fluxcd.io/v2', 'HelmRelease', name, $.fluxNamespace, labels) + {
        spec: {
          interval: params.gitops.interval,
          releaseName: name,
          targetNamespace: namespace,
          storageNamespace: namespace,
          chart: { spec: {
            chart: chart,
            version: version,
            sourceRef: { kind: 'HelmRepository', name: name, namespace: $.fluxNamespace },
          } },
          // CRDs follow the chart version: an upgrade that adds fields must update them too.
          install: { createNamespace: true, crds: 'CreateReplace', remediation: { retries: 3 } },
          upgrade: { crds: 'CreateReplace', remediation: { retries: 3 } },
          values: values,
        },
      },
    ] else [
      k.object('argoproj.io/v1alpha1', 'Application', name, $.argoNamespace, labels) + {
        spec: {
          project: params.gitops.project,
          source: {
            repoURL: repoURL,
            chart: chart,
            targetRevision: version,
            helm: { releaseName: name, valuesObject: values },
          },
          destination: { server: 'https://kubernetes.default.svc', namespace: namespace },
          syncPolicy: {
            automated: { prune: true, selfHeal: true },
            // Server-side apply: operator CRDs are larger than the client-side annotation limit.
            syncOptions: ['CreateNamespace=true', 'ServerSideApply=true'],
          },
        },
      },
    ],
}
