// Small constructors and helpers shared by the components. Pure functions of their arguments.
{
  managedBy:: 'gpu-gitops',

  // Labels on every rendered object; selectors use selectorLabels (no version in them).
  labels(component, name=component):: {
    'app.kubernetes.io/name': name,
    'app.kubernetes.io/component': component,
    'app.kubernetes.io/managed-by': $.managedBy,
  },
  selectorLabels(name):: { 'app.kubernetes.io/name': name },

  object(apiVersion, kind, name, namespace=null, labels={}, annotations={}):: {
    apiVersion: apiVersion,
    kind: kind,
    metadata: {
      name: name,
      [if namespace != null then 'namespace']: namespace,
      [if std.length(labels) > 0 then 'labels']: labels,
      [if std.length(annotations) > 0 then 'annotations']: annotations,
    },
  },

  namespace(name, labels={}, annotations={}):: $.object('v1', 'Namespace', name, labels=labels, annotations=annotations),

  // OpenShift admits pods by SecurityContextConstraints, not by the namespace's Pod Security
  // label alone: a privileged or host-path pod is admitted only if its ServiceAccount may use
  // an SCC that allows it. This RoleBinding to the ClusterRole OpenShift defines per default
  // SCC (system:openshift:scc:privileged; what `oc adm policy add-scc-to-user privileged -z
  // <account>` binds) lets `accounts` of `namespace` use the privileged SCC (runAsUser RunAsAny:
  // it assigns no UID, so the non-root containers of those pods name theirs). Empty where
  // `facts.securityContextConstraints` is false.
  // docs.openshift.com/container-platform/4.16 authentication/managing-security-context-constraints.
  privilegedSccAccess(facts, name, namespace, accounts, labels)::
    if !facts.securityContextConstraints || std.length(accounts) == 0 then []
    else [$.object('rbac.authorization.k8s.io/v1', 'RoleBinding', name, namespace, labels) + {
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:openshift:scc:privileged' },
      subjects: [{ kind: 'ServiceAccount', name: a, namespace: namespace } for a in accounts],
    }],

  // A ValidatingAdmissionPolicy (and its Deny binding) for a node agent whose ServiceAccount
  // may update Nodes to label its own: RBAC cannot narrow `update`/`patch` on nodes to fields or
  // to one Node. Every Node UPDATE by system:serviceaccount:<namespace>:<account> is denied
  // unless (1) the Node is the one its caller's pod runs on, and (2) nothing but labels for which
  // `mayChange` (CEL over the label key `l`) holds changed: spec (taints included), the other
  // labels, the annotations, metadata.ownerReferences (an owner that does not exist makes the
  // garbage collector delete the Node) and metadata.finalizers (a finalizer nobody removes hangs
  // the Node's deletion) stay as they were. `oldObject` is null only on CREATE, which the roles
  // do not grant. The server itself rewrites managedFields and resourceVersion on every write;
  // name and uid are immutable (core validation).
  // (1): a pod-bound token (a projected or automounted ServiceAccount token) carries the pod's
  // node in userInfo.extra['authentication.kubernetes.io/node-name'] (ServiceAccountTokenPodNodeInfo,
  // beta and on by default from 1.30, GA in 1.32: kubernetes/kubernetes
  // pkg/serviceaccount/claims.go and pkg/features/kube_features.go, v1.32; KEP-4193). Rendered
  // only from 1.30 (admission.enabled); a token without the claim (a legacy Secret token, which
  // carries no node) is denied.
  // Upstream: https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/
  // (matchConditions and validations see `request`, whose userInfo.username names the caller and
  // userInfo.extra its token's claims, and `object`/`oldObject`), and a ServiceAccount
  // authenticates as system:serviceaccount:<namespace>:<name>
  // (https://kubernetes.io/docs/reference/access-authn-authz/authentication/#service-account-tokens).
  ownNodeLabelsPolicy(name, namespace, account, labels, variables=[], mayChange, labelsText)::
    local nodeNameKey = 'authentication.kubernetes.io/node-name';
    local labelsOf(o) = 'has(%s.metadata.labels) ? %s.metadata.labels : {}' % [o, o];
    local unchanged(field, empty) =
      '(has(object.metadata.%s) ? object.metadata.%s : %s) == (has(oldObject.metadata.%s) ? oldObject.metadata.%s : %s)'
      % [field, field, empty, field, field, empty];
    [
      $.object('admissionregistration.k8s.io/v1', 'ValidatingAdmissionPolicy', name, labels=labels) + {
        spec: {
          failurePolicy: 'Fail',
          matchConstraints: { resourceRules: [
            { apiGroups: [''], apiVersions: ['v1'], operations: ['UPDATE'], resources: ['nodes'] },
          ] },
          matchConditions: [{
            name: 'node-labeller',
            expression: "request.userInfo.username == 'system:serviceaccount:%s:%s'" % [namespace, account],
          }],
          variables: variables + [
            { name: 'oldLabels', expression: labelsOf('oldObject') },
            { name: 'newLabels', expression: labelsOf('object') },
            {
              name: 'callerNode',
              // extra is left out of the request when the token carries no extra claim.
              expression: "has(request.userInfo.extra) && '%s' in request.userInfo.extra ? request.userInfo.extra['%s'] : []" % [nodeNameKey, nodeNameKey],
            },
          ],
          validations: [
            {
              expression: 'variables.callerNode == [object.metadata.name]',
              message: 'the %s ServiceAccount may only change the Node its own pod runs on (the pod-bound token names it in %s)' % [account, nodeNameKey],
            },
            {
              expression: 'object.spec == oldObject.spec',
              message: "the %s ServiceAccount may not change a Node's spec (taints, podCIDR, unschedulable, providerID)" % account,
            },
            {
              expression: 'variables.newLabels.all(l, %s || (l in variables.oldLabels && variables.oldLabels[l] == variables.newLabels[l])) && variables.oldLabels.all(l, %s || l in variables.newLabels)' % [mayChange, mayChange],
              message: 'the %s ServiceAccount may only set the labels %s on a Node' % [account, labelsText],
            },
            {
              expression: unchanged('annotations', '{}'),
              message: "the %s ServiceAccount may not change a Node's annotations" % account,
            },
            {
              expression: unchanged('ownerReferences', '[]'),
              message: "the %s ServiceAccount may not change a Node's ownerReferences (the garbage collector deletes a Node whose owner is gone)" % account,
            },
            {
              expression: unchanged('finalizers', '[]'),
              message: "the %s ServiceAccount may not change a Node's finalizers (a finalizer nobody removes hangs its deletion)" % account,
            },
          ],
        },
      },
      $.object('admissionregistration.k8s.io/v1', 'ValidatingAdmissionPolicyBinding', name, labels=labels) + {
        spec: { policyName: name, validationActions: ['Deny'] },
      },
    ],

  // The kubectl image for a cluster of Kubernetes `kubernetesVersion` (versions.json
  // `kubectl-<minor>`): kubectl is supported within one minor version of the API server
  // (kubernetes.io/releases/version-skew-policy), so each image serves the minors around its own.
  kubectlImage(versions, kubernetesVersion)::
    local minor = std.parseInt(std.split(kubernetesVersion, '.')[1]);
    local key = if minor <= 31 then 'kubectl-1.30' else if minor <= 33 then 'kubectl-1.32' else if minor <= 35 then 'kubectl-1.35' else 'kubectl-1.36';
    versions.images[key].image,

  // The PriorityClasses of node agents (system-node-critical) and cluster services
  // (system-cluster-critical) that some providers hold to kube-system.
  criticalPriorityClasses:: ['system-node-critical', 'system-cluster-critical'],

  // Where the provider limits those classes (providers.json criticalPriorityQuota: GKE's
  // ResourceQuota admission lists them as limitedResources), a pod of theirs is admitted only in a
  // namespace with a ResourceQuota scoped to them ("insufficient quota to match these scopes"
  // otherwise): the quota the namespace that runs such pods renders beside itself. It admits,
  // never limits: `pods: 1G`, as GKE's own gcp-critical-pods quota in kube-system
  // (kubernetes.io/docs/concepts/policy/resource-quotas/#limit-priority-class-consumption-by-default).
  criticalPodsQuota(facts, namespace, labels={})::
    if !facts.criticalPriorityQuota || namespace == 'kube-system' then []
    else [$.object('v1', 'ResourceQuota', 'critical-pods', namespace, labels) + {
      spec: {
        hard: { pods: '1G' },
        scopeSelector: { matchExpressions: [
          { scopeName: 'PriorityClass', operator: 'In', values: $.criticalPriorityClasses },
        ] },
      },
    }],

  // Annotations that keep an object in the cluster when it leaves Git (a rename, a flag turned
  // off, a move to another layer): the engine neither prunes it nor deletes it with its owner.
  // For the CNI's release (its uninstall cuts every pod off the network), releases that bear
  // CRDs (an uninstall deletes the CRDs and with them every custom resource) and namespaces
  // that hold data. docs/gitops.md says how to remove them for real.
  //   flux    kustomize-controller skips objects annotated kustomize.toolkit.fluxcd.io/prune:
  //           disabled when it garbage-collects, and when its Kustomization is deleted
  //           (fluxcd/kustomize-controller docs/spec/v1/kustomizations.md "Prune", v1.6).
  //   argocd  Prune=false: not pruned; Delete=false: kept when the Application is deleted
  //           (Argo CD docs user-guide/sync-options.md, "No Prune Resources" and "No Resource
  //           Deletion"; options joined with ",").
  keepOnRemoval(engine)::
    if engine == 'flux' then { 'kustomize.toolkit.fluxcd.io/prune': 'disabled' }
    else if engine == 'argocd' then { 'argocd.argoproj.io/sync-options': 'Prune=false,Delete=false' }
    else error 'unknown gitops engine ' + engine,

  // Pod Security Admission labels, pinned to the cluster's minor version.
  podSecurityLabels(level, kubernetesVersion):: {
    'pod-security.kubernetes.io/enforce': level,
    'pod-security.kubernetes.io/enforce-version': 'v' + kubernetesVersion,
    'pod-security.kubernetes.io/audit': 'restricted',
    'pod-security.kubernetes.io/warn': 'restricted',
  },

  // A toleration for every taint, with operator Exists: a value mismatch (key=present vs
  // key=true) must never leave a DaemonSet at zero pods.
  tolerationsFor(taints):: [
    { key: t.key, operator: 'Exists', effect: t.effect }
    for t in taints
  ],

  // Resource name a vendor's whole GPUs are advertised under.
  gpuResource(vendor):: vendor + '.com/gpu',

  // Text serialised by gpu-gitops after evaluation (generator/library/deferred.py): the engine's own
  // std.manifestYamlDoc/std.manifestJsonEx take seconds on a modest config. Use these for
  // ConfigMap payloads and config-hash annotations; the result may only be used as a whole
  // field value, not concatenated inside Jsonnet.
  yaml(value):: { __gpu_gitops__: { format: 'yaml', value: value } },
  json(value):: { __gpu_gitops__: { format: 'json', value: value } },
  hash(value):: { __gpu_gitops__: { format: 'sha256', value: value } },

  // An image reference pinned by digest when the input gives one (images.digests, keyed by the
  // reference as rendered): `<image>:<tag>@sha256:...`. The kubelet and containerd pull by the
  // digest and keep the tag for readers only (Kubernetes docs, Images: "Image names").
  image(ref, digests):: if std.objectHas(digests, ref) then ref + '@' + digests[ref] else ref,

  // The reason for each hardening check a workload is an exception to, as annotations both
  // checkers read: checkov's `checkov.io/skip<N>: CKV_K8S_<n>=reason` (which `gpu-gitops lint`
  // honours for the checks its SEC rules share with checkov) and, for a lint rule checkov has
  // no check for (SEC002 hostPath), `gpu-gitops.io/ignore: "<IDs>: reason"`. checkov splits
  // the value on "=" into exactly two parts, so a reason may not contain one.
  exceptions(reasons)::
    local checks = [id for id in std.objectFields(reasons) if std.startsWith(id, 'CKV_')];
    local rules = [id for id in std.objectFields(reasons) if !std.startsWith(id, 'CKV_')];
    assert std.all([std.length(std.findSubstr('=', reasons[id])) == 0 for id in checks]) :
           'a checkov skip reason may not contain "="';
    {
      ['checkov.io/skip' + (i + 1)]: checks[i] + '=' + reasons[checks[i]]
      for i in std.range(0, std.length(checks) - 1)
    } + (if rules == [] then {} else {
           'gpu-gitops.io/ignore': std.join(',', rules) + ': ' + std.join('; ', std.set([reasons[id] for id in rules])),
         }),

  // The exceptions of a workload whose images (references as rendered, before pinning) the
  // input gives no digest for: checkov's digest and pull-policy checks (CKV_K8S_15 passes with a
  // digest; a versioned tag is pulled IfNotPresent).
  unpinned(refs, digests)::
    local missing = std.set([x for x in refs if !std.objectHas(digests, x)]);
    if missing == [] then {} else {
      CKV_K8S_43: 'no digest for ' + std.join(' ', missing) + ' in the cluster input (images.digests)',
      CKV_K8S_15: 'pinned by a versioned tag pulled IfNotPresent; images.digests pins the content',
    },

  // The service account token as the kubelet would automount it (a projected volume of token,
  // cluster CA and namespace), for a pod that sets automountServiceAccountToken: false and mounts
  // it only into the one container that talks to the API, at apiTokenPath, where client-go's
  // in-cluster config reads it (k8s.io/client-go/rest InClusterConfig).
  apiTokenVolume:: {
    name: 'api-token',
    projected: { sources: [
      { serviceAccountToken: { path: 'token', expirationSeconds: 3600 } },
      { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      { downwardAPI: { items: [{ path: 'namespace', fieldRef: { fieldPath: 'metadata.namespace' } }] } },
    ] },
  },
  apiTokenMount:: { name: 'api-token', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true },

  // A writable scratch folder for a container whose root filesystem is read-only.
  scratchVolume(name):: { name: name, emptyDir: { sizeLimit: '64Mi' } },

  // A cluster-unique, DNS-safe object name from parts.
  name(parts):: std.join('-', parts),

  // The key of an object in its component: the name of the file it renders to without
  // `.yaml`, `<kind>_<namespace>_<name>` with the kind lower-cased and no namespace for a
  // cluster-scoped object (generator/render/layout.py object_filename), so an overrides.libsonnet can
  // tell it from the rendered tree (docs/overrides.md).
  fileKey(o)::
    local namespace = std.get(o.metadata, 'namespace', null);
    std.join('_', [std.asciiLower(o.kind)] + (if namespace == null || namespace == '' then [] else [namespace]) + [o.metadata.name]),

  // A component's objects keyed by fileKey, the form every component returns: an override
  // patches one object with `+:` instead of rewriting a list. Two objects with one key would
  // overwrite each other's file.
  keyed(objects)::
    local keys = [$.fileKey(o) for o in objects];
    local twice = [key for key in std.set(keys) if std.count(keys, key) > 1];
    assert twice == [] : 'two objects of a component render to one file: ' + std.join(', ', twice);
    { [keys[i]]: objects[i] for i in std.range(0, std.length(objects) - 1) },
}
