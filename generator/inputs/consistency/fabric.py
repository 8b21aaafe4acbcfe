"""The training fabric of each pool (``nodePools[].fabric``) against what its provider and
instance type offer (``fabrics`` in ``providers.json``).

A fabric the provider cannot offer renders a device plugin that never finds a NIC, and training
pods that request its resource stay Pending for ever; so these are errors, at the pool:

- the fabric type is one the provider offers (``fabrics.types``): InfiniBand on AKS ND-series,
  EFA on EKS, InfiniBand and RoCE on-premises;
- EFA only on instance types that have it (``fabrics.efaInstanceTypes``, after the EFA device
  plugin chart's own list), named in ``provisioning.instanceTypes`` or the pool's
  ``node.kubernetes.io/instance-type`` selector, with ``nics`` the instance type's EFA interface
  count where the table records it (Karpenter attaches all of them: aws/karpenter-provider-aws
  pkg/providers/launchtemplate, ``efaCount`` from the instance type's ``vpc.amazonaws.com/efa``);
- EFA with 2Mi huge pages: libfabric's EFA provider takes its bounce buffers from them, and the
  EKS guide's EFA pods request ``hugepages-2Mi`` (docs.aws.amazon.com/eks/latest/userguide/
  device-management-efa.html);
- where the provider pairs a NIC with each GPU (AKS ND-series: ``fabrics.nicsPerGpu``), ``nics``
  is the pool's GPUs per node times that;
- the resource name is one the fabric's device plugin advertises: ``rdma/<name>`` for the RDMA
  shared device plugin (its default prefix), ``vpc.amazonaws.com/efa`` for EFA;
- a workload namespace with ``podSecurity: baseline-ipc-lock`` only with the admission policies
  on: Pod Security admits everything there, and the ``fabric-pod-security`` policy is its guard;
- ``fabric.ncclTestNamespace`` names such a workload namespace (the test's pods add IPC_LOCK);
  a warning when no NVIDIA pool with whole GPUs on a fabric exists to test (nothing renders);
- a pool's secondary network (``fabric.network``) only on InfiniBand or RoCE (an EFA device has
  no netdev to attach), with a ``range`` and ``exclude`` the API server's parser accepts, each
  ``exclude`` inside the range, and the range overlapping no pod CIDR, the native routing CIDR,
  the API server's CIDRs or another pool's range: whereabouts hands out every address of the
  range to pods, and a pod whose fabric interface holds an address of the pod network (or the
  API server's) routes that traffic onto the fabric; a warning when no workload namespace uses
  the fabric (``podSecurity: baseline-ipc-lock``), where the network renders nowhere.
"""

from __future__ import annotations

from collections.abc import Iterator

from generator import addresses, jsonpath
from generator.errors import InputError
from generator.inputs.conventions import FABRIC_RESOURCES
from generator.yamlio.positions import Located

INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"
RDMA_PREFIX = "rdma/"


def _instance_types(pool: dict) -> list[tuple[str, tuple]]:
    """The instance types the pool names, each with the input path that names it."""
    found: list[tuple[str, tuple]] = [
        (name, ("provisioning", "instanceTypes", j))
        for j, name in enumerate(pool.get("provisioning", {}).get("instanceTypes", []))
    ]
    if INSTANCE_TYPE_LABEL in pool["nodeSelector"]:
        found.append((pool["nodeSelector"][INSTANCE_TYPE_LABEL], ("nodeSelector", INSTANCE_TYPE_LABEL)))
    return found


def _check_efa(pool: dict, base: tuple, table: dict, doc: Located) -> Iterator[InputError]:
    fabric = pool["fabric"]
    if not (pool.get("hugepages") or {}).get("2Mi"):
        yield doc.error(
            f"node pool {pool['name']} has an efa fabric but reserves no 2Mi huge pages: libfabric's EFA provider "
            "takes its buffers from them, and NCCL over EFA fails to register memory without them",
            base + ("fabric", "type"),
            f"reserve them: {base[0]}[{base[1]}].hugepages.2Mi (5120 pages = 10Gi per node is the EKS guide's "
            "figure for a pod's hugepages-2Mi request)",
            at_value=True,
        )
    known = ", ".join(sorted(table))
    for name, where in _instance_types(pool):
        if name not in table:
            yield doc.error(
                f"instance type {name!r} has no Elastic Fabric Adapter, but node pool {pool['name']} has an efa fabric",
                base + where,
                f"use an instance type with EFA ({known}), or set fabric.type: none",
                at_value=True,
            )
        elif table[name] is not None and "nics" in fabric and fabric["nics"] != table[name]:
            yield doc.error(
                f"fabric.nics is {fabric['nics']}, but {name} has {table[name]} EFA interfaces, all of which Karpenter "
                "attaches and the device plugin advertises",
                base + ("fabric", "nics"),
                f"set fabric.nics: {table[name]}",
                at_value=True,
            )


def _check_resource(pool: dict, base: tuple, doc: Located) -> Iterator[InputError]:
    fabric = pool["fabric"]
    name = fabric["resourceName"]
    if fabric["type"] == "efa" and name != FABRIC_RESOURCES["efa"]:
        yield doc.error(
            f"resourceName {name!r}: the EFA device plugin advertises only {FABRIC_RESOURCES['efa']}",
            base + ("fabric", "resourceName"),
            "remove fabric.resourceName (it defaults to vpc.amazonaws.com/efa)",
            at_value=True,
        )
    elif fabric["type"] != "efa" and not name.startswith(RDMA_PREFIX):
        yield doc.error(
            f"resourceName {name!r}: the RDMA shared device plugin advertises its resources under {RDMA_PREFIX}",
            base + ("fabric", "resourceName"),
            f"name it {RDMA_PREFIX}<name>, e.g. {FABRIC_RESOURCES[fabric['type']]}",
            at_value=True,
        )


def _check_ipc_lock(spec: dict, doc: Located) -> Iterator[InputError]:
    if spec["admission"]["enabled"]:
        return
    for i, workload in enumerate(spec["workloads"]):
        if workload["podSecurity"] == "baseline-ipc-lock":
            yield doc.error(
                f"workloads[{i}] ({workload['namespace']}) has podSecurity baseline-ipc-lock, but admission is off: "
                "the namespace would be privileged for Pod Security with no policy enforcing baseline in its place",
                ("workloads", i, "podSecurity"),
                "set admission.enabled: true (ValidatingAdmissionPolicy is served from Kubernetes 1.30), or use "
                "podSecurity: baseline",
                at_value=True,
            )


def _testable(pool: dict) -> bool:
    """Whether the NCCL test runs on ``pool`` (components/nccl-test.libsonnet): NVIDIA whole GPUs
    (from the device plugin or claimed through DRA), on a fabric."""
    gpu = pool.get("gpu") or {}
    return (
        pool["fabric"]["type"] != "none"
        and gpu.get("vendor") == "nvidia"
        and gpu.get("mig", {}).get("strategy", "none") == "none"
        and "timeSlicing" not in gpu
    )


def _check_nccl_test(spec: dict, doc: Located) -> Iterator[InputError]:
    namespace = spec["fabric"].get("ncclTestNamespace")
    if namespace is None:
        return
    where = ("fabric", "ncclTestNamespace")
    workload = next((w for w in spec["workloads"] if w["namespace"] == namespace), None)
    if workload is None or workload["podSecurity"] != "baseline-ipc-lock":
        yield doc.error(
            f"fabric.ncclTestNamespace {namespace!r} is not a workload namespace with podSecurity baseline-ipc-lock: "
            "the test's pods add IPC_LOCK, which only such a namespace admits",
            where,
            "name a workloads[].namespace and set its podSecurity: baseline-ipc-lock",
            at_value=True,
        )
    elif not any(_testable(pool) for pool in spec["nodePools"]):
        yield doc.warning(
            "fabric.ncclTestNamespace is set, but no pool has NVIDIA whole GPUs (no MIG or time-slicing) on a "
            "fabric: there is nothing to test",
            where,
            "remove fabric.ncclTestNamespace",
            at_value=True,
        )


def _cidr_errors(value: object, where: tuple, doc: Located) -> Iterator[InputError]:
    for problem in addresses.cidr_problems(value):
        hint = f"write {problem.canonical}" if problem.canonical else "write a CIDR such as 172.30.0.0/16"
        yield doc.error(f"CIDR {value!r} {problem.message}", where, hint, at_value=True)


def _cluster_ranges(spec: dict) -> Iterator[tuple[str, tuple]]:
    """The CIDRs of the cluster's own networks a fabric range must stay out of, with their paths."""
    network = spec["network"]
    cilium = network.get("cilium", {})
    for i, cidr in enumerate(cilium.get("ipam", {}).get("podCIDRs", [])):
        yield cidr, ("network", "cilium", "ipam", "podCIDRs", i)
    native = cilium.get("routing", {}).get("ipv4NativeRoutingCIDR")
    if native is not None:
        yield native, ("network", "cilium", "routing", "ipv4NativeRoutingCIDR")
    for i, cidr in enumerate(network.get("apiServerCIDRs", [])):
        yield cidr, ("network", "apiServerCIDRs", i)


def _check_networks(spec: dict, doc: Located) -> Iterator[InputError]:
    route = "pods would route that traffic onto the fabric interface"
    taken = [
        (net, jsonpath.dotted(path), route)
        for cidr, path in _cluster_ranges(spec)
        if (net := addresses.parse_cidr(cidr))
    ]
    used = any(w["podSecurity"] == "baseline-ipc-lock" for w in spec["workloads"])
    for i, pool in enumerate(spec["nodePools"]):
        network = pool["fabric"].get("network")
        if network is None:
            continue
        base = ("nodePools", i, "fabric", "network")
        if pool["fabric"]["type"] not in ("infiniband", "roce"):
            yield doc.error(
                f"node pool {pool['name']} has a fabric.network on a {pool['fabric']['type']} fabric: only InfiniBand "
                "(IPoIB) and RoCE (Macvlan) NICs have a netdev a pod's interface is made from",
                base,
                "remove fabric.network (NCCL reaches EFA through libfabric, without an interface in the pod)",
            )
            continue
        problems = list(_cidr_errors(network["range"], base + ("range",), doc))
        yield from problems
        rng = addresses.parse_cidr(network["range"])
        if problems or rng is None:
            continue
        for j, cidr in enumerate(network.get("exclude", [])):
            where = base + ("exclude", j)
            bad = list(_cidr_errors(cidr, where, doc))
            yield from bad
            excluded = addresses.parse_cidr(cidr)
            if not bad and excluded is not None and (excluded.version != rng.version or not excluded.subnet_of(rng)):  # type: ignore[arg-type]
                yield doc.error(
                    f"exclude {cidr!r} is not inside the range {network['range']}",
                    where,
                    f"exclude only addresses of {network['range']}",
                    at_value=True,
                )
        for net, name, why in taken:
            if net.version == rng.version and net.overlaps(rng):
                yield doc.error(
                    f"node pool {pool['name']}'s fabric range {network['range']} overlaps {name} ({net}): {why}",
                    base + ("range",),
                    "choose a range outside the pod network, the API server's addresses and the other pools' ranges",
                    at_value=True,
                )
        # whereabouts keeps one allocation record per range: overlapping ranges hand out an address twice
        taken.append((rng, f"node pool {pool['name']}'s fabric range", "whereabouts would hand out addresses twice"))
        if not used:
            yield doc.warning(
                f"node pool {pool['name']} has a fabric.network, but no workload namespace uses the fabric: its "
                "NetworkAttachmentDefinition renders in each namespace with podSecurity baseline-ipc-lock",
                base,
                "set podSecurity: baseline-ipc-lock on the training namespaces, or remove fabric.network",
            )


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    yield from _check_ipc_lock(spec, doc)
    yield from _check_nccl_test(spec, doc)
    yield from _check_networks(spec, doc)
    offered = facts["fabrics"]
    for i, pool in enumerate(spec["nodePools"]):
        fabric = pool["fabric"]
        kind = fabric["type"]
        if kind == "none":
            continue
        base = ("nodePools", i)
        if kind not in offered["types"]:
            choices = ", ".join(offered["types"]) or "none"
            yield doc.error(
                f"provider {spec['provider']} offers no {kind} fabric that gpu-gitops renders (it offers: {choices})",
                base + ("fabric", "type"),
                "see `fabrics` in docs/providers.md for what each provider offers, or set fabric.type: none",
                at_value=True,
            )
            continue
        yield from _check_resource(pool, base, doc)
        if kind == "efa":
            yield from _check_efa(pool, base, offered["efaInstanceTypes"], doc)
        per_gpu = offered["nicsPerGpu"]
        if per_gpu and "gpu" in pool and "nics" in fabric and fabric["nics"] != per_gpu * pool["gpu"]["perNode"]:
            want = per_gpu * pool["gpu"]["perNode"]
            yield doc.error(
                f"fabric.nics is {fabric['nics']}, but {spec['provider']} pairs {per_gpu} fabric NIC with each GPU: "
                f"{pool['gpu']['perNode']} GPUs per node have {want}",
                base + ("fabric", "nics"),
                f"set fabric.nics: {want} (or correct gpu.perNode)",
                at_value=True,
            )
