"""Kubernetes resource quantities (``"4"``, ``"64Gi"``, ``"500m"``, ``"1k"``, ``"1e3"``).

Grammar and suffixes follow k8s.io/apimachinery/pkg/api/resource/quantity.go: an optional sign, a
decimal number, then a binary SI suffix (Ki Mi Gi Ti Pi Ei), a decimal SI suffix (n u m k M G T P E)
or a decimal exponent (``e3``/``E3``). Values are exact ``Fraction``s so ``"1500m" == "1.5"``.
"""

from __future__ import annotations

import functools
import re
from fractions import Fraction

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {
    "n": Fraction(1, 10**9),
    "u": Fraction(1, 10**6),
    "m": Fraction(1, 10**3),
    "": Fraction(1),
    "k": Fraction(10**3),
    "M": Fraction(10**6),
    "G": Fraction(10**9),
    "T": Fraction(10**12),
    "P": Fraction(10**15),
    "E": Fraction(10**18),
}
_QUANTITY = re.compile(
    r"^(?P<num>[+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:(?P<bin>Ki|Mi|Gi|Ti|Pi|Ei)|(?P<exp>[eE][+-]?\d+)|(?P<dec>[numkMGTPE]?))$"
)


class QuantityError(ValueError):
    """Raised when a value is not a Kubernetes quantity; the message quotes the value."""


#: Bounds that keep a hostile value cheap ("1e9999999" took seconds in Fraction); apimachinery itself
#: refuses quantities past int64, so nothing real comes near them.
MAX_TEXT = 64
MAX_EXPONENT = 64


@functools.lru_cache(maxsize=8192)
def _parse_text(value: str) -> Fraction:
    if len(value) > MAX_TEXT:
        raise QuantityError(f"{value[:MAX_TEXT]!r}... is too long for a Kubernetes quantity")
    m = _QUANTITY.match(value.strip())
    if not m:
        raise QuantityError(f"{value!r} is not a Kubernetes quantity")
    if m["exp"] and abs(int(m["exp"][1:])) > MAX_EXPONENT:
        raise QuantityError(f"{value!r}: exponent out of range for a Kubernetes quantity")
    number = Fraction(m["num"])
    if m["bin"]:
        return number * _BINARY[m["bin"]]
    if m["exp"]:
        return number * Fraction(10) ** int(m["exp"][1:])
    return number * _DECIMAL[m["dec"] or ""]


def parse_quantity(value: object) -> Fraction:
    """Parse a quantity into an exact number of base units.

    Accepts ``int``/``float`` (YAML may give ``4`` for ``"4"``), strings, and a ``Fraction`` (as is).
    Raises ``QuantityError`` for booleans, ``None``, and strings outside the grammar.
    """
    if isinstance(value, bool) or value is None:
        raise QuantityError(f"{written(value)} is not a quantity")
    if isinstance(value, Fraction):  # already parsed (e.g. a policy's sum or product)
        return value
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):  # YAML .nan / .inf
            raise QuantityError(f"{value!r} is not a quantity")
        return Fraction(str(value))
    if not isinstance(value, str):
        raise QuantityError(f"{written(value)} is not a quantity")
    return _parse_text(value)


def written(value: object) -> str:
    """A value of a dump as YAML and JSON write it, for a message: ``null``, ``true``, ``'lots'`` (trial 123: a null
    quantity was said as Python's ``None``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value)


def is_quantity(value: object) -> bool:
    """True when ``parse_quantity`` would accept ``value``."""
    try:
        parse_quantity(value)
    except QuantityError:
        return False
    return True


def format_quantity(value: Fraction) -> str:
    """Short human form of a parsed quantity: integers as-is, else milli-units (``"1500m"``)."""
    if value.denominator == 1:
        return str(value.numerator)
    milli = value * 1000
    if milli.denominator == 1:
        return f"{milli.numerator}m"
    return str(float(value))
