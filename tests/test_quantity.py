"""Kubernetes quantities as rules compare them (k8s.io/apimachinery resource.Quantity grammar)."""

from fractions import Fraction

import pytest

from rules.quantity import QuantityError, format_quantity, is_quantity, parse_quantity


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("4", Fraction(4)),
        ("64Gi", Fraction(64 * 2**30)),
        ("500m", Fraction(1, 2)),
        ("1k", Fraction(1000)),
        ("1e3", Fraction(1000)),
        ("1E3", Fraction(1000)),
        ("1.5", Fraction(3, 2)),
        ("1500m", Fraction(3, 2)),
        ("128974848", Fraction(128974848)),
        ("129M", Fraction(129_000_000)),
        ("123Mi", Fraction(123 * 2**20)),
        ("100n", Fraction(1, 10**7)),
        ("2u", Fraction(2, 10**6)),
        ("-1", Fraction(-1)),
        ("+2", Fraction(2)),
        (".5", Fraction(1, 2)),
        ("1Ki", Fraction(1024)),
        ("1Ei", Fraction(2**60)),
        (" 8 ", Fraction(8)),
    ],
)
def test_quantity_strings_parse_to_exact_base_units(text: str, value: Fraction) -> None:
    assert parse_quantity(text) == value


def test_ints_and_floats_as_yaml_gives_them() -> None:
    assert parse_quantity(8) == Fraction(8)
    assert parse_quantity(0) == Fraction(0)
    assert parse_quantity(1.5) == Fraction(3, 2)
    assert parse_quantity(0.1) == Fraction(1, 10)


@pytest.mark.parametrize("bad", ["4x", "", "Gi", "1.2.3", "1 Gi", "64gi", "1KiB", "e3", "--1", None, True, False, [4], {"a": 1}])
def test_non_quantities_are_refused(bad: object) -> None:
    with pytest.raises(QuantityError):
        parse_quantity(bad)
    assert is_quantity(bad) is False


def test_error_message_quotes_the_value() -> None:
    with pytest.raises(QuantityError, match="'4x'"):
        parse_quantity("4x")


def test_comparisons_across_notations() -> None:
    assert parse_quantity("1500m") == parse_quantity("1.5")
    assert parse_quantity("1Gi") > parse_quantity("1G")
    assert parse_quantity("64Gi") > parse_quantity("60G")
    assert parse_quantity("500m") < parse_quantity("1")
    assert parse_quantity("1k") == parse_quantity("1e3") == parse_quantity(1000)
    assert parse_quantity("1Mi") == parse_quantity("1024Ki")


def test_format_quantity_short_forms() -> None:
    assert format_quantity(Fraction(4)) == "4"
    assert format_quantity(parse_quantity("1500m")) == "1500m"
    assert format_quantity(parse_quantity("64Gi")) == str(64 * 2**30)
    assert format_quantity(Fraction(1, 3)) == str(1 / 3)
