"""The nodes and bound pods of one dump, indexed so that each filter is a few set operations.

Built once per dump (``Cluster(nodes, pods)``), then asked, per workload, for sets of node indexes:
which nodes are unschedulable, which fail a toleration set (grouped by the reason), which match a
node selector and affinity, which lack a requested resource. A node is an ``int`` (its position in
``names``); sets of them are plain ``set``/``frozenset`` so that set algebra runs in C.

Resource accounting follows ``pkg/scheduler/framework/types.go`` ``NodeInfo``: ``Allocatable`` from
``status.allocatable`` (``status.capacity`` when it is absent, as the API server's
``SetDefaults_NodeStatus`` does; a node with neither is ``unsized``: the dump does not say, so
NodeResourcesFit does not reject it); ``Requested`` summed over the pods bound to the node
(``spec.nodeName``) whose phase is not Succeeded/Failed (the scheduler's pod informer drops those),
each pod converted to integers on its own (cpu milli-units, other resources rounded up), and the pod
count. A node rebuilt from ``kubectl describe node`` text carries kubectl's own sum of its pods' requests
(``Allocated resources``, annotation ``verdict.dev/allocated-requests``): its rebuilt pods show CPU and memory
only, so each resource's requested amount is at least that sum.
"""

from __future__ import annotations

import json
import math
import re
from bisect import bisect_left
from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

from ..describe import ALLOCATED_KEY, rebuilt
from ..errors import EvaluationError
from ..quantity import QuantityError
from .matching import (
    Requirement,
    Taint,
    Term,
    Toleration,
    expression_requirements,
    filter_taints,
    first_untolerated,
    get_in,
    items,
    mapping,
    parse_int64,
    text,
)
from .resources import (
    CPU,
    EPHEMERAL_STORAGE,
    MEMORY,
    PODS,
    cache_key,
    effective_requests,
    is_extended,
    quantity,
    requests_read,
    scheduler_units,
)
from .workloads import TERMINAL_PHASES, OwnedPods, is_kubevirt, launcher_base, vmi_pod_spec

Usage = dict[str, int]
#: A name made by ``generateName``: the stem, a dash and 5 characters of the API server's random alphabet
#: (``k8s.io/apiserver/pkg/storage/names``: consonants and digits, lower case).
_GENERATED = re.compile(r"^(.+)-[a-z0-9]{5}$")
#: A ReplicaSet a Deployment made: ``<deployment>-<pod-template-hash>``, the hash in the API server's safe alphabet
#: (``k8s.io/apimachinery/pkg/util/rand.SafeEncodeString``: no vowels, so ``nvidia-driver`` is no hashed name).
_HASHED = re.compile(r"^(.+)-[bcdfghjklmnpqrstvwxz2456789]{6,10}$")
_EMPTY: frozenset[int] = frozenset()
#: Node names a message lists before it says how many more: a list of nodes stays short whatever the cluster's size.
SHOWN = 5


def first_names(names: list[str], total: int | None = None, sep: str = ", ") -> str:
    """The first ``SHOWN`` of ``names`` joined by ``sep``, then ``and N more`` (of ``total`` when the list given
    is cut already)."""
    rest = (len(names) if total is None else total) - min(len(names), SHOWN)
    return sep.join(names[:SHOWN]) + (f" and {rest:,} more" if rest > 0 else "")


_CACHE_LIMIT = 512
#: The warning's end for a Node name that stands twice (a report's conflict notes say those; identical copies are no conflict).
TWICE = "appears twice; the first one is used"
#: The pods a node takes where its allocatable does not say: the kubelet's default --max-pods
#: (SetDefaults_KubeletConfiguration in pkg/kubelet/apis/config/v1beta1/defaults.go;
#: https://kubernetes.io/docs/reference/config-api/kubelet-config.v1beta1/, maxPods "Default: 110").
DEFAULT_MAX_PODS = 110
_SMALL = 64


class Cluster:
    """Indexes over the nodes and bound pods of one dump. Read-only after construction.

    ``warnings`` lists what was skipped while reading (a node without a name, a quantity that does
    not parse); the rest of the dump is still modelled.
    """

    def __init__(
        self,
        nodes: Iterable[Mapping[str, Any]],
        pods: Iterable[Mapping[str, Any]],
        described: Iterable[Mapping[str, Any]] = (),
        vmis: Iterable[Mapping[str, Any]] = (),
    ) -> None:
        """``described``: Nodes rebuilt from describe text that the dump also holds in full (the index keeps the
        full one): their Allocated resources still give the same-named node its requested floor. ``vmis``: KubeVirt
        VirtualMachineInstances; one that runs on a node (``status.nodeName``) whose virt-launcher pod the dump
        does not hold takes that pod's place (``_add_vmi``)."""
        self.warnings: list[str] = []
        self.names: list[str] = []
        self.index: dict[str, int] = {}
        self.labels: list[dict[str, str]] = []
        self.taints: list[tuple[Taint, ...]] = []
        self.by_label: dict[tuple[str, str], set[int]] = {}
        self.by_key: dict[str, set[int]] = {}
        #: Extended resources a node lists with 0: the kubelet keeps a device plugin's resource at 0 once the
        #: plugin stopped serving it (pkg/kubelet/nodestatus/setters.go, "Set capacity for removed resource to 0").
        self.registered_empty: dict[str, set[int]] = {}
        unschedulable: set[int] = set()
        unsized: set[int] = set()
        allocatable: list[Usage] = []
        #: Per node, what describe text's Allocated resources says its pods request (see the module's docstring).
        self._allocated: dict[int, Usage] = {}
        named: dict[str, Mapping[str, Any]] = {}
        for node in nodes:
            name = get_in(node, "metadata", "name")
            if not name:
                self.warnings.append("a Node without metadata.name was skipped")
            elif str(name) in named:
                self.warnings.append(f"Node {name} {TWICE}")
            else:
                named[str(name)] = node
        #: The nodes whose allocatable lists no pods, with what each was taken as (one note for them all)
        self.missing_pods: list[str] = []
        # Node i is the i-th name in sorted order, so sorting indexes sorts names.
        for name in sorted(named):
            self._add_node(name, named[name], unschedulable, unsized, allocatable)
        if self.missing_pods:
            # (one note for them all: trial 217 saw a lab of twelve such nodes fill every note the report keeps)
            more = f" and {len(self.missing_pods) - SHOWN} more" if len(self.missing_pods) > SHOWN else ""
            self.warnings.append(
                "Nodes whose status.allocatable lists no pods, which every kubelet reports (a node written by hand, or"
                " its describe text cut), are taken to hold as many pods as their capacity lists, else"
                f" {DEFAULT_MAX_PODS}, the kubelet's default --max-pods: {', '.join(self.missing_pods[:SHOWN])}{more}"
            )
        for node in described:
            i = self.index.get(text(get_in(node, "metadata", "name")))
            if i is not None and i not in self._allocated:
                self._add_allocated(i, self.names[i], node)
        self.all: frozenset[int] = frozenset(range(len(self.names)))
        self.unschedulable = frozenset(unschedulable)
        #: Nodes whose allocatable resources the dump does not give: NodeResourcesFit passes them.
        self.unsized = frozenset(unsized)
        self.taint_groups: dict[tuple[Taint, ...], set[int]] = {}
        for i, taints in enumerate(self.taints):
            if taints:
                self.taint_groups.setdefault(taints, set()).add(i)

        self.advertised: dict[str, set[int]] = {}
        #: allocatable[r][i] for the extended resources a node advertises, for the hint (a request larger than any
        #: node's allocatable, which no rescheduling frees).
        self.allocatable: dict[str, dict[int, int]] = {}
        #: the nodes that list each extended resource in allocatable, at any count: the kubelet drops from a pod it
        #: admits the requests of those its node does not list (pkg/kubelet/lifecycle/predicate.go)
        self.listed: dict[str, set[int]] = {}
        for i, alloc in enumerate(allocatable):
            for name, value in alloc.items():
                if is_extended(name):
                    self.listed.setdefault(name, set()).add(i)
                if value > 0 and name != PODS:
                    self.advertised.setdefault(name, set()).add(i)
                    if is_extended(name):
                        self.allocatable.setdefault(name, {})[i] = value

        self._pod_node: list[int] = []
        self._pod_usage: list[Usage] = []
        self._pod_rebuilt: list[bool] = []
        self._pod_labels: list[dict[str, str]] = []
        self._pods_by_label: dict[tuple[str, str, str], list[int]] = {}
        self._pods_by_namespace: dict[str, list[int]] = {}
        self._pods_by_owner: dict[tuple[str, str, str], list[int]] = {}
        #: Pods waiting to be placed (no spec.nodeName), and pods bound to nodes the dump lacks, neither finished nor
        #: being deleted, by owner and by label: whether a workload's pods compete with it (``competes``).
        self._waiting = _PodIndex()
        self._elsewhere = _PodIndex()
        #: the nodes the dump lacks that its pods (not finished) are bound to
        self.elsewhere_nodes: set[str] = set()
        #: Per bound pod of the dump: it is being deleted (metadata.deletionTimestamp), so no replica of its workload.
        self._pod_deleting: list[bool] = []
        # Pods with no labels and no owner (rebuilt from describe text), by (namespace, generateName stem), and by the
        # stem of a Deployment's pod (<deployment>-<pod-template-hash>-<5 characters>: the stem without its hash).
        self._pods_by_stem: dict[tuple[str, str], list[int]] = {}
        self._pods_by_deployment: dict[tuple[str, str], list[int]] = {}
        #: virt-launcher pods without labels and owner references (rebuilt from describe text), by (namespace, name
        #: without its 5 random characters)
        self._pods_by_launcher: dict[tuple[str, str], list[int]] = {}
        used: list[Usage] = [{} for _ in self.names]
        self._usage_cache: dict[bytes, Usage] = {}
        for pod in pods:
            self._add_pod(pod, used)
        for vmi in vmis:
            self._add_vmi(vmi, used)
        del self._usage_cache
        #: Per node, what its floor holds beyond the requests of the pods the dump shows there: taken by pods whose
        #: requests describe text does not show (a GPU of a rebuilt pod), so a workload owning a rebuilt pod there
        #: may own that part too (review: a Deployment whose 4 pods held the node's 4 GPUs could not place its own).
        self._unexplained: dict[int, Usage] = {}
        for i, floor in self._allocated.items():
            into = used[i]
            for name, value in floor.items():
                known = into.get(name, 0)
                if value > known:
                    self._unexplained.setdefault(i, {})[name] = value - known
                    into[name] = value

        # free[r][i] = allocatable - requested, for nodes with an entry for r (others have 0 free).
        self.free: dict[str, dict[int, int]] = {}
        for i, (alloc, use) in enumerate(zip(allocatable, used, strict=True)):
            for name in alloc.keys() | use.keys():
                self.free.setdefault(name, {})[i] = alloc.get(name, 0) - use.get(name, 0)
        pods_free = self.free.get(PODS, {})
        self.too_many = frozenset(i for i in self.all if pods_free.get(i, 0) < 1)
        self._sorted: dict[str, tuple[list[int], list[int]]] = {}
        self._entries: dict[str, frozenset[int]] = {}
        self._int_labels: dict[str, list[tuple[int, int]]] = {}
        self._taint_cache: dict[tuple[Toleration, ...], list[tuple[str, frozenset[int]]]] = {}
        self._affinity_cache: dict[Any, frozenset[int]] = {}

    # -- construction -------------------------------------------------------------------------

    def _add_node(
        self, name: str, node: Mapping[str, Any], unschedulable: set[int], unsized: set[int], allocatable: list[Usage]
    ) -> None:
        i = len(self.names)
        self.names.append(name)
        self.index[name] = i
        labels = {str(k): text(v) for k, v in mapping(get_in(node, "metadata", "labels")).items()}
        self.labels.append(labels)
        for key, value in labels.items():
            self.by_label.setdefault((key, value), set()).add(i)
            self.by_key.setdefault(key, set()).add(i)
        self.taints.append(filter_taints(get_in(node, "spec", "taints")))
        if get_in(node, "spec", "unschedulable") is True:
            unschedulable.add(i)
        self._add_allocated(i, name, node)
        status = mapping(node.get("status"))
        where, raw = "allocatable", status.get("allocatable")
        if raw is None or raw == {}:
            # SetDefaults_NodeStatus: an absent allocatable is the capacity. ({} is taken as absent too:
            # no kubelet reports a node with nothing, not even pods, to allocate.)
            where, raw = "capacity", status.get("capacity")
        if raw is not None and not isinstance(raw, Mapping):
            self.warnings.append(f"Node {name}: status.{where} is not a mapping; resources not checked")
            raw = None
        if not raw:
            unsized.add(i)
            allocatable.append({})
            return
        alloc: dict[str, Fraction] = {}
        for resource, amount in raw.items():
            try:
                alloc[str(resource)] = quantity(amount)
            except QuantityError as err:
                self.warnings.append(f"Node {name}: status.{where}.{resource}: {err}; taken as 0")
        for resource, amount in alloc.items():
            if amount == 0 and is_extended(resource):
                self.registered_empty.setdefault(resource, set()).add(i)
        if PODS not in raw:
            # Every kubelet reports how many pods its node takes (--max-pods): a node written by hand left it out
            # (a lab of three nodes with their GPUs: trial 216's every pod was "Too many pods"), and the evident
            # assumption is its capacity's, else the kubelet's default, said in a note (trial 217: not where pods is
            # there and no quantity, which is taken as 0 as said; nor past a capacity that lists it)
            listed = mapping(status.get("capacity")).get(PODS) if where == "allocatable" else None
            try:
                alloc[PODS] = quantity(listed)
            except QuantityError:
                alloc[PODS] = Fraction(DEFAULT_MAX_PODS)
            self.missing_pods.append(f"{name} ({math.ceil(alloc[PODS])})")
        allocatable.append(scheduler_units(alloc, pods=True))

    def _add_allocated(self, i: int, name: str, node: Mapping[str, Any]) -> None:
        """Node ``i``'s requested floor from describe text's Allocated resources (an annotation the reader wrote on
        the nodes it rebuilt: on another node it is not taken)."""
        annotations = get_in(node, "metadata", "annotations")
        raw = mapping(annotations).get(ALLOCATED_KEY)
        if raw is None or not rebuilt(annotations):
            return
        try:
            sums = json.loads(raw) if isinstance(raw, str) else None
            if not isinstance(sums, dict):
                raise ValueError("not a JSON object")
            self._allocated[i] = scheduler_units({str(k): quantity(v) for k, v in sums.items()})
        except (ValueError, QuantityError) as err:
            self.warnings.append(f"Node {name}: annotation {ALLOCATED_KEY}: {err}; its Allocated resources are not counted")

    def _add_pod(self, pod: Mapping[str, Any], used: list[Usage]) -> None:
        spec = mapping(mapping(pod).get("spec"))
        node = self.index.get(text(spec.get("nodeName")))
        if node is None:
            if text(spec.get("nodeName")):
                self._elsewhere.add(pod)
                if text(get_in(pod, "status", "phase")) not in TERMINAL_PHASES:
                    self.elsewhere_nodes.add(text(spec.get("nodeName")))
            else:
                self._waiting.add(pod)
            return
        if text(get_in(pod, "status", "phase")) in TERMINAL_PHASES:
            return
        meta = mapping(pod.get("metadata"))
        # Pods of one template request alike: their usage is worked out once (50,000 bound pods of a
        # 5,000-node dump have a few hundred distinct specs of resources).
        signature = cache_key(requests_read(spec))
        known = self._usage_cache.get(signature) if signature is not None else None
        if known is not None:
            usage = dict(known)
        else:
            try:
                usage = scheduler_units(effective_requests(spec))
            except (EvaluationError, ValueError, ArithmeticError) as err:
                # EvaluationError names the field; the others would be a parser bug, still not fatal.
                self.warnings.append(f"Pod {meta.get('namespace')}/{meta.get('name')}: {err}; its requests are not counted")
                usage = {}
            else:
                if signature is not None:
                    self._usage_cache[signature] = dict(usage)
        usage[PODS] = 1
        into = used[node]
        for name, value in usage.items():
            into[name] = into.get(name, 0) + value

        p = len(self._pod_node)
        self._pod_node.append(node)
        self._pod_usage.append(usage)
        self._pod_rebuilt.append(rebuilt(meta.get("annotations")))
        self._pod_deleting.append(bool(meta.get("deletionTimestamp")))
        labels = {str(k): text(v) for k, v in mapping(meta.get("labels")).items()}
        self._pod_labels.append(labels)
        namespace = text(meta.get("namespace")) or "default"
        self._pods_by_namespace.setdefault(namespace, []).append(p)
        for key, label in labels.items():
            self._pods_by_label.setdefault((namespace, key, label), []).append(p)
        refs = items(meta.get("ownerReferences"))
        for ref in refs:
            if isinstance(ref, Mapping):
                owner = (namespace, text(ref.get("kind")), text(ref.get("name")))
                self._pods_by_owner.setdefault(owner, []).append(p)
        pod_name = text(meta.get("name"))
        if pod_name.startswith("virt-launcher-") and len(pod_name) > len("virt-launcher-") + 5 and not labels and not refs:
            # by name only where nothing else tells its VMI (rebuilt from describe text): two VMIs whose names share
            # their first 44 characters have launcher pods named alike (trial 102: one took the other's pod)
            self._pods_by_launcher.setdefault((namespace, pod_name[:-5]), []).append(p)
        generated = _GENERATED.match(pod_name)
        if generated and not labels and not refs:
            self._pods_by_stem.setdefault((namespace, generated.group(1)), []).append(p)
            hashed = _HASHED.match(generated.group(1))
            if hashed:
                self._pods_by_deployment.setdefault((namespace, hashed.group(1)), []).append(p)

    def _add_vmi(self, vmi: Mapping[str, Any], used: list[Usage]) -> None:
        """A VirtualMachineInstance that runs on a node holds what its virt-launcher pod requests there (its GPUs and
        host devices, its domain's requests; not KubeVirt's overhead): counted as that pod when the dump does not
        hold the pod itself (trial 99: VMs and VMIs pasted without their pods left a running VMI's GPU free, and a
        VM asking for it "can be scheduled"). The pod is known by its owner reference to the VMI, its
        kubevirt.io/created-by label (the VMI's uid), or its name (``launcher_base``: rebuilt from describe text)."""
        if not is_kubevirt(vmi) or text(get_in(vmi, "status", "phase")) in TERMINAL_PHASES:
            return
        node = text(get_in(vmi, "status", "nodeName"))
        meta = mapping(vmi.get("metadata"))
        name, namespace = text(meta.get("name")), text(meta.get("namespace")) or "default"
        if node not in self.index or not name:
            return
        uid = text(meta.get("uid"))
        if (
            (namespace, "VirtualMachineInstance", name) in self._pods_by_owner
            or (namespace, launcher_base(name)) in self._pods_by_launcher
            # KubeVirt labels its launcher pods with the VMI's uid (template.go, kubevirt.io/created-by)
            or (uid and (namespace, "kubevirt.io/created-by", uid) in self._pods_by_label)
        ):
            return
        try:
            spec = vmi_pod_spec(mapping(vmi.get("spec")))
        except EvaluationError as err:
            self.warnings.append(f"VirtualMachineInstance {namespace}/{name}: {err}; what it holds on {node} is not counted")
            return
        launcher = {
            "metadata": {
                "name": f"virt-launcher-{name}",
                "namespace": namespace,
                "ownerReferences": [{"kind": "VirtualMachineInstance", "name": name}],
            },
            "spec": {**spec, "nodeName": node},
            "status": {"phase": "Running"},
        }
        self._add_pod(launcher, used)

    # -- filters ------------------------------------------------------------------------------

    def taint_failures(self, tolerations: tuple[Toleration, ...]) -> list[tuple[str, frozenset[int]]]:
        """Nodes TaintToleration rejects for these tolerations, grouped by reason (each node once,
        under its first untolerated taint)."""
        cached = self._taint_cache.get(tolerations)
        if cached is None:
            by_reason: dict[str, set[int]] = {}
            for taints, members in self.taint_groups.items():
                taint = first_untolerated(taints, tolerations)
                if taint is not None:
                    by_reason.setdefault(taint.reason(), set()).update(members)
            cached = [(reason, frozenset(members)) for reason, members in by_reason.items()]
            self._remember(self._taint_cache, tolerations, cached)
        return cached

    def affinity_matches(
        self, node_selector: tuple[tuple[str, str], ...] | None, terms: tuple[Term, ...] | None
    ) -> frozenset[int]:
        """Nodes matching ``nodeSelector`` (every pair) and, when given, the required terms (any)."""
        key = (node_selector, terms)
        cached = self._affinity_cache.get(key)
        if cached is not None:
            return cached
        result: set[int] | frozenset[int] = self.all
        for pair in node_selector or ():
            result = result & self.by_label.get(pair, _EMPTY)
        if terms is not None:
            matched: set[int] = set()
            for term in terms:
                matched |= self._term_nodes(term)
            result = result & matched
        cached = frozenset(result)
        self._remember(self._affinity_cache, key, cached)
        return cached

    def _term_nodes(self, term: Term) -> set[int] | frozenset[int]:
        result: set[int] | frozenset[int] = self.all
        for req in term.labels:
            result = result & self._label_nodes(req)
        for req in term.fields:
            result = result & self._field_nodes(req)
        return result

    def _label_nodes(self, req: Requirement) -> set[int] | frozenset[int]:
        op = req.operator
        if op in ("In", "NotIn"):
            hit: set[int] = set()
            for value in req.values:
                hit |= self.by_label.get((req.key, value), _EMPTY)
            return hit if op == "In" else self.all - hit
        if op == "Exists":
            return self.by_key.get(req.key, _EMPTY)
        if op == "DoesNotExist":
            return self.all - self.by_key.get(req.key, _EMPTY)
        numbers = self._int_labels.get(req.key)
        if numbers is None:
            numbers = []
            for i in self.by_key.get(req.key, _EMPTY):
                number = parse_int64(self.labels[i][req.key])
                if number is not None:
                    numbers.append((number, i))
            self._int_labels[req.key] = numbers
        if op == "Gt":
            return {i for number, i in numbers if number > req.number}
        return {i for number, i in numbers if number < req.number}

    def _field_nodes(self, req: Requirement) -> frozenset[int]:
        (value,) = req.values
        if req.key == "metadata.name":
            hit = frozenset([self.index[value]]) if value in self.index else _EMPTY
        else:
            hit = self.all if value == "" else _EMPTY
        return hit if req.operator == "In" else self.all - hit

    def resource_failures(
        self, requests: Usage, nodes: set[int] | frozenset[int], own: dict[int, Usage]
    ) -> list[tuple[str, set[int]]]:
        """NodeResourcesFit over ``nodes``: ``[(reason, failing nodes)]`` in upstream's check order
        (pods, cpu, memory, ephemeral-storage, then scalar resources by name). ``own`` gives, per
        node, the usage of the workload's own pods, which is not counted against it. ``unsized``
        nodes are never in a failing set."""
        out: list[tuple[str, set[int]]] = []
        if self.unsized:
            nodes = nodes - self.unsized  # nothing known to compare: they pass
        too_many = set(self.too_many & nodes)
        pods_free = self.free.get(PODS, {})
        owned = own.keys() & nodes
        for i in owned:
            if pods_free.get(i, 0) + own[i].get(PODS, 0) < 1:
                too_many.add(i)
            else:
                too_many.discard(i)
        out.append(("Too many pods", too_many))
        order = [r for r in (CPU, MEMORY, EPHEMERAL_STORAGE) if r in requests]
        order += sorted(r for r in requests if r not in (CPU, MEMORY, EPHEMERAL_STORAGE))
        for name in order:
            wanted = requests[name]
            failing = self._short_of(name, wanted, nodes)
            free = self.free.get(name, {})
            for i in owned:
                if free.get(i, 0) + own[i].get(name, 0) < wanted:
                    failing.add(i)
                else:
                    failing.discard(i)
            out.append((f"Insufficient {name}", failing))
        return out

    def _short_of(self, name: str, wanted: int, nodes: set[int] | frozenset[int]) -> set[int]:
        """Nodes among ``nodes`` with less than ``wanted`` (> 0) of ``name`` free."""
        free = self.free.get(name)
        if not free:
            return set(nodes)
        if len(nodes) <= _SMALL:
            return {i for i in nodes if free.get(i, 0) < wanted}
        if name not in self._sorted:
            ranked = sorted((value, i) for i, value in free.items())
            self._sorted[name] = ([v for v, _ in ranked], [i for _, i in ranked])
            self._entries[name] = frozenset(free)
        values, indexes = self._sorted[name]
        cut = bisect_left(values, wanted)
        # Build the smaller side of the cut: the nodes short of it, or the ones with enough.
        if cut <= len(indexes) - cut:
            failing = set(indexes[:cut]).intersection(nodes)
        else:
            failing = set(nodes).difference(indexes[cut:])
        if len(indexes) < len(self.names):
            failing |= nodes - self._entries[name]  # no entry: nothing free
        return failing

    # -- the workload's own pods ----------------------------------------------------------------

    def owned_usage(self, owned: OwnedPods | None) -> dict[int, Usage]:
        """Per node, the summed usage (with ``pods`` counts) of the bound pods ``owned`` selects."""
        if owned is None:
            return {}
        found = self._owned(owned)
        out = self._usage_by_node(found)
        rebuilt_on = {self._pod_node[p] for p in found if self._pod_rebuilt[p]}
        # the part of a node's floor no shown request explains may be its own rebuilt pods' (their GPUs)
        for i in rebuilt_on & self._unexplained.keys():
            into = out[i]
            for name, value in self._unexplained[i].items():
                into[name] = into.get(name, 0) + value
        return out

    def competes(self, owned: OwnedPods | None, replicas: int | None) -> bool:
        """Whether the workload ``owned`` describes has pods still to place, which compete with its bound ones (then
        not left out of the nodes' usage): one of its pods waits in the dump (no nodeName: a Deployment's pending
        replica, a rollout's surge pod), or fewer of its pods are bound and not being deleted, on any node, the dump's
        or not, than its ``replicas`` (a dump of running pods only). Trials 108, 109 (a replica on a node outside
        the dump; a Terminating one beside its replacement), 111 (a dump without the pending pod)."""
        if owned is None:
            return False
        if self._waiting.select(owned):
            return True
        if replicas is None:
            return False
        return self.placed(owned) < replicas

    def placed(self, owned: OwnedPods) -> int:
        """How many of the pods ``owned`` selects are bound, on any node (the dump's or not), and not being deleted."""
        return sum(1 for p in self._owned(owned) if not self._pod_deleting[p]) + self.placed_elsewhere(owned)

    def placed_elsewhere(self, owned: OwnedPods) -> int:
        """How many of the pods ``owned`` selects are bound to nodes the dump lacks."""
        return len(self._elsewhere.select(owned))

    def placed_on(self, owned: OwnedPods) -> set[int]:
        """The dump's nodes where a pod ``owned`` selects is bound and not being deleted."""
        return {self._pod_node[p] for p in self._owned(owned) if not self._pod_deleting[p]}

    def room(self, requests: Usage, nodes: Iterable[int], owned: OwnedPods | None) -> dict[int, int]:
        """How many more pods asking ``requests`` each of ``nodes`` has room for: its free pod slots, and its free
        allocatable of each resource asked for divided by the request (NodeResourcesFit, pod after pod), with what
        the pods ``owned`` selects that are being deleted hold given back (their replacements are among those to
        place)."""
        deleting = [p for p in self._owned(owned) if self._pod_deleting[p]] if owned is not None else []
        freed = self._usage_by_node(deleting)
        pods_free = self.free.get(PODS, {})
        out: dict[int, int] = {}
        for i in nodes:
            back = freed.get(i, {})
            n = pods_free.get(i, 0) + back.get(PODS, 0)
            for name, wanted in requests.items():
                if wanted > 0:
                    n = min(n, (self.free.get(name, {}).get(i, 0) + back.get(name, 0)) // wanted)
            out[i] = max(n, 0)
        return out

    def _usage_by_node(self, pods: Iterable[int]) -> dict[int, Usage]:
        """Per node, the summed usage (with ``pods`` counts) of the bound pods at positions ``pods``."""
        out: dict[int, Usage] = {}
        for p in pods:
            into = out.setdefault(self._pod_node[p], {})
            for name, value in self._pod_usage[p].items():
                into[name] = into.get(name, 0) + value
        return out

    def _owned(self, owned: OwnedPods) -> list[int]:
        """The bound pods of the dump ``owned`` selects (by owner, selector, generated name or launcher name)."""
        if owned.owner is not None:
            found = self._pods_by_owner.get((owned.namespace, *owned.owner), [])
        else:
            found = self._select(owned.namespace, owned.selector or {})
        if owned.generated_from is not None:
            stems = self._pods_by_deployment if owned.through_replicaset else self._pods_by_stem
            found = [*found, *stems.get((owned.namespace, owned.generated_from), [])]
        if owned.launcher is not None:
            # by its name too (a pod rebuilt from describe text, which shows no owner), each pod once
            found = list(dict.fromkeys([*found, *self._pods_by_launcher.get((owned.namespace, owned.launcher), [])]))
        return found

    def _select(self, namespace: str, selector: Mapping[str, Any]) -> list[int]:
        """metav1 ``LabelSelector`` over the bound pods of ``namespace``."""
        return select_pods(namespace, selector, self._pods_by_label, self._pods_by_namespace, self._pod_labels)

    # -- hints ----------------------------------------------------------------------------------

    def advertisers(self, domain: str) -> dict[str, list[str]]:
        """Extended resources of ``domain`` (e.g. ``nvidia.com``) that some node advertises (> 0),
        each with the sorted names of those nodes."""
        return {name: self.names_of(members) for name, members in self.domain_resources(domain).items()}

    def domain_resources(self, domain: str) -> dict[str, set[int]]:
        """Extended resources of ``domain`` that some node advertises (> 0), each with those nodes,
        in ``advertised`` order."""
        return {
            name: members for name, members in self.advertised.items() if is_extended(name) and name.split("/", 1)[0] == domain
        }

    def names_of(self, nodes: Iterable[int]) -> list[str]:
        """The names of ``nodes``, sorted."""
        return list(map(self.names.__getitem__, sorted(nodes)))

    @staticmethod
    def _remember(cache: dict[Any, Any], key: Any, value: Any) -> None:
        if len(cache) >= _CACHE_LIMIT:
            cache.clear()
        cache[key] = value


def select_pods(
    namespace: str,
    selector: Mapping[str, Any],
    by_label: Mapping[tuple[str, str, str], list[int]],
    by_namespace: Mapping[str, list[int]],
    pod_labels: list[dict[str, str]],
) -> list[int]:
    """metav1 ``LabelSelector`` over the pods of ``namespace`` an index holds (their labels by position, and lists of
    positions by label and by namespace); the shortest matchLabels list is the candidate set, the other requirements
    are checked on each candidate."""
    match_labels = sorted(
        ((str(k), text(v)) for k, v in mapping(selector.get("matchLabels")).items()),
        key=lambda kv: len(by_label.get((namespace, *kv), [])),
    )
    if match_labels:
        candidates = by_label.get((namespace, *match_labels[0]), [])
    else:
        candidates = by_namespace.get(namespace, [])
    expressions = expression_requirements(selector)
    if expressions is None:
        return []
    requirements = [Requirement(k, "In", frozenset([v])) for k, v in match_labels[1:]] + expressions
    if not requirements:
        return candidates
    return [p for p in candidates if all(r.matches_labels(pod_labels[p]) for r in requirements)]


class _PodIndex:
    """Pods not bound to a node of the dump (waiting to be placed, or bound elsewhere), neither finished nor being
    deleted: their labels, by label, by namespace and by owner, to find a workload's among them."""

    def __init__(self) -> None:
        self.labels: list[dict[str, str]] = []
        self.by_label: dict[tuple[str, str, str], list[int]] = {}
        self.by_namespace: dict[str, list[int]] = {}
        self.by_owner: dict[tuple[str, str, str], list[int]] = {}

    def add(self, pod: Mapping[str, Any]) -> None:
        meta = mapping(pod.get("metadata"))
        if text(get_in(pod, "status", "phase")) in TERMINAL_PHASES or meta.get("deletionTimestamp"):
            return
        namespace = text(meta.get("namespace")) or "default"
        labels = {str(k): text(v) for k, v in mapping(meta.get("labels")).items()}
        w = len(self.labels)
        self.labels.append(labels)
        self.by_namespace.setdefault(namespace, []).append(w)
        for key, label in labels.items():
            self.by_label.setdefault((namespace, key, label), []).append(w)
        for ref in items(meta.get("ownerReferences")):
            if isinstance(ref, Mapping):
                self.by_owner.setdefault((namespace, text(ref.get("kind")), text(ref.get("name"))), []).append(w)

    def select(self, owned: OwnedPods) -> list[int]:
        """The pods of the workload ``owned`` describes (by owner reference, else selector)."""
        if owned.owner is not None:
            return self.by_owner.get((owned.namespace, *owned.owner), [])
        if owned.selector is None:
            return []
        return select_pods(owned.namespace, owned.selector, self.by_label, self.by_namespace, self.labels)
