"""A file or document that cannot be parsed as YAML (or JSON).

Rationale: nothing in a document that does not parse reaches the cluster, and a CI job
must not pass it (kubeconform once exited 0 on malformed YAML). The other documents of the
same file are still linted.

A key repeated in a mapping is reported too, with ``--strict`` (the default), and the rest
of the document is still checked, with the later value. ``kubectl apply``, even with its
default ``--validate=strict``, converts YAML to JSON on the client with go-yaml v2, which keeps
the last value and drops the earlier without a word, so the API server's duplicate-field check
never sees it (kubernetes/kubernetes#125885); kubeconform ``-strict`` rejects the document. The
earlier value is lost either way, which is seldom what was meant. ``--no-strict`` lets it pass,
as kubeconform without ``-strict`` and kubectl do.

A ``---`` after a line that ends in a CR alone (a file saved with classic Mac line endings,
or a CR-only part pasted into one) is a warning at that separator: kubectl reads documents
up to LF line ends only, and decodes only the first document of what it reads as one
(apimachinery ``util/yaml`` ``YAMLReader``, go-yaml v2 ``Unmarshal``), so the objects that
follow are never applied; a file whose first line is such a ``---`` is refused whole
("invalid Yaml document separator").

Fix: correct the syntax at the reported line (indentation, quoting, a stray tab) or
remove the repeated key (merge what both meant into one); save a CR-only file with LF line endings.

PASS:

    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: flags
    data:
      profiling: "on"

FAIL:

    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: flags
      name: feature-flags
"""

from collections.abc import Iterator

from generator.lint.model import Document, Hit
from generator.lint.protocol import Context, DocumentRule
from generator.rulemeta import RuleMeta

META = RuleMeta(
    "K8S001",
    "yaml-parse",
    "error",
    "YAML syntax error, duplicate key, or a document over the size or nesting limits",
    __doc__,
)


def check(doc: Document, ctx: Context) -> Iterator[Hit]:
    if doc.error is not None:
        yield doc.error
    yield from doc.notes


RULE = DocumentRule(meta=META, check=check)
