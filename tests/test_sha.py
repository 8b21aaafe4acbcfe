"""generator.sha gives hashlib's SHA-256 digests: the cache keys and file names made with it
must match those made with hashlib by any earlier run."""

import hashlib

from generator.sha import sha256


def test_digests_are_hashlibs():
    for data in (b"", b"abc", bytes(range(256)) * 1000):
        assert sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()
    incremental = sha256(b"run")
    incremental.update(b"name\0")
    incremental.update(b"bytes")
    assert incremental.hexdigest() == hashlib.sha256(b"runname\0bytes").hexdigest()
