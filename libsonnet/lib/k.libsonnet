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

  namespace(name, labels={}):: $.object('v1', 'Namespace', name, labels=labels),

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

  // Text serialised by gpu-gitops after evaluation (generator/deferred.py): the engine's own
  // std.manifestYamlDoc/std.manifestJsonEx take seconds on a modest config. Use these for
  // ConfigMap payloads and config-hash annotations; the result may only be used as a whole
  // field value, not concatenated inside Jsonnet.
  yaml(value):: { __gpu_gitops__: { format: 'yaml', value: value } },
  json(value):: { __gpu_gitops__: { format: 'json', value: value } },
  hash(value):: { __gpu_gitops__: { format: 'sha256', value: value } },

  // A cluster-unique, DNS-safe object name from parts.
  name(parts):: std.join('-', parts),
}
