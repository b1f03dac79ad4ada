"""Which objects of a dump are judged: kubectl's filters (``--kind``, ``-n``, ``-l``, ``--name``).

A selection decides which objects get results; it never changes what the rules see. Contexts, the index and
the scheduler model still read the whole dump (whether a Pod fits depends on every Node), so an object that
is kept gets the verdict it would get without the selection.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any

from .errors import did_you_mean, meant, nearest
from .model import Selector
from .reader import KObject
from .report import first_few
from .selector import SelectorError, parse_selector

#: kubectl's short names (``kubectl api-resources``) of the kinds the packs read and their neighbours.
SHORT_NAMES: dict[str, tuple[str, ...]] = {
    "Node": ("no",),
    "Pod": ("po",),
    "Namespace": ("ns",),
    "Service": ("svc",),
    "ConfigMap": ("cm",),
    "Deployment": ("deploy",),
    "DaemonSet": ("ds",),
    "StatefulSet": ("sts",),
    "ReplicaSet": ("rs",),
    "ReplicationController": ("rc",),
    "CronJob": ("cj",),
    "PersistentVolumeClaim": ("pvc",),
    "VirtualMachineInstance": ("vmi", "vmis"),
    "VirtualMachine": ("vm", "vms"),
    "KubeVirt": ("kv", "kvs"),
}


#: Namespaces a note of an empty selection lists before it counts the rest.
MISSED_SHOWN = 10


class SelectionError(ValueError):
    """A filter that cannot select anything as written: ``parameter`` is ``kind`` (no loaded rule judges
    that kind) or ``selector`` (a label selector that does not parse); the message says why."""

    def __init__(self, parameter: str, reason: str) -> None:
        super().__init__(reason)
        self.parameter = parameter
        self.reason = reason


def plural(kind: str) -> str:
    """The resource name kubectl takes for ``kind``: lower case and plural (``ClusterPolicy`` ->
    ``clusterpolicies``, ``Node`` -> ``nodes``)."""
    word = kind.lower()
    if word.endswith("y") and len(word) > 1 and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    if word.endswith(("s", "x", "z", "ch", "sh")):
        return word + "es"
    return word + "s"


@functools.cache
def kind_words(kind: str) -> frozenset[str]:
    """The words that name ``kind`` on a command line: the kind in any case, its plural, its short names."""
    return frozenset({kind.lower(), plural(kind), *SHORT_NAMES.get(kind, ())})


@dataclass(frozen=True, slots=True)
class Selection:
    """The objects to judge. ``kinds`` are words as given (``Node``, ``nodes``, ``no``; case-insensitive),
    ``namespaces`` exact namespaces (a cluster-scoped object is in none), ``selector`` a label selector as
    text, ``names`` globs of ``metadata.name``. Several values of one filter are alternatives; the filters
    all hold. Build one with ``Selection.of``."""

    kinds: tuple[str, ...] = ()
    namespaces: tuple[str, ...] = ()
    selector: str = ""
    names: tuple[str, ...] = ()
    labels: Selector | None = field(default=None, compare=False)

    @classmethod
    def of(
        cls,
        kinds: Iterable[str] = (),
        namespaces: Iterable[str] = (),
        selector: str = "",
        names: Iterable[str] = (),
        judged: Iterable[str] | None = None,
    ) -> Selection | None:
        """The selection of these filters, or None when there is none. Values may be comma-separated. With
        ``judged`` (the kinds the loaded rules match; ``*`` for any), a kind none of them is refused.

        Raises ``SelectionError`` for a kind no rule judges and for a label selector that does not parse."""
        kinds_, namespaces_, names_ = (tuple(_split(v)) for v in (kinds, namespaces, names))
        selector = selector.strip()
        if not (kinds_ or namespaces_ or names_ or selector):
            return None
        if judged is not None:
            known = set(judged)
            if "*" not in known:
                words = {w: k for k in sorted(known) for w in sorted(kind_words(k))}
                for word in kinds_:
                    if word.lower() not in words:
                        near = nearest(word, list(words))
                        meant = did_you_mean(words[near] if near else None)
                        raise SelectionError(
                            "kind", f"no loaded rule judges kind {word!r}{meant}; the rules judge {', '.join(sorted(known))}"
                        )
        try:
            labels = parse_selector(selector) if selector else None
        except SelectorError as exc:
            raise SelectionError("selector", f"label selector {selector!r}: {exc}") from None
        return cls(kinds_, namespaces_, selector, names_, labels)

    def matches(self, obj: KObject) -> bool:
        """True when ``obj`` passes every filter."""
        if self.kinds and not self._kind(obj.kind):
            return False
        if self.namespaces and obj.namespace not in self.namespaces:
            return False
        if self.names and not any(fnmatchcase(obj.name, g) for g in self.names):
            return False
        return self.labels is None or self.labels.matches(obj.labels)

    def missed(self, objects: list[KObject]) -> str:
        """The note of a selection that kept no object of ``objects``: each filter nothing in the dump meets on its
        own, with the value a misspelt namespace or label key likely stands for; a selection that keeps nothing is
        otherwise a report with no finding (a clean-looking cluster)."""
        why = []
        if self.kinds and not any(self._kind(o.kind) for o in objects):
            why.append(f"the dump holds no {' or '.join(self.kinds)}")
        present = sorted({o.namespace for o in objects if o.namespace})
        shown = first_few(present, MISSED_SHOWN)
        for ns in self.namespaces:
            if ns not in present:
                why.append(f"no object is in namespace {ns!r}{meant(ns, present)} (the dump's: {shown or 'none'})")
        if self.names and not any(fnmatchcase(o.name, g) for o in objects for g in self.names):
            why.append(f"no object's name matches {' or '.join(self.names)}")
        if self.labels is not None:
            keys = sorted({str(k) for o in objects for k in o.labels})
            asked = [k for k, _ in self.labels.labels] + [k for k, op, _ in self.labels.expressions if op != "DoesNotExist"]
            missing = [k for k in dict.fromkeys(asked) if k not in keys]
            why += [f"no object has the label {k!r}{meant(k, keys)}" for k in missing]
            if not missing and not any(self.labels.matches(o.labels) for o in objects):
                why.append(f"no object's labels match {self.selector}")
        return "the selection kept no object of the dump: " + (
            "; ".join(why) if why else "each filter holds for some object, but none holds for all of them"
        )

    def _kind(self, kind: str) -> bool:
        return any(w.lower() in kind_words(kind) for w in self.kinds)

    def to_dict(self) -> dict[str, Any]:
        """The filters given: ``{"kinds", "namespaces", "labelSelector", "names"}``, those set only."""
        out: dict[str, Any] = {}
        if self.kinds:
            out["kinds"] = list(self.kinds)
        if self.namespaces:
            out["namespaces"] = list(self.namespaces)
        if self.selector:
            out["labelSelector"] = self.selector
        if self.names:
            out["names"] = list(self.names)
        return out


def describe(selection: dict[str, Any]) -> str:
    """A summary's ``selection`` in words: ``kind Node, namespace ml, labels a=b, name gpu-*``."""
    parts = []
    for key, word in (("kinds", "kind"), ("namespaces", "namespace"), ("labelSelector", "labels"), ("names", "name")):
        value = selection.get(key)
        if value:
            parts.append(f"{word} {value if isinstance(value, str) else ' or '.join(value)}")
    return ", ".join(parts)


def _split(values: Iterable[str]) -> list[str]:
    return [part.strip() for v in values for part in v.split(",") if part.strip()]
