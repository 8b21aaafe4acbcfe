// Local NVMe disks as Local Persistent Volumes (sig-storage local-static-provisioner).
//
// Per pool with `localNvme`: a ConfigMap whose `storageClassMap` has the pool's class, a
// provisioner DaemonSet selecting the pool's NVMe nodes and tolerating exactly the pool's taints
// (upstream's default tolerations are empty, so it never lands on tainted GPU nodes), and the
// StorageClass itself (`kubernetes.io/no-provisioner`, `WaitForFirstConsumer`: upstream's chart
// leaves it out by default and users hit "storageclass not found",
// sig-storage-local-static-provisioner#407). Shared: the namespace, ServiceAccount and RBAC
// (upstream's: the built-in system:persistent-volume-provisioner role plus reading nodes).
//
// With `localNvme.prepare.enabled` (destructive, opt-in) a second DaemonSet runs
// files/prepare-disks.sh, which formats and mounts (Filesystem) or links (Block) the disks whose
// /dev/disk/by-id name matches `diskIdPattern` (the model: instance storage, never EBS) under the
// discovery directory and refuses devices that hold data unless `force`. It runs on every node
// of the pool; with NFD it writes the number of disks it prepared to an NFD feature file
// (features.d, which the NFD worker reads: chart templates/worker.yaml mounts it from the host),
// and the `local-nvme` NodeFeatureRule labels the nodes where that number is above 0. The
// provisioner selects on that label, so it runs only where disks were prepared, and a node
// without disks is reported (label local-nvme-disks=0) without failing anything. NFD cannot
// tell the disks apart itself: its storage.block feature has only name, dax, rotational,
// nr_zones and zoned (node-feature-discovery source/storage/storage.go, queueAttrs), no model.
//
// local-static-provisioner creates a PV for every mount point under the discovery directory
// (Filesystem) and skips directories that are not mount points (sig-storage-local-static-
// provisioner pkg/discovery/discovery.go: "path %q is not an actual mountpoint"); a PV that
// already exists keeps its path across reboots, so the script makes each mount point immutable
// before mounting: until the disk is mounted again, a pod of that PV cannot write to the OS disk.
local k = import '../lib/k.libsonnet';
// Images and their sources: versions.json (docs/versions.md).
local labels = import '../lib/labels.libsonnet';
local versions = import '../versions.json';

local defaults = {
  cluster: error 'must provide cluster',
  kubernetesVersion: error 'must provide kubernetesVersion',
  storage: error 'must provide storage',
  nfd: { enabled: false },
  pools: [],
  provisionerImage: versions.repositories.localVolumeProvisioner.repository,
  pauseImage: versions.images.pause.image,
  // the NFD local source's directory (node-feature-discovery source/local/local.go featureFilesDir)
  featuresDir: '/etc/kubernetes/node-feature-discovery/features.d',
  prepareScript: importstr '../files/prepare-disks.sh',
  serviceAccount: 'local-volume-provisioner',
  // Disk preparation's own account, without a token: on OpenShift the privileged SCC is granted
  // to it, never to the namespace's `default` account.
  prepareAccount: 'prepare-disks',
  imageDigests: {},
};

// Commands the provisioner runs to wipe a released Block volume (scripts in its image).
local blockCleaners = {
  quick_reset: ['/scripts/quick_reset.sh'],
  blkdiscard: ['/scripts/blkdiscard.sh'],
  dd_zero: ['/scripts/dd_zero.sh'],
  shred: ['/scripts/shred.sh', '2'],
};

function(params)
  local p = defaults + params;
  local component = 'local-storage';
  local ns = p.storage.namespace;
  local pools = [pool for pool in p.pools if std.objectHas(pool, 'localNvme')];
  local image = p.provisionerImage + ':' + p.storage.provisionerVersion;
  local prepareScriptName = 'prepare-disks-script';

  // The prepare pod runs on every node of the pool (it finds the disks); the provisioner, with
  // NFD and preparation, only where the prepare pod reported disks (the local-nvme label).
  local podBase(pool, needsNvme) = {
    nodeSelector: labels.poolSelector(pool, p.nfd.enabled, needsNvme=needsNvme),
    tolerations: k.tolerationsFor(pool.taints),
    priorityClassName: 'system-node-critical',
    // A no-op for the privileged containers (the runtime runs them unconfined).
    securityContext: { seccompProfile: { type: 'RuntimeDefault' } },
  };
  // Both DaemonSets open the host's disks: privileged and root, which no capability list narrows.
  local privileged = {
    CKV_K8S_20: 'privileged to open the host block devices',
    CKV_K8S_23: 'opens the host block devices as root',
    CKV_K8S_40: 'opens the host block devices as root',
    CKV_K8S_28: 'privileged: holds every capability whatever it drops',
    CKV_K8S_37: 'privileged: holds every capability whatever it drops',
  };
  local featureFile = p.featuresDir + '/' + labels.localNvmeFeatureFile;

  local classMap(nvme) = {
    [nvme.storageClass]: {
      hostDir: nvme.hostDir,
      mountDir: nvme.hostDir,
      volumeMode: nvme.mode,
      [if nvme.mode == 'Filesystem' then 'fsType']: nvme.fsType,
      [if nvme.mode == 'Block' then 'blockCleanerCommand']: blockCleaners[nvme.blockCleaner],
      // Every entry but dot-names (Go filepath.Match: `[^.]` is a negated class; the
      // provisioner matches each entry's name, pkg/discovery/discovery.go v2.8.0): prepare-disks.sh
      // builds a re-pointed Block link under a dot-name before renaming it into place, and that
      // half-made entry must not become a second PV of the same disk.
      namePattern: '[^.]*',
    },
  };

  local prepare(pool) =
    local nvme = pool.localNvme;
    local name = 'prepare-disks-' + pool.name;
    local poolLabels = k.labels(component, name) + { [labels.nodePool]: pool.name };
    local env = [
      { name: 'DISK_ID_PATTERN', value: nvme.diskIdPattern },
      { name: 'MODE', value: nvme.mode },
    ] + (if nvme.mode == 'Filesystem' then [{ name: 'FS_TYPE', value: nvme.fsType }] else []) + [
      { name: 'HOST_DIR', value: nvme.hostDir },
      { name: 'FORCE', value: std.toString(nvme.prepare.force) },
    ] + (if p.nfd.enabled then [{ name: 'FEATURE_FILE', value: featureFile }] else []);
    local exceptions = privileged {
      SEC002: 'formats the local disks under /dev and mounts them under the discovery directory'
              + (if p.nfd.enabled then '; reports them in the NFD feature file' else ''),
      CKV_K8S_16: 'formats and mounts the local NVMe disks on the host (opt-in, localNvme.prepare)',
      CKV_K8S_17: "reads the host's mount table (/proc/1/mounts) to skip what is mounted",
      CKV_K8S_8: 'the long-running container is pause: the disks are prepared once by the init container; nothing to probe',
      CKV_K8S_9: 'the long-running container is pause: the disks are prepared once by the init container; nothing to probe',
    } + k.unpinned([p.storage.prepareImage, p.pauseImage], p.imageDigests);
    k.object('apps/v1', 'DaemonSet', name, ns, poolLabels, k.exceptions(exceptions)) + {
      spec: {
        selector: { matchLabels: k.selectorLabels(name) },
        template: {
          metadata: {
            labels: poolLabels,
            annotations: { 'gpu-gitops.io/config-hash': k.hash([p.prepareScript, env]) },
          },
          spec: podBase(pool, needsNvme=false) + {
            hostPID: true,
            serviceAccountName: p.prepareAccount,
            automountServiceAccountToken: false,
            initContainers: [{
              name: 'prepare',
              image: k.image(p.storage.prepareImage, p.imageDigests),
              command: ['/bin/sh', '/scripts/prepare-disks.sh'],
              env: env,
              // Read-only root: files/prepare-disks.sh writes to the disks (/dev), the discovery
              // directory and the feature file (hostPaths); `blkid -p` probes without its cache;
              // util-linux mount may record userspace options in /run/mount/utab (libmount), an
              // emptyDir here.
              securityContext: { privileged: true, readOnlyRootFilesystem: true },
              resources: { requests: { cpu: '10m', memory: '32Mi' }, limits: { cpu: '1', memory: '256Mi' } },
              volumeMounts: [
                { name: 'scripts', mountPath: '/scripts', readOnly: true },
                { name: 'run', mountPath: '/run' },
                { name: 'dev', mountPath: '/dev' },
                // Bidirectional: the mounts made here must appear on the host.
                { name: 'discovery', mountPath: nvme.hostDir, mountPropagation: 'Bidirectional' },
              ] + (if p.nfd.enabled then [{ name: 'nfd-features', mountPath: p.featuresDir }] else []),
            }],
            containers: [{
              name: 'pause',
              image: k.image(p.pauseImage, p.imageDigests),
              securityContext: {
                allowPrivilegeEscalation: false,
                capabilities: { drop: ['ALL'] },
                readOnlyRootFilesystem: true,
                runAsNonRoot: true,
                runAsUser: 65535,
              },
              resources: { requests: { cpu: '1m', memory: '8Mi' }, limits: { cpu: '10m', memory: '16Mi' } },
            }],
            volumes: [
              { name: 'scripts', configMap: { name: prepareScriptName, defaultMode: std.parseOctal('0555') } },
              k.scratchVolume('run'),
              { name: 'dev', hostPath: { path: '/dev', type: 'Directory' } },
              { name: 'discovery', hostPath: { path: nvme.hostDir, type: 'DirectoryOrCreate' } },
            ] + (if p.nfd.enabled then [{ name: 'nfd-features', hostPath: { path: p.featuresDir, type: 'DirectoryOrCreate' } }] else []),
          },
        },
      },
    };

  local perPool(pool) =
    local nvme = pool.localNvme;
    local name = 'local-provisioner-' + pool.name;
    local poolLabels = k.labels(component, name) + { [labels.nodePool]: pool.name };
    local config = { storageClassMap: k.yaml(classMap(nvme)) };
    local exceptions = privileged {
      SEC002: 'discovers the volumes under the discovery directory and cleans released block volumes under /dev',
      CKV_K8S_16: 'cleans released block volumes through the host /dev (upstream chart: privileged)',
      CKV_K8S_38: 'creates and deletes its PersistentVolumes through the API',
    } + k.unpinned([image], p.imageDigests);
    [
      k.object('storage.k8s.io/v1', 'StorageClass', nvme.storageClass, labels=k.labels(component)) + {
        provisioner: 'kubernetes.io/no-provisioner',
        volumeBindingMode: 'WaitForFirstConsumer',
        reclaimPolicy: 'Delete',
      },
      k.object('v1', 'ConfigMap', name, ns, poolLabels) + { data: config },
      k.object('apps/v1', 'DaemonSet', name, ns, poolLabels, k.exceptions(exceptions)) + {
        spec: {
          selector: { matchLabels: k.selectorLabels(name) },
          template: {
            metadata: {
              labels: poolLabels,
              annotations: { 'gpu-gitops.io/config-hash': k.hash(config.storageClassMap) },
            },
            spec: podBase(pool, needsNvme=nvme.prepare.enabled) + {
              serviceAccountName: p.serviceAccount,
              containers: [{
                name: 'provisioner',
                image: k.image(image, p.imageDigests),
                // Read-only root: klog goes to stderr (main.go sets logtostderr), volumes are
                // cleaned in place (the discovery hostPath, the disks under /dev).
                securityContext: { privileged: true, readOnlyRootFilesystem: true },
                env: [
                  { name: 'MY_NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
                  { name: 'MY_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
                  { name: 'JOB_CONTAINER_IMAGE', value: image },
                ],
                ports: [{ name: 'metrics', containerPort: 8080 }],
                // The one endpoint it serves is /metrics on :8080, which starts after the
                // configuration is loaded and the Node read (cmd/local-volume-provisioner/main.go).
                livenessProbe: { httpGet: { path: '/metrics', port: 'metrics' }, initialDelaySeconds: 10, periodSeconds: 30 },
                readinessProbe: { httpGet: { path: '/metrics', port: 'metrics' }, periodSeconds: 10 },
                // Block cleaners (shred, dd) are CPU-bound: a whole core.
                resources: { requests: { cpu: '10m', memory: '32Mi' }, limits: { cpu: '1', memory: '128Mi' } },
                volumeMounts: [
                  { name: 'provisioner-config', mountPath: '/etc/provisioner/config', readOnly: true },
                  { name: 'provisioner-dev', mountPath: '/dev' },
                  { name: 'discovery', mountPath: nvme.hostDir, mountPropagation: 'HostToContainer' },
                ],
              }],
              volumes: [
                { name: 'provisioner-config', configMap: { name: name } },
                { name: 'provisioner-dev', hostPath: { path: '/dev' } },
                { name: 'discovery', hostPath: { path: nvme.hostDir, type: 'DirectoryOrCreate' } },
              ],
            },
          },
        },
      },
    ] + (if nvme.prepare.enabled then [prepare(pool)] else []);

  local anyPrepare = std.length([pool for pool in pools if pool.localNvme.prepare.enabled]) > 0;
  local saRef = [{ kind: 'ServiceAccount', name: p.serviceAccount, namespace: ns }];
  local labelsAll = k.labels(component);

  k.keyed(
    if std.length(pools) == 0 then []
    else [
           k.namespace(ns, labelsAll + k.podSecurityLabels('privileged', p.kubernetesVersion) + {
             'pod-security.kubernetes.io/audit': 'privileged',
             'pod-security.kubernetes.io/warn': 'privileged',
           }),
         ]
         // The provisioner and disk preparation run system-node-critical.
         + k.criticalPodsQuota(p.providerFacts, ns, labelsAll)
         + [
           k.object('v1', 'ServiceAccount', p.serviceAccount, ns, labelsAll),
           k.object('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', 'local-volume-provisioner-pv', labels=labelsAll) + {
             subjects: saRef,
             roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:persistent-volume-provisioner' },
           },
           k.object('rbac.authorization.k8s.io/v1', 'ClusterRole', 'local-volume-provisioner-node', labels=labelsAll) + {
             rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get'] }],
           },
           k.object('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', 'local-volume-provisioner-node', labels=labelsAll) + {
             subjects: saRef,
             roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'local-volume-provisioner-node' },
           },
         ]
         // OpenShift: both DaemonSets are privileged with host paths, which only the privileged
         // SCC admits (the disk preparation runs as the namespace's `default` account).
         + k.privilegedSccAccess(p.providerFacts,
                                 'local-storage-privileged',
                                 ns,
                                 [p.serviceAccount] + (if anyPrepare then [p.prepareAccount] else []),
                                 labelsAll)
         + (if anyPrepare then [
              k.object('v1', 'ServiceAccount', p.prepareAccount, ns, labelsAll) + { automountServiceAccountToken: false },
              k.object('v1', 'ConfigMap', prepareScriptName, ns, labelsAll) + { data: { 'prepare-disks.sh': p.prepareScript } },
            ] else [])
         + std.flattenArrays([perPool(pool) for pool in pools])
  )
