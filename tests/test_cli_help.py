"""Every command's --help shows how it is used, groups included."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from generator.cli import cli


def _commands(group: click.Group, ctx: click.Context, prefix: tuple[str, ...] = ()):
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        yield (*prefix, name)
        if isinstance(command, click.Group):
            yield from _commands(command, ctx, (*prefix, name))


COMMANDS = list(_commands(cli, click.Context(cli)))


def test_the_schemas_group_is_listed():
    assert ("schemas",) in COMMANDS and ("schemas", "import") in COMMANDS


@pytest.mark.parametrize("words", COMMANDS, ids=" ".join)
def test_help_has_an_example(words):
    result = CliRunner().invoke(cli, [*words, "--help"])
    assert result.exit_code == 0
    assert "Example" in result.stdout and f"gpu-gitops {' '.join(words)}" in result.stdout
