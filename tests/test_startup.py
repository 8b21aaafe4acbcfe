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
print(json.dumps(sorted(m for m in sys.modules if m.startswith(HEAVY))), file=sys.stderr)
""".replace("HEAVY", repr(HEAVY))


@pytest.mark.parametrize("args", [["--version"], ["list"], ["list", "--json"]])
def test_light_commands_do_not_import_heavy_modules(project, args):
    result = subprocess.run([sys.executable, "-c", PROBE, json.dumps(["--root", str(project), *args])],
                            capture_output=True, text=True, check=True)
    assert json.loads(result.stderr.strip().splitlines()[-1]) == []
    if args[0] == "list":
        assert "aks-h100-training" in result.stdout
