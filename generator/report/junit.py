"""JUnit XML in kubeconform's layout: a testsuite per file, a testcase per resource.

``classname`` is ``Kind@apiVersion`` and ``name`` is ``namespace/name``; a rule violation is
a ``<failure>``, a document that could not be processed (parse error, missing kind or
schema) an ``<error>``. Warnings do not fail a test case; they are listed in its
``<system-out>``. Text from the manifests is escaped (``shown_text``): XML 1.0 cannot carry
control characters, even as character references.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from generator.report import Report

from xml.etree import ElementTree as ET

from generator.diagnostic import ObjectRef, shown_name, shown_text

_PROCESSING = {"K8S001", "K8S002", "K8S004"}


def _case_name(ref: ObjectRef) -> str:
    return shown_text(f"{ref.namespace}/{ref.shown_name}" if ref.namespace else ref.shown_name)


def format(report: Report) -> str:
    root = ET.Element("testsuites", name="gpu-gitops")
    by_file: dict[str, dict[tuple, list]] = {}
    for source in report.sources:
        cases = by_file.setdefault(shown_name(source.display), {})
        for ref in source.refs:
            cases.setdefault((ref, 0), [])
    for f in report.findings:
        # a document that never became an object (parse error) is its own test case
        key = (f.ref, 0) if f.ref.kind else (f.ref, f.line)
        by_file.setdefault(shown_name(f.file), {}).setdefault(key, []).append(f)
    totals = {"tests": 0, "failures": 0, "errors": 0}
    for suite_id, (file, cases) in enumerate(by_file.items(), start=1):
        suite = ET.SubElement(root, "testsuite", name=file, id=str(suite_id))
        counts = {"tests": 0, "failures": 0, "errors": 0}
        for (ref, line), findings in cases.items():
            case = ET.SubElement(
                suite,
                "testcase",
                name=_case_name(ref) or f"{file}:{line}",
                classname=shown_text(f"{ref.kind}@{ref.api_version}") if ref.kind else "document",
            )
            counts["tests"] += 1
            errors = [f for f in findings if f.severity == "error"]
            others = [f for f in findings if f.severity != "error"]
            if errors:
                tag = "error" if any(f.rule in _PROCESSING for f in errors) else "failure"
                counts["errors" if tag == "error" else "failures"] += 1
                node = ET.SubElement(case, tag, message=shown_text(errors[0].message), type=errors[0].rule)
                node.text = "\n".join(f"{file}:{f.line}:{f.col}: {shown_text(f.message)} [{f.rule}]" for f in errors)
            if others:
                ET.SubElement(case, "system-out").text = "\n".join(
                    f"{file}:{f.line}:{f.col}: {f.severity}: {shown_text(f.message)} [{f.rule}]" for f in others
                )
        for counter, value in counts.items():
            suite.set(counter, str(value))
            totals[counter] += value
        suite.set("skipped", "0")
        suite.set("disabled", "0")
    for counter, value in totals.items():
        root.set(counter, str(value))
    root.set("disabled", "0")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
