// Which pools restart their kubelet for runtime huge pages, and the startup taint that keeps
// workloads off such a node until it did (files/tune-node.sh, docs/node-platform.md).
//
// A restarted kubelet admits the pods already bound to its node again, against an allocatable
// smaller by the pages just set (kubelet HandlePodAdditions): a pod that no longer fits is
// rejected and killed. So a new node of such a pool starts with the NoSchedule taint `key`
// (Karpenter NodePool startupTaints, karpenter.sh/v1: "taints applied to a node on creation ...
// expected to be removed by another system"), tolerated by the tuning DaemonSet and by what it
// needs first (NFD's worker, which labels the node the DaemonSet selects), and the tuning script
// removes it once node allocatable shows the pages.
{
  key:: 'gpu-gitops.io/node-tuning',
  taint:: { key: $.key, value: 'pending', effect: 'NoSchedule' },
  toleration:: { key: $.key, operator: 'Exists', effect: 'NoSchedule' },

  // Only runtime (2Mi) huge pages need the kubelet restarted, and only the DaemonSet backend sets
  // them at runtime (Tuned puts them on the kernel command line).
  restartsKubelet(tuning, pool)::
    tuning.restartKubelet && std.get(tuning, 'backend', 'daemonset') != 'tuned'
    && std.get(pool, 'hugepages', { '2Mi': 0 })['2Mi'] > 0,
}
