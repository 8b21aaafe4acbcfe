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

    severity = "error"

    def __init__(self, message: str, *, path: str = "", line: int = 0, col: int = 0, hint: str = ""):
        super().__init__(message)
        self.message = message
        self.location = Location(path, line, col)
        self.hint = hint

    def format(self) -> str:
        where = f"{self.location}: " if self.location.path else ""
        text = f"{where}{self.severity}: {self.message}"
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text

    def __str__(self) -> str:
        return self.format()


class InputWarning(InputError):
    """Something in an input that renders but is probably not what the user wants (a cluster
    renders with warnings; they are printed with the render's other warnings)."""

    severity = "warning"

    def __reduce__(self):
        return (_rebuild_warning, (self.message, self.location.path, self.location.line, self.location.col, self.hint))


def _rebuild_warning(message: str, path: str, line: int, col: int, hint: str) -> InputWarning:
    return InputWarning(message, path=path, line=line, col=col, hint=hint)


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
