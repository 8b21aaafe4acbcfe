"""A workload's pod template has a restart policy (or deadline) its kind refuses.

Rationale: the OpenAPI schema lets ``restartPolicy`` be ``Always``, ``OnFailure`` or ``Never``
in every pod template; the API server's own validation narrows it per kind. A Deployment,
ReplicaSet or ReplicationController (``ValidatePodTemplateSpecForReplicaSet``), a StatefulSet
(``ValidateStatefulSetSpec``) or a DaemonSet (``ValidateDaemonSetSpec``, kubernetes
``pkg/apis/apps/validation`` and ``pkg/apis/core/validation``) takes only ``Always`` and no
``activeDeadlineSeconds`` (``activeDeadlineSeconds in ReplicaSet is not Supported``). A Job,
and the Job template of a CronJob, takes only ``OnFailure`` or ``Never`` (``ValidateJobSpec``,
``pkg/apis/batch/validation``): the default, ``Always``, filled in before validation when the
field is left out, is refused (``Required value: valid values: "OnFailure", "Never"``), and a
``podFailurePolicy`` takes only ``Never``. The object is refused at apply time and the sync
stalls.

Fix: for a long-running workload leave ``restartPolicy`` out (it defaults to ``Always``) and
drop ``activeDeadlineSeconds``; for a Job set ``restartPolicy: Never`` (or ``OnFailure``
without a ``podFailurePolicy``).

PASS:

    apiVersion: batch/v1
    kind: Job
    metadata:
      name: finetune
      namespace: gpu-training
    spec:
      template:
        spec:
          restartPolicy: Never
          containers:
            - {name: train, image: "nvcr.io/nvidia/pytorch:25.01-py3"}

FAIL:

    apiVersion: batch/v1
    kind: Job
    metadata:
      name: finetune
      namespace: gpu-training
    spec:
      template:
        spec:
          containers:
            - {name: train, image: "nvcr.io/nvidia/pytorch:25.01-py3"}
"""

from collections.abc import Iterator

from generator import jsonpath
from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, ObjectRule
from generator.rulemeta import RuleMeta

META = RuleMeta(
    "K8S007",
    "restart-policy-refused",
    "error",
    "A pod template's restart policy or deadline is one its workload kind refuses",
    __doc__,
)

# kind → the name its validation gives it in the deadline message
_ALWAYS = {
    ("apps/v1", "Deployment"): "ReplicaSet",
    ("apps/v1", "ReplicaSet"): "ReplicaSet",
    ("v1", "ReplicationController"): "ReplicaSet",
    ("apps/v1", "StatefulSet"): "StatefulSet",
    ("apps/v1", "DaemonSet"): "DaemonSet",
}
_JOBS = {("batch/v1", "Job"): ("spec",), ("batch/v1", "CronJob"): ("spec", "jobTemplate", "spec")}


def check(res: Resource, ctx: Context) -> Iterator[Hit]:
    key = (res.obj.get("apiVersion"), res.kind)
    if key in _ALWAYS:
        yield from _long_running(res.obj, _ALWAYS[key])
    elif key in _JOBS:
        yield from _job(res.obj, _JOBS[key])


def _long_running(obj: dict, kind: str) -> Iterator[Hit]:
    path = ("spec", "template", "spec")
    spec = jsonpath.value_at(obj, path)
    if not isinstance(spec, dict):
        return
    policy = spec.get("restartPolicy")
    if isinstance(policy, str) and policy != "Always":
        yield Hit(
            f'{jsonpath.dotted(path + ("restartPolicy",))}: Unsupported value: "{policy}": supported values: "Always"',
            path + ("restartPolicy",),
            at_value=True,
            hint="leave restartPolicy out (it defaults to Always), or run the work as a Job",
        )
    if spec.get("activeDeadlineSeconds") is not None:
        yield Hit(
            f"{jsonpath.dotted(path + ('activeDeadlineSeconds',))}: Forbidden: "
            f"activeDeadlineSeconds in {kind} is not Supported",
            path + ("activeDeadlineSeconds",),
            hint="remove activeDeadlineSeconds, or run the work as a Job",
        )


def _job(obj: dict, job_path: tuple) -> Iterator[Hit]:
    job = jsonpath.value_at(obj, job_path)
    path = job_path + ("template", "spec")
    spec = jsonpath.value_at(obj, path)
    if not isinstance(job, dict) or not isinstance(spec, dict):
        return
    policy = spec.get("restartPolicy")
    where = jsonpath.dotted(path + ("restartPolicy",))
    if policy in (None, "", "Always"):
        written = policy is not None
        yield Hit(
            f'{where}: Required value: valid values: "OnFailure", "Never"'
            + ("" if written else " (left out, it defaults to Always)"),
            path + ("restartPolicy",) if written else path,
            at_value=written,
            hint="set restartPolicy: Never (or OnFailure)",
        )
    elif policy == "OnFailure" and job.get("podFailurePolicy") is not None:
        yield Hit(
            f'{where}: Invalid value: "OnFailure": only "Never" is supported when podFailurePolicy is specified',
            path + ("restartPolicy",),
            at_value=True,
            hint="set restartPolicy: Never, or remove the podFailurePolicy",
        )


RULE = ObjectRule(
    meta=META, check=check, pod_templates=True, kinds=frozenset(kind for _api, kind in {**_ALWAYS, **_JOBS})
)
