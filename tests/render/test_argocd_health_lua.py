"""The argoproj.io/Application health check docs/gitops.md has Argo CD users put in argocd-cm.

The Lua is taken from the doc's YAML snippet exactly as a user copies it and run the way Argo CD
runs it. Argo CD facts this relies on (github.com/argoproj/argo-cd, tag v3.5.1; unchanged at
master 37ee0097, VERSION 3.6.0):

- go.mod pins github.com/yuin/gopher-lua v1.1.2, "a Lua5.1 VM and compiler written in Go"
  (gopher-lua README): the script runs here on lupa's Lua 5.1 runtime.
- util/lua/lua.go runLuaWithResourceActionParameters: a fresh state with the standard libraries
  skipped unless `resource.customizations.useOpenLibs.<group>_<kind>` is set, then only the
  package, base and table libraries and a restricted os; the object goes in as the global `obj`
  (decodeValue: maps become tables keyed by strings, lists 1-based arrays, nulls nil); the
  script's return value is read. The sandbox below drops string, math, io, os, debug and
  coroutine and the string methods likewise (no os at all is stricter than Argo CD's safe os).
- util/lua/lua.go ExecuteHealthLua: the returned table is JSON-encoded into
  gitops-engine/pkg/health HealthStatus{status, message}; a table without keys encodes as an
  array and gives an empty status; a status outside isValidHealthStatusCode (Healthy,
  Progressing, Degraded, Suspended, Missing, Unknown), a nil one included, becomes
  Unknown "Lua returned an invalid health status". A Lua runtime error is returned as an error,
  which gitops-engine/pkg/health/health.go GetResourceHealth turns into Unknown.
- gitops-engine/pkg/sync/sync_context.go Sync: for a resource of a multi-step (sync-wave) sync,
  Healthy completes its task, Degraded fails the task and so the parent's sync, and any other
  status, or an error from the health check, leaves the task running and the sync waiting.
- resource_customizations/argoproj.io/Application holds actions only, no health.lua: Argo CD has
  no built-in Application health check since 1.8 (docs/operator-manual/health.md "Argocd App").
- pkg/apis/application/v1alpha1/types.go ApplicationStatus.Health is an AppHealthStatus struct,
  not a pointer, so a status written from it carries `health` ({}) even without a status code.
"""

from __future__ import annotations

import json
import re
import textwrap

import pytest
from conftest import EXAMPLES, REPO
from lupa import lua51
from ruamel.yaml import YAML

from generator.inputs import load as inputs
from generator.paths import Project

YAML_SAFE = YAML(typ="safe")
KEY = "resource.customizations.health.argoproj.io_Application"
WAIT = "gpu-gitops.io/wait"
STATUSES = ("Healthy", "Suspended", "Progressing", "Missing", "Degraded", "Unknown")
INVALID = "Lua returned an invalid health status"
GITOPS_MD = REPO / "docs" / "gitops.md"


def documented_health_lua() -> str:
    """The value of KEY in the one fenced YAML block of docs/gitops.md that sets it, as pasted."""
    blocks = re.findall(r"^( *)```yaml\n(.*?)^\1```", GITOPS_MD.read_text(encoding="utf-8"), re.M | re.S)
    values = [YAML_SAFE.load(textwrap.dedent(body))["data"][KEY] for _, body in blocks if KEY in body]
    assert len(values) == 1, f"docs/gitops.md must set {KEY} in exactly one YAML block"
    return values[0]


def documented_unwaited_layers() -> set[str]:
    """The layers docs/gitops.md says carry the annotation, from its Application table row."""
    return set(
        re.findall(
            r"`([0-9]{2}-[a-z-]+)` also carries the annotation `gpu-gitops\.io/wait: \"false\"`",
            GITOPS_MD.read_text(encoding="utf-8"),
        )
    )


def _sandbox() -> lua51.LuaRuntime:
    """A Lua 5.1 state with only what Argo CD opens for a health script (base, table, package)."""
    lua = lua51.LuaRuntime(register_eval=False, register_builtins=False)
    lua.execute("""
        getmetatable("").__index = nil
        string, math, io, os, debug, coroutine, python = nil, nil, nil, nil, nil, nil, nil
    """)
    return lua


def _to_lua(lua: lua51.LuaRuntime, value):
    """decodeValue in util/lua/lua.go: dicts to tables, lists to 1-based arrays, None to nil."""
    if isinstance(value, dict):
        table = lua.table()
        for key, item in value.items():
            table[key] = _to_lua(lua, item)
        return table
    if isinstance(value, list):
        return lua.table(*[_to_lua(lua, item) for item in value])
    return value


def argocd_health(script: str, obj: dict) -> dict:
    """What Argo CD makes of the script's result for obj: ExecuteHealthLua's status and message."""
    lua = _sandbox()
    lua.globals().obj = _to_lua(lua, json.loads(json.dumps(obj)))
    hs = lua.execute(script)
    assert lua51.lua_type(hs) == "table", "a health script returns a table"
    fields = dict(hs.items())
    if not fields:  # encodes as a JSON array: an empty HealthStatus, not validated
        return {"status": "", "message": ""}
    status, message = fields.get("status"), fields.get("message") or ""
    if status not in STATUSES:
        return {"status": "Unknown", "message": INVALID}
    return {"status": status, "message": message}


def application(name: str = "c-10-platform", wait: str | None = None, status: dict | None = None) -> dict:
    annotations = {"argocd.argoproj.io/sync-wave": "1"} | ({WAIT: wait} if wait is not None else {})
    app = {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {"name": name, "namespace": "argocd", "annotations": annotations},
    }
    return app | ({"status": status} if status is not None else {})


def health(code: str, message: str | None = None) -> dict:
    h = {"status": code} | ({"message": message} if message else {})
    return {"sync": {"status": "Synced"}, "health": h}


@pytest.fixture(scope="module")
def script() -> str:
    return documented_health_lua()


# Without the annotation: the upstream check, the Application's own health.


@pytest.mark.parametrize("code", ["Healthy", "Progressing", "Degraded", "Missing", "Suspended"])
def test_a_waited_application_reports_its_own_health(script, code):
    assert argocd_health(script, application(status=health(code, "2 of 3 ready"))) == {
        "status": code,
        "message": "2 of 3 ready",
    }


def test_a_new_application_without_status_is_progressing(script):
    assert argocd_health(script, application()) == {"status": "Progressing", "message": ""}


def test_an_application_with_status_but_no_health_is_progressing(script):
    no_health = {"sync": {"status": "OutOfSync"}, "reconciledAt": "2026-01-01T00:00:00Z"}
    assert argocd_health(script, application(status=no_health)) == {"status": "Progressing", "message": ""}


def test_a_waited_application_whose_health_has_no_code_yet_is_waited_on(script):
    """Argo CD turns the nil status into Unknown, which holds the parent's wave (no error)."""
    app = application(status={"health": {"lastTransitionTime": "2026-01-01T00:00:00Z"}})
    assert argocd_health(script, app) == {"status": "Unknown", "message": INVALID}


@pytest.mark.parametrize("value", ["true", "False", "FALSE", "no", "0", ""])
def test_only_the_exact_value_false_stops_the_wait(script, value):
    app = application(wait=value, status=health("Degraded", "pod crashed"))
    assert argocd_health(script, app) == {"status": "Degraded", "message": "pod crashed"}


def test_annotations_absent_altogether_are_no_error(script):
    app = application(status=health("Degraded"))
    del app["metadata"]["annotations"]
    assert argocd_health(script, app)["status"] == "Degraded"


# With gpu-gitops.io/wait: "false": always Healthy to the parent, the real health in the message.


@pytest.mark.parametrize("code", ["Progressing", "Degraded", "Missing", "Suspended", "Unknown"])
def test_an_unwaited_application_is_healthy_to_the_parent_and_says_why(script, code):
    result = argocd_health(script, application(wait="false", status=health(code, "node gpu-7 failed")))
    assert result == {
        "status": "Healthy",
        "message": f"not waited on (gpu-gitops.io/wait: false): {code} node gpu-7 failed",
    }


def test_an_unwaited_healthy_application_keeps_its_message(script):
    assert argocd_health(script, application(wait="false", status=health("Healthy", "all nodes"))) == {
        "status": "Healthy",
        "message": "all nodes",
    }


@pytest.mark.parametrize(
    "status",
    [
        None,
        {"sync": {"status": "OutOfSync"}},
        {"health": {}},
        {"health": {"lastTransitionTime": "2026-01-01T00:00:00Z"}},
    ],
    ids=["no-status", "status-without-health", "empty-health", "health-without-code"],
)
def test_an_unwaited_application_is_healthy_before_it_has_a_health_code(script, status):
    """`health` can be there without a code (a struct, not a pointer); a Lua error here would
    leave the parent's wave waiting, which the annotation exists to prevent."""
    result = argocd_health(script, application(wait="false", status=status))
    assert result["status"] == "Healthy"
    assert result["message"].startswith("not waited on (gpu-gitops.io/wait: false): ")


# The rendered Applications carry the annotation on exactly the layers the doc names.


def _argocd_clusters() -> list[str]:
    project = Project(REPO)
    return [c for c in EXAMPLES if inputs.load_cluster(project, c).spec["gitops"]["engine"] == "argocd"]


def _rendered_applications(cluster: str) -> dict[str, dict]:
    apps = [
        YAML_SAFE.load(p.read_text(encoding="utf-8"))
        for p in sorted((REPO / "rendered" / cluster / "gitops").glob("*.yaml"))
    ]
    return {a["metadata"]["name"]: a for a in apps if a["kind"] == "Application"}


def test_the_doc_names_the_unwaited_layers_the_registry_has():
    registry = json.loads((REPO / "libsonnet" / "registry.json").read_text(encoding="utf-8"))
    assert documented_unwaited_layers() == {layer["name"] for layer in registry["layers"] if layer.get("wait") is False}


@pytest.mark.parametrize("cluster", _argocd_clusters())
def test_rendered_applications_carry_the_annotation_exactly_on_unwaited_layers(cluster):
    apps = _rendered_applications(cluster)
    unwaited = {f"{cluster}-{layer}" for layer in documented_unwaited_layers()}
    annotated = {n for n, a in apps.items() if a["metadata"].get("annotations", {}).get(WAIT) == "false"}
    assert annotated == unwaited & set(apps), "the annotation is on exactly the layers docs/gitops.md names"
    assert all(a["metadata"].get("annotations", {}).get(WAIT) in (None, "false") for a in apps.values())


@pytest.mark.parametrize("cluster", _argocd_clusters())
def test_a_degraded_rendered_layer_blocks_the_parent_unless_the_doc_says_it_does_not(script, cluster):
    """The doc's Lua on the rendered objects themselves: only the unwaited layers turn Healthy."""
    unwaited = {f"{cluster}-{layer}" for layer in documented_unwaited_layers()}
    apps = _rendered_applications(cluster)
    assert unwaited & set(apps), f"{cluster} renders no unwaited layer to check"
    for name, app in apps.items():
        reported = argocd_health(script, app | {"status": health("Degraded", "x")})["status"]
        assert reported == ("Healthy" if name in unwaited else "Degraded"), name


def test_the_sandbox_is_lua_5_1_without_the_string_library():
    """Guards the harness: a script leaning on Lua 5.2+ or on string methods must fail here too."""
    lua = _sandbox()
    assert lua.eval("_VERSION") == "Lua 5.1"
    with pytest.raises(lua51.LuaError):
        lua.execute('return ("x"):upper()')
    assert lua.eval("string") is None and lua.eval("type(table.insert)") == "function"
