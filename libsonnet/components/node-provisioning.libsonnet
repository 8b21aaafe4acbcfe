// GPU node pools as Karpenter objects: per pool with `provisioning`, a NodePool (karpenter.sh/v1)
// named after the pool and its node class of the same name (the provider's `nodeProvisioning`
// fact: EC2NodeClass karpenter.k8s.aws/v1 on EKS, AKSNodeClass karpenter.azure.com/v1beta1 for
// AKS node auto-provisioning); and, for workloads with `doNotDisrupt`, a MutatingAdmissionPolicy
// that annotates their pods `karpenter.sh/do-not-disrupt: "true"`.
//
// The NodePool carries the pool definition the rest of the library reads: its labels are the
// pool's nodeSelector (but for the labels Karpenter sets itself: karpenter.sh/nodepool is the
// NodePool's name, capacity type and instance type come from the requirements), its taints the
// pool's taints, which the device plugins tolerate and the admission policy requires; its
// requirements the instance types and families the input checks against gpu.model, and the GPU
// count per node (gpu.perNode), which the validation DaemonSet checks on every node.
//
// Disruption never takes a GPU job's node for cost: consolidationPolicy WhenEmpty only removes
// nodes without pods (DaemonSets aside). Drift (a new image, a changed NodePool or node class)
// is paced by the budgets: `disruption.maxNodes` always, and `nodes: "0"` for Drifted outside
// the maintenance window. Expiry (expireAfter) is not budgeted: it bounds a node's age.
// terminationGracePeriod bounds how long a removed node drains, do-not-disrupt pods included.
//
// Upstream (Karpenter v1.14.1): kubernetes-sigs/karpenter pkg/apis/crds/karpenter.sh_nodepools.yaml
// (budgets: nodes, schedule, duration, reasons; restricted labels), aws/karpenter-provider-aws
// website/content/en/docs/concepts/disruption.md (WhenEmpty, budgets "take the most restrictive",
// schedules in UTC, expiry and do-not-disrupt) and nodepools.md (limits.nodes; Cilium startup
// taint), pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml (alias, role, selector terms,
// block device defaults in concepts/nodeclasses.md); Azure/karpenter-provider-azure v1.14.2
// pkg/apis/crds/karpenter.azure.com_aksnodeclasses.yaml (imageFamily, gpu.mode, osDiskSizeGB).
// MutatingAdmissionPolicy: kubernetes.io docs reference/access-authn-authz/mutating-admission-policy
// (ApplyConfiguration patches, admissionregistration.k8s.io/v1 from 1.36).
local k = import '../lib/k.libsonnet';
local startup = import '../lib/tuning.libsonnet';

local defaults = {
  pools: [],
  workloads: [],
  providerFacts: error 'must provide providerFacts',
  cilium: error 'must provide cilium',
  tuning: error 'must provide tuning',
  nvidia: error 'must provide nvidia',
  component: 'node-provisioning',
  doNotDisruptPolicy: 'karpenter-do-not-disrupt',
};

local doNotDisrupt = 'karpenter.sh/do-not-disrupt';
// Labels Karpenter sets on its nodes itself (the NodePool CRD refuses karpenter.sh/nodepool in
// its template labels); the requirements below cover capacity and instance type.
local ownLabels = ['karpenter.sh/nodepool', 'karpenter.sh/capacity-type', 'node.kubernetes.io/instance-type'];
local days = 24 * 60;
local week = 7 * days;
local dayNames = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

local minutes(duration) =
  local parts = std.split(duration, 'h');
  if std.length(parts) == 2 then std.parseInt(parts[0]) * 60 + (if parts[1] == '' then 0 else std.parseInt(std.rstripChars(parts[1], 'm')))
  else std.parseInt(std.rstripChars(duration, 'm'));

// Karpenter's budget duration: hours and minutes (`^([0-9]+(h|m))|([0-9]+h[0-9]+m)$`).
local durationText(total) =
  local h = std.floor(total / 60);
  local m = total % 60;
  if m == 0 then '%dh' % h else if h == 0 then '%dm' % m else '%dh%dm' % [h, m];

// The budgets that close drift outside the window: one `nodes: "0"` budget from each closing to
// the next opening (a cron schedule at the closing time, UTC, and the gap as its duration).
// The input check IN418 refuses a window that would not close.
local closedBudgets(window) =
  local hm = std.map(std.parseInt, std.split(window.start, ':'));
  local length = minutes(window.duration);
  local daily = !std.objectHas(window, 'days');
  local openings = std.sort([
    std.find(d, dayNames)[0] * days + hm[0] * 60 + hm[1]
    for d in std.get(window, 'days', dayNames)
  ]);
  local n = std.length(openings);
  local budget(i) =
    local close = openings[i] + length;
    local next = if i == n - 1 then openings[0] + week else openings[i + 1];
    local at = close % week;
    {
      nodes: '0',
      reasons: ['Drifted'],
      schedule: '%d %d * * %s' % [at % 60, std.floor((at % days) / 60), if daily then '*' else std.toString(std.floor(at / days))],
      duration: durationText(next - close),
    };
  if daily then [budget(0)] else [budget(i) for i in std.range(0, n - 1)];

function(params) {
  local p = defaults + params,
  local karpenter = p.providerFacts.nodeProvisioning,
  local provisioned = [pool for pool in p.pools if std.objectHas(pool, 'provisioning')],
  local group = std.split(karpenter.nodeClass.apiVersion, '/')[0],
  // Deleting a NodePool terminates every node it launched (Karpenter: cascading deletion through
  // the NodeClaims' owner references), jobs and all: a pool that leaves Git, or moves, is kept
  // (docs/gitops.md, "Objects that removal from Git keeps"), and so is its node class.
  local keep = k.keepOnRemoval(p.gitops.engine),

  local nodePool(pool) =
    local prov = pool.provisioning;
    local labels = { [key]: pool.nodeSelector[key] for key in std.objectFields(pool.nodeSelector) if !std.member(ownLabels, key) };
    local requirement(key, values) = { key: key, operator: 'In', values: values };
    // Cilium's operator removes its taint once the agent runs on the node (cilium chart 1.19.6
    // operator.removeNodeTaints, agentNotReadyTaintKey); the node tuning removes its own once
    // node allocatable shows the huge pages its kubelet restarted for (lib/tuning.libsonnet).
    local startupTaints = (if p.cilium.enabled then [{ key: 'node.cilium.io/agent-not-ready', value: 'true', effect: 'NoExecute' }] else [])
                          + (if startup.restartsKubelet(p.tuning, pool) then [startup.taint] else []);
    k.object('karpenter.sh/v1', 'NodePool', pool.name, labels=k.labels(p.component, pool.name), annotations=keep) + {
      spec: {
        template: {
          [if labels != {} then 'metadata']: { labels: labels },
          spec: {
            nodeClassRef: { group: group, kind: karpenter.nodeClass.kind, name: pool.name },
            requirements: (if std.objectHas(prov, 'instanceTypes') then [requirement('node.kubernetes.io/instance-type', prov.instanceTypes)] else [])
                          + (if std.objectHas(prov, 'instanceFamilies') then [requirement(karpenter.familyLabel, prov.instanceFamilies)] else [])
                          + [
                            requirement(karpenter.gpuCountLabel, [std.toString(pool.gpu.perNode)]),
                            requirement('karpenter.sh/capacity-type', prov.capacityTypes),
                          ],
            [if pool.taints != [] then 'taints']: pool.taints,
            [if startupTaints != [] then 'startupTaints']: startupTaints,
            expireAfter: prov.expireAfter,
            terminationGracePeriod: prov.terminationGracePeriod,
          },
        },
        disruption: {
          consolidationPolicy: 'WhenEmpty',
          consolidateAfter: prov.disruption.consolidateAfter,
          budgets: [{ nodes: prov.disruption.maxNodes }]
                   + (if std.objectHas(prov.disruption, 'window') then closedBudgets(prov.disruption.window) else []),
        },
        // The pool at its largest (gpu.nodes, which the quotas are checked against). A string,
        // as the API server would store an int-or-string quantity (nodepools.md, spec.limits).
        limits: { nodes: std.toString(pool.gpu.nodes) },
      },
    },

  // The EKS-optimized AMI alias; Karpenter picks the variant for the instance type (NVIDIA for
  // NVIDIA GPUs). Block devices replace the family's defaults (nodeclasses.md): al2023 one root
  // volume, bottlerocket a 4Gi root and a data volume for images.
  local ec2NodeClass(pool) =
    local prov = pool.provisioning;
    local volume(device, size) = { deviceName: device, ebs: { volumeSize: '%dGi' % size, volumeType: 'gp3', encrypted: true } };
    local size = std.get(prov.nodeClass, 'rootVolumeGiB', null);
    k.object(karpenter.nodeClass.apiVersion, karpenter.nodeClass.kind, pool.name, labels=k.labels(p.component, pool.name), annotations=keep) + {
      spec: {
        role: prov.nodeClass.role,
        amiSelectorTerms: [{ alias: prov.image.family + '@' + prov.image.version }],
        subnetSelectorTerms: [{ tags: prov.nodeClass.subnetTags }],
        securityGroupSelectorTerms: [{ tags: prov.nodeClass.securityGroupTags }],
        [if size != null then 'blockDeviceMappings']:
          if prov.image.family == 'bottlerocket' then [volume('/dev/xvda', 4), volume('/dev/xvdb', size)]
          else [volume('/dev/xvda', size)],
        // The GPU instance types' instance-store NVMe (p5.48xlarge: 8 x 3.84 TB) sits unused
        // unless the node class asks for it: RAID0 makes one array of them for the kubelet's and
        // containerd's ephemeral storage (images, emptyDirs) instead of the root EBS volume
        // (karpenter.k8s.aws_ec2nodeclasses.yaml spec.instanceStorePolicy, enum RAID0;
        // karpenter.sh docs concepts/nodeclasses "spec.instanceStorePolicy"). A pool with
        // localNvme leaves the disks to local-storage's persistent volumes.
        [if !std.objectHas(pool, 'localNvme') then 'instanceStorePolicy']: 'RAID0',
      },
    },

  // gpu.mode Driver: AKS installs the NVIDIA driver (and only NVIDIA SKUs with managed drivers
  // are considered); None where the GPU Operator installs it, and for AMD.
  local aksNodeClass(pool) =
    local prov = pool.provisioning;
    local operatorDriver = p.nvidia.mode == 'operator' && p.nvidia.driver.managed;
    k.object(karpenter.nodeClass.apiVersion, karpenter.nodeClass.kind, pool.name, labels=k.labels(p.component, pool.name), annotations=keep) + {
      spec: {
        imageFamily: prov.image.family,
        gpu: { mode: if pool.gpu.vendor == 'nvidia' && !operatorDriver then 'Driver' else 'None' },
        [if std.objectHas(prov.nodeClass, 'rootVolumeGiB') then 'osDiskSizeGB']: prov.nodeClass.rootVolumeGiB,
      },
    },

  local nodeClass(pool) = if karpenter.nodeClass.kind == 'EC2NodeClass' then ec2NodeClass(pool) else aksNodeClass(pool),

  local protected = [w.namespace for w in p.workloads if w.doNotDisrupt],
  local labels = k.labels(p.component, p.doNotDisruptPolicy),
  local policy = k.object('admissionregistration.k8s.io/v1', 'MutatingAdmissionPolicy', p.doNotDisruptPolicy, labels=labels) + {
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] },
      // A pod that sets the annotation itself (a duration such as "30m") keeps its own.
      matchConditions: [{
        name: 'not-annotated',
        expression: "!has(object.metadata.annotations) || !('%s' in object.metadata.annotations)" % doNotDisrupt,
      }],
      reinvocationPolicy: 'Never',
      mutations: [{
        patchType: 'ApplyConfiguration',
        applyConfiguration: { expression: 'Object{metadata: Object.metadata{annotations: {"%s": "true"}}}' % doNotDisrupt },
      }],
    },
  },
  local binding = k.object('admissionregistration.k8s.io/v1', 'MutatingAdmissionPolicyBinding', p.doNotDisruptPolicy, labels=labels) + {
    spec: {
      policyName: p.doNotDisruptPolicy,
      matchResources: { namespaceSelector: { matchExpressions: [
        { key: 'kubernetes.io/metadata.name', operator: 'In', values: protected },
      ] } },
    },
  },

  objects:: k.keyed(
    (if karpenter == null then [] else std.flattenArrays([[nodePool(pool), nodeClass(pool)] for pool in provisioned]))
    + (if protected == [] then [] else [policy, binding])
  ),
}.objects
