"""From a workload object to the pod spec it would create, and to the pods it already owns.

Sources:
- kubernetes/kubernetes ``pkg/controller/daemon/util/daemonset_util.go``
  ``AddOrUpdateDaemonPodTolerations`` (the tolerations every DaemonSet pod gets);
- kubevirt/kubevirt ``pkg/virt-controller/services/template.go`` (the virt-launcher pod: the VMI's
  nodeSelector plus ``kubevirt.io/schedulable: "true"``, its affinity and tolerations, one unit of
  ``deviceName`` in requests and limits for each ``gpus[]``/``hostDevices[]`` entry unless the VMI's own
  ``spec.domain.resources`` names it: ``renderresources.go``, whose ``Requests``/``Limits`` copy the VMI's
  values over the computed ones) and the VMI
  defaulting webhook (``memory.guest`` becomes the memory request when none is given);
- what has nothing waiting to be scheduled (``not_waiting``): ``pkg/controller/replicaset``,
  ``statefulset`` (``spec.replicas: 0`` creates no pod), ``pkg/controller/job`` (a finished Job, i.e.
  condition ``Complete``/``Failed`` ``"True"``, or ``spec.suspend``, creates no pod),
  ``pkg/controller/cronjob`` (``spec.suspend`` creates no Job), kubevirt/kubevirt
  ``pkg/virt-controller/watch/vm.go`` (``runStrategy: Halted`` or ``running: false`` creates no VMI).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..errors import EvaluationError
from ..quantity import QuantityError, format_quantity
from .matching import get_in, items, mapping, text
from .resources import quantity

TEMPLATE_KINDS = frozenset({"Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "ReplicationController"})
KUBEVIRT_KINDS = frozenset({"VirtualMachineInstance", "VirtualMachine"})
TERMINAL_PHASES = frozenset({"Succeeded", "Failed"})
REPLICATED_KINDS = frozenset({"Deployment", "ReplicaSet", "StatefulSet", "ReplicationController"})
KUBEVIRT_SCHEDULABLE_LABEL = "kubevirt.io/schedulable"
#: Who sets a label that a workload's pod requires without the user asking for it, said in the hint when
#: no node has the label. KubeVirt's virt-launcher pods select ``kubevirt.io/schedulable=true`` (added by
#: ``vmi_pod_spec``, as ``template.go`` does); virt-handler sets it on its node once it is ready.
LABEL_SETTERS = {
    KUBEVIRT_SCHEDULABLE_LABEL: "virt-handler sets it on the nodes where it runs and is ready; is virt-handler running there?"
}

_DAEMON_TOLERATIONS = (
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/disk-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/memory-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/pid-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"},
)
_HOST_NETWORK_TOLERATION = {"key": "node.kubernetes.io/network-unavailable", "operator": "Exists", "effect": "NoSchedule"}


def is_kubevirt(workload: Mapping[str, Any]) -> bool:
    """True for a KubeVirt ``VirtualMachine`` or ``VirtualMachineInstance`` (that kind, apiVersion in the
    ``kubevirt.io/`` group)."""
    return text(workload.get("kind")) in KUBEVIRT_KINDS and text(workload.get("apiVersion")).startswith("kubevirt.io/")


def daemon_pod_spec(template_spec: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of a DaemonSet's template spec with the tolerations the DaemonSet controller adds."""
    spec = dict(template_spec)
    tolerations = [t for t in items(spec.get("tolerations")) if isinstance(t, Mapping)]
    extra = list(_DAEMON_TOLERATIONS)
    if spec.get("hostNetwork"):
        extra.append(_HOST_NETWORK_TOLERATION)
    for toleration in extra:
        if not any(_same_toleration(t, toleration) for t in tolerations):
            tolerations.append(dict(toleration))
    spec["tolerations"] = tolerations
    return spec


def _same_toleration(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    return all((a.get(k) or "") == (b.get(k) or "") for k in ("key", "operator", "value", "effect"))


_MI = 1 << 20
#: What every virt-launcher pod asks for beside its guest's memory, at the least (kubevirt/kubevirt
#: ``pkg/virt-controller/services/renderresources.go`` and the hypervisor's ``GetMemoryOverhead``: the monitor,
#: virt-launcher, virtlogd, virtqemud and qemu, 25 + 100 + 20 + 35 + 30 MiB in the smallest of the releases read;
#: 8 MiB for the IOThread; 16 MiB of video RAM where a graphics device is attached, 32 in later releases).
_LAUNCHER_OVERHEAD = 210 * _MI + 8 * _MI
_VCPU_OVERHEAD = 8 * _MI
_VIDEO_OVERHEAD = 16 * _MI
#: "Additional overhead of 1G for VFIO devices. VFIO requires all guest RAM to be locked in addition to MMIO memory
#: space to allow DMA" (``IsVFIOVMI``: a VMI with GPUs or host devices, vGPUs too).
_VFIO_OVERHEAD = 1 << 30
#: What a VMI with dedicated CPUs (or the Guaranteed QoS) asks for beside: 100Mi.
_DEDICATED_OVERHEAD = 100 * _MI
#: KubeVirt's default cpuAllocationRatio: a VMI without a cpu request asks for its vCPUs divided by it.
_CPU_ALLOCATION_RATIO = 10


def _vcpus(domain: Mapping[str, Any], resources: Mapping[str, Any]) -> int:
    """The VMI's vCPUs as KubeVirt counts them (``determineVCPUCount``): sockets x cores x threads of
    ``domain.cpu`` (each 1 when unset), else its cpu limit or request, else 1."""
    cpu = get_in(domain, "cpu")
    if isinstance(cpu, Mapping) and any(cpu.get(part) is not None for part in ("sockets", "cores", "threads")):
        count = 1
        for part in ("sockets", "cores", "threads"):
            value = cpu.get(part)
            count *= value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 1
        return count
    for where in ("limits", "requests"):
        value = get_in(resources, where, "cpu")
        if value is not None:
            try:
                return max(1, math.ceil(quantity(value)))  # (Quantity.Value() rounds up: 1500m is 2)
            except QuantityError:
                break
    return 1


def _memory_overhead(domain: Mapping[str, Any], memory: Fraction, vcpus: int, dedicated: bool) -> Fraction:
    """The least of what KubeVirt's launcher asks for beside a guest of ``memory`` bytes (``GetMemoryOverhead``): its
    processes, 8 MiB a vCPU, the page tables, video RAM where a graphics device is attached, 1 GiB for VFIO devices
    (GPUs, host devices) and 100 MiB for dedicated CPUs."""
    overhead = _LAUNCHER_OVERHEAD + vcpus * _VCPU_OVERHEAD + memory / 512
    if get_in(domain, "devices", "autoattachGraphicsDevice") is not False:
        overhead += _VIDEO_OVERHEAD
    if items(get_in(domain, "devices", "gpus")) or items(get_in(domain, "devices", "hostDevices")):
        overhead += _VFIO_OVERHEAD
    if dedicated:
        overhead += _DEDICATED_OVERHEAD
    return overhead


def vmi_pod_spec(vmi_spec: Mapping[str, Any]) -> dict[str, Any]:
    """The scheduling-relevant part of the virt-launcher pod KubeVirt creates for a VMI spec.

    Its memory request is the guest's and, at the least, KubeVirt's overhead (``_memory_overhead``), unless
    ``resources.overcommitGuestOverhead``; on hugepages, the guest's as ``hugepages-<size>`` and the overhead alone as
    memory; its cpu request, whole vCPUs with dedicated CPUs, else where the VMI sets none its vCPUs over the default
    cpuAllocationRatio (trial 185: a 16Gi GPU VMI was placed on a node with 17Gi allocatable, where its launcher pod
    asks for about 17.3Gi). Not modelled: the overhead of probes, TPM and SEV, a cluster's own cpuAllocationRatio or
    additionalGuestMemoryOverheadRatio, CPU-model and feature node selectors, and devices claimed through DRA (entries
    with ``claimName``).
    Raises ``EvaluationError`` when a device count cannot be added to a malformed quantity.
    """
    domain = mapping(get_in(vmi_spec, "domain"))
    resources = mapping(get_in(domain, "resources"))
    requests: dict[str, Any] = dict(mapping(get_in(resources, "requests")))
    limits: dict[str, Any] = dict(mapping(get_in(resources, "limits")))
    guest = get_in(domain, "memory", "guest")
    if guest is not None and "memory" not in requests and "memory" not in limits:
        requests["memory"] = guest
    if "memory" not in requests and "memory" in limits:
        requests["memory"] = limits["memory"]  # (WithMemoryRequests: a limit alone is the request)
    vcpus = _vcpus(domain, resources)
    dedicated = get_in(domain, "cpu", "dedicatedCpuPlacement") is True
    if "memory" in requests:
        try:
            memory = quantity(requests["memory"])
        except QuantityError as err:
            raise EvaluationError(f"spec.domain.resources.requests.memory: {err}") from err
        overhead = _memory_overhead(domain, memory, vcpus, dedicated)
        page = get_in(domain, "memory", "hugepages", "pageSize")
        if isinstance(page, str) and page:
            # (trial 188: the guest's memory is hugepages-<size>, and the memory request the overhead alone:
            # WithHugePages)
            requests[f"hugepages-{page}"] = requests["memory"]
            requests["memory"] = format_quantity(Fraction(overhead))
        elif get_in(resources, "overcommitGuestOverhead") is not True:
            requests["memory"] = format_quantity(Fraction(memory + overhead))
    if dedicated:
        requests["cpu"] = limits["cpu"] = str(vcpus)  # (WithCPUPinning: whole cpus, requests equal to limits)
    elif "cpu" not in requests and "cpu" not in limits:
        requests["cpu"] = format_quantity(Fraction(vcpus, _CPU_ALLOCATION_RATIO))

    devices: dict[str, int] = {}
    for group in ("gpus", "hostDevices"):
        for device in items(get_in(domain, "devices", group)):
            name = get_in(device, "deviceName")
            if name and not get_in(device, "claimName"):
                devices[str(name)] = devices.get(str(name), 0) + 1
    for name, count in devices.items():
        # One unit a devices entry, where the VMI's resources do not name the resource: what they name wins
        # (ResourceRenderer.Requests/Limits copy the VMI's own over the computed ones, from v0.59.0; trial 205)
        for where, target in (("requests", requests), ("limits", limits)):
            if name not in target:
                target[name] = str(count)
                continue
            try:
                quantity(target[name])
            except QuantityError as err:
                raise EvaluationError(f"spec.domain.resources.{where}.{name}: {err}") from err

    node_selector = {str(k): v for k, v in mapping(get_in(vmi_spec, "nodeSelector")).items()}
    node_selector[KUBEVIRT_SCHEDULABLE_LABEL] = "true"
    spec: dict[str, Any] = {
        "nodeSelector": node_selector,
        "containers": [{"name": "compute", "resources": {"requests": requests, "limits": limits}}],
    }
    for key in ("affinity", "tolerations", "schedulerName", "priorityClassName"):
        if get_in(vmi_spec, key) is not None:
            spec[key] = vmi_spec[key]
    return spec


#: What a hint says of a launcher pod's memory where the model counted KubeVirt's overhead (``launcher_overhead``).
OVERHEAD_NOTE = (
    "its virt-launcher pod asks for the guest's memory and KubeVirt's overhead beside it, counted here at its least:"
    " 218Mi, 8Mi a vCPU, the guest's memory over 512 and 1Gi with GPUs or host devices"
)


def launcher_overhead(workload: Mapping[str, Any]) -> bool:
    """Whether the memory request of ``workload``'s virt-launcher pod (a KubeVirt VMI or VM) counts KubeVirt's overhead
    beside the guest's memory (``vmi_pod_spec``): where the VMI asks for memory, not on hugepages (the overhead alone
    is the request there) and without ``overcommitGuestOverhead``."""
    kind = text(workload.get("kind"))
    vmi = workload.get("spec") if kind == "VirtualMachineInstance" else get_in(workload, "spec", "template", "spec")
    domain = mapping(get_in(vmi, "domain"))
    resources = mapping(get_in(domain, "resources"))
    asked = (
        any("memory" in mapping(get_in(resources, part)) for part in ("requests", "limits"))
        or get_in(domain, "memory", "guest") is not None
    )
    page = get_in(domain, "memory", "hugepages", "pageSize")
    return asked and not (isinstance(page, str) and page) and get_in(resources, "overcommitGuestOverhead") is not True


def pod_spec_of(workload: Any) -> dict[str, Any] | None:
    """The pod spec ``workload`` would create, or None when it is not a workload.

    - ``Pod``: its ``spec`` (bound or not; ``ClusterModel.predict`` decides applicability);
    - Deployment, ReplicaSet, StatefulSet, Job, ReplicationController: ``spec.template.spec``;
    - DaemonSet: ``spec.template.spec`` plus the DaemonSet controller's tolerations;
    - CronJob: ``spec.jobTemplate.spec.template.spec``;
    - KubeVirt (``apiVersion: kubevirt.io/...``) VirtualMachineInstance: built from ``spec``,
      VirtualMachine: from ``spec.template.spec`` (see ``vmi_pod_spec``).

    Returns the object's own dict for Pods and templates (do not mutate it) and a new dict for
    DaemonSets and KubeVirt objects. Raises ``EvaluationError`` for a malformed device quantity.
    """
    if not isinstance(workload, Mapping):
        return None
    kind = text(workload.get("kind"))
    spec: Any = None
    if kind == "Pod":
        spec = workload.get("spec")
    elif kind in TEMPLATE_KINDS:
        spec = get_in(workload, "spec", "template", "spec")
        if kind == "DaemonSet" and isinstance(spec, Mapping):
            return daemon_pod_spec(spec)
    elif kind == "CronJob":
        spec = get_in(workload, "spec", "jobTemplate", "spec", "template", "spec")
    elif is_kubevirt(workload):
        vmi = workload.get("spec") if kind == "VirtualMachineInstance" else get_in(workload, "spec", "template", "spec")
        return vmi_pod_spec(vmi) if isinstance(vmi, Mapping) else None
    return spec if isinstance(spec, dict) else None


@dataclass(frozen=True, slots=True)
class OwnedPods:
    """How to find the bound pods a workload already runs, so that a prediction does not count them
    against the workload itself: pods in ``namespace`` matching ``selector`` (a ``LabelSelector``:
    ``matchLabels``/``matchExpressions``), or whose ownerReferences name ``owner`` (kind, name); and, with
    ``generated_from``, pods without labels and owner references (rebuilt from ``kubectl describe`` text,
    whose pod rows give only namespace and name) named ``<generated_from>-<5 characters>``, the name the
    DaemonSet, ReplicaSet and Job controllers' ``generateName`` gives their pods, or, for a Deployment, through
    its ReplicaSet, ``<generated_from>-<pod-template-hash>-<5 characters>``."""

    namespace: str
    selector: Mapping[str, Any] | None = None
    owner: tuple[str, str] | None = None
    generated_from: str | None = None
    #: True for a Deployment: its pods' generated names carry its ReplicaSet's pod-template-hash too.
    through_replicaset: bool = False
    #: A VMI's (or its VM's): the virt-launcher pod's name without its 5 random characters (``launcher_base``), by
    #: which its pod is known where the dump shows no owner reference (rebuilt from describe text, or labels only).
    launcher: str | None = None


#: The longest base generateName keeps: 63 characters a name, 5 of them random (k8s.io/apiserver
#: pkg/storage/names/generate.go, MaxGeneratedNameLength).
MAX_GENERATED_BASE = 58


def launcher_base(vmi: str) -> str:
    """The name of a VMI's virt-launcher pod without its 5 random characters: KubeVirt's generateName
    ``virt-launcher-<vmi>-`` (kubevirt pkg/virt-controller/services/template.go), cut to ``MAX_GENERATED_BASE`` by
    the API server (trial 101: a 49-character VMI's pod is ``virt-launcher-<first 44>`` and 5 characters, no dash)."""
    return f"virt-launcher-{vmi}-"[:MAX_GENERATED_BASE]


def owned_pods(workload: Mapping[str, Any]) -> OwnedPods | None:
    """The ``OwnedPods`` of a controller or KubeVirt object; None for Pods, CronJobs and anything
    without a usable selector (an empty selector is not taken to mean "every pod"). A DaemonSet's also
    finds its pods rebuilt from describe text by their generated names."""
    kind = text(workload.get("kind"))
    namespace = str(get_in(workload, "metadata", "namespace") or "default")
    name = get_in(workload, "metadata", "name")
    if is_kubevirt(workload):
        return (
            OwnedPods(namespace, owner=("VirtualMachineInstance", str(name)), launcher=launcher_base(str(name))) if name else None
        )
    if kind not in TEMPLATE_KINDS:
        return None
    selector = get_in(workload, "spec", "selector")
    if kind == "ReplicationController":
        labels = (
            selector if isinstance(selector, Mapping) and selector else get_in(workload, "spec", "template", "metadata", "labels")
        )
        selector = {"matchLabels": labels} if isinstance(labels, Mapping) else None
    if not isinstance(selector, Mapping) or not (selector.get("matchLabels") or selector.get("matchExpressions")):
        return None
    generated = str(name) if kind in ("DaemonSet", "ReplicaSet", "Job", "Deployment") and name else None
    return OwnedPods(namespace, selector=selector, generated_from=generated, through_replicaset=kind == "Deployment")


def not_waiting(workload: Mapping[str, Any]) -> str | None:
    """Why ``workload`` has no pod waiting to be scheduled, or None when it may have one.

    - a Pod bound to a node (``spec.nodeName``) or finished (phase Succeeded/Failed);
    - a KubeVirt VirtualMachineInstance that runs on a node (``status.nodeName``) or has finished;
    - a Deployment, ReplicaSet, StatefulSet or ReplicationController with ``spec.replicas: 0`` (a
      Deployment keeps its old ReplicaSets scaled to 0; an absent ``replicas`` defaults to 1);
    - a Job that has finished (condition ``Complete`` or ``Failed`` with status ``"True"``) or is
      suspended (``spec.suspend: true``), a suspended CronJob;
    - a KubeVirt VirtualMachine that is stopped: ``spec.runStrategy: Halted``, ``spec.running:
      false`` when it has no ``runStrategy``, or ``runStrategy: Manual`` with ``status.printableStatus:
      Stopped``.
    """
    kind = text(workload.get("kind"))
    spec = mapping(workload.get("spec"))
    status = mapping(workload.get("status"))
    if kind == "Pod":
        bound, phase = text(spec.get("nodeName")), text(status.get("phase"))
        # a finished pod keeps its nodeName: that it finished is the truer word (trial 115)
        if phase in TERMINAL_PHASES:
            return f"Pod has finished (phase {phase})"
        if bound:
            return f"Pod is bound to node {bound}"
    elif kind in REPLICATED_KINDS:
        replicas = spec.get("replicas")
        if isinstance(replicas, int) and not isinstance(replicas, bool) and replicas == 0:
            return f"{kind} is scaled to 0 replicas"
    elif kind == "Job":
        for condition in items(status.get("conditions")):
            if isinstance(condition, Mapping) and text(condition.get("status")) == "True":
                if text(condition.get("type")) == "Complete":
                    return "Job has completed"
                if text(condition.get("type")) == "Failed":
                    return "Job has failed"
        if spec.get("suspend") is True:
            return "Job is suspended"
    elif kind == "CronJob":
        if spec.get("suspend") is True:
            return "CronJob is suspended"
    elif kind == "VirtualMachineInstance" and is_kubevirt(workload):
        # A VMI that has a node already runs in its virt-launcher pod: nothing left to schedule.
        bound, phase = text(status.get("nodeName")), text(status.get("phase"))
        if phase in TERMINAL_PHASES:
            return f"VirtualMachineInstance has finished (phase {phase})"
        if bound:
            return f"VirtualMachineInstance runs on node {bound}"
    elif kind == "VirtualMachine" and is_kubevirt(workload):
        strategy = text(spec.get("runStrategy"))
        if strategy == "Halted":
            return "VirtualMachine is stopped (runStrategy Halted)"
        if not strategy and spec.get("running") is False:
            return "VirtualMachine is stopped (running: false)"
        # Manual: started and stopped only by the start/stop subresources; where its status says Stopped, it has no
        # VMI and is stopped as a Halted one is (trial 218: judged as if running, a second high failure beside the
        # device rule's "when it is started")
        if strategy == "Manual" and text(status.get("printableStatus")) == "Stopped":
            return "VirtualMachine is stopped (runStrategy Manual, status.printableStatus Stopped)"
    return None
