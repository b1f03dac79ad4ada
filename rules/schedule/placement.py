"""Which of the nodes a workload selects keep its pod off with a taint it does not tolerate.

``ClusterModel.predict`` answers "would the pod be placed somewhere?". A DaemonSet asks more: it must run
on *every* node its node name, nodeSelector and affinity select, and the DaemonSet controller silently
skips a selected node whose NoSchedule/NoExecute taints its pod does not tolerate (no pod, no event;
``status.desiredNumberScheduled`` simply counts one node fewer). ``check_taints`` names those nodes.

Source: kubernetes/kubernetes ``pkg/controller/daemon/daemon_controller.go`` ``NodeShouldRunDaemonPod``
(commit 0033f658085b): a node that fails the node name or node affinity is not the DaemonSet's at all; one that fails
only the taints gives ``shouldRun=false`` and ``shouldContinueRunning`` true unless a NoExecute taint is
untolerated, so a pod placed before a NoSchedule taint was added keeps running but is not recreated.
Taint matching is TaintToleration's (``matching.first_untolerated``), worded as kube-scheduler words it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from .cluster import Cluster, first_names
from .matching import NO_EXECUTE, Term, Toleration, first_untolerated


@dataclass(frozen=True, slots=True)
class TaintCheck:
    """The answer of ``check_taints``.

    ``applicable``: False when nothing was judged (not a workload, nothing waiting, no node in scope, or
    the workload selects none of them), ``message`` then says why and ``tolerated`` is True;
    ``tolerated``: no selected node keeps the pod off; ``selected``: sorted names of the nodes in scope
    that the workload selects; ``untolerated``: those whose taints keep its pod off; ``kept``: the selected
    nodes with an untolerated taint where the workload's own pod still runs (only NoSchedule taints are
    untolerated there, and they do not evict), in ``untolerated`` unless running pods are ignored;
    ``reasons``: kube-scheduler's reason -> number of ``untolerated`` nodes;
    ``message``: what was found, e.g. ``2 of the 3 nodes it selects have a taint it does not tolerate:
    2 node(s) had untolerated taint {dedicated: gpu} (gpu-a, gpu-b)``.
    """

    applicable: bool
    tolerated: bool
    message: str
    selected: tuple[str, ...] = ()
    untolerated: tuple[str, ...] = ()
    kept: tuple[str, ...] = ()
    reasons: dict[str, int] = field(default_factory=dict)


def _nodes(n: int, where: str = "") -> str:
    return f"{n}{where} node{'' if n == 1 else 's'}"


def check_taints(
    cluster: Cluster,
    selected: frozenset[int],
    tolerations: tuple[Toleration, ...],
    own_nodes: Iterable[int],
    scope: tuple[Term, ...] | None,
    *,
    ignore_running: bool = False,
) -> TaintCheck:
    """Judge the nodes of ``selected`` (indexes of the nodes the workload's node name, nodeSelector and
    required node affinity select) that are in ``scope`` (node selector terms, ORed; None: every node)
    against ``tolerations`` (the pod's, with the DaemonSet controller's added for a DaemonSet).
    ``own_nodes`` are the nodes where the workload's own pods are bound. A node where such a pod still runs
    under untolerated NoSchedule taints only is ``kept``: it counts as untolerated (the pod would not come
    back after a restart or an update) unless ``ignore_running``."""
    in_scope = cluster.all if scope is None else cluster.affinity_matches(None, scope)
    where = "" if scope is None else " judged"
    if not in_scope:
        return TaintCheck(False, True, f"none of the {_nodes(len(cluster.names))} of the dump is among the nodes judged")
    judged = selected & in_scope
    if not judged:
        return TaintCheck(
            False,
            True,
            f"its node name, nodeSelector and affinity select none of the {_nodes(len(in_scope), where)}",
        )
    groups: dict[str, set[int]] = {}
    for reason, nodes in cluster.taint_failures(tolerations):
        hit = nodes & judged
        if hit:
            groups.setdefault(reason, set()).update(hit)
    off = set().union(*groups.values()) if groups else set()
    kept = {
        i
        for i in set(own_nodes) & off
        if first_untolerated(tuple(t for t in cluster.taints[i] if t.effect == NO_EXECUTE), tolerations) is None
    }
    names = cluster.names_of(judged)
    kept_names = tuple(cluster.names_of(kept))
    if ignore_running:
        groups = {reason: members - kept for reason, members in groups.items() if members - kept}
    blocked = set().union(*groups.values()) if groups else set()
    reasons = {reason: len(members) for reason, members in groups.items()}
    kept_note = ""
    if kept:
        why = ""
        if ignore_running:
            kept_reasons = sorted({r for r, members in cluster.taint_failures(tolerations) if members & kept})
            why = f" under a taint it does not tolerate ({'; '.join(kept_reasons)})"
        kept_note = (
            f"; its pod still runs on {first_names(list(kept_names))}{why}: a NoSchedule taint does not evict a running pod,"
            " but it would not be recreated there"
        )
    if not blocked:
        if kept and ignore_running:
            # The nodes where its pod still runs under a taint it does not tolerate are not free of one.
            free = [n for n in names if n not in set(kept_names)]
            lead = (
                f"no taint keeps it off {len(free)} of the {_nodes(len(names), where)} it selects ({first_names(free)})"
                if free
                else f"it selects {_nodes(len(names), where)}"
            )
        else:
            lead = f"no taint keeps it off the {_nodes(len(names), where)} it selects ({first_names(names)})"
        message = lead + kept_note
        return TaintCheck(True, True, message, tuple(names), (), kept_names, reasons)
    parts = [f"{len(members)} {reason} ({first_names(cluster.names_of(members))})" for reason, members in sorted(groups.items())]
    have = "has" if len(blocked) == 1 else "have"
    message = (
        f"{len(blocked)} of the {_nodes(len(names), where)} it selects {have} a taint it does not tolerate: "
        f"{'; '.join(parts)}{kept_note}"
    )
    return TaintCheck(True, False, message, tuple(names), tuple(cluster.names_of(blocked)), kept_names, reasons)
