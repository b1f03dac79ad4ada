"""The ``schedulable`` operator: would kube-scheduler place this workload on a Node of the dump?

Backed by ``rules.schedule.ClusterModel`` (a model of kube-scheduler's filter plugins), built once per
dump from the index's Nodes and Pods. The argument is ``{}`` or ``{hint: false}`` to leave out verdict's
own hint after the FailedScheduling-style message.
"""

from __future__ import annotations

from typing import Any

from marshmallow import fields

from .operators import Operator, register


def _field() -> fields.Field:
    return fields.Dict(
        keys=fields.String(),
        values=fields.Raw(),
        metadata={"description": "options: {hint: true|false}; the object itself is the workload"},
    )


def check_schedulable(scope: Any, arg: Any) -> tuple[str, str, Any]:
    """(state, message, observed) for the object in ``scope``: ``pass`` with the feasible nodes, ``fail``
    with kube-scheduler's FailedScheduling text (+ hint), or ``skip`` when the object is not a workload
    or is already bound to a Node, or when the dump holds no Node at all."""
    from .schedule import ClusterModel  # imported late: the model is only built when a rule asks

    index = scope.index
    if not index.of_kind("Node"):
        # Nothing is known about placement (a manifest or a namespace dump): no verdict, not a failure.
        return "skip", "no Node in the dump to schedule on", None
    model = index.memo(
        "schedule.ClusterModel",
        lambda: ClusterModel((o.obj for o in index.of_kind("Node")), (o.obj for o in index.of_kind("Pod"))),
    )
    prediction = model.predict(scope.obj.obj)
    if not prediction.applicable:
        return "skip", prediction.message or "not a workload waiting to be scheduled", None
    message = prediction.message
    if prediction.hint and (arg or {}).get("hint", True):
        message = f"{message} {prediction.hint}"
    return ("pass" if prediction.schedulable else "fail"), message, list(prediction.feasible)


register(
    Operator(
        "schedulable",
        "object",
        _field,
        check_schedulable,
        lambda arg: "schedulable on some node",
        resolve=False,
        doc="the object (Pod, pod template owner, VirtualMachineInstance, VirtualMachine) would be placed"
        " on some Node of the dump by kube-scheduler's filters; see docs/scheduling.md",
    )
)
