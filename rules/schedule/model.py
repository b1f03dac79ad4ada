"""``ClusterModel.predict``: kube-scheduler's filter plugins, run over a whole dump with set algebra.

Sources (kubernetes/kubernetes):
- ``pkg/scheduler/apis/config/v1/default_plugins.go``: the filter order NodeUnschedulable, NodeName,
  TaintToleration, NodeAffinity, NodePorts, NodeResourcesFit, then volume and inter-pod plugins;
- ``pkg/scheduler/schedule_one.go`` ``findNodesThatFitPod``: PreFilter first (a PreFilterResult
  narrows the nodes; the others get "node(s) didn't satisfy plugin(s) [NodeAffinity]"), then each
  node's filters in order, stopping at the first that rejects it; no nodes at all is
  ``ErrNoNodesAvailable``;
- ``pkg/scheduler/framework/types.go`` ``FitError.Error()``: the message;
- ``pkg/controller/daemon/daemon_controller.go`` ``nodeShouldRunDaemonPod``: which nodes a DaemonSet
  targets (node name, node affinity/selector and NoSchedule/NoExecute taints); ``taint_check`` names the
  selected nodes its taints skip (``placement.py``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .cluster import SHOWN, Cluster, Usage, first_names
from .matching import (
    NO_EXECUTE,
    NO_SCHEDULE,
    UNSCHEDULABLE_TAINT_KEY,
    Term,
    Toleration,
    compile_terms,
    first_untolerated,
    get_in,
    items,
    mapping,
    node_selector_of,
    prefilter_node_names,
    required_terms_of,
    selector_matches,
    text,
    tolerates_unschedulable,
    tolerations_of,
)
from .placement import TaintCheck, check_taints
from .resources import cache_key, effective_requests, is_extended, requests_read, scheduler_units
from .workloads import (
    LABEL_SETTERS,
    OVERHEAD_NOTE,
    REPLICATED_KINDS,
    OwnedPods,
    is_kubevirt,
    launcher_overhead,
    not_waiting,
    owned_pods,
    pod_spec_of,
)

NO_NODES = "no nodes available to schedule pods"
REASON_UNSCHEDULABLE = "node(s) were unschedulable"
REASON_NODE_NAME = "node(s) didn't match the requested node name"
REASON_AFFINITY = "node(s) didn't match Pod's node affinity/selector"
REASON_PREFILTER = "node(s) didn't satisfy plugin(s) [NodeAffinity]"
REASON_CONFLICT = "pod affinity terms conflict"


@dataclass(frozen=True, slots=True)
class Prediction:
    """What kube-scheduler would decide for one workload's pod on this dump.

    ``schedulable``: some node is feasible (a DaemonSet: every node it targets is feasible);
    ``feasible``: sorted names of the feasible nodes; ``total_nodes``: nodes in the dump;
    ``message``: on success ``"3/5 nodes are feasible: a, b, c"`` (the first 5 names, then ``and N more``),
    on failure the FailedScheduling text (``"0/3 nodes are available: 3 Insufficient nvidia.com/gpu."``);
    ``reasons``: reason -> number of nodes rejected for it (a node rejected by NodeResourcesFit counts
    once per insufficient resource); ``hint``: verdict's own hint, "" when none (callers append it);
    ``applicable``: False for objects that are not workloads and for those with no pod waiting to be
    scheduled (``workloads.not_waiting``: a bound or finished Pod, a controller scaled to 0, a finished
    or suspended Job, a suspended CronJob, a stopped VM...), in which case nothing was checked,
    ``schedulable`` is True and ``message`` says why.
    """

    schedulable: bool
    feasible: tuple[str, ...]
    total_nodes: int
    message: str
    reasons: dict[str, int] = field(default_factory=dict)
    hint: str = ""
    applicable: bool = True


@dataclass(frozen=True, slots=True)
class PodView:
    """The parts of a pod spec the modelled filters read, parsed once."""

    node_name: str
    node_selector: tuple[tuple[str, str], ...] | None
    terms: tuple[Term, ...] | None
    prefilter: frozenset[str] | None
    tolerations: tuple[Toleration, ...]
    requests: Usage

    @classmethod
    def of(cls, spec: Mapping[str, Any]) -> PodView:
        """Raises ``EvaluationError`` when a resource quantity cannot be parsed."""
        terms: tuple[Term, ...] | None = None
        prefilter: frozenset[str] | None = None
        raw = required_terms_of(spec)
        if raw is not None:
            terms = compile_terms(raw)
            names = prefilter_node_names(raw)
            prefilter = None if names is None else frozenset(names)
        return cls(
            text(spec.get("nodeName")),
            node_selector_of(spec),
            terms,
            prefilter,
            tolerations_of(spec.get("tolerations")),
            scheduler_units(effective_requests(spec)),
        )


def shown_nodes(names: tuple[str, ...] | list[str]) -> list[str]:
    """``names`` for a result's ``observed``: the first ``SHOWN``, then ``"… N more"`` when there are more."""
    if len(names) <= SHOWN:
        return list(names)
    return [*names[:SHOWN], f"… {len(names) - SHOWN:,} more"]


def _signature(kind: str, spec: Mapping[str, Any], owned: Any, replicas: int | None = None, labels: Any = None) -> bytes | None:
    """What a prediction reads of a workload, as a ``cache_key``: the filters see only the pod spec's node name,
    node selector, affinity, tolerations and resources (``requests_read``), and the workload's own pods (``owned``,
    with how many it wants: ``Cluster.competes``), and the labels of its replicas (``_spread_keys``)."""
    return cache_key(
        kind == "DaemonSet",
        kind in _COMPETING_KINDS,
        replicas,
        labels,
        spec.get("nodeName"),
        spec.get("nodeSelector"),
        spec.get("affinity"),
        spec.get("tolerations"),
        requests_read(spec),
        None if owned is None else (owned.namespace, owned.selector, owned.owner),
    )


#: The node lifecycle controller's taints of a node that is down, and what they say of it.
_DOWN_TAINTS = {"node.kubernetes.io/not-ready": "NotReady", "node.kubernetes.io/unreachable": "unreachable"}
#: The tolerations the DefaultTolerationSeconds admission plugin gives every pod it admits (300 s each).
_DEFAULT_TOLERATIONS = tuple(Toleration(key, "Exists", "", NO_EXECUTE) for key in _DOWN_TAINTS)

#: What a cordoned node's own taint asks of a pod: ignored where the hint names cordoned nodes.
_CORDON_TOLERATION = Toleration(UNSCHEDULABLE_TAINT_KEY, "Exists", "", NO_SCHEDULE)


def _replicas(workload: Mapping[str, Any]) -> int | None:
    """How many pods a Deployment, ReplicaSet, StatefulSet or ReplicationController wants (``spec.replicas``, 1 when
    absent); None for another kind (a Job's pods still to run depend on its completions)."""
    if text(workload.get("kind")) not in REPLICATED_KINDS:
        return None
    replicas = mapping(workload.get("spec")).get("replicas", 1)
    return replicas if isinstance(replicas, int) and not isinstance(replicas, bool) else None


#: Kinds whose pods waiting to be placed compete with their bound ones for the same nodes (a DaemonSet's pod is
#: bound to its node, a VM's one pod waits alone).
_COMPETING_KINDS = REPLICATED_KINDS | {"Job"}


def _judged_spec(workload: Any) -> tuple[dict[str, Any] | None, str]:
    """The pod spec ``predict`` and ``taint_check`` judge, or None and why not (``not_waiting``: no pod waits)."""
    if not isinstance(workload, Mapping):
        return None, "not a Kubernetes object"
    idle = not_waiting(workload)
    if idle is not None:
        return None, idle
    spec = pod_spec_of(workload)
    if spec is None:
        return None, f"{text(workload.get('kind')) or 'the object'} is not a workload"
    return spec, ""


def _deployment_owned(workload: Mapping[str, Any]) -> bool:
    """Whether ``workload`` (a ReplicaSet) is one generation of a Deployment, by its owner references."""
    refs = items(mapping(workload.get("metadata")).get("ownerReferences"))
    return any(isinstance(r, Mapping) and text(r.get("kind")) == "Deployment" for r in refs)


def _spread_keys(spec: Mapping[str, Any], labels: Mapping[str, Any], owned: OwnedPods | None) -> tuple[str, ...]:
    """The topology keys of the required pod anti-affinity terms of ``spec`` whose label selector matches the
    workload's own pods (``labels``, its template's) in its own namespace: at most one of them a domain."""
    if owned is None:
        return ()
    own = {str(k): text(v) for k, v in labels.items()}
    keys: list[str] = []
    anti = mapping(mapping(spec.get("affinity")).get("podAntiAffinity"))
    for term in items(anti.get("requiredDuringSchedulingIgnoredDuringExecution")):
        if not isinstance(term, Mapping) or term.get("namespaceSelector") is not None:
            continue
        namespaces = [text(n) for n in items(term.get("namespaces"))]
        key, selector = text(term.get("topologyKey")), term.get("labelSelector")
        if key and isinstance(selector, Mapping) and (not namespaces or owned.namespace in namespaces):
            if selector_matches(selector, own):
                keys.append(key)
    return tuple(keys)


def _histogram(reasons: Mapping[str, int]) -> str:
    """FitError's reason list: ``"%v %v"`` (count, reason), ``sort.Strings``, joined by ", "."""
    return ", ".join(sorted(f"{count} {reason}" for reason, count in reasons.items() if count))


def fit_error(total: int, reasons: Mapping[str, int]) -> str:
    """``FitError.Error()`` without the PostFilter (preemption) part."""
    return f"0/{total} nodes are available: {_histogram(reasons)}."


class ClusterModel:
    """kube-scheduler's filters over one dump, built once from all its Node and Pod objects.

    ``nodes`` and ``pods`` are plain dicts as parsed from JSON/YAML (other kinds are ignored by
    position: pass only Nodes and Pods). Pods bound to a node (``spec.nodeName``) and not Succeeded or
    Failed consume that node's allocatable resources and a pod slot; so does a KubeVirt
    VirtualMachineInstance (``vmis``) running on a node whose virt-launcher pod the dump lacks. ``warnings``
    lists what could not be read (and was skipped). Construction does not raise for malformed objects.
    """

    def __init__(
        self,
        nodes: Iterable[dict[str, Any]],
        pods: Iterable[dict[str, Any]],
        described: Iterable[dict[str, Any]] = (),
        vmis: Iterable[dict[str, Any]] = (),
    ) -> None:
        self._cluster = Cluster(nodes, pods, described, vmis)
        self.warnings: list[str] = self._cluster.warnings
        self._predictions: dict[Any, Prediction] = {}
        self._among: dict[tuple[int, Any], tuple[Prediction, list[str], int]] = {}

    @property
    def node_names(self) -> tuple[str, ...]:
        """The names of the nodes in the dump, sorted."""
        return tuple(self._cluster.names)

    def predict(self, workload: dict[str, Any]) -> Prediction:
        """Predict whether the pod ``workload`` would create can be scheduled.

        ``workload`` is a Pod, a Deployment/ReplicaSet/StatefulSet/DaemonSet/Job/ReplicationController/
        CronJob or a KubeVirt VirtualMachineInstance/VirtualMachine (see ``pod_spec_of``). The
        workload's own bound pods (by its selector, or owned by the VMI) are not counted against it.
        Raises ``EvaluationError`` when the workload's resource quantities cannot be parsed.
        """
        total = len(self._cluster.names)
        spec, why = _judged_spec(workload)
        if spec is None:
            return Prediction(True, (), total, why, applicable=False)
        kind = text(workload.get("kind"))
        owned = owned_pods(workload)
        # Pods of one template (a Deployment's replicas, a DaemonSet's pods, VMs of one size) ask the same:
        # the filters read only the signature, so the prediction is made once for each.
        replicas = _replicas(workload)
        labels = get_in(workload, "spec", "template", "metadata", "labels") if replicas is not None else None
        signature = _signature(kind, spec, owned, replicas, labels)
        found = self._predictions.get(signature) if signature is not None else None
        if found is not None:
            return found
        view = PodView.of(spec)
        own = self._cluster.owned_usage(owned)
        if own and kind in _COMPETING_KINDS and self._cluster.competes(owned, replicas):
            own = {}  # its pods still to place must fit beside its bound ones (trials 108, 109, 111)
        prediction = self._predict_daemon(view, own) if kind == "DaemonSet" else self._predict_pod(view, own)
        # (not a Deployment's ReplicaSet: its controller trades replicas between them in a rollout, trial 116)
        if prediction.schedulable and replicas is not None and not _deployment_owned(workload):
            prediction = self._replica_room(prediction, view, replicas, owned, _spread_keys(spec, mapping(labels), owned))
        if not prediction.schedulable and prediction.reasons.get("Insufficient memory") and is_kubevirt(workload):
            # what the model counts of a VM's memory, where memory is short (trial 185; trial 221 #8: said of every VM
            # that could not be placed, for want of a device or a selector's match too)
            if launcher_overhead(workload):
                hint = f"{prediction.hint}; {OVERHEAD_NOTE}" if prediction.hint else f"hint: {OVERHEAD_NOTE}"
                prediction = dataclasses.replace(prediction, hint=hint)
        if signature is not None:
            self._predictions[signature] = prediction
        return prediction

    def feasible_among(self, prediction: Prediction, terms: tuple[Term, ...] | None) -> tuple[list[str], int]:
        """The feasible nodes of ``prediction`` that match ``terms`` (node selector terms, ORed), in its order, and
        how many nodes of the dump match them."""
        # Pods of one template share a prediction (``predict``): the nodes among its feasible ones are found once
        # for each, not once a pod (50,000 pending pods would walk thousands of feasible names each). The entry
        # keeps its prediction, so that no other object takes its id while it is there.
        key = (id(prediction), terms)
        found = self._among.get(key)
        if found is None:
            c = self._cluster
            judged = c.affinity_matches(None, terms)
            found = (prediction, [n for n in prediction.feasible if c.index[n] in judged], len(judged))
            self._among[key] = found
        return found[1], found[2]

    def taint_check(
        self, workload: dict[str, Any], scope: tuple[Term, ...] | None = None, *, ignore_running: bool = False
    ) -> TaintCheck:
        """Which nodes that ``workload``'s pod selects (node name, nodeSelector, required node affinity), among
        those matching ``scope`` (node selector terms, ORed; None: every node), keep it off with a
        NoSchedule/NoExecute taint its tolerations (a DaemonSet's with the controller's added) do not
        tolerate; with ``ignore_running``, not those where its own pod still runs under NoSchedule taints only
        (``placement.check_taints``). Not applicable to what ``predict`` does not judge (non-workloads,
        nothing waiting). Raises ``EvaluationError`` when the workload's resource quantities cannot be parsed."""
        spec, why = _judged_spec(workload)
        if spec is None:
            return TaintCheck(False, True, why)
        view = PodView.of(spec)
        c = self._cluster
        selected = frozenset(self._static_filters(view, set(c.all), {}, unschedulable=False, taints=False))
        own = c.owned_usage(owned_pods(workload))
        return check_taints(c, selected, view.tolerations, own, scope, ignore_running=ignore_running)

    # -- one pod --------------------------------------------------------------------------------

    def _predict_pod(self, view: PodView, own: dict[int, Usage]) -> Prediction:
        c = self._cluster
        total = len(c.names)
        if total == 0:
            return Prediction(False, (), 0, NO_NODES, {}, self._hint(view))
        if view.node_name:
            return self._admit(view, own)
        reasons: dict[str, int] = {}
        remaining: set[int] = set(c.all)
        if view.prefilter is not None:
            if not view.prefilter:
                return Prediction(
                    False,
                    (),
                    total,
                    f"0/{total} nodes are available: {REASON_CONFLICT}.",
                    {REASON_CONFLICT: total},
                    self._hint(view),
                )
            remaining = {c.index[n] for n in view.prefilter if n in c.index}
            reasons[REASON_PREFILTER] = total - len(remaining)
        start = set(remaining)
        remaining = self._static_filters(view, remaining, reasons, unschedulable=True)
        candidates = set(remaining)
        feasible = self._resources(view, remaining, own, reasons)
        names = c.names_of(feasible)
        reasons = {r: n for r, n in reasons.items() if n}
        if names:
            return Prediction(
                True,
                tuple(names),
                total,
                f"{len(names)}/{total} nodes are feasible: {first_names(names)}",
                reasons,
                self._unsized_hint(candidates),
            )
        # the nodes only a taint keeps it off (trial 170: a VMI pinned to a tainted container node was told of the taint
        # alone, and a pod without the toleration of the one node with its GPUs was never told which toleration)
        tainted = self._static_filters(view, start, {}, unschedulable=True, taints=False) - candidates
        return Prediction(False, (), total, fit_error(total, reasons), reasons, self._hint(view, candidates, tainted=tainted))

    def _admit(self, view: PodView, own: dict[int, Usage]) -> Prediction:
        """A pod whose spec.nodeName names its node skips kube-scheduler (it schedules only pods without one): the
        kubelet there admits it or fails it, for what kubelet's admission checks (pkg/kubelet/lifecycle/predicate.go:
        NodeAffinity and the nodeSelector, NoExecute taints it does not tolerate, then OutOf<resource> from
        NodeResourcesFit's fit); a cordon does not stop it (trial 115: a scheduler's FitError, which no event would
        show, was said of a Deployment whose template names a node without GPUs)."""
        c = self._cluster
        total = len(c.names)
        name = view.node_name
        i = c.index.get(name)
        if i is None:
            if name in c.elsewhere_nodes:
                # trial 117: its replicas ran there, the dump lacking the node
                why = f"its pod names node {name} in spec.nodeName, which the dump lacks (pods of the dump run there)"
                return Prediction(True, (), total, why, applicable=False)
            message = (
                f"its pod names node {name} in spec.nodeName, which is not among the dump's {total} nodes: kube-scheduler"
                " never places a pod that names its node, and no node of the dump runs it"
            )
            return Prediction(False, (), total, message, {REASON_NODE_NAME: total}, self._hint(view))
        refused: list[str] = []
        if (view.node_selector is not None or view.terms is not None) and i not in c.affinity_matches(
            view.node_selector, view.terms
        ):
            refused.append("NodeAffinity")
        # every pod tolerates NoExecute not-ready and unreachable for 300 s: the DefaultTolerationSeconds admission
        # plugin adds them at creation, which a template does not show (trial 117)
        tolerations = (*view.tolerations, *_DEFAULT_TOLERATIONS)
        if first_untolerated([t for t in c.taints[i] if t.effect == NO_EXECUTE], tolerations) is not None:
            refused.append("TaintToleration")
        # the kubelet drops the requests of extended resources its node does not list before it checks the fit
        # (predicate.go removeMissingExtendedResources): the pod runs without them (trial 117)
        dropped = sorted(r for r in view.requests if is_extended(r) and i not in c.listed.get(r, ()) and i not in c.unsized)
        requests = {r: v for r, v in view.requests.items() if r not in dropped}
        for reason, nodes in c.resource_failures(requests, {i}, own):
            if i in nodes:
                refused.append("OutOfpods" if reason == "Too many pods" else "OutOf" + reason.removeprefix("Insufficient "))
        waits = self._node_down(i)
        if not refused and not dropped:
            return Prediction(True, (name,), total, f"1/{total} nodes are feasible: {name}", {}, waits or self._unsized_hint({i}))
        head = f"its pod names node {name} in spec.nodeName, so kube-scheduler never places it"
        if refused:
            message = f"{head}: the kubelet there refuses it at admission ({', '.join(refused)}) and the pod fails"
        else:
            message = (
                f"{head}, and the kubelet there runs it without {', '.join(dropped)}, which that node does not list"
                " (the kubelet drops such requests at admission)"
            )
        reached = {i} if all(r.startswith("OutOf") for r in refused) else set()
        return Prediction(False, (), total, message, {r: 1 for r in refused or dropped}, self._hint(view, reached))

    def _node_down(self, i: int) -> str:
        """The hint for a node NotReady or unreachable (the node lifecycle controller's NoExecute taints)."""
        down = sorted(t.key for t in self._cluster.taints[i] if t.key in _DOWN_TAINTS)
        if not down:
            return ""
        return f"hint: node {self._cluster.names[i]} is {_DOWN_TAINTS[down[0]]} ({down[0]} taint): its pod waits until it is back"

    def _static_filters(
        self, view: PodView, remaining: set[int], reasons: dict[str, int], *, unschedulable: bool, taints: bool = True
    ) -> set[int]:
        """NodeUnschedulable (when asked), NodeName, TaintToleration (unless ``taints`` is False), NodeAffinity, in
        that order; each rejected node is counted under the first filter that rejects it."""
        c = self._cluster

        def reject(bad: set[int] | frozenset[int], reason: str) -> None:
            if bad:
                reasons[reason] = reasons.get(reason, 0) + len(bad)
                remaining.difference_update(bad)

        if unschedulable and not tolerates_unschedulable(view.tolerations):
            reject(c.unschedulable & remaining, REASON_UNSCHEDULABLE)
        if view.node_name:
            wanted = c.index.get(view.node_name)
            reject(remaining - {wanted} if wanted is not None else set(remaining), REASON_NODE_NAME)
        for reason, nodes in c.taint_failures(view.tolerations) if taints else ():
            reject(nodes & remaining, reason)
        if view.node_selector is not None or view.terms is not None:
            reject(remaining - c.affinity_matches(view.node_selector, view.terms), REASON_AFFINITY)
        return remaining

    def _resources(self, view: PodView, remaining: set[int], own: dict[int, Usage], reasons: dict[str, int]) -> set[int]:
        """NodeResourcesFit: counts each insufficient resource of each node; returns the fitting nodes."""
        fitting = set(remaining)
        for reason, nodes in self._cluster.resource_failures(view.requests, remaining, own):
            if nodes:
                reasons[reason] = reasons.get(reason, 0) + len(nodes)
                fitting -= nodes
        return fitting

    # -- replicas ---------------------------------------------------------------------------------

    def _replica_room(
        self, prediction: Prediction, view: PodView, replicas: int, owned: OwnedPods | None, spread: tuple[str, ...]
    ) -> Prediction:
        """``prediction`` for one pod of a replicated workload, failed where its feasible nodes cannot hold all the
        replicas it has still to place (trial 115: 3 replicas of 2 GPUs each "can be scheduled" on the one node with
        2 free). A necessary condition, not a placement: each node's room (``Cluster.room``) summed, and for each
        topology key of its required pod anti-affinity against its own pods (``spread``), one pod a domain not
        holding one of them already (InterPodAffinity's satisfyPodAntiAffinity; a node without the key is not
        constrained). Nodes without allocatable leave it unchecked, and so does a workload with a pod bound to a node
        the dump lacks (trial 116: nodes it may run on are not in the dump, and their room is unknown; trial 117: a
        pod of another workload there, coredns on a CPU node a GPU-node dump leaves out, says nothing of this one's)."""
        c = self._cluster
        to_place = replicas - (c.placed(owned) if owned is not None else 0)
        nodes = [c.index[n] for n in prediction.feasible]
        elsewhere = owned is not None and c.placed_elsewhere(owned) > 0
        if to_place < 2 or elsewhere or any(i in c.unsized for i in nodes):
            return prediction
        room = c.room(view.requests, nodes, owned)
        fit = sum(room.values())
        limit = ""
        taken_on = c.placed_on(owned) if owned is not None else set()
        for key in spread:
            taken = {c.labels[i][key] for i in taken_on if key in c.labels[i]}
            domains = {c.labels[i][key] for i in nodes if key in c.labels[i] and room[i]} - taken
            bound = len(domains) + sum(room[i] for i in nodes if key not in c.labels[i])
            if bound < fit:
                fit, limit = bound, key
        if fit >= to_place:
            return prediction
        feasible = list(prediction.feasible)
        # trial 121: the rule's "cannot be scheduled" headline of a workload one replica of which fits says at once
        # how many do; the hint proposes the two ways out (fewer replicas, more room)
        if limit:
            why = f"and its required pod anti-affinity against its own pods puts at most one in each {limit} domain"
            more = f"add nodes it may run on in other {limit} domains"
        else:
            with_room = [f"{c.names[i]}: {room[i]}" for i in nodes if room[i]]
            why = f"with room for {fit}" + (f" ({first_names(with_room)})" if with_room else "")
            more = "free allocatable on the feasible nodes or add nodes it may run on"
        fits = "none" if fit == 0 else f"only {fit}"
        rest = to_place - fit
        message = (
            f"{fits} of the {to_place} replicas it has still to place {'fits' if fit == 1 else 'fit'}:"
            f" {len(feasible)}/{prediction.total_nodes} nodes are feasible ({first_names(feasible)}), {why}; the"
            f" other {rest} would stay Pending on the dump's nodes as they are now"
        )
        keep = replicas - rest
        scale = f"scale it to {keep} replica{'' if keep == 1 else 's'} (spec.replicas is {replicas}), or " if keep else ""
        hint = f"hint: {scale}{more}"
        if prediction.hint:
            hint = f"{hint}; {prediction.hint.removeprefix('hint: ')}"
        return dataclasses.replace(prediction, schedulable=False, message=message, hint=hint)

    # -- DaemonSet --------------------------------------------------------------------------------

    def _predict_daemon(self, view: PodView, own: dict[int, Usage]) -> Prediction:
        """A DaemonSet runs one pod on every node it targets; it is schedulable when each fits.

        Targeted nodes are those ``nodeShouldRunDaemonPod`` accepts (node name, node affinity/selector,
        taints with the DaemonSet tolerations); the scheduler then only needs NodeResourcesFit to pass
        there (the controller pins the pod to the node, and the DaemonSet tolerations cover
        ``spec.unschedulable``).
        """
        c = self._cluster
        total = len(c.names)
        skipped: dict[str, int] = {}
        targeted = self._static_filters(view, set(c.all), skipped, unschedulable=False)
        failures = [(r, nodes) for r, nodes in c.resource_failures(view.requests, targeted, own) if nodes]
        failing: set[int] = set().union(*(nodes for _, nodes in failures))
        feasible = c.names_of(targeted - failing)
        reasons = {r: n for r, n in skipped.items() if n}
        for reason, nodes in failures:
            reasons[reason] = len(nodes)
        if failing:
            shown = []
            for i in sorted(failing)[:SHOWN]:
                why = ", ".join(reason for reason, nodes in failures if i in nodes)
                shown.append(f"{c.names[i]} ({why})")
            message = f"cannot run on {len(failing)}/{len(targeted)} targeted nodes: {first_names(shown, len(failing))}"
            return Prediction(False, tuple(feasible), total, message, reasons, self._hint(view, unsized=targeted))
        if not targeted:
            detail = f": {_histogram(skipped)}." if skipped else ""
            # Nothing to place (an operand DaemonSet for a workload no node has): no verdict on scheduling.
            return Prediction(True, (), total, f"targets none of the {total} nodes{detail}", reasons, applicable=False)
        message = f"{len(feasible)}/{total} nodes are targeted and feasible: {first_names(feasible)}"
        return Prediction(True, tuple(feasible), total, message, reasons, self._unsized_hint(targeted))

    # -- hint ---------------------------------------------------------------------------------------

    def _in_use(self, resource: str, wanted: int, nodes: set[int]) -> str:
        """How much of ``resource`` the pods bound to ``nodes`` (those the pod may run on that advertise it) hold
        there, where none has ``wanted`` free: the allocatable alone reads as room (trial 114: 8 vGPUs held by
        running VMs, the fix listing allocatable 4 and 4)."""
        c = self._cluster
        sizes, free = c.allocatable.get(resource, {}), c.free.get(resource, {})
        # (a node whose allocatable is below the request is too small, not taken)
        short = sorted(
            (c.names[i], sizes.get(i, 0) - free.get(i, 0), sizes.get(i, 0))
            for i in nodes
            if free.get(i, 0) < wanted <= sizes.get(i, 0)
        )
        if not short:
            return ""
        # (a pod bound to a full node that the kubelet has not admitted yet counts too: trial 117's "5 of 4")
        held = [f"{name} {min(used, size)} of {size}" for name, used, size in short]
        return f"{resource} ({first_names(held)})"

    def _unsized_hint(self, reached: set[int] | frozenset[int]) -> str:
        """The hint for a success: which of the nodes that ``reached`` NodeResourcesFit it could not check."""
        part = self._unsized_part(reached)
        return f"hint: {part}" if part else ""

    def _unsized_part(self, reached: set[int] | frozenset[int]) -> str:
        unsized = self._cluster.unsized & reached
        if not unsized:
            return ""
        names = self._cluster.names_of(unsized)
        if len(names) == 1:
            return f"node {names[0]} has no status.allocatable in the dump: resources not checked"
        return f"nodes {_nodes_text(names)} have no status.allocatable in the dump: resources not checked"

    def _hint(
        self,
        view: PodView,
        candidates: set[int] | None = None,
        *,
        unsized: set[int] | frozenset[int] = frozenset(),
        tainted: set[int] | frozenset[int] = frozenset(),
    ) -> str:
        """Name what nodes advertise instead of a requested extended resource: across the cluster when no
        node advertises it; else, when none of the ``candidates`` (nodes that passed every filter but
        NodeResourcesFit) does, what they advertise of the same domain, e.g. a vm-passthrough node
        advertising ``nvidia.com/GA102GL_A10`` to a Pod asking ``nvidia.com/gpu``.
        Then which of the ``unsized`` nodes (those that reached NodeResourcesFit) were not checked."""
        c = self._cluster
        parts = []
        held: list[str] = []
        cordon_parts: dict[tuple[int, ...], tuple[int, list[str]]] = {}
        for key, value in view.node_selector or ():
            if not c.by_label.get((key, value)):
                why = LABEL_SETTERS.get(key, "")
                parts.append(f"no node has label {key}={value}" + (f" ({why})" if why else ""))
        # a required node affinity of one term with a label requirement no node meets (trial 222 #4: "zone In [z9]"
        # where no node has the label was never said, as a nodeSelector's is)
        if view.terms is not None and len(view.terms) == 1 and not c.affinity_matches(None, view.terms):
            nowhere = _label_nowhere(view.terms[0], c.by_label)
            if nowhere is not None:
                why = LABEL_SETTERS.get(nowhere[0], "")
                parts.append(f"no node has label {nowhere[1]} (its required node affinity)" + (f" ({why})" if why else ""))
        unlabelled = bool(parts)  # a label its selector requires that no node has: every node fails it, as said
        for resource in sorted(view.requests):
            if not is_extended(resource):
                continue
            domain = resource.split("/", 1)[0]
            if not c.advertised.get(resource):
                others = c.advertisers(domain)
                empty = c.registered_empty.get(resource)
                if others or empty:
                    part = f"no node advertises {resource}"
                    if empty:
                        nodes = c.names_of(empty)
                        part += (
                            f" ({_nodes_text(nodes)} {'lists' if len(nodes) == 1 else 'list'} it with 0 devices: no"
                            " device plugin serves it there now)"
                        )
                    if others:
                        listed = [f"{name} ({_nodes_text(nodes)})" for name, nodes in sorted(others.items())]
                        part += f"; nodes advertise {first_names(listed)}"
                    parts.append(part)
                else:
                    # trial 149: a pod asking for an FPGA no node lists got no hint at all
                    parts.append(
                        f"no node of the dump lists {resource}, nor any other {domain}/ resource: the device plugin that"
                        " advertises it runs on none of them (is it installed, and does its DaemonSet select and"
                        " tolerate the nodes?)"
                    )
                continue
            # trial 115: the cordoned node with room was not named where a node the pod may run on advertises the
            # resource but is full: uncordoning it is the one change that places the pod
            # trial 108: a VM waiting for the passthrough GPU of the node being converted, still cordoned, was pointed
            # at another node's resources, and not at the cordon
            cordoned: list[int] = []
            if c.advertised[resource] & c.unschedulable and not tolerates_unschedulable(view.tolerations):
                # those its other filters (node name, taints, affinity) would let it on, the cordon's own taint aside:
                # the node lifecycle controller taints every cordoned node node.kubernetes.io/unschedulable:NoSchedule
                # (trial 109: the hint never showed for a real cordoned node)
                uncordoned = dataclasses.replace(view, tolerations=(*view.tolerations, _CORDON_TOLERATION))
                passing = self._static_filters(uncordoned, set(c.advertised[resource] & c.unschedulable), {}, unschedulable=False)
                # and room for what it asks (trial 111: a cordoned node whose GPUs all run pods was named)
                full: set[int] = set().union(*(nodes for _, nodes in c.resource_failures(view.requests, passing, {})))
                cordoned = sorted(passing - full)
            if cordoned:
                # one clause for the nodes, naming each resource (trial 119: a VM's launcher pod got the clause, and its
                # kubectl uncordon, for devices.kubevirt.io/kvm, tun and vhost-net besides its GPU)
                place = len(parts)
                cordon_parts.setdefault(tuple(cordoned), (place, []))[1].append(resource)
                if cordon_parts[tuple(cordoned)][0] == place:
                    parts.append("")  # its place, written below
            reached = candidates or set()
            # none passed its filters: where its node name, selector and affinity let it, a taint aside
            loose = not reached and bool(tainted)
            reached = reached or set(tainted)
            if reached & c.advertised[resource] and not loose:
                # a node the pod may run on advertises it: it lacks room, which its Insufficient reason says, or it asks
                # for more than any such node has at all (trial 90: 8 GPUs of a node with 4 drew no word of it)
                sizes = c.allocatable.get(resource, {})
                pool = reached & c.advertised[resource]
                most = max(sizes.get(i, 0) for i in pool)
                if view.requests[resource] > most:
                    # each node that has the most (trial 243 #2: of two with 2, the one the report says should not
                    # serve the resource was named alone)
                    at = _nodes_text(c.names_of(i for i in pool if sizes.get(i, 0) == most))
                    parts.append(
                        f"it asks for {view.requests[resource]} {resource}, more than any node it may run on has"
                        f" allocatable (at most {most}, on {at})"
                    )
                elif used := self._in_use(resource, view.requests[resource], reached & c.advertised[resource]):
                    held.append(used)
                # trial 198: beside them, a node it may run on listing the resource at 0 went unnamed (a passthrough
                # node whose container plugin left, "the node clearly has 8 GPUs")
                at_zero = sorted((reached - c.advertised[resource]) & c.registered_empty.get(resource, set()))
                if at_zero:
                    names = c.names_of(at_zero)
                    parts.append(
                        f"{_nodes_text(names)} {'lists' if len(names) == 1 else 'list'} {resource} with 0 devices: no"
                        " device plugin serves it there now"
                    )
                continue
            lacking = sorted(reached - c.advertised[resource])
            same_domain = c.domain_resources(domain) if lacking else {}
            shown = []
            empty_here = c.registered_empty.get(resource, set())
            for i in lacking:
                instead = sorted(name for name, members in same_domain.items() if i in members)
                if instead:
                    # trial 129: the 0 was left unsaid where the node advertises another name of the domain
                    # (named again: "advertises X, Y and lists it" read as Y at 0, trial 131)
                    zero = f" and lists {resource} with 0 devices: no device plugin serves it there now"
                    zero = zero if i in empty_here else ""
                    shown.append(f"{c.names[i]} advertises {', '.join(instead)}{zero}")
                elif i in empty_here:
                    # trial 64: a pod pinned to a node whose device plugin left the resource at 0 was told only
                    # "Insufficient"
                    shown.append(f"{c.names[i]} lists it with 0 devices: no device plugin serves it there now")
            if shown:
                where = "where its node name, selector and affinity let it run" if loose else "where the pod may run"
                parts.append(f"{resource} is not advertised {where}: {first_names(shown, sep='; ')}")
            # trial 218 #9: a VM pinned to a container node by its selector was told what that node advertises, and not
            # which node advertises the device it asks for (a taint or a cordon keeping it off is said on its own)
            elsewhere = c.advertised[resource] - reached
            # (a pod naming its node in spec.nodeName skips kube-scheduler: its prediction says what the kubelet does; one
            # pinned by a metadata.name field term, as the DaemonSet controller pins its pods, is meant for its node;
            # where no node matches the selector or affinity at all, every node is kept off, and naming them says
            # nothing of why: trial 222 #4)
            pinned = view.node_name or view.prefilter is not None
            if (
                elsewhere
                and not unlabelled
                and not pinned
                and (view.node_selector is not None or view.terms is not None)
                and c.affinity_matches(view.node_selector, view.terms)
            ):
                off = sorted(elsewhere - self._static_filters(view, set(elsewhere), {}, unschedulable=False, taints=False))
                if off:
                    names = c.names_of(off)
                    one = len(names) == 1
                    advertise, match = ("advertises", "does not match") if one else ("advertise", "do not match")
                    parts.append(f"{_nodes_text(names)} {advertise} {resource} but {match} the pod's node selector or affinity")
            kept_off = sorted(tainted & c.advertised[resource])
            taint = first_untolerated(c.taints[kept_off[0]], view.tolerations) if kept_off else None
            if taint is not None:
                names = c.names_of(kept_off)
                one = len(names) == 1
                written = f"{taint.key}={taint.value}:{taint.effect}" if taint.value else f"{taint.key}:{taint.effect}"
                # a node's own condition (not ready, out of disk...) is no taint to tolerate: it is lifted when the node is well
                lets = (
                    "set by Kubernetes for the node's condition: it takes pods again once that is cleared"
                    if taint.key.startswith("node.kubernetes.io/")
                    else f"a toleration {{key: {taint.key}, operator: Exists, effect: {taint.effect}}} lets it on"
                )
                parts.append(
                    f"{_nodes_text(names)} {'advertises' if one else 'advertise'} {resource} but"
                    f" {'has' if one else 'have'} taint {written}, which the pod does not tolerate ({lets})"
                )
        for group, (place, resources) in cordon_parts.items():
            names = c.names_of(group)
            one = len(names) == 1
            # (trial 109: three cordoned nodes, the command named the first; trial 111: "and 2 more" inside it)
            more = (
                f"; {len(names) - SHOWN} more: kubectl get nodes --field-selector spec.unschedulable=true"
                if len(names) > SHOWN
                else ""
            )
            parts[place] = (
                f"{_nodes_text(names)} {'advertises' if one else 'advertise'} {_and(resources)} with room for it but"
                f" {'is' if one else 'are'} cordoned (spec.unschedulable: kubectl uncordon {' '.join(names[:SHOWN])}"
                f" once {'it is' if one else 'they are'} ready for pods{more})"
            )
        if held:
            # one clause for every resource (trial 117: it was said again for each)
            parts.append(f"the pods bound where it may run hold {' and '.join(held)}")
        unsized_part = self._unsized_part(unsized)
        if unsized_part:
            parts.append(unsized_part)
        return "hint: " + "; ".join(parts) if parts else ""


def _label_nowhere(term: Term, by_label: Mapping[tuple[str, str], set[int]]) -> tuple[str, str] | None:
    """The first label requirement of ``term`` (``In`` or ``Exists``) that no node's labels meet on its own, as its key
    and how a hint writes it (``zone=z9``, ``zone in (a, b)``, ``zone``); None where each is met by some node."""
    for r in term.labels:
        if r.operator == "In" and not any((r.key, v) in by_label for v in r.values):
            values = sorted(r.values)
            return r.key, f"{r.key}={values[0]}" if len(values) == 1 else f"{r.key} in ({', '.join(values)})"
        if r.operator == "Exists" and not any(key == r.key for key, _ in by_label):
            return r.key, r.key
    return None


def _and(words: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def _nodes_text(nodes: list[str]) -> str:
    if len(nodes) <= 2:
        return ", ".join(nodes)
    return f"{nodes[0]}, {nodes[1]} and {len(nodes) - 2} more"
