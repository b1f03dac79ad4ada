"""RFC 9535 JSONPath as policies write it, and kubectl's dialect refused with the RFC form as a hint."""

from __future__ import annotations

import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.jsonpath import PathError, compile_path, kubectl_to_rfc9535

GPU_NODE: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {
        "name": "gpu-node-1",
        "labels": {
            "nvidia.com/gpu.present": "true",
            "nvidia.com/gpu.workload.config": "vm-passthrough",
            "kubernetes.io/hostname": "gpu-node-1",
        },
    },
    "status": {
        "capacity": {"cpu": "64", "nvidia.com/gpu": "8"},
        "allocatable": {"cpu": "63500m", "nvidia.com/gpu": "8", "nvidia.com/GA100_A100_PCIE_40GB": "0"},
        "conditions": [
            {"type": "MemoryPressure", "status": "False"},
            {"type": "Ready", "status": "True", "reason": "KubeletReady"},
        ],
    },
}


def test_bracket_quoted_label_key_with_dots_and_slash() -> None:
    path = compile_path("$.metadata.labels['nvidia.com/gpu.workload.config']")
    assert path.values(GPU_NODE) == ["vm-passthrough"]
    assert path.first(GPU_NODE) == "vm-passthrough"
    assert str(path) == "$.metadata.labels['nvidia.com/gpu.workload.config']"


def test_double_quoted_key_works_too() -> None:
    assert compile_path('$.status.allocatable["nvidia.com/gpu"]').values(GPU_NODE) == ["8"]


def test_dotted_name_without_brackets_selects_nothing() -> None:
    # `.nvidia.com/gpu` is not a valid shorthand: it is refused, never silently empty.
    with pytest.raises(PathError):
        compile_path("$.metadata.labels.nvidia.com/gpu.present")


def test_filter_selects_the_ready_condition() -> None:
    path = compile_path("$.status.conditions[?@.type == 'Ready'].status")
    assert path.values(GPU_NODE) == ["True"]
    assert path.located(GPU_NODE) == [("True", "$['status']['conditions'][1]['status']")]


def test_wildcard_and_descendant() -> None:
    assert compile_path("$.status.conditions[*].type").values(GPU_NODE) == ["MemoryPressure", "Ready"]
    assert compile_path("$..reason").values(GPU_NODE) == ["KubeletReady"]


def test_first_default_when_nothing_selected() -> None:
    path = compile_path("$.spec.taints[*].key")
    assert path.values(GPU_NODE) == []
    assert path.first(GPU_NODE) is None
    assert path.first(GPU_NODE, "none") == "none"


def test_rfc_function_extensions_compile() -> None:
    assert compile_path("$.status.conditions[?length(@.reason) > 0].type").values(GPU_NODE) == ["Ready"]
    assert compile_path("$.status.conditions[?match(@.type, 'Mem.*')].status").values(GPU_NODE) == ["False"]


@pytest.mark.parametrize(
    ("pattern", "matched"),
    [
        # iregexp-check 0.1.4 refuses a quantifier of two digits; RFC 9485 takes it (jg-rp/json-p3#40)
        ("gpu-operator-[0-9a-f]{6,10}-[a-z0-9]{5}", ["gpu-operator-566644fc46-2znxj"]),
        ("[a-z-]+-[0-9a-f]{10}-[a-z0-9]{5}", ["gpu-operator-566644fc46-2znxj"]),
        ("[a-z-]+-[0-9a-f]{11,}-[a-z0-9]{5}", []),
        ("gpu-operator-[0-9a-f]+-[a-z0-9]{5}", ["gpu-operator-566644fc46-2znxj"]),
    ],
)
def test_a_quantifier_of_two_digits_matches(pattern: str, matched: list[str]) -> None:
    """The pack's operator-pod pattern had to be written with + because {6,10} silently matched nothing."""
    names = ["gpu-operator-566644fc46-2znxj", "gpu-operator-node-feature-discovery-worker-x7k2p"]
    assert compile_path(f"$[?match(@, '{pattern}')]").values(names) == matched
    assert compile_path("$[?search(@, '-[0-9a-f]{10}-')]").values(names) == names[:1]


@pytest.mark.parametrize(
    ("pattern", "hint"),
    [
        ("nvidia-[0-9]\\\\d", "write [0-9] for \\d"),
        ("(?i)nvidia", "I-Regexp has no (?...) groups or flags"),
        ("a{,3}", "write {0,n} for {,n}"),
        ("nvidia.+?-x", "I-Regexp has no lazy quantifiers"),
        ("a{3,2}", "its quantifier {3,2} asks at least 3 and at most 2"),
        ("\\\\bnvidia", "I-Regexp has no anchors"),
        ("a**", "RFC 9485 section 3 gives its syntax"),
    ],
)
def test_a_pattern_match_would_refuse_is_refused_at_compile(pattern: str, hint: str) -> None:
    """RFC 9535: match() and search() are false for every value when the pattern is no I-Regexp; a policy so
    written loaded and selected nothing, without a word."""
    with pytest.raises(PathError) as info:
        compile_path(f"$.spec.containers[?match(@.name, '{pattern}')].name")
    reason = str(info.value)
    assert "is not an I-Regexp (RFC 9485), so match() is false for every value (RFC 9535)" in reason
    assert "at column 35" in reason
    assert hint in reason


def test_a_backspace_escape_meant_as_a_word_boundary_is_refused() -> None:
    """Trial 165: '\\br[0-9]+' in a YAML double-quoted path is RFC 9535's backspace escape: it loaded, and the
    search() matched no rack label."""
    with pytest.raises(PathError) as info:
        compile_path("$.metadata[?search(@['acme.io/rack'], '\\br[0-9]+')]")
    assert str(info.value).endswith(
        "the search() pattern holds a backspace (\\b): in a JSONPath string that is RFC 9535's escape of the control"
        " character, not a regex's word boundary, which I-Regexp (RFC 9485) has none of (match() is anchored at both"
        " ends; search() finds the pattern anywhere)"
    )


@pytest.mark.parametrize(
    ("pattern", "column", "instead"),
    [("r[0-9]{2,3}\\.[a-z]", 30, "for a regex's \\. write [.]"), ("r\\d+", 20, "for a regex's \\d write [0-9]")],
)
def test_a_regex_escape_in_a_jsonpath_string_is_placed_and_told_what_to_write(pattern: str, column: int, instead: str) -> None:
    """Trial 165: 'invalid escape sequence' was placed at the start of the string, with no word of the escape."""
    with pytest.raises(PathError) as info:
        compile_path(f"$[?match(@.rack, '{pattern}')]")
    reason = str(info.value)
    assert f" at column {column}: invalid escape sequence (\\" in reason
    assert "a backslash in a JSONPath string starts an escape of RFC 9535's" in reason and reason.endswith(f"{instead})")
    assert compile_path(f"$[?match(@, '{pattern.replace(chr(92) + '.', '[.]').replace(chr(92) + 'd', '[0-9]')}')]")


def test_a_pattern_that_expands_past_the_limit_is_refused_and_one_from_the_dump_matches_nothing() -> None:
    """Trial 166: '((a{1000}){1000}){1000}' (a quantifier of several digits is accepted since 92af123) took 3.8 GB to
    compile, through the lint endpoint too. The regex engine writes counted repeats out: a pattern standing for more
    than MAX_PATTERN_SIZE characters is refused at load, and one a dump gives matches nothing."""
    from rules.jsonpath import MAX_PATTERN_SIZE, pattern_size

    assert MAX_PATTERN_SIZE == 1000
    assert [pattern_size(p) for p in ("(a{10}){20}", "[0-9a-f]{8}-[0-9a-f]{4}", "(a|bb){3}", "\\p{Lu}{3}", "a+")] == [
        200,
        73,  # a class compiles to its members: 6 of them, 8 times, then 4 times (trial 167)
        9,
        3,
        1,
    ]
    assert pattern_size("((a{1000}){1000}){1000}") == pattern_size("a{4294967296}") == MAX_PATTERN_SIZE + 1
    with pytest.raises(PathError) as info:
        compile_path("$[?match(@, '((a{1000}){1000}){1000}')]")
    assert "is too large to check and compile: standing for more than 1,000 characters once its counted repeats" in str(
        info.value
    )
    path = compile_path("$.names[?search(@, $.pattern)]")
    assert path.values({"pattern": "((a{1000}){1000}){1000}", "names": ["a" * 10]}) == []
    assert path.values({"pattern": "a{1000}", "names": ["a" * 1000, "a" * 999]}) == ["a" * 1000]


def test_a_pattern_too_long_or_too_deep_is_refused_before_the_checker_and_a_class_counts_its_members() -> None:
    """Trial 167: 20,000 nested groups crashed the process in the I-Regexp checker (exit 139, the lint endpoint's worker
    too); a class 45,000 characters long repeated 1,000 times took 2 GB to compile, counted as one character."""
    from rules.jsonpath import iregexp, pattern_bounds

    deep = "(" * 20_000 + "a" + ")" * 20_000
    assert pattern_bounds(deep) == "longer than 1,000 characters"
    assert pattern_bounds("(" * 40 + "a" + ")" * 40) == "its groups nested 40 deep (at most 32)"
    assert pattern_bounds("[" + "a-b" * 300 + "]{1000}").startswith("standing for more than 1,000 characters")
    assert pattern_bounds("\\(" * 40 + "a") == ""  # escaped parentheses are characters
    assert iregexp(deep) is None and iregexp("\ud800") is None  # a dump's: matches nothing, no crash
    with pytest.raises(PathError) as info:
        compile_path(f"$[?match(@, '{deep}')]")
    assert "is too large to check and compile: longer than 1,000 characters" in str(info.value)


def test_a_pattern_that_backtracks_exponentially_is_refused_or_given_up() -> None:
    """Trial 166: search(@, '(a|a)*$') took 33 s on 28 characters. Written in a policy it is refused at load (as
    matches: is); given by the dump, the one match() or search() is given up after PATTERN_SECONDS, an error."""
    from rules.errors import EvaluationError
    from rules.jsonpath import PATTERN_SECONDS

    with pytest.raises(PathError) as info:
        compile_path("$[?search(@, '(a|a)*$')]")
    assert "the search() pattern: regular expression '(a|a)*$' repeats a group that can match the same text" in str(info.value)
    assert compile_path("$[?match(@, '(-[a-z]+)*')]").values(["-ab-c", "ab"]) == ["-ab-c"]
    from rules import jsonpath

    jsonpath._GAVE_UP.clear()
    path = compile_path("$.names[?search(@, $.pattern)]")
    with pytest.raises(EvaluationError) as given_up:
        path.values({"pattern": "(a|a)*$", "names": ["a" * 27 + "b"]})
    assert str(given_up.value) == (
        f"search() of '(a|a)*$' gave up after {PATTERN_SECONDS} s on a value of 28 characters: the pattern can match a"
        " value in too many ways (exponential backtracking)"
    )
    # trial 167: 0.25 s a call was 86 s over 500 values; a pattern given up on is tried no more
    started = time.perf_counter()
    for _ in range(20):
        with pytest.raises(EvaluationError) as again:
            path.values({"pattern": "(a|a)*$", "names": ["a" * 27 + "b"]})
    assert time.perf_counter() - started < PATTERN_SECONDS
    assert "(a|a)*$' was given up on earlier: the pattern can match a value" in str(again.value)
    jsonpath._GAVE_UP.clear()


@pytest.mark.parametrize(
    ("path", "said"),
    [
        # trial 166: \w was told to be written \\w, which is then refused as no I-Regexp
        ("$[?match(@.b, 'x\\w+')]", "for a regex's \\w write [A-Za-z0-9_])"),
        ("$[?match(@.b, 'x\\q')]", "I-Regexp (RFC 9485) has no \\q)"),
        # and a member name's escape was told of regexes
        ("$.metadata.labels['nvidia\\.com/gpu']", "a member name needs no other: write . as it is)"),
    ],
)
def test_a_bad_escape_is_told_what_to_write_where_it_stands(path: str, said: str) -> None:
    with pytest.raises(PathError) as info:
        compile_path(path)
    assert str(info.value).endswith(said)


def test_a_class_reads_and_and_dashes_as_characters_and_the_ends_anchor() -> None:
    """Trial 166: [a&&b] matched nothing (the regex engine's VERSION1 set intersection; RFC 9485: the characters a, &
    and b). ^ and $ anchor, as jsonpath-rfc9535 has them (the pack's search(@, '-SHARED$'))."""
    assert compile_path("$[?match(@, 'x[a&&b]')]").values(["x&", "xa", "xc"]) == ["x&", "xa"]
    assert compile_path("$[?search(@, '-SHARED$')]").values(["Tesla-T4-SHARED", "Tesla-T4-SHARED-x"]) == ["Tesla-T4-SHARED"]


def test_a_pattern_read_from_the_document_is_judged_as_it_is_read() -> None:
    path = compile_path("$.names[?search(@, $.pattern)]")
    assert path.values({"pattern": "[0-9]{10}", "names": ["id-0123456789", "id-12"]}) == ["id-0123456789"]
    assert path.values({"pattern": "\\d+", "names": ["id-0123456789"]}) == []


@pytest.mark.parametrize(
    ("text", "column", "reason"),
    [
        ("$.a[", 5, "unexpected end of query"),
        # the end of a longer text (a trial: the parser's own place was column 5 of '$.metadata[')
        ("$.metadata[", 12, "unexpected end of query"),
        ("$.metadata.labels[", 19, "unexpected end of query"),
        ("$.a.b.", 7, "expected a shorthand selector"),
        ("$.status.conditions[?@.type = 'Ready']", 29, "did you mean '=='"),
        ("$.a['x]", 6, "unclosed string literal"),
        ("$.a[?foo(@)]", 6, "unknown function 'foo'"),
        # trial 165: the words for RFC 9535's logical operators
        ("$[?@.a == 'x' and @.b]", 15, "unexpected 'and', did you mean '&&'?"),
        ("$[?@.a == 'x' or @.b]", 15, "unexpected 'or', did you mean '||'?"),
        ("$[?not @.a]", 7, "did you mean '!'?"),
    ],
)
def test_invalid_paths_are_refused_with_their_column(text: str, column: int, reason: str) -> None:
    with pytest.raises(PathError) as info:
        compile_path(text)
    message = str(info.value)
    assert f"invalid JSONPath {text!r} at column {column}:" in message
    assert reason in message
    assert info.value.hint == ""


@pytest.mark.parametrize(
    ("text", "hint"),
    [
        ("$.status.allocatable[nvidia.com/gpu]", "$.status.allocatable['nvidia.com/gpu']"),
        ("$.spec.containers[*].resources.limits[nvidia.com/gpu]", "$.spec.containers[*].resources.limits['nvidia.com/gpu']"),
        ("$.metadata.labels.nvidia.com/gpu.present", "$.metadata.labels['nvidia.com/gpu.present']"),
        # trial 47: "unexpected token" and "unexpected 'metadata'" said nothing of the missing ']' or '$'
        ("$.metadata.labels[team", "$.metadata.labels['team']"),
        ("metadata.labels.team", "$.metadata.labels.team"),
    ],
)
def test_a_member_name_without_quotes_is_told_how_to_write_it(text: str, hint: str) -> None:
    """Regression (a policy author's trial): `[nvidia.com/gpu]`, as kubectl writes it, read only "unexpected '/'"."""
    with pytest.raises(PathError) as info:
        compile_path(text)
    assert info.value.hint == hint
    compile_path(hint)


@pytest.mark.parametrize("text", ["", "   ", None, 3])
def test_empty_or_not_a_string(text: Any) -> None:
    with pytest.raises(PathError, match="non-empty string starting with '\\$'"):
        compile_path(text)


@pytest.mark.parametrize(
    ("text", "hint"),
    [
        ("{.metadata.labels.a\\.b}", "$.metadata.labels['a.b']"),
        ("{.metadata.labels.nvidia\\.com/gpu\\.present}", "$.metadata.labels['nvidia.com/gpu.present']"),
        (".spec.x", "$.spec.x"),
        ("{.status.allocatable}", "$.status.allocatable"),
        ("$.a[?(@.a=='b')]", "$.a[?@.a=='b']"),
        ("{.status.conditions[?(@.type=='Ready')].status}", "$.status.conditions[?@.type=='Ready'].status"),
        ("{..name}", "$..name"),
        ("{.items[*].metadata.name}", "$.metadata.name"),  # trial 123: a rule reads each object of a List
    ],
)
def test_kubectl_dialect_refused_with_rfc_hint(text: str, hint: str) -> None:
    with pytest.raises(PathError) as info:
        compile_path(text)
    assert info.value.hint == hint
    assert "kubectl JSONPath, not RFC 9535 JSONPath" in str(info.value)
    assert f"did you mean {hint!r}?" in str(info.value)
    # The hint itself is valid RFC 9535.
    compile_path(hint)


def test_an_escaped_dot_in_a_filter_string_is_rfc9535() -> None:
    """A ``\\.`` inside a quoted string of a filter (a regex escaping its dot) is RFC 9535's own: it was refused
    as kubectl JSONPath with a "did you mean" of the very same path. The dialect is still said outside quotes."""
    path = compile_path("$.permits[?match(@.name, 'nvidia\\\\.com/.*')].name")
    assert path.values({"permits": [{"name": "nvidia.com/A10"}, {"name": "nvidiaXcom/A10"}]}) == ["nvidia.com/A10"]
    with pytest.raises(PathError, match="kubectl JSONPath"):
        compile_path("$.metadata.labels.nvidia\\.com/gpu")


def test_a_group_inside_a_filter_is_rfc9535() -> None:
    """``[?(@.a || @.b) && @.c]`` groups within an RFC 9535 filter: it was refused as kubectl's ``[?(...)]`` with a
    "did you mean" that did not parse (trial 113's pack paths). A filter wholly in parentheses is still refused."""
    path = compile_path("$[?(@.a == 1 || @.b == 2) && @.c == 3].x")
    data = {"m": {"a": 1, "c": 3, "x": "m"}, "n": {"b": 2, "c": 4, "x": "n"}, "o": {"b": 2, "c": 3, "x": "o"}}
    assert sorted(path.values(data)) == ["m", "o"]
    with pytest.raises(PathError, match="kubectl JSONPath") as info:
        compile_path("$.items[?(@.a == 1 || @.b == 2)].x")
    assert info.value.hint == "$.items[?@.a == 1 || @.b == 2].x"
    with pytest.raises(PathError, match="kubectl JSONPath"):
        compile_path("$.items[?(@.a == 1), ?(@.b == 2)].x")


def test_hint_selects_what_kubectl_meant() -> None:
    hint = kubectl_to_rfc9535("{.metadata.labels.nvidia\\.com/gpu\\.workload\\.config}")
    assert compile_path(hint).values(GPU_NODE) == ["vm-passthrough"]


# Paths of every shape the fast evaluation compiles (name, index, wildcard; child and descendant segments;
# several selectors in one segment), and two it leaves to the library (a filter, a slice).
FAST_AND_LIBRARY_PATHS = [
    "$",
    "$.a",
    "$.a.b['c.d']",
    "$..b",
    "$.a[*]",
    "$.a[0]",
    "$.a[-1]",
    "$.a[3]",
    "$..['a','b'][*]",
    "$.*",
    "$..*",
    "$[*].a",
    "$.a..b.c",
    "$..[0]",
    "$.a['b','c'][-2]",
    "$.a[?@.b == 1]",
    "$.a[?@.b == true]",
    "$.a[?@.b != 'x'].c",
    "$[?@.a == null]",
    "$..[?@.c.d == @.b]",
    "$.a[?@.b == 1 && @.c != 'x' || !@.a]",
    "$.*[?@.b]",
    "$.a[?@.b < 1]",
    "$.a[1:]",
]
_json = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from(["a", "b", "x"])),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(["a", "b", "c", "c.d"]), inner, max_size=4),
    max_leaves=25,
)


@settings(max_examples=300, deadline=None)
@given(document=_json)
def test_fast_evaluation_selects_what_the_library_selects(document: Any) -> None:
    """The same values (the very objects) in the same order as the library's own ``finditer``, and the same
    first value, for every path shape, on any JSON document."""
    for text in FAST_AND_LIBRARY_PATHS:
        path = compile_path(text)
        expected = [node.value for node in path.query.finditer(document)]
        got = path.values(document)
        assert [id(v) for v in got] == [id(v) for v in expected], text
        assert path.first(document, "none") is (expected[0] if expected else "none"), text


def test_paths_of_names_indexes_wildcards_and_simple_filters_are_compiled_and_others_are_not() -> None:
    assert compile_path("$.metadata.labels['nvidia.com/gpu.present']").find.__qualname__.startswith("_names_finder")
    assert compile_path("$.spec..['containers','initContainers'][*]").find.__qualname__.startswith("_general_finder")
    assert not compile_path("$.spec..nodeName").plain and compile_path("$.a[?@.b == 1]").plain
    filtered = compile_path("$.status.conditions[?@.type == 'Ready'].status")
    assert filtered.find.__qualname__.startswith("_general_finder") and filtered.values(GPU_NODE) == ["True"]
    for text in ("$.a[?@.b < 1]", "$.a[?length(@.b) == 1]", "$.a[?@.b == $.c]", "$.a[?@.b[0] == 1]", "$.a[1:]"):
        path = compile_path(text)
        assert path.find == path.query.findall, text  # left to the library


def test_descendant_past_the_recursion_limit_is_an_evaluation_error() -> None:
    from rules.errors import EvaluationError

    deep: Any = "leaf"
    for _ in range(120):
        deep = {"a": deep}
    with pytest.raises(EvaluationError, match="nested too deeply"):
        compile_path("$..a").values(deep)


@pytest.mark.parametrize(("path", "count"), [("$..*..*..*..*..*", 5), ("$..spec..nodeName", 2), ("$[?@..x == 1]..y", 2)])
def test_a_path_of_several_descendant_segments_is_refused(path: str, count: int) -> None:
    """Trial 41: $..*..*..*..*..* passed lint and, on a 1.4 KB Node nested 90 levels, ran past 120 s and 1.3 GB in
    the CLI; in the service the 100 s budget never stopped it and the worker was recycled with no answer. Each
    descendant segment multiplies the values visited by the object's size: a path may hold one."""
    with pytest.raises(PathError) as caught:
        compile_path(path)
    assert str(caught.value).startswith(f"JSONPath '{path}' has {count} descendant segments ('..')")
    compile_path("$.spec..nodeName")  # one is linear in the object
    compile_path("$.metadata.labels['a..b']")  # in a member name, not a segment


def test_a_kubectl_range_template_is_named_and_its_first_field_offered() -> None:
    """Trial 126: '{range .items[*]}{.metadata.name}{end}' was answered with a hint that did not parse."""
    with pytest.raises(PathError) as info:
        compile_path("{range .items[*]}{.metadata.name}{end}")
    assert str(info.value) == (
        "'{range .items[*]}{.metadata.name}{end}' is a kubectl JSONPath template (range ... end), not a path: a rule"
        " judges each object of a List on its own, and its path starts at the object; did you mean '$.metadata.name'?"
    )
    compile_path(info.value.hint)
    # trial 128: a range over a list inside the object keeps its path; a template in a filter's string is data
    with pytest.raises(PathError) as inner:
        compile_path("{range .status.conditions[*]}{.type}={.status}{end}")
    assert inner.value.hint == "$.status.conditions[*].type"
    assert compile_path("$.data[?@ == '{{ range .Values.x }}{{ end }}']").values({"data": ["{{ range .Values.x }}{{ end }}"]})
