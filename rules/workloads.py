"""The object operators backed by the scheduler model (``rules.schedule.ClusterModel``, built once per dump
from the index's Nodes and Pods):

- ``schedulable``: would kube-scheduler place this workload on a Node of the dump? The argument is ``{}``
  or ``{hint: false}`` to leave out verdict's own hint after the FailedScheduling-style message.
- ``toleratesNodes``: does the workload's pod tolerate the NoSchedule/NoExecute taints of every node its
  node name, nodeSelector and affinity select (a DaemonSet must run on each; the controller silently skips
  the others)? The argument is ``{}``, or ``nodes: [<nodeSelectorTerm>, ...]`` to judge only the nodes
  matching one of those terms (e.g. the GPU nodes), and ``ignoreRunning: true`` to pass a node where the
  workload's own pod still runs under a NoSchedule taint it does not tolerate (added after it started).
- ``placeable`` (a value operator, reading the same model): is the value, a workload, one kube-scheduler would
  place on some Node of the dump now? ``{var: item, placeable: false}`` keeps, of a context's pending pods, those
  no node can take (the ones that wait).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from marshmallow import ValidationError, fields

from .errors import EvaluationError
from .memo import IdentityMemo
from .operators import Operator, OperatorError, StrictBoolean, register, show
from .schedule.matching import Term, compile_terms


def _options(operator: str, flag: str, default: bool) -> Callable[[Any], None]:
    """What refuses at load the options ``operator`` cannot use: unknown ones, a ``flag`` that is not a boolean, or
    ``nodes`` that is not a non-empty list of valid node selector terms (a term that does not parse would silently
    match nothing)."""

    def check(arg: Any) -> None:
        unknown = sorted(set(arg) - {flag, "nodes"})
        if unknown:
            raise ValidationError(f"{operator} takes only 'nodes' and '{flag}', not {', '.join(unknown)}")
        if not isinstance(arg.get(flag, default), bool):
            raise ValidationError(f"{flag} takes true or false")
        if "nodes" in arg:
            _check_terms(arg["nodes"])

    return check


def _field() -> fields.Field:
    return fields.Dict(
        keys=fields.String(),
        values=fields.Raw(),
        validate=_options("schedulable", "hint", True),
        metadata={
            "description": "options: {hint: true|false}; {nodes: [nodeSelectorTerm, ...]} to pass only where some"
            " node matching one of the terms is feasible; the object itself is the workload"
        },
    )


def cluster_model(index: Any) -> Any:
    """The scheduler's model of the dump's Nodes and Pods (``rules.schedule.ClusterModel``), built once per
    index: before evaluation when it is shared out to worker processes (the operator's ``prepare``), else
    on first use."""
    from .schedule import ClusterModel  # imported late: the model is only built when a rule asks

    return index.memo(
        "schedule.ClusterModel",
        lambda: ClusterModel(
            (o.obj for o in index.of_kind("Node")),
            (o.obj for o in index.of_kind("Pod")),
            # a node rebuilt from describe text that the dump also holds in full keeps its Allocated resources
            (rebuilt.obj for _, rebuilt in index.partials if rebuilt.kind == "Node"),
            # a running VMI whose virt-launcher pod the dump lacks holds its devices on its node
            (o.obj for o in index.of_kind("VirtualMachineInstance")),
        ),
    )


#: What the scheduler model could not read, noted one by one up to this many; the others are counted.
MODEL_NOTES = 10


def _model_notes(index: Any) -> list[str]:
    """The model's warnings (a Pod whose requests are not counted, a quantity taken as 0), when a rule built it."""
    from .schedule.cluster import TWICE

    model = index.built("schedule.ClusterModel")
    # a Node twice is the report's conflict note already (and no note at all when the copies are the same)
    warnings = [w for w in model.warnings if not w.endswith(TWICE)] if model is not None else []
    notes = [f"scheduling model: {w}" for w in warnings[:MODEL_NOTES]]
    if len(warnings) > MODEL_NOTES:
        notes.append(f"scheduling model: and {len(warnings) - MODEL_NOTES:,} more notes of the same kind")
    return notes


def _prepare_model(index: Any) -> None:
    """The operators' ``prepare``: the model, built before evaluation is shared out, when there is a Node."""
    if index.of_kind("Node"):
        cluster_model(index)


#: The compiled node selector terms of an operator's ``nodes``, by the argument's identity.
_TERMS: IdentityMemo[tuple[Term, ...] | None] = IdentityMemo()


def check_schedulable(scope: Any, arg: Any) -> tuple[str, str, Any]:
    """(state, message, observed) for the object in ``scope``: ``pass`` with the feasible nodes (the first
    five, then ``"… N more"``: a report stays proportional to the dump), ``fail``
    with kube-scheduler's FailedScheduling text (+ hint), or ``skip`` when the object is not a workload
    or is already bound to a Node, or when the dump holds no Node at all."""
    index = scope.index
    if not index.of_kind("Node"):
        # Nothing is known about placement (a manifest or a namespace dump): no verdict, not a failure.
        return "skip", "no Node in the dump to schedule on", None
    from .schedule.model import shown_nodes

    model = cluster_model(index)
    prediction = model.predict(scope.obj.obj)
    if not prediction.applicable:
        return "skip", prediction.message or "not a workload waiting to be scheduled", None
    raw = (arg or {}).get("nodes")
    if raw is not None:
        return _feasible_among(model, prediction, _TERMS.one(lambda: compile_terms(raw), raw))
    message = prediction.message
    if prediction.hint and (arg or {}).get("hint", True):
        # a success's list of nodes ends without a stop (trial 106: "1/1 nodes are feasible: node-a hint: node ...")
        message = f"{message}{'' if message.endswith('.') else '.'} {prediction.hint}"
    return ("pass" if prediction.schedulable else "fail"), message, shown_nodes(prediction.feasible)


def _feasible_among(model: Any, prediction: Any, terms: tuple[Term, ...] | None) -> tuple[str, str, Any]:
    """``schedulable`` with ``nodes``: ``pass`` with the feasible nodes among those the terms match (a workload that
    could land on a VM workload node's left-over GPUs), ``fail`` when none of them is feasible."""
    from .schedule.model import first_names, shown_nodes

    among, judged = model.feasible_among(prediction, terms)
    if among:  # in kube-scheduler's words for the whole dump ("1/3 nodes are feasible: a"), and how many in all
        # (trial 74: "may place it there" of a pod that fits only there)
        everywhere = len(prediction.feasible)
        return (
            "pass",
            f"{len(among)}/{judged} judged nodes are feasible: {first_names(among)} ({everywhere} of the dump's"
            f" {prediction.total_nodes} nodes {'is' if everywhere == 1 else 'are'} feasible in all)",
            shown_nodes(among),
        )
    if not judged:
        return "fail", "no node of the dump is among the judged nodes", []
    return "fail", f"0/{judged} judged nodes are feasible", []


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
        prepare=_prepare_model,
        notes=_model_notes,
    )
)


def _placeable(value: Any, arg: Any, index: Any) -> bool:
    """``placeable``: whether kube-scheduler would place ``value`` (a Pod, a pod template's owner, a
    VirtualMachineInstance or VirtualMachine waiting to be scheduled) on some Node of the dump now, as ``schedulable``
    judges its object, equals ``arg``. A bound or finished one waits for no placement: it is not placeable, nor is
    anything in a dump without Nodes. The model's prediction is cached by the workload's scheduling signature."""
    if not isinstance(value, dict) or (value.get("kind") != "Pod" and _pod_spec(value) is None):
        # (trial 131: a Node or a ConfigMap was "not placeable", as if it waited)
        raise OperatorError(f"{show(value)} is not a workload (a Pod, a pod template's owner, a VMI or VM)")
    if not index.of_kind("Node"):
        return not arg
    # once per workload and dump (trial 131: a node rule asked it of every pending pod for each node, 2x the rule's
    # time); the value is kept beside its answer, so a recycled id is never taken for it
    answers: dict[int, tuple[Any, bool]] = index.memo("placeable", dict)
    known = answers.get(id(value))
    if known is None or known[0] is not value:
        known = answers[id(value)] = (value, _placed(index, value))
    return known[1] == bool(arg)


def _pod_spec(value: dict[str, Any]) -> dict[str, Any] | None:
    """The pod spec the workload ``value`` would create, None when it is no workload; one whose quantities cannot be
    read is a workload (``_placed`` places it nowhere)."""
    from .schedule.workloads import pod_spec_of

    try:
        return pod_spec_of(value)
    except EvaluationError:
        return {}


def _placed(index: Any, value: dict[str, Any]) -> bool:
    """Whether the model places ``value`` now; a workload whose quantities it cannot read is placed on no node it can
    show (trial 131: such a pending pod made the Node's result an error that quoted the pod's field and not the pod)."""
    try:
        prediction = cluster_model(index).predict(value)
    except EvaluationError:
        return False
    return bool(prediction.applicable and prediction.schedulable)


register(
    Operator(
        "placeable",
        "value",
        StrictBoolean,
        _placeable,
        lambda arg: "a workload kube-scheduler would place on some node" if arg else "a workload no node can take now",
        resolve=False,
        index=True,
        prepare=_prepare_model,
        notes=_model_notes,
        doc="true: the value is a workload waiting to be scheduled (a Pod, a pod template's owner, a VMI or VM) that"
        " kube-scheduler's filters would place on some Node of the dump now, as schedulable judges its object; false:"
        " it is not (no node can take it, it is bound or finished, or the dump holds no Node); see docs/scheduling.md",
    )
)


def _check_terms(terms: Any) -> None:
    """Refuse ``nodes`` that is not a non-empty list of valid node selector terms."""
    if not isinstance(terms, list) or not terms:
        raise ValidationError("nodes takes a non-empty list of node selector terms ({matchExpressions, matchFields})")
    for i, term in enumerate(terms):
        if not isinstance(term, dict) or set(term) - {"matchExpressions", "matchFields"}:
            raise ValidationError(f"nodes[{i}] is not a node selector term ({{matchExpressions, matchFields}})")
        if len(compile_terms([term])) != 1:
            raise ValidationError(
                f"nodes[{i}] does not parse as a node selector term (In/NotIn need values, Exists/DoesNotExist"
                " none, Gt/Lt one integer; an empty term matches nothing)"
            )


def _scope_field() -> fields.Field:
    return fields.Dict(
        keys=fields.String(),
        values=fields.Raw(),
        validate=_options("toleratesNodes", "ignoreRunning", False),
        metadata={
            "description": "options: {nodes: [nodeSelectorTerm, ...]} to judge only the nodes matching one of the"
            " terms; {ignoreRunning: true} to pass a node where its own pod still runs under a NoSchedule taint;"
            " the object itself is the workload"
        },
    )


def check_tolerates_nodes(scope: Any, arg: Any) -> tuple[str, str, Any]:
    """(state, message, observed) for the object in ``scope``: ``pass`` with the selected nodes, ``fail`` with
    the nodes whose taints keep its pod off (kube-scheduler's "node(s) had untolerated taint {k: v}"), or
    ``skip`` when nothing was judged (no Node in the dump, not a workload, nothing waiting, or it selects
    none of the nodes in scope)."""
    index = scope.index
    if not index.of_kind("Node"):
        return "skip", "no Node in the dump", None
    raw = (arg or {}).get("nodes")
    terms = None if raw is None else _TERMS.one(lambda: compile_terms(raw), raw)
    check = cluster_model(index).taint_check(scope.obj.obj, terms, ignore_running=bool((arg or {}).get("ignoreRunning")))
    if not check.applicable:
        return "skip", check.message, None
    if check.tolerated:
        return "pass", check.message, list(check.selected)
    return "fail", check.message, list(check.untolerated)


register(
    Operator(
        "toleratesNodes",
        "object",
        _scope_field,
        check_tolerates_nodes,
        lambda arg: "tolerates the taints of every node it selects",
        resolve=False,
        prepare=_prepare_model,
        notes=_model_notes,
        doc="the workload's pod (a DaemonSet's with the controller's tolerations) tolerates the NoSchedule and"
        " NoExecute taints of every node (among `nodes`, when given) that its node name, nodeSelector and"
        " affinity select; see docs/scheduling.md",
    )
)
