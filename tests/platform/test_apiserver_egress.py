"""workloads[].allowEgressToApiServer: the one egress default-deny blocks that launchers, Ray and
elastic rendezvous need. Cilium names the API server as an entity; a NetworkPolicy can only name
its endpoints' addresses, so without Cilium they must be given."""

from __future__ import annotations

from gpu_support import find, load_objects

from tests.inputs.test_gpu_consistency import AKS, OCP, edit, line_of, render_fails


def test_cilium_allows_the_kube_apiserver_entity(rendered):
    objects = load_objects(rendered / AKS)
    (policy,) = [o for o in find(objects, "CiliumNetworkPolicy", "allow-egress-to-apiserver")]
    assert policy["metadata"]["namespace"] == "gpu-training"
    assert policy["spec"] == {"endpointSelector": {}, "egress": [{"toEntities": ["kube-apiserver"]}]}
    # only where the input asks for it
    assert {o["metadata"]["namespace"] for o in objects if o["metadata"]["name"] == "allow-egress-to-apiserver"} == {
        "gpu-training"
    }


def test_without_cilium_the_endpoints_must_be_given(project, run):
    text = edit(project, OCP, "    type: interactive\n", "    type: interactive\n    allowEgressToApiServer: true\n")
    render_fails(
        run,
        project,
        OCP,
        line_of(text, "allowEgressToApiServer: true"),
        "allows egress to the API server, but without Cilium",
        "set network.apiServerCIDRs",
    )


def test_without_cilium_a_network_policy_to_the_endpoints(project, run):
    edit(project, OCP, "    type: interactive\n", "    type: interactive\n    allowEgressToApiServer: true\n")
    edit(project, OCP, "    enabled: false\n", "    enabled: false\n  apiServerCIDRs: [192.168.10.0/28]\n")
    assert run(project, "render", OCP).exit_code == 0
    (policy,) = find(load_objects(project / "rendered" / OCP), "NetworkPolicy", "allow-egress-to-apiserver")
    assert policy["metadata"]["namespace"] == "notebooks"
    assert policy["spec"]["egress"] == [{"to": [{"ipBlock": {"cidr": "192.168.10.0/28"}}]}]
