"""Every command's --help shows how it is used, groups included."""

from __future__ import annotations

import re

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


def test_every_command_is_in_the_family_table_that_loads_it():
    """The root group imports a command's module on first use: the table must name each one."""
    from importlib import import_module

    from generator.cli import FAMILIES

    for family in set(FAMILIES.values()):
        names = {command.name for command in import_module(f"generator.cli.{family}").COMMANDS}
        assert names == {name for name, owner in FAMILIES.items() if owner == family}
    assert {words[0] for words in COMMANDS} == set(FAMILIES)


def test_the_root_help_lists_every_command_as_click_would_from_its_own_help(monkeypatch):
    """`gpu-gitops --help` lists the commands from a table, so that it imports none of them:
    the table holds each command's first paragraph, and the listing is click's, at any width."""

    from generator.cli import SUMMARIES, cli

    ctx = cli.make_context("gpu-gitops", ["--help"], resilient_parsing=True)
    for name in cli.list_commands(ctx):
        command = cli.get_command(ctx, name)
        assert command is not None and command.help is not None
        assert SUMMARIES[name] == " ".join(command.help.partition("\n\n")[0].split()), name
    assert set(SUMMARIES) == set(cli.list_commands(ctx))
    for width in ("60", "100", "200"):
        monkeypatch.setenv("COLUMNS", width)
        ours = CliRunner().invoke(cli, ["--help"]).output
        monkeypatch.setattr(type(cli), "format_commands", click.Group.format_commands)
        clicks = CliRunner().invoke(cli, ["--help"]).output
        monkeypatch.undo()
        assert ours == clicks and re.search(r"^  render +Render clusters", ours, re.M)
