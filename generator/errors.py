"""The one exception type for user mistakes.

Every error a user can cause (bad input, bad flags, a hostile import) is raised as an
``InputError`` carrying where it happened and how to fix it; the CLI prints it as
``path:line:col: error: message`` plus a ``hint:`` line and exits 2. Anything else that
escapes is a bug in gpu-gitops, not in the user's input.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Location:
    """A position in a file; line and column are 1-based, 0 when unknown."""

    path: str
    line: int = 0
    col: int = 0

    def __str__(self) -> str:
        if self.line:
            return f"{self.path}:{self.line}:{self.col or 1}"
        return self.path


class InputError(Exception):
    """A mistake in something the user gave us: file, flag or cluster input."""

    def __init__(self, message: str, *, path: str = "", line: int = 0, col: int = 0, hint: str = ""):
        super().__init__(message)
        self.message = message
        self.location = Location(path, line, col)
        self.hint = hint

    def format(self) -> str:
        where = f"{self.location}: " if self.location.path else ""
        text = f"{where}error: {self.message}"
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text

    def __str__(self) -> str:
        return self.format()


class InputErrors(InputError):
    """Several independent input errors found in one pass, reported together."""

    def __init__(self, errors: list[InputError]):
        super().__init__(errors[0].message, path=errors[0].location.path)
        self.errors = errors

    def format(self) -> str:
        return "\n".join(e.format() for e in self.errors)

    def __reduce__(self):
        # rebuilt from the list, so the errors survive the trip back from a render worker process
        return (InputErrors, (self.errors,))
