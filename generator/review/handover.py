"""A Helm release switched between its modes (``gitops.charts``: preview, handover, hydrated;
``render.hydrate``), as the review sees it: the engine's object (Flux HelmRelease, Argo CD
Application) and the chart's objects entering or leaving the same component folder.

Safe only through the hand-over step, which makes the engine's object inert and the objects
kept on removal and owned by Helm's metadata:

- preview → hydrated directly: the HelmRelease leaves Git but not the cluster (the library marks
  it ``kustomize.toolkit.fluxcd.io/prune: disabled``), unsuspended: helm-controller goes on
  reconciling the release and corrects "drift" back to its own manifest on the objects the layer
  now applies (``driftDetection: enabled``), and a later deletion uninstalls them
  (helm-controller v1.6.3 ``reconcileDelete``). An Argo CD Application left running
  (``Prune=false,Delete=false``) keeps syncing the same objects against the layer.
- hydrated → preview directly: the objects leave the layer without prune protection, so
  kustomize-controller's garbage collection (Argo CD's prune) deletes them, pods and CRDs with
  their custom resources, before Helm installs them again.

Each finding goes on the engine object's change, in place of what its removal or addition would
say alone (a removed prune-protected HelmRelease left "unmanaged" is, here, managed by the layer).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from generator.review.compare import Change
from generator.review.objects import Placed

DANGER, NOTICE = "danger", "notice"  # as danger.py names them
PREVIEW_FOLDER = "charts"  # render.charts.FOLDER: inflated objects no engine applies
_ENGINE = {("helm.toolkit.fluxcd.io", "HelmRelease"), ("argoproj.io", "Application")}
_REPOSITORY = ("source.toolkit.fluxcd.io", "HelmRepository")


@dataclass
class _Unit:
    """What changed in one component folder of the layers."""

    engine: Change | None = None
    entering: list[Placed] = field(default_factory=list)  # chart objects now applied by the layer
    leaving: list[Placed] = field(default_factory=list)  # chart objects the layer no longer applies
    staying: list[Placed] = field(default_factory=list)  # changed objects the layer goes on applying


def _engine(placed: Placed | None) -> bool:
    return placed is not None and (placed.identity.group, placed.identity.kind) in _ENGINE


def active(obj: dict) -> bool:
    """Whether the engine's object installs and upgrades: a HelmRelease not suspended, an
    Application with automated sync."""
    spec = obj.get("spec") or {}
    if obj.get("kind") == "HelmRelease":
        return not spec.get("suspend")
    return bool((spec.get("syncPolicy") or {}).get("automated"))


def _layer_unit(placed: Placed | None) -> str | None:
    """The component folder of the layers that applies ``placed``; None for the preview,
    the engine's own objects and what is not placed at all."""
    if placed is None or placed.layer in (PREVIEW_FOLDER, "gitops", ""):
        return None
    return placed.unit


def _units(changes: list[Change]) -> dict[str, _Unit]:
    units: dict[str, _Unit] = {}
    for change in changes:
        before, after = change.before, change.after
        if _engine(before) or _engine(after):
            unit = _layer_unit(after or before)
            if unit is not None:
                units.setdefault(unit, _Unit()).engine = change
            continue
        ident = change.identity
        if (ident.group, ident.kind) == _REPOSITORY:
            continue
        was, now = _layer_unit(before), _layer_unit(after)
        if after is not None and now is not None and now != was:
            units.setdefault(now, _Unit()).entering.append(after)
        if before is not None and was is not None and was != now:
            units.setdefault(was, _Unit()).leaving.append(before)
        if after is not None and now is not None and now == was:
            units.setdefault(now, _Unit()).staying.append(after)
    return units


def findings(changes: list[Change], protected: Callable[[dict], bool]) -> dict[int, list[tuple[str, str, str]]]:
    """Per index of an engine object's change that is part of a switch: (level, reason, rule)
    findings that replace its own; ``protected`` says whether the engine keeps an object that
    leaves Git (``danger.protected``)."""
    out: dict[int, list[tuple[str, str, str]]] = {}
    index = {id(c): i for i, c in enumerate(changes)}
    for unit, found in sorted(_units(changes).items()):
        change = found.engine
        if change is None or not (found.entering or found.leaving or found.staying or _activity_changed(change)):
            continue
        before = change.before.obj if change.before else None
        after = change.after.obj if change.after else None
        ident = change.identity
        flux = ident.kind == "HelmRelease"
        if found.entering and after is None and before is not None and active(before):
            reason = (
                f"switches {ident}'s release to hydrated without the hand-over: "
                + (
                    "kept on the cluster (prune disabled) and not suspended, helm-controller goes on reconciling "
                    "it and reverts the objects the layer now applies to its own manifest (drift detection); "
                    "deleted later, it uninstalls them"
                    if flux
                    else "kept on the cluster (Prune=false) with automated sync, the Application goes on syncing "
                    "the same objects as the layer"
                )
                + f"; set gitops.charts.<release> to handover first ({unit})"
            )
            out[index[id(change)]] = [(DANGER, reason, "hydrate")]
        elif found.leaving and after is not None and active(after) and not all(protected(p.obj) for p in found.leaving):
            reason = (
                f"switches {ident}'s release back to preview without the hand-over: the layer prunes the "
                f"release's objects ({len(found.leaving)} of them: pods deleted, CRDs with their custom "
                "resources) before Helm installs them again; set gitops.charts.<release> to handover first "
                f"({unit})"
            )
            out[index[id(change)]] = [(DANGER, reason, "hydrate")]
        elif after is not None and not active(after) and (before is None or active(before) or found.entering):
            out[index[id(change)]] = [
                (
                    NOTICE,
                    f"hands {ident}'s release over ({unit}): "
                    + ("suspended" if flux else "without automated sync")
                    + ", it installs and uninstalls nothing; the layer applies the chart's objects, kept on "
                    "removal and carrying Helm's ownership metadata (same objects: nothing restarts). Next: "
                    "gitops.charts.<release> hydrated (or preview, to give them back to Helm)",
                    "",
                )
            ]
        elif after is None and before is not None and not active(before) and (found.staying or found.entering):
            out[index[id(change)]] = [
                (
                    NOTICE,
                    f"hydrates {ident}'s release ({unit}): the layer applies its objects; the "
                    + (
                        "suspended HelmRelease stays on the cluster (prune disabled): delete it by hand, "
                        "`kubectl -n "
                        + ident.namespace
                        + f" delete helmrelease {ident.name}` (suspended, helm-controller does not uninstall)"
                        if flux
                        else "Application stays on the cluster (Prune=false): delete it by hand, `kubectl -n "
                        + ident.namespace
                        + f" delete application {ident.name}` (no resources finalizer: its objects stay)"
                    ),
                    "",
                )
            ]
        elif after is not None and active(after) and before is not None and not active(before):
            out[index[id(change)]] = [
                (
                    NOTICE,
                    f"gives {ident}'s release back to Helm ({unit}): the engine installs it again and adopts the "
                    "objects (they carry Helm's ownership metadata); the layer leaves them in place (prune disabled)",
                    "",
                )
            ]
    return out


def _activity_changed(change: Change) -> bool:
    before = change.before.obj if change.before else None
    after = change.after.obj if change.after else None
    return before is not None and after is not None and active(before) != active(after)
