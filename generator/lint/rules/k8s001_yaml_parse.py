"""A file or document that cannot be parsed as YAML (or JSON).

Rationale: nothing in a document that does not parse reaches the cluster, and a CI job
must not pass it (kubeconform once exited 0 on malformed YAML). Duplicate keys are parse
errors too: the API server's strict decoding refuses them, and which value wins is
otherwise up to the tool. The other documents of the same file are still linted.

Fix: correct the syntax at the reported line (indentation, quoting, a stray tab) or
remove the repeated key.

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

ID = "K8S001"
NAME = "yaml-parse"
SEVERITY = "error"
SUMMARY = "YAML syntax error, duplicate key, or a document over the size or nesting limits"
SCOPE = "document"


def check(doc, ctx):
    if doc.error is not None:
        yield doc.error
