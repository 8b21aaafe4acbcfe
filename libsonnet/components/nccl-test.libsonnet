// An on-demand, bounded two-node NCCL all-reduce per InfiniBand/RoCE pool, when
// `fabric.ncclTestNamespace` names a workload namespace: a CronJob `nccl-test-<pool>` that is
// suspended (it never runs on a schedule) and serves as the Job's template, run with
//   kubectl -n <namespace> create job --from=cronjob/nccl-test-<pool> nccl-test-<pool>-1
// Creating a Job from it leaves the CronJob as Git has it, so the GitOps engine has nothing to
// revert. The Job is an Indexed Job of two pods on two nodes of the pool (required pod
// anti-affinity on the hostname), each running torchrun with one process per GPU
// (scripts/nccl-allreduce.py); pod 0 is the rendezvous, reached through the headless Service
// `nccl-test-<pool>` as <job>-0.<service> (Indexed Job pods get the hostname <job>-<index> and
// the Service as subdomain: kubernetes.io/docs/concepts/workloads/controllers/job, "Completion
// mode"). Bounded: activeDeadlineSeconds, no retries, removed an hour after it finishes.
// NCCL_NET=IB makes NCCL use the fabric or fail (NCCL docs, Environment Variables, NCCL_NET).
// The pods add only IPC_LOCK (RDMA pins memory), which the namespace must allow: the input
// requires `podSecurity: baseline-ipc-lock` there. EFA pools get none: NCCL over EFA needs the
// aws-ofi-nccl plugin, which the image does not carry.
local fabric = import '../lib/fabric.libsonnet';
local gpu = import '../lib/gpu.libsonnet';
local k = import '../lib/k.libsonnet';
// Images and their sources: versions.json (docs/versions.md).
local versions = import '../versions.json';

local defaults = {
  fabric: error 'must provide fabric',
  gpuPools: [],
  image: versions.images.pytorch.image,
  script: importstr '../scripts/nccl-allreduce.py',
  imageDigests: {},
  deadlineSeconds: 900,
  port: 29500,
};

function(params)
  local p = defaults + params;
  local component = 'nccl-test';
  local ns = std.get(p.fabric, 'ncclTestNamespace', null);
  local pools = [
    x
    for x in fabric.rdmaPools(p.gpuPools)
    if x.gpu.vendor == 'nvidia' && !gpu.isDra(x) && !gpu.usesMig(x) && !gpu.sharesGpus(x)
  ];
  local scriptName = 'nccl-test-script';

  local objects(pool) =
    local name = 'nccl-test-' + pool.name;
    local podLabels = k.labels(component, name);
    [
      k.object('v1', 'Service', name, ns, k.labels(component, name)) + {
        spec: {
          clusterIP: 'None',
          // The rendezvous must resolve before pod 0 is ready.
          publishNotReadyAddresses: true,
          selector: k.selectorLabels(name),
          ports: [{ name: 'rendezvous', port: p.port, targetPort: p.port }],
        },
      },
      k.object('batch/v1', 'CronJob', name, ns, k.labels(component, name)) + {
        spec: {
          suspend: true,
          schedule: '0 0 1 1 *',
          concurrencyPolicy: 'Forbid',
          jobTemplate: { spec: {
            completionMode: 'Indexed',
            completions: 2,
            parallelism: 2,
            backoffLimit: 0,
            activeDeadlineSeconds: p.deadlineSeconds,
            ttlSecondsAfterFinished: 3600,
            template: {
              metadata: {
                labels: podLabels,
                // The pool's secondary network (components/fabric-networks.libsonnet), rendered in
                // every namespace with baseline-ipc-lock, which the test's namespace is.
                [if std.objectHas(pool.fabric, 'network') then 'annotations']: {
                  'k8s.v1.cni.cncf.io/networks': fabric.attachmentName(pool),
                },
              },
              spec: {
                restartPolicy: 'Never',
                subdomain: name,
                nodeSelector: pool.nodeSelector,
                // The taints of every GPU pool, not only this pool's: the nodeSelector binds the
                // pods to the pool, and a GPU pod that tolerates the cluster's GPU taint keys is
                // what lint's GPU004 (and the guardrail policy) expect of one.
                tolerations: gpu.tolerationsForPools(p.gpuPools),
                affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{
                  labelSelector: { matchLabels: k.selectorLabels(name) },
                  topologyKey: 'kubernetes.io/hostname',
                }] } },
                securityContext: { seccompProfile: { type: 'RuntimeDefault' } },
                containers: [{
                  name: 'nccl',
                  image: k.image(p.image, p.imageDigests),
                  command: [
                    'torchrun',
                    '--nnodes=2',
                    '--nproc-per-node=%d' % pool.gpu.perNode,
                    '--node-rank=$(JOB_COMPLETION_INDEX)',
                    '--master-addr=$(JOB_NAME)-0.' + name,
                    '--master-port=%d' % p.port,
                    '/scripts/nccl-allreduce.py',
                  ],
                  env: [
                    { name: 'JOB_NAME', valueFrom: { fieldRef: { fieldPath: "metadata.labels['batch.kubernetes.io/job-name']" } } },
                    { name: 'NCCL_NET', value: 'IB' },
                    { name: 'NCCL_DEBUG', value: 'INFO' },
                    { name: 'NCCL_DEBUG_SUBSYS', value: 'INIT,NET' },
                  ],
                  ports: [{ name: 'rendezvous', containerPort: p.port }],
                  resources: {
                    requests: { cpu: '8', memory: '64Gi', [k.gpuResource(pool.gpu.vendor)]: pool.gpu.perNode, [pool.fabric.resourceName]: 1 },
                    limits: { memory: '64Gi', [k.gpuResource(pool.gpu.vendor)]: pool.gpu.perNode, [pool.fabric.resourceName]: 1 },
                  },
                  securityContext: {
                    allowPrivilegeEscalation: false,
                    capabilities: { drop: ['ALL'], add: ['IPC_LOCK'] },
                  },
                  volumeMounts: [
                    { name: 'script', mountPath: '/scripts', readOnly: true },
                    // NCCL's intra-node transport uses shared memory; the runtime's 64Mi is too small.
                    { name: 'shm', mountPath: '/dev/shm' },
                  ],
                }],
                volumes: [
                  { name: 'script', configMap: { name: scriptName } },
                  { name: 'shm', emptyDir: { medium: 'Memory', sizeLimit: '16Gi' } },
                ],
              },
            },
          } },
        },
      },
    ];

  k.keyed(
    if ns == null || std.length(pools) == 0 then []
    else [
      k.object('v1', 'ConfigMap', scriptName, ns, k.labels(component, scriptName)) + {
        data: { 'nccl-allreduce.py': p.script },
      },
    ] + std.flattenArrays([objects(x) for x in pools])
  )
