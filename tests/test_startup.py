"""Commands that render nothing start without loading the heavy libraries."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("jsonschema", "rjsonnet", "ruamel", "kubernetes_validate", "generator.lint", "generator.pipeline")

# runs the command line in a fresh interpreter, then prints the heavy modules it loaded
PROBE = """
import json, sys
from generator.cli import main
sys.argv = ["gpu-gitops", *json.loads(sys.argv[1])]
try:
    main()
except SystemExit:
    pass
print(json.dumps(sorted(m for m in sys.modules if m.startswith(%r))), file=sys.stderr)
""" % (HEAVY,)


@pytest.mark.parametrize("args", [["--version"], ["list"], ["list", "--json"]])
def test_light_commands_do_not_import_heavy_modules(project, args):
    result = subprocess.run([sys.executable, "-c", PROBE, json.dumps(["--root", str(project), *args])],
                            capture_output=True, text=True, check=True)
    assert json.loads(result.stderr.strip().splitlines()[-1]) == []
    if args[0] == "list":
        assert "aks-h100-training" in result.stdout


def _loaded(project, args: list[str]) -> list[str]:
    result = subprocess.run([sys.executable, "-c", PROBE, json.dumps(["--root", str(project), *args])],
                            capture_output=True, text=True, check=True)
    return json.loads(result.stderr.strip().splitlines()[-1])


def _every_command() -> list[list[str]]:
    from generator.cli import cli

    ctx = cli.make_context("gpu-gitops", ["--help"], resilient_parsing=True)
    names = []
    for name in cli.list_commands(ctx):
        command = cli.get_command(ctx, name)
        subcommands = getattr(command, "commands", {})
        names += [[name, sub] for sub in sorted(subcommands)] or [[name]]
    return names


def test_help_does_not_import_heavy_modules(project):
    assert _loaded(project, ["--help"]) == []


@pytest.mark.parametrize("command", _every_command(), ids=" ".join)
def test_every_commands_help_does_not_import_heavy_modules(project, command):
    assert _loaded(project, [*command, "--help"]) == []
