"""SHA-256 for the modules a lint answered from its cache imports.

Why: ``hashlib`` loads OpenSSL's libcrypto (``_hashlib``) on import, about 2 ms of such a lint;
CPython's own SHA-256 (``_sha2`` from 3.12, ``_sha256`` before) gives the same digests without
it. ``hashlib``'s is the fallback for an interpreter built without its own.

May import: nothing of generator.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own flag, without importing typing
if TYPE_CHECKING:
    from hashlib import sha256
else:
    try:
        from _sha2 import sha256
    except ImportError:
        try:
            from _sha256 import sha256
        except ImportError:
            from hashlib import sha256

__all__ = ["sha256"]
