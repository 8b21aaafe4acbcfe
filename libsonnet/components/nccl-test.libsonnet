// An on-demand, bounded two-node NCCL all-reduce per fabric pool of NVIDIA whole GPUs, when
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
// NCCL_NET makes NCCL use the fabric or fail rather than fall back to sockets (NCCL docs,
// Environment Variables, NCCL_NET): `IB` on InfiniBand/RoCE.
// The pods add only IPC_LOCK (RDMA pins memory), which the namespace must allow: the input
// requires `podSecurity: baseline-ipc-lock` there.
//
// EFA pools: NCCL reaches EFA through the aws-ofi-nccl plugin and libfabric's EFA provider, which
// the NGC image lacks; the AWS Deep Learning Container for PyTorch carries both (versions.json
// `pytorchEfa`). NCCL_NET `AWS Libfabric` is the plugin's name (aws/aws-ofi-nccl: the name of
// releases up to 1.11, still accepted by later ones); FI_PROVIDER=efa keeps libfabric on EFA and
// FI_EFA_USE_DEVICE_RDMA=1 makes it fail where the device has no RDMA read rather than copy
// through host memory (libfabric fi_efa(7); aws-samples/awsome-distributed-training
// micro-benchmarks/nccl-tests). The pods request all the node's EFA interfaces and 2Mi huge
// pages for libfabric's buffers (the EKS guide's 5120Mi, or what the pool reserves if less).
//
// DRA pools: the GPUs come from a claim, not `nvidia.com/gpu`: a ResourceClaimTemplate
// `nccl-test-<pool>` for all of a node's GPUs (DeviceClass gpu.nvidia.com, the pool's model:
// gpu.claimSelectors). On a multi-node NVLink pool NCCL_MNNVL_ENABLE=0 keeps NCCL off the NVLink
// domain (the pods claim no IMEX channel anyway), so the test measures the fabric between racks.
local fabric = import '../lib/fabric.libsonnet';
local gpu = import '../lib/gpu.libsonnet';
local k = import '../lib/k.libsonnet';
// Images and their sources: versions.json (docs/versions.md).
local versions = import '../versions.json';

local defaults = {
  fabric: error 'must provide fabric',
  gpuPools: [],
  image: versions.images.pytorch.image,
  efaImage: versions.images.pytorchEfa.image,
  script: importstr '../scripts/nccl-allreduce.py',
  imageDigests: {},
  deadlineSeconds: 900,
  port: 29500,
  // The EKS guide's EFA pod request (docs.aws.amazon.com/eks/latest/userguide/node-efa.html).
  efaHugePagesMi: 5120,
};

// Whether the test runs on `pool` (generator/inputs/consistency/in312_nccl_test_nothing_to_test.py mirrors it): NVIDIA
// whole GPUs, on a fabric.
local testable(pool) =
  std.member(['infiniband', 'roce', 'efa'], pool.fabric.type)
  && pool.gpu.vendor == 'nvidia' && !gpu.usesMig(pool) && !gpu.sharesGpus(pool);

function(params)
  local p = defaults + params;
  local component = 'nccl-test';
  local ns = std.get(p.fabric, 'ncclTestNamespace', null);
  local pools = [x for x in p.gpuPools if testable(x)];
  local scriptName = 'nccl-test-script';

  local netEnv(pool) =
    if pool.fabric.type == 'efa' then [
      { name: 'NCCL_NET', value: 'AWS Libfabric' },
      { name: 'FI_PROVIDER', value: 'efa' },
      { name: 'FI_EFA_USE_DEVICE_RDMA', value: '1' },
    ] else [
      { name: 'NCCL_NET', value: 'IB' },
    ];

  local fabricResources(pool) =
    if pool.fabric.type == 'efa' then {
      [pool.fabric.resourceName]: pool.fabric.nics,
      'hugepages-2Mi': '%dMi' % std.min(p.efaHugePagesMi, 2 * std.get(std.get(pool, 'hugepages', {}), '2Mi', 0)),
    } else { [pool.fabric.resourceName]: 1 };

  local gpus(pool) = if gpu.isDra(pool) then {} else { [k.gpuResource(pool.gpu.vendor)]: pool.gpu.perNode };

  local claimTemplate(pool, name) =
    k.object('resource.k8s.io/v1', 'ResourceClaimTemplate', name, ns, k.labels(component, name)) + {
      spec: { spec: { devices: { requests: [{
        name: 'gpu',
        exactly: {
          deviceClassName: 'gpu.nvidia.com',
          allocationMode: 'ExactCount',
          count: pool.gpu.perNode,
          [if gpu.claimSelectors(pool) != [] then 'selectors']: [{ cel: { expression: e } } for e in gpu.claimSelectors(pool)],
        },
      }] } } },
    };

  local objects(pool) =
    local name = 'nccl-test-' + pool.name;
    local podLabels = k.labels(component, name);
    local dra = gpu.isDra(pool);
    local resources = { memory: '64Gi' } + gpus(pool) + fabricResources(pool);
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
                // The pool's secondary networks, every rail (components/fabric-networks.libsonnet),
                // rendered in every namespace with baseline-ipc-lock, which the test's namespace is.
                [if fabric.hasNetwork(pool) then 'annotations']: {
                  'k8s.v1.cni.cncf.io/networks': fabric.networksAnnotation(pool),
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
                  image: k.image(if pool.fabric.type == 'efa' then p.efaImage else p.image, p.imageDigests),
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
                  ] + netEnv(pool) + [
                    { name: 'NCCL_DEBUG', value: 'INFO' },
                    { name: 'NCCL_DEBUG_SUBSYS', value: 'INIT,NET' },
                  ] + (if std.get(pool.gpu, 'multiNodeNVLink', false) then [{ name: 'NCCL_MNNVL_ENABLE', value: '0' }] else []),
                  ports: [{ name: 'rendezvous', containerPort: p.port }],
                  resources: {
                    requests: { cpu: '8' } + resources,
                    limits: resources,
                    [if dra then 'claims']: [{ name: 'gpus' }],
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
                [if dra then 'resourceClaims']: [{ name: 'gpus', resourceClaimTemplateName: name }],
                volumes: [
                  { name: 'script', configMap: { name: scriptName } },
                  { name: 'shm', emptyDir: { medium: 'Memory', sizeLimit: '16Gi' } },
                ],
              },
            },
          } },
        },
      },
    ] + (if dra then [claimTemplate(pool, name)] else []);

  k.keyed(
    if ns == null || std.length(pools) == 0 then []
    else [
      k.object('v1', 'ConfigMap', scriptName, ns, k.labels(component, scriptName)) + {
        data: { 'nccl-allreduce.py': p.script },
      },
    ] + std.flattenArrays([objects(x) for x in pools])
  )
