"""The one exception type for user mistakes.

Every error a user can cause (bad input, bad flags, a hostile import) is raised as an
``InputError`` carrying its ``Diagnostic``s: where it happened and how to fix it. The CLI
prints them as ``path:line:col: error: message`` plus a ``hint:`` line and exits 2. Anything
else that escapes is a bug in gpu-gitops, not in the user's input.

May import: generator.diagnostic.
"""

from __future__ import annotations

from collections.abc import Callable

from generator.diagnostic import Diagnostic, Location, format_text


class InputError(Exception):
    """A mistake in something the user gave us: file, flag or cluster input."""

    severity = "error"

    def __init__(
        self,
        message: str,
        *,
        path: str = "",
        line: int = 0,
        col: int = 0,
        hint: str = "",
        note: str = "",
        detail: str = "",
    ):
        super().__init__(message)
        self.diagnostics = [Diagnostic(Location(path, line, col), self.severity, message, hint, note=note)]
        self.detail = detail  # what a tool behind the error said in full (a Jsonnet trace), shown under -v

    @property
    def diagnostic(self) -> Diagnostic:
        """The first (for most errors, the only) diagnostic."""
        return self.diagnostics[0]

    @property
    def message(self) -> str:
        return self.diagnostic.message

    @property
    def location(self) -> Location:
        return self.diagnostic.location

    @property
    def hint(self) -> str:
        return self.diagnostic.hint

    @hint.setter
    def hint(self, hint: str) -> None:
        """A hint found after the error was made (inputs word one from the schema)."""
        self.diagnostics[0] = self.diagnostic.replace(hint=hint)

    def format(self) -> str:
        return "\n".join(format_text(d) for d in self.diagnostics)

    def __str__(self) -> str:
        return self.format()

    def __reduce__(self) -> tuple[Callable, tuple]:
        # rebuilt from its diagnostics, so it survives the trip back from a render worker process
        return (_rebuild, (type(self), self.diagnostics, self.__dict__))


def _rebuild(cls: type[InputError], diagnostics: list[Diagnostic], state: dict) -> InputError:
    error = Exception.__new__(cls)
    Exception.__init__(error, diagnostics[0].message)
    error.__dict__.update(state)
    return error


class InputWarning(InputError):
    """Something in an input that renders but is probably not what the user wants (a cluster
    renders with warnings; they are printed with the render's other warnings)."""

    severity = "warning"


class InputErrors(InputError):
    """Several independent input errors found in one pass, reported together."""

    def __init__(self, errors: list[InputError]):
        super().__init__(errors[0].message, path=errors[0].location.path)
        self.errors = errors
        self.detail = "\n".join(e.detail for e in errors if e.detail)
        self.diagnostics = [d for e in errors for d in e.diagnostics]
