"""The one way the project runs git: a command in the project root, its output as bytes, and
one located error (``InputError``, exit 2) when git is missing or refuses, with the caller's
hint for what the command it serves needs (a checkout, a commit to compare with).

May import: generator.errors.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from generator.errors import InputError


def run(root: Path, args: tuple[str, ...], hint: str, stdin: bytes | None = None) -> bytes:
    """git's standard output; its last line of complaint, or its absence, as an InputError."""
    try:
        done = subprocess.run(["git", *args], cwd=root, input=stdin, capture_output=True, check=False)
    except FileNotFoundError:
        raise InputError("git is not installed", hint=hint) from None
    if done.returncode != 0:
        message = (done.stderr.decode(errors="replace").strip().splitlines() or ["git failed"])[-1]
        raise InputError(f"git {' '.join(args[:3])}: {message}", path=str(root), hint=hint)
    return done.stdout
