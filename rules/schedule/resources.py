"""Pod resource requests the way kube-scheduler counts them.

Sources (kubernetes/kubernetes):
- ``staging/src/k8s.io/component-helpers/resource/helpers.go``: ``PodRequests`` and
  ``AggregateContainerRequests`` (the sidecar rule of KEP-753, pod-level resources, overhead);
- ``pkg/apis/core/v1/defaults.go``: ``SetDefaults_Pod`` (a container's request defaults to its limit,
  per resource, when only the limit is given);
- ``pkg/apis/core/v1/helper/helpers.go``: ``IsExtendedResourceName``, ``IsNativeResource``,
  ``IsHugePageResourceName``; ``pkg/scheduler/util``: ``IsScalarResourceName``;
- ``pkg/scheduler/framework/types.go``: ``Resource.Add``/``SetMaxResource`` (cpu in milli-units,
  everything else ``Quantity.Value()``, i.e. rounded up to a whole unit).
"""

from __future__ import annotations

import functools
import marshal
import math
import re
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from ..errors import EvaluationError
from ..quantity import QuantityError, parse_quantity
from .matching import items, mapping

CPU = "cpu"
MEMORY = "memory"
EPHEMERAL_STORAGE = "ephemeral-storage"
PODS = "pods"

_NATIVE_PREFIX = "kubernetes.io/"
_HUGEPAGES_PREFIX = "hugepages-"
_ATTACHABLE_PREFIX = "attachable-volumes-"
_QUOTA_PREFIX = "requests."
DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
QUALIFIED_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")

ResourceList = dict[str, Fraction]


def quantity(value: Any) -> Fraction:
    """``parse_quantity`` (which caches strings and refuses ``.inf``/``.nan``), with any other
    ``ValueError``/``ArithmeticError`` the parser lets through raised as ``QuantityError`` too, so that
    callers need to catch only ``QuantityError``.
    """
    try:
        return parse_quantity(value)
    except QuantityError:
        raise
    except (ValueError, ArithmeticError) as err:
        raise QuantityError(f"{value!r} is not a quantity ({err})") from err


def _is_qualified_name(value: str) -> bool:
    """k8s.io/apimachinery ``validation.IsQualifiedName``: ``[prefix/]name``."""
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix or len(prefix) > 253 or not DNS1123_SUBDOMAIN.match(prefix):
            return False
    else:
        return False
    return 0 < len(name) <= 63 and bool(QUALIFIED_NAME.match(name))


def is_native(name: str) -> bool:
    """``IsNativeResource``: no domain, or a ``kubernetes.io/`` one."""
    return "/" not in name or _NATIVE_PREFIX in name


@functools.lru_cache(maxsize=1024)
def is_extended(name: str) -> bool:
    """``IsExtendedResourceName``: a domain-qualified name outside ``kubernetes.io/`` (``nvidia.com/gpu``)."""
    if is_native(name) or name.startswith(_QUOTA_PREFIX):
        return False
    return _is_qualified_name(_QUOTA_PREFIX + name)


@functools.lru_cache(maxsize=1024)
def is_scalar(name: str) -> bool:
    """``IsScalarResourceName``: what NodeResourcesFit compares besides cpu, memory and ephemeral-storage."""
    return (
        is_extended(name) or name.startswith(_HUGEPAGES_PREFIX) or _NATIVE_PREFIX in name or name.startswith(_ATTACHABLE_PREFIX)
    )


def is_checked(name: str) -> bool:
    """True for every resource NodeResourcesFit checks a request of (the pod count aside)."""
    return name in (CPU, MEMORY, EPHEMERAL_STORAGE) or is_scalar(name)


def parse_resource_list(value: Any, where: str) -> ResourceList:
    """A ``{name: quantity}`` mapping as exact Fractions.

    Raises ``EvaluationError`` naming ``where`` and the resource when a value is not a quantity.
    """
    if not value:
        return {}
    if not isinstance(value, Mapping):
        raise EvaluationError(f"{where} is not a mapping of resources")
    out: ResourceList = {}
    for name, amount in value.items():
        try:
            out[str(name)] = quantity(amount)
        except QuantityError as err:
            raise EvaluationError(f"{where}.{name}: {err}") from err
    return out


def _add(into: ResourceList, other: Mapping[str, Fraction]) -> None:
    for name, amount in other.items():
        into[name] = into.get(name, Fraction(0)) + amount


def _max(into: ResourceList, other: Mapping[str, Fraction]) -> None:
    for name, amount in other.items():
        if name not in into or amount > into[name]:
            into[name] = amount


def container_requests(container: Mapping[str, Any], where: str) -> ResourceList:
    """One container's requests after API defaulting (a missing request takes the limit's value)."""
    resources = mapping(mapping(container).get("resources"))
    requests = parse_resource_list(resources.get("requests"), f"{where}.resources.requests")
    limits = parse_resource_list(resources.get("limits"), f"{where}.resources.limits")
    for name, amount in limits.items():
        requests.setdefault(name, amount)
    return requests


def _is_pod_level(name: str) -> bool:
    """``IsSupportedPodLevelResource``: cpu, memory and hugepages-*."""
    return name in (CPU, MEMORY) or name.startswith(_HUGEPAGES_PREFIX)


def effective_requests(pod_spec: Mapping[str, Any]) -> dict[str, Fraction]:
    """The pod's effective resource requests, as upstream ``PodRequests`` computes them.

    ``pod_spec`` is a Pod's ``spec`` (plain dict). Returns ``{resource name: exact quantity}`` in base
    units (cores for cpu, bytes for memory, counts for extended resources), every resource named by
    any container, including zeros. The rule (KEP-753, component-helpers ``resource/helpers.go``):

    ``max(sum(containers) + sum(sidecars), max over init containers i of (init_i + sidecars started
    before i)) + overhead``, where a sidecar is an init container with ``restartPolicy: Always``;
    pod-level ``spec.resources.requests`` (cpu, memory, hugepages-*) replace the aggregate when set.
    Requests default to limits (API defaulting), per container and per resource; pod-level requests
    default to pod-level limits when no container requests that resource.

    Raises ``EvaluationError`` when a quantity cannot be parsed.
    """
    requests: ResourceList = {}
    for i, container in enumerate(items(pod_spec.get("containers"))):
        _add(requests, container_requests(container, f"spec.containers[{i}]"))

    sidecars: ResourceList = {}
    init_peak: ResourceList = {}
    for i, container in enumerate(items(pod_spec.get("initContainers"))):
        own = container_requests(container, f"spec.initContainers[{i}]")
        if mapping(container).get("restartPolicy") == "Always":
            _add(requests, own)
            _add(sidecars, own)
            use = dict(sidecars)
        else:
            use = dict(own)
            _add(use, sidecars)
        _max(init_peak, use)
    _max(requests, init_peak)

    pod_resources = mapping(pod_spec.get("resources"))
    pod_requests = parse_resource_list(pod_resources.get("requests"), "spec.resources.requests")
    pod_limits = parse_resource_list(pod_resources.get("limits"), "spec.resources.limits")
    for name, amount in pod_limits.items():
        if _is_pod_level(name) and name not in pod_requests and name not in requests:
            pod_requests[name] = amount
    for name, amount in pod_requests.items():
        if _is_pod_level(name):
            requests[name] = amount

    _add(requests, parse_resource_list(pod_spec.get("overhead"), "spec.overhead"))
    return requests


def requests_read(pod_spec: Mapping[str, Any]) -> tuple[Any, ...]:
    """What ``effective_requests`` reads of a pod spec (each container's resources and restart policy, the pod's
    resources and overhead), for a cache key (``cache_key``): pods of one template request alike."""

    def parts(key: str) -> Any:
        return [(c.get("resources"), c.get("restartPolicy")) if isinstance(c, dict) else c for c in items(pod_spec.get(key))]

    return (parts("containers"), parts("initContainers"), pod_spec.get("resources"), pod_spec.get("overhead"))


def cache_key(*parts: Any) -> bytes | None:
    """``parts`` as bytes: ``marshal`` keeps apart the types the filters tell apart (``1``, ``1.0``, ``"1"``,
    ``true``); equal mappings written in another key order only miss. None when a value is not plain JSON (a YAML
    timestamp, a custom type): then nothing is cached."""
    try:
        return marshal.dumps(parts)
    except ValueError:
        return None


def scheduler_units(resources: Mapping[str, Fraction], *, pods: bool = False) -> dict[str, int]:
    """Convert exact quantities to the integers kube-scheduler compares.

    cpu becomes milli-cores, everything else whole units, both rounded up (``Quantity.MilliValue`` and
    ``Quantity.Value``). Resources the scheduler does not track are dropped; ``pods`` is kept only
    when ``pods`` is true (a node's allocatable pod count). Zero values are dropped, since a zero
    request never fails a filter.
    """
    out: dict[str, int] = {}
    for name, amount in resources.items():
        if name == CPU:
            value = math.ceil(amount * 1000)
        elif name == PODS and pods:
            value = math.ceil(amount)
        elif name in (MEMORY, EPHEMERAL_STORAGE) or is_scalar(name):
            value = math.ceil(amount)
        else:
            continue
        if value:
            out[name] = value
    return out
