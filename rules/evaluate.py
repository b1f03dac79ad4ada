"""Evaluate compiled policies against an indexed dump: one ``Result`` per (object, matching rule).

An exception inside one rule on one object becomes that result's ``error``; it never stops the run.
Evaluation never parses a path: everything it reads was compiled at load (``rules.model``) and compiled
again into plain callables on first use (``rules.compiled``). Exemptions (``rules.exemptions``) apply to an
object's results once they are known, never inside a rule.
"""

from __future__ import annotations

import functools
import os
import re
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from datetime import UTC, datetime
from fractions import Fraction
from pathlib import Path
from typing import Any

from . import heap, parallel
from .compiled import ANY_KIND, PolicyPlan, RulePlan, plan_of, prepare
from .errors import EvaluationError, EvaluationTimeout, InputError
from .exemptions import Exempter, ExemptionSet
from .index import Index, metadata_of
from .limits import limit
from .loader import BUILTIN_DIR, PolicySet
from .messages import command, has_placeholders, substitute
from .model import Rule
from .operators import OPERATORS, OperatorError, object_name, show
from .progress import Progress
from .quantity import QuantityError, format_quantity, parse_quantity
from .reader import Dump, KObject
from .report import ObjectRef, ObjectReport, Report, Result, counted, first_few
from .scope import Outcome, Scope
from .selection import Selection
from .shell import written

# ------------------------------------------------------------------------------------------ rules


def _matches(rule: Rule, args: tuple[str, str, str, str, dict[str, Any]]) -> bool:
    """``args`` is (kind, apiVersion, namespace, name, labels) of the object."""
    if not rule.match.matches(*args):
        return False
    return rule.exclude is None or not rule.exclude.matches(*args)


def judge(plan: RulePlan, obj: KObject, index: Index, policy_scope: Scope) -> Result:
    """The result of the compiled rule ``plan`` on ``obj``, with ``policy_scope`` the object's scope for the
    rule's policy (shared by the policy's rules, so its vars are computed once per object); never raises."""
    rule = plan.rule
    scope = _rule_scope(plan, obj, index, policy_scope)
    extra: dict[str, Any] | None = None

    def result(word: str, message: str, out: Outcome | None = None, assumed: tuple[str, ...] = ()) -> Result:
        remediation = ""
        if word in ("fail", "warn") and rule.remediation:
            remediation = command(rule.remediation, scope, extra or {}).strip()  # a var that renders "" first
        elif out is not None and out.shared:
            # Objects that share an outcome and a message share the result (a pass, a skip): one object in
            # memory, and one in each shard a worker process sends back.
            table: dict[Any, tuple[Outcome, Result]] = index.memo(("results", id(plan)), dict)
            key = (id(out), word, message, assumed)
            found = table.get(key)
            if found is None or found[0] is not out:
                found = table[key] = (out, build(word, message, out, remediation, assumed))
            return found[1]
        return build(word, message, out, remediation, assumed)

    def build(word: str, message: str, out: Outcome | None, remediation: str, assumed: tuple[str, ...]) -> Result:
        return Result(
            rule.policy,
            rule.id,
            rule.title,
            word,
            rule.severity,
            rule.category,
            clip(message, MAX_MESSAGE_CHARS),
            out.path if out else "",
            clip_value(_observed(out)) if out else None,
            clip_value(_expected(out)) if out else None,
            clip(remediation, MAX_MESSAGE_CHARS),
            rule.references,
            assumptions=assumed,
        )

    try:
        for pre, pre_check in plan.preconditions:
            out = pre_check(scope)
            if out.state != "pass":
                # A precondition that does not apply (an object operator's skip) says why itself; the description
                # says why it fails. Either is the skip's whole message: a skip's message is why the rule does not
                # apply (22 bytes of "precondition not met: " on most Pods' results made 6 % of a cluster's
                # report, issue 11); only a precondition without a description says it is one.
                told = out.detail if out.state == "skip" else ""
                why = told or pre.description
                if not why:
                    why = f"precondition not met: {out.detail or f'{out.path} is {show(out.observed)}, not {out.expected}'}"
                return result("skip", why, out)
        out = plan.check(scope)
        if out.state == "skip":
            return result("skip", out.detail or "not applicable", out)
        word = "pass" if out.state == "pass" else rule.on_failure
        template = rule.pass_message if out.state == "pass" else (out.message or rule.message)
        needs_extra = has_placeholders(template) or (word != "pass" and bool(rule.remediation)) or bool(plan.assumptions)
        if needs_extra:
            extra = _placeholders(out, rule)
        message = substitute(template, scope, extra or {})
        if out.more:  # forEach report: all: the message written for each failing item, each once (trial 75: an
            # entry listed twice said the same sentence twice)
            said = [message.rstrip()]
            for other in out.more:
                text = substitute(other.message or rule.message, scope, _placeholders(other, rule)).rstrip()
                if text not in said:
                    said.append(text)
            # each a sentence (trial 94: messages written without a full stop ran on into each other)
            message = " ".join(t if not t or t[-1] in ".!?;:" else f"{t}." for t in said)
        assumed: list[str] = []
        for assumption, when in plan.assumptions:
            if when(scope).state == "pass":
                message = _then(message, substitute(assumption.message, scope, extra or {}).strip())
                assumed.append(assumption.note)
                if word != "pass" and assumption.on_failure:
                    word = assumption.on_failure
        if word in ("fail", "warn") and index.unread and _in_doubt(plan.reads_dump, index.unread_kinds):
            # trial 92: a vgpu-manager pod lost with a List item it was in was said not to run on its node
            message = _then(message, _unread_sentence(index.unread, total=index.errors))
            assumed.append(UNREAD_NOTE)
        elif word == "pass" and index.unread and (kinds := _lost_and_read(plan.reads_dump, index.unread_kinds)):
            # trial 183: a must-gather's empty cluster_policy.yaml, and its nodes passed "no ClusterPolicy in the dump"
            # where the one they lost fails them: a pass that reads a kind the input errors are known to have kept out
            message = _then(message, _unread_sentence(index.unread, kinds, index.errors))
            assumed.append(UNREAD_NOTE)
        if word == "pass":
            extra = None  # a passing result has no remediation
        return result(word, message, out, tuple(assumed))
    except (EvaluationError, OperatorError) as exc:
        return result("error", f"could not evaluate: {exc}")
    except Exception as exc:  # a bug in an operator must not end the run: report it on this result
        return result("error", f"could not evaluate: internal error {type(exc).__name__}: {exc}")


#: The note of the results ``_unread_sentence`` is said in (``_assumption_notes``).
UNREAD_NOTE = "nothing the input errors kept from being read would change a verdict that reads other objects of the dump"


def _kept_out(dump: Dump) -> list[InputError]:
    """The input errors of ``dump`` that kept part of it out: not one that lost a copy of an object read whole from
    elsewhere in the dump (trial 183: a List cut inside Node gpu-pt-1, beside the file that held it whole, was said
    to have kept out 1 Node, and the node's own verdicts were put in doubt)."""
    lost = [e for e in dump.errors if e.lost]
    if any(e.ref for e in lost):
        read = {(o.kind, f"{o.namespace}/{o.name}" if o.namespace else o.name) for o in dump.objects}
        lost = [e for e in lost if not (e.ref and (e.kind, e.ref) in read)]
    return lost


def _lost_notes(lost: list[Any]) -> list[str]:
    """A note of the objects the input errors kept out where the reader knows their kind (trial 97: a ClusterPolicy
    lost with its List item left results saying the dump holds none, a skip and passes among them, which the
    sentence on findings does not reach)."""
    kinds: dict[str, int | None] = {}
    for e in lost:
        if e.kind:
            known = kinds.get(e.kind, 0)
            kinds[e.kind] = None if known is None or e.count is None else known + e.count
    if not kinds:
        return []
    # (trial 131: a node's pods withheld or cut off were counted as 1 Pod)
    what = ", ".join(f"an unknown number of {k}s" if n is None else counted(n, k) for k, n in sorted(kinds.items()))
    # (trial 230 #9: "named in them" of a YAML syntax error inside a Node, which names none: it says where)
    # (trial 231 #11: "Pod" in "Non-terminated Pods" of a describe text cut short named none: a word of its own)
    named = all(e.ref or re.search(rf"\b{re.escape(e.kind)}\b", e.reason) for e in lost if e.kind)
    where = "named in them" if named else "the input errors say where"
    # (trial 240 #5: "kept out 1 Node" where a cut List item of a kind the reader could not tell lost another)
    unknown = sum(1 for e in lost if not e.kind)
    more = f", and {counted(unknown, 'part')} of the dump of a kind not known" if unknown else ""
    return [
        f"input errors kept out {what} ({where}){more}: a result that says the dump holds none of its kind, or that"
        " was judged without it, is about what was read"
    ]


def _in_doubt(reads: frozenset[str], lost: frozenset[str]) -> bool:
    """Whether a verdict that reads objects of the kinds ``reads`` of the dump may change with what its input errors
    kept out, of the kinds ``lost`` (``ANY_KIND`` on either side: any): a broken ConfigMap item puts no verdict read
    from the Nodes in doubt (review)."""
    if not reads or not lost:
        return False
    return ANY_KIND in reads or ANY_KIND in lost or not reads.isdisjoint(lost)


def _lost_and_read(reads: frozenset[str], lost: frozenset[str]) -> list[str]:
    """The kinds a verdict reads (``reads``) that the input errors are known to have kept out of the dump (``lost``,
    their kinds where the reader knows them: an item of a List, a must-gather's file named after what it holds)."""
    return sorted((lost - {ANY_KIND}) & reads)


def _then(message: str, sentence: str) -> str:
    """``message`` and, after it, ``sentence`` (what an assumption or the input errors add), a stop put between them
    where the message ends without one and the sentence is no aside in parentheses (trial 175: "... (node-a) 2 input
    errors kept part of the dump ...")."""
    said = message.rstrip()
    if not sentence:
        return said
    # (trial 177: "(... add it to be sure.). 1 input error": an aside ending with its stop ends the sentence)
    stopped = not said or said[-1] in ".!?:" or said.endswith((".)", "!)", "?)")) or sentence[0] == "("
    return f"{said}{'' if stopped else '.'} {sentence}"


def _unread_sentence(errors: int, kinds: list[str] | None = None, total: int = 0) -> str:
    """What a fail or warn of a rule that reads other objects (``RulePlan.reads_dump``) adds in a dump where
    ``errors`` input errors kept part of it from being read: an object it looked for may be in what they kept out;
    with ``kinds``, a pass that reads objects of the kinds they are known to have kept out. Of ``total`` input errors
    in all, where that is more (trial 239 #6: "2 input errors kept part of the dump" under a summary of 3, the third
    a List item whose object another file held whole)."""
    if kinds:
        return (
            f"Input errors kept objects of kind {' and '.join(kinds)} from being read (see the input errors), and this"
            f" verdict reads {'that kind' if len(kinds) == 1 else 'those kinds'}: what was not read may change it."
        )
    some = f"{errors:,} of its {total:,} input errors" if total > errors else counted(errors, "input error")
    return (
        f"{some} kept part of the dump from being read (see its input errors), and this verdict reads other objects of"
        " it: what was not read may change it."
    )


def _rule_scope(plan: RulePlan, obj: KObject, index: Index, policy_scope: Scope) -> Scope:
    """The scope ``plan``'s checks read on ``obj``: the policy's, with the rule's own vars when it has any."""
    return Scope(obj, index, plan.policy, plan.specs, parent=policy_scope) if plan.specs else policy_scope


def unmet_in_dump(plan: RulePlan, obj: KObject, index: Index, policy_scope: Scope) -> tuple[str, str] | None:
    """Why ``plan`` applies to no object of ``index``'s dump: the description of the first of its leading
    preconditions that read only the dump (``RulePlan.dump_preconditions``) that does not hold, judged on ``obj``
    (any object the rule matches: the outcome is the same for all), which each object would otherwise skip with,
    and the rule that precondition says judges the objects instead (``supersededBy``: a rule for a dump that lacks
    what this one holds, such as a manifests audit's stand-in for the scheduler's model), or "". None when each
    holds, or one cannot be evaluated (then the rule judges every object, and each result says the error)."""
    if not plan.dump_preconditions:
        return None
    scope = _rule_scope(plan, obj, index, policy_scope)
    for pre, check in plan.dump_preconditions:
        try:
            out = check(scope)
        except Exception:  # the per-object results report it
            return None
        if out.state == "fail":
            why = pre.description or out.detail or f"{out.path} is {show(out.observed)}, not {out.expected}"
            return why, pre.superseded_by
        if out.state != "pass":
            return None
    return None


def _observed(out: Outcome) -> Any:
    """What a result observed: the outcome's value, or each failing item's (forEach ``report: all``)."""
    return [out.observed, *(m.observed for m in out.more)] if out.more else out.observed


def _expected(out: Outcome) -> Any:
    """What a result expected: the outcome's; with forEach ``report: all``, each failing item's, in the order of
    ``_observed``, where they differ (trial 135: the first item's alone, beside two items observed)."""
    if not out.more:
        return out.expected
    each = [out.expected, *(m.expected for m in out.more)]
    return each[0] if all(e == each[0] for e in each) else each


def _placeholders(out: Outcome, rule: Rule) -> dict[str, Any]:
    """What a result's message and remediation read of the outcome ``out`` of ``rule`` besides the scope."""
    return {
        "observed": out.observed,
        "expected": out.expected,
        "path": written(out.path),  # the pack's JSONPath as written (rules.shell); detail may name dump objects
        "detail": out.detail,
        "policy": rule.policy,
        "rule": rule.id,
        "severity": rule.severity,
        **out.bindings,
    }


def _assumption_notes(objects: list[ObjectReport]) -> list[str]:
    """One note per assumption the dump's verdicts rest on, with how many results it was applied to (of any
    word: a pass rests on it as much as a finding) and which rules."""
    used: dict[str, dict[str, int]] = {}
    for obj in objects:
        for r in obj.results:
            for note in r.assumptions:
                rules = used.setdefault(note, {})
                rules[f"{r.policy}/{r.rule}"] = rules.get(f"{r.policy}/{r.rule}", 0) + 1
    out = []
    for note, rules in used.items():
        n = sum(rules.values())
        out.append(f"assumed: {note.rstrip('.')} (applied to {counted(n, 'result')} of {', '.join(sorted(rules))})")
    return out


#: Skip reasons noted one by one (most results first); the others are counted in one more note.
MAX_SKIP_NOTES = 10
#: Rules named in one skip note; the others are counted.
SKIP_NOTE_RULES = 4
_PRECONDITION = "precondition not met: "


def _skip_notes(objects: list[ObjectReport]) -> tuple[list[str], list[str]]:
    """One note per skip reason shared by the dump's skipped results: ``skipped: <reason> (N results of policy/rule, ...;
    none of these rules judged any object)``, so a reader sees once why most rules did not run (e.g. every node rule
    that needs a ClusterPolicy). Reasons that leave rules without a single judged object come first (most such rules
    first), then the others by results; a precondition most objects simply do not meet (a pod that asks for no GPU) is
    ranked below what kept a rule from running at all. Reasons are the results' own messages (without the
    ``precondition not met:`` of a precondition with no description), grouped when identical; skips an exemption made
    are left out (the exemption notes say them). At most ``MAX_SKIP_NOTES`` reasons are named, then one note counts
    the rest; a note names at most ``SKIP_NOTE_RULES`` rules and counts the others. Answered in two parts: the reasons
    that kept rules from judging any object, and the others (the caller puts the rules not applied between them: "the
    dump holds no Node" tells the reader of a manifests audit more than a pod that asks for no GPU)."""
    reasons: dict[str, dict[str, int]] = {}
    judged: set[str] = set()  # rules with a result other than skip (an exempted one counts: it was judged)
    for obj in objects:
        for r in obj.results:
            uid = f"{r.policy}/{r.rule}"
            if r.result != "skip" or r.exemption is not None:
                judged.add(uid)
                continue
            reason = r.message.removeprefix(_PRECONDITION).strip() or "not applicable"
            rules = reasons.setdefault(reason, {})
            rules[uid] = rules.get(uid, 0) + 1

    def silenced(rules: dict[str, int]) -> int:
        return sum(1 for uid in rules if uid not in judged)

    # stable: ties keep first-seen order
    ranked = sorted(reasons.items(), key=lambda item: (-silenced(item[1]), -sum(item[1].values())))
    idle: list[str] = []
    routine: list[str] = []
    for reason, rules in ranked[:MAX_SKIP_NOTES]:
        n = sum(rules.values())
        names = sorted(rules)
        more = len(names) - SKIP_NOTE_RULES
        shown = ", ".join(names[:SKIP_NOTE_RULES]) + (f" and {counted(more, 'more rule')}" if more > 0 else "")
        none = _judged_none(silenced(rules), len(names))
        (idle if silenced(rules) else routine).append(f"skipped: {reason.rstrip('.')} ({counted(n, 'result')} of {shown}{none})")
    rest = ranked[MAX_SKIP_NOTES:]
    if rest:
        n = sum(sum(rules.values()) for _, rules in rest)
        # trial 66: a table, which lists no skip by default, pointed at results it did not show
        said = "each skip result says its reason: --results skip, or results=skip from the service, lists them"
        routine.append(f"skipped for {counted(len(rest), 'other reason')}: {counted(n, 'result')} ({said})")
    return idle, routine


def _not_applied_notes(not_applied: list[dict[str, Any]]) -> list[str]:
    """One note per reason some rules applied to no object of the dump (``Report.not_applied``): ``not applied:
    <reason> (policy/rule, ...: no result for the N objects they match)``, in place of a skip result on each. A rule
    superseded in this dump (its precondition's ``supersededBy`` names the rule that judges instead: "the dump holds
    Nodes, so workload-schedulable judges where the workload can land") has none: that is no news of the dump, and
    five such notes of a whole cluster's dump were read as noise (trial 169); its ``notApplied`` entry says it."""
    by_reason: dict[str, list[dict[str, Any]]] = {}
    for entry in not_applied:
        if entry.get("supersededBy"):
            continue
        by_reason.setdefault(entry["reason"], []).append(entry)
    out = []
    for reason, entries in by_reason.items():
        counts = {e["objects"] for e in entries}
        if len(counts) == 1:
            they = "it matches" if len(entries) == 1 else "they match"
            told = f"{', '.join(e['rule'] for e in entries)}: no result for the {counted(counts.pop(), 'object')} {they}"
        else:
            told = "no result for the objects each matches: " + ", ".join(f"{e['rule']} {e['objects']:,}" for e in entries)
        out.append(f"not applied: {reason.strip().rstrip('.')} ({told})")
    return out


def _judged_none(k: int, of: int) -> str:
    """How many of the ``of`` rules a skip note names judged no object at all (``k``): the rules this reason
    kept from running, as against those it skipped on some objects only."""
    if not k:
        return ""
    if k < of:
        return f"; {k} of these {of} rules judged no object"
    return {1: "; the rule judged no object", 2: "; neither rule judged any object"}.get(
        k, "; none of these rules judged any object"
    )


def _nothing_matched_notes(objects: list[ObjectReport], policies: PolicySet, every: list[KObject]) -> list[str]:
    """When no rule matched any object of a dump that has objects: the kinds the rules judge and the kinds the
    dump holds, so that "0 objects judged" says why (a pack of Service rules given a dump of Nodes)."""
    if objects or not every or not policies.rules:
        return []
    judged = sorted({k for r in policies.rules for k in r.match.kinds})
    held = first_few(sorted({o.kind for o in every}), 12)
    return [f"no rule matched any object of the dump: the rules judge {', '.join(judged)}; the dump holds {held}"]


def _filtered_out_notes(
    objects: list[ObjectReport], policies: PolicySet, every: list[KObject], not_applied: list[dict[str, Any]]
) -> list[str]:
    """One note for the rules that matched no object of the dump though it holds objects of their kinds: their
    match's labelSelector, names, namespaces or apiVersions left them all out (trial 190: a pack's five Node rules
    selecting nvidia.com/gpu.present judged none of the lab's nodes, and the table read "15 pass" without a word of
    them). A rule chosen by name has its own note (``_unmatched_notes``)."""
    if not objects or policies.named:
        return []
    matched = {f"{r.policy}/{r.rule}" for obj in objects for r in obj.results} | {e["rule"] for e in not_applied}
    kinds = {o.kind for o in every}
    left = [
        r.uid
        for p in policies.policies
        if not _builtin(p.file)  # (a built-in rule for a named ConfigMap is not news to every must-gather)
        for r in p.rules
        if r.uid not in matched
        and (r.match.selector is not None or r.match.names or r.match.namespaces or r.match.api_versions)
        and ("*" in r.match.kinds or r.match.kinds & kinds)
    ]
    if not left:
        return []
    return [
        f"{counted(len(left), 'rule')} matched none of the dump's objects of the kinds they judge (their match's"
        f" labelSelector, names, namespaces or apiVersions leave them all out): {first_few(left, 8)}"
    ]


@functools.cache
def _builtin(file: str) -> bool:
    """True for a policy file of the built-in packs."""
    return Path(file).resolve().is_relative_to(BUILTIN_DIR.resolve())


def _left_out_notes(policies: PolicySet) -> list[str]:
    """The rules left out by name, so that a report of part of a pack does not read as the whole of it."""
    return [f"rules left out by name (--skip-rule, skipRule=): {', '.join(policies.left_out)}"] if policies.left_out else []


def _unmatched_notes(
    objects: list[ObjectReport], policies: PolicySet, selected: bool, not_applied: list[dict[str, Any]]
) -> list[str]:
    """One note per rule chosen by name that matched no object of the dump (of the objects a selection kept),
    with the kinds it judges: its absence from the report is otherwise silent (a lab of Pods judged with a
    VirtualMachine rule). A rule that matched objects but did not apply to the dump has its own note."""
    matched = {f"{r.policy}/{r.rule}" for obj in objects for r in obj.results} | {e["rule"] for e in not_applied}
    among = "the objects selected" if selected else "the dump"
    return [
        f"rule {r.uid} matched no object of {among} (it judges {', '.join(sorted(r.match.kinds))})"
        for r in policies.rules
        if r.uid not in matched
    ]


#: A result's message is cut past this many characters, a string observed/expected value (or one in a list)
#: past MAX_VALUE_CHARS, with a marker that says how much was cut: a 5 MB label value must not make a 5 MB
#: message, nor a report format that cannot hold it.
MAX_MESSAGE_CHARS = limit("VERDICT_MAX_MESSAGE_CHARS")
MAX_VALUE_CHARS = limit("VERDICT_MAX_VALUE_CHARS")


def clip(text: str, limit: int) -> str:
    """``text``, or its first ``limit`` characters and ``… [N more characters]``."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [{len(text) - limit:,} more characters]"


_PLAIN = (int, float, bool)
#: Objects an observed value names, at most (then how many more).
MAX_OBJECTS_NAMED = 10


#: The integers a report's JSON holds (orjson refuses others).
_INT64_MIN, _UINT64_MAX = -(2**63), 2**64 - 1


def _unjsonable(value: Any) -> bool:
    """Whether a list or mapping holds what a report's JSON cannot at any depth: an integer past 64 bits, a mapping key
    that is no string (trial 141: ingress-nginx's tcp-services ConfigMap, 9000: ...), a set (YAML's !!set)."""
    if type(value) is int:
        return not _INT64_MIN <= value <= _UINT64_MAX
    if isinstance(value, (set, frozenset, tuple)):
        return True
    if isinstance(value, list):
        return any(_unjsonable(v) for v in value)
    if isinstance(value, dict):
        return any(type(k) is not str or _unjsonable(v) for k, v in value.items())
    return False


def _jsonable(value: Any) -> Any:
    """``value`` as a report's JSON holds it, at any depth: an integer past 64 bits as text, a mapping key as text, a
    set as a list."""
    if type(value) is int and not _INT64_MIN <= value <= _UINT64_MAX:
        return str(value)
    if isinstance(value, (set, frozenset)):
        return sorted((_jsonable(v) for v in value), key=str)
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k if type(k) is str else str(k): _jsonable(v) for k, v in value.items()}
    return value


def clip_value(value: Any) -> Any:
    """An observed/expected value with over-long strings clipped (top level and in lists and mappings); a number
    computed by sum/product is written as a quantity (``"1500m"``), as reports carry it."""
    if isinstance(value, str):
        return clip(value, MAX_VALUE_CHARS)
    if isinstance(value, (int, list, dict, set, frozenset, tuple)) and _unjsonable(value):
        # JSON encoders of the reports write 64-bit integers and string keys only, at any depth (trials 138, 140, 141:
        # replicas of 30 digits, a Deployment's strategy, tcp-services' number keys ended the renderers in a TypeError)
        value = _jsonable(value)
    if value is None or type(value) in _PLAIN:  # before the ABC check of Fraction
        return value
    if isinstance(value, Fraction):
        return format_quantity(value)
    if isinstance(value, list) and any(isinstance(v, dict) and object_name(v) for v in value):
        # Kubernetes objects a context holds whole (the pods that wait for a node's resource) are named, as messages
        # name them, not written out whole in every result (trial 84: a pod's every field in observed); the first
        # MAX_OBJECTS_NAMED, then how many more (review: the 4,000 nodes listing a device, named in each of 4,000
        # results, cost 16 million names and the report's size)
        shown = [object_name(v) or clip_value(v) if isinstance(v, dict) else clip_value(v) for v in value[:MAX_OBJECTS_NAMED]]
        if len(value) > MAX_OBJECTS_NAMED:
            shown.append(f"… {len(value) - MAX_OBJECTS_NAMED:,} more")
        return shown
    if isinstance(value, dict) and object_name(value):
        return object_name(value)
    if isinstance(value, list) and any(isinstance(v, str) and len(v) > MAX_VALUE_CHARS for v in value):
        return [clip(v, MAX_VALUE_CHARS) if isinstance(v, str) else v for v in value]
    if isinstance(value, dict) and any(isinstance(v, str) and len(v) > MAX_VALUE_CHARS for v in value.values()):
        return {k: clip(v, MAX_VALUE_CHARS) if isinstance(v, str) else v for k, v in value.items()}
    return value


#: Notes about objects that stand twice in a dump, at most this many per kind (then a count of the rest).
MAX_CONFLICT_NOTES_PER_KIND = limit("VERDICT_MAX_CONFLICT_NOTES")


def _operator_notes(index: Index) -> list[str]:
    """What the operators' per-dump set-up could not read (``Operator.notes``), each note once."""
    seen: dict[str, None] = {}
    for op in OPERATORS.values():
        if op.notes is not None:
            seen.update(dict.fromkeys(op.notes(index)))
    return list(seen)


def _named(obj: KObject) -> str:
    """``Pod ns/name``, ``Node name``: an object as the notes about objects in the dump twice name it."""
    return f"{obj.kind} {obj.namespace + '/' if obj.namespace else ''}{obj.name}"


def _conflict_notes(index: Index) -> list[str]:
    """One note per object that stands in the dump with different contents (how many times, in how many versions),
    at most ``MAX_CONFLICT_NOTES_PER_KIND`` per kind and one line counting the rest."""
    notes: list[str] = []
    per_kind: dict[str, int] = {}
    versions: dict[tuple[str, str, str], list[KObject]] = {}
    for a, b in index.conflicts:
        versions.setdefault((a.kind, a.namespace, a.name), [a]).append(b)
    copies = Counter((b.kind, b.namespace, b.name) for _, b in index.copies)
    for key, each in versions.items():
        a, b = each[0], each[1]
        seen = per_kind[a.kind] = per_kind.get(a.kind, 0) + 1
        if seen > MAX_CONFLICT_NOTES_PER_KIND:
            continue
        times = len(each) + copies[key]
        if times == 2:
            notes.append(
                f"{_named(b)} is in the dump twice and the two differ"
                f" ({a.source} and {b.source}): rules that read it from other objects may use either;"
                " audit one cluster at a time"
            )
        else:  # (trial 183: seven copies in three versions were "in the dump twice", once for each pair)
            more = f" and {counted(len(each) - 2, 'other')}" if len(each) > 2 else ""
            notes.append(
                f"{_named(b)} is in the dump {times:,} times in {len(each):,} different versions ({a.source},"
                f" {b.source}{more}): each version is judged, and rules that read it from other objects may use any;"
                " audit one cluster at a time"
            )
    for kind, seen in per_kind.items():
        if seen > MAX_CONFLICT_NOTES_PER_KIND:
            rest = seen - MAX_CONFLICT_NOTES_PER_KIND
            notes.append(
                f"and {rest:,} more {kind} object{'s' if rest != 1 else ''} in the dump more than once with different content"
            )
    return notes


def _partial_notes(
    index: Index, defaulted: frozenset[str] = frozenset(), doubtful: frozenset[tuple[str, int]] = frozenset()
) -> list[str]:
    """One note counting the objects rebuilt from describe text that the dump holds in full too (trial 49: one note
    per pod, "in the dump twice and the two differ ... audit one cluster at a time", for describe text and the
    pods' JSON of one cluster)."""
    if not index.partials:
        return []
    full, rebuilt = index.partials[0]
    what = f"{_named(full)} ({rebuilt.source}, from kubectl describe text, and {full.source})"
    others = f" and {counted(len(index.partials) - 1, 'other object')}" if len(index.partials) > 1 else ""
    note = f"{what}{others} stand in the dump in full and as describe text: the full objects are judged"
    # trial 171: a node pasted as JSON "before" and as describe text "after the fix" was judged on the old copy, and
    # nothing said the two disagree
    # (trial 172: a describe text cut inside its Allocatable, its keys filled from Capacity as the input error says,
    # was said to differ: a text with an input error on its resources is compared by its labels alone)
    differing = [
        (f, parts)
        for f, r in index.partials
        if (parts := _described_differs(f, r, f.name in defaulted, (r.source.file, r.source.document) in doubtful))
    ]
    if differing:
        f, parts = differing[0]
        more = f" (and {counted(len(differing) - 1, 'other object')})" if len(differing) > 1 else ""
        note += (
            f"; {_named(f)}{more} differs from its describe text in {' and '.join(parts)}: the two were taken at"
            " different times? paste one of them"
        )
    return [note]


def _same_quantity(a: Any, b: Any) -> bool:
    if str(a) == str(b):
        return True
    try:
        return parse_quantity(a) == parse_quantity(b)
    except QuantityError:
        return False


def _described_differs(full: KObject, rebuilt: KObject, defaulted: bool = False, cut: bool = False) -> list[str]:
    """What describe text shows of a Node that its full object says otherwise: its labels, status.capacity,
    status.allocatable (quantities compared as quantities: describe writes ``131072Ki`` where YAML may hold
    ``128Mi``; not allocatable where either was given its capacity as read, ``defaulted``; labels alone where the
    describe text has an input error on its resources, ``cut``); [] for other kinds, whose describe text verdict
    rebuilds less of."""
    if full.kind != "Node":
        return []
    out = []
    labels = rebuilt.metadata.get("labels")
    if isinstance(labels, dict) and labels != (full.metadata.get("labels") or {}):
        out.append("its labels")
    for part in () if cut else ("capacity",) if defaulted else ("capacity", "allocatable"):
        told, held = (o.obj.get("status") or {} for o in (rebuilt, full))
        told, held = (x.get(part) if isinstance(x, dict) else None for x in (told, held))
        if not isinstance(told, dict) or not isinstance(held, dict):
            continue
        if set(told) != set(held) or any(not _same_quantity(v, held[k]) for k, v in told.items()):
            out.append(f"status.{part}")
    return out


def _recollected_notes(index: Index) -> list[str]:
    """One note counting the objects collected twice at different times (the same uid), the newer judged (trial 53:
    a must-gather of two images, each collecting the nodes, was told to audit one cluster at a time)."""
    if not index.recollected:
        return []
    kept, other = index.recollected[0]
    versions = [str(metadata_of(o).get("resourceVersion")) for o in (kept, other)]
    what = f"{_named(kept)} ({kept.source}, resourceVersion {versions[0]}, and {other.source}, {versions[1]})"
    others = f" and {counted(len(index.recollected) - 1, 'other object')}" if len(index.recollected) > 1 else ""
    return [
        f"{what}{others} stand in the dump twice with the same uid, collected at different times: the newer"
        " (by resourceVersion) is judged and counted once"
    ]


def _copy_notes(index: Index) -> list[str]:
    """One note counting the objects that stood again in the dump with the same content, judged once (the most
    times one stood, where that is more than twice); not those that stood in other versions too, which
    ``_conflict_notes`` counts (trial 186: "4 times in 2 different versions: each version is judged" beside "stands
    in the dump twice with the same content: it is judged and counted once")."""
    differing = {(b.kind, b.namespace, b.name) for _, b in index.conflicts}
    copies = [(a, b) for a, b in index.copies if (b.kind, b.namespace, b.name) not in differing]
    if not copies:
        return []
    first, again = copies[0]
    what = f"{_named(first)} ({first.source} and {again.source})"
    times = Counter((b.kind, b.namespace, b.name, id(a)) for a, b in copies)
    objects = len({(b.kind, b.namespace, b.name) for _, b in copies})
    most = max(times.values()) + 1
    # a cluster's one-of-a-kind object in two files (trial 243 #5: a folder holding two clusters' dumps was judged as
    # one cluster, the note saying only that its ClusterPolicy stood twice)
    apart = next((b for a, b in copies if b.kind in _ONE_PER_CLUSTER and a.source.file != b.source.file), None)
    clusters = (
        f"; {apart.kind} is one per cluster: if those files are dumps of separate clusters, give each as a PATH of its"
        " own (a folder is one dump)"
        if apart is not None
        else ""
    )
    if objects == 1:
        said = "twice" if most == 2 else f"{most:,} times"
        return [f"{what} stands in the dump {said} with the same content: it is judged and counted once{clusters}"]
    others = counted(objects - 1, "other object")
    said = "twice" if most == 2 else f"more than once (up to {most:,} times)"
    return [f"{what} and {others} stand in the dump {said} with the same content: each is judged and counted once{clusters}"]


#: The kinds a cluster holds one object of, whose copies in two files may be two clusters' (``_copy_notes``).
_ONE_PER_CLUSTER = frozenset({"ClusterPolicy", "KubeVirt", "HyperConverged"})


class Candidates:
    """The compiled rules that may match an object of a kind (its kind's and ``*``'s), in policy order."""

    def __init__(self, policies: PolicySet) -> None:
        self._by_kind: dict[str, list[tuple[PolicyPlan, RulePlan]]] = defaultdict(list)
        for policy in policies.policies:
            plan = plan_of(policy)
            for rule in policy.rules:
                for kind in rule.match.kinds:
                    self._by_kind[kind].append((plan, plan.rule(rule)))
        self._cache: dict[str, list[tuple[PolicyPlan, RulePlan]]] = {}
        #: rules in force
        self.rules = len(policies.rules)

    def of(self, kind: str) -> list[tuple[PolicyPlan, RulePlan]]:
        found = self._cache.get(kind)
        if found is None:
            found = self._cache[kind] = self._by_kind.get(kind, []) + self._by_kind.get("*", [])
        return found


def judge_objects(
    objects: list[KObject],
    index: Index,
    candidates: Candidates,
    exempter: Exempter,
    deadline: float | None = None,
    budget: float = 0,
    start: int = 0,
    stop: int | None = None,
    selection: Selection | None = None,
    progress: Progress | None = None,
    report: Callable[[int, KObject, tuple[Result, ...]], Any] | None = None,
) -> tuple[list[Any], int, dict[str, list[Any]]]:
    """The reports of ``objects[start:stop]`` (objects no rule matches, or ``selection`` does not select, are
    left out), in order; how many objects ``selection`` kept; and the rules that apply to no object of the dump
    (``unmet_in_dump``), each ``policy/rule: [reason, objects it matched]``. ``progress`` hears every 1,024
    objects. Raises ``EvaluationTimeout`` once ``time.perf_counter()`` passes ``deadline`` (checked every 64
    objects). ``report(position, object, results)`` makes each entry (default: ``object_report``)."""
    make = report or _whole
    out = []
    total = len(objects)
    selected = 0
    # id(rule plan) -> why it applies to no object of the dump and the rule that judges instead (unmet_in_dump), or None
    unmet: dict[int, tuple[str, str] | None] = {}
    idle: dict[str, list[Any]] = {}
    for n in range(start, total if stop is None else stop):
        if n % 64 == 0:
            if deadline is not None and time.perf_counter() > deadline:
                raise EvaluationTimeout(budget, n, total)
            if progress is not None and n % 1024 == 0:
                progress.evaluating(n, total, candidates.rules)
        obj = objects[n]
        if selection is not None:
            if not selection.matches(obj):
                continue
            selected += 1
        kind = obj.kind
        rules = candidates.of(kind)
        if not rules:
            continue
        args = (kind, obj.api_version, obj.namespace, obj.name, obj.labels)
        results = []
        scopes: dict[int, Scope] = {}
        for plan, rule_plan in rules:
            if not _matches(rule_plan.rule, args):
                continue
            scope = scopes.get(id(plan))
            if scope is None:
                scope = scopes[id(plan)] = Scope(obj, index, plan, plan.specs)
            if rule_plan.dump_preconditions:
                key = id(rule_plan)
                if key not in unmet:
                    unmet[key] = unmet_in_dump(rule_plan, obj, index, scope)
                why = unmet[key]
                if why is not None:
                    entry = idle.setdefault(rule_plan.rule.uid, [*why, 0])
                    entry[2] += 1
                    continue
            results.append(judge(rule_plan, obj, index, scope))
        if results:
            out.append(make(n, obj, tuple(exempter.apply(obj, results))))
    return out, selected, idle


def _position(n: int, _obj: KObject, results: tuple[Result, ...]) -> tuple[int, tuple[Result, ...]]:
    return n, results


def _whole(_n: int, obj: KObject, results: tuple[Result, ...]) -> ObjectReport:
    return object_report(obj, results)


def object_report(obj: KObject, results: tuple[Result, ...]) -> ObjectReport:
    """``obj``'s report: its reference, where it was read and its results."""
    ref = ObjectRef(obj.api_version, obj.kind, obj.name, obj.namespace, str(obj.metadata.get("uid", "") or ""))
    return ObjectReport(ref, obj.source, results)


def _generated(now: datetime) -> str:
    """The report's time: ``SOURCE_DATE_EPOCH`` (seconds since 1970, the reproducible-builds convention) when set,
    so that two runs give byte-identical reports (trial 48); else ``now``. Exemption expiry is judged on ``now``."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if epoch.isdigit():
        now = datetime.fromtimestamp(int(epoch), UTC)
    return now.strftime("%Y-%m-%dT%H:%M:%SZ")


def evaluate(
    dump: Dump,
    policies: PolicySet,
    name: str = "",
    exemptions: ExemptionSet | None = None,
    budget: float | None = None,
    selection: Selection | None = None,
    progress: Progress | None = None,
    jobs: int = 1,
) -> Report:
    """Index the dump and evaluate every rule on every object it matches; returns the report.

    With ``selection``, only the objects it selects are judged; the index (contexts, the scheduler model)
    still holds the whole dump, so a kept object's verdict is the one it has without the selection. The
    summary says the selection and how many objects it kept. ``progress`` hears how many objects are done.

    ``exemptions`` (from exemptions files) and the ``verdict.dev/exempt`` annotations of the dump turn
    exempted ``fail``/``warn`` results into ``skip``; a malformed annotation is an input error, and the
    exemptions used or expired are in ``notes``. With ``budget`` (seconds), raises ``EvaluationTimeout`` once
    evaluating takes longer (checked between objects), so a worker is never held past it. With ``jobs`` above
    1, a dump of ``rules.parallel.PARALLEL_FROM`` objects or more is judged in that many forked processes;
    the report is the same.
    """
    # The dump's objects live as long as the evaluation and hold no cycles (rules.heap).
    with heap.frozen():
        return _evaluate(dump, policies, name, exemptions, budget, selection, progress or Progress(), jobs)


def _evaluate(
    dump: Dump,
    policies: PolicySet,
    name: str,
    exemptions: ExemptionSet | None,
    budget: float | None,
    selection: Selection | None,
    progress: Progress,
    jobs: int,
) -> Report:
    now = datetime.now(UTC)
    accepted = (exemptions or ExemptionSet()).for_dump(name)
    exempter = Exempter(accepted, now)
    t0 = time.perf_counter()
    lost = _kept_out(dump)
    index = Index(dump.objects, len(lost), frozenset(e.kind or ANY_KIND for e in lost), len(dump.errors))
    every = index.objects  # each object once
    t1 = time.perf_counter()
    deadline = t0 + budget if budget else None
    candidates = Candidates(policies)
    total = len(every)
    progress.evaluating(0, total, candidates.rules)
    if jobs > 1 and total >= parallel.PARALLEL_FROM and parallel.can_fork():
        prepare(index, policies)

        def judge_shard(start: int, stop: int) -> parallel.Shard:
            own = Exempter(accepted, now)
            # (position, results) only: the parent holds the objects and makes their references itself (half
            # of what a shard sent back was references and sources the parent already had)
            reports, kept, idle = judge_objects(
                every, index, candidates, own, deadline, budget or 0, start, stop, selection, report=_position
            )
            return parallel.Shard(reports, own.errors, own.used, stop, kept, idle)

        objects: list[ObjectReport] = []
        selected = 0
        idle: dict[str, list[Any]] = {}
        for shard in parallel.judge_shards(total, jobs, judge_shard):
            objects.extend(object_report(every[n], results) for n, results in shard.reports)
            exempter.merge(shard.errors, shard.used)
            selected += shard.selected
            for uid, (why, instead, matched) in shard.idle.items():
                idle.setdefault(uid, [why, instead, 0])[2] += matched
            progress.evaluating(shard.done, total, candidates.rules)
    else:
        objects, selected, idle = judge_objects(
            every, index, candidates, exempter, deadline, budget or 0, selection=selection, progress=progress
        )
    not_applied = [
        {"rule": r.uid, "policy": r.policy, "reason": idle[r.uid][0], "objects": idle[r.uid][2], "supersededBy": idle[r.uid][1]}
        for r in policies.rules
        if r.uid in idle
    ]
    progress.evaluating(total, total, candidates.rules)
    t2 = time.perf_counter()
    idle_skips, other_skips = _skip_notes(objects)
    return Report(
        objects=objects,
        input_errors=[*dump.errors, *exempter.errors],
        policies=[{"name": p.name, "version": p.version, "pack": p.pack, "rules": len(p.rules)} for p in policies.policies],
        files_read=list(dump.files_read),
        files_skipped=list(dump.files_skipped),
        notes=[
            # first: an object in the dump twice and different (two clusters in one archive or folder) puts every
            # verdict that reads it in doubt
            *_conflict_notes(index),
            # (none where nothing was read: no result to speak of, trial 223 #7)
            *(_lost_notes(lost) if objects else []),
            *_copy_notes(index),
            *_partial_notes(
                index,
                frozenset(dump.allocatable_defaulted),
                frozenset(
                    (e.source.file, e.source.document)
                    for e in dump.errors
                    if e.path.startswith(("$.status.allocatable", "$.status.capacity"))
                ),
            ),
            *_recollected_notes(index),
            *dump.notes,
            *dump.defaulted_note(),
            *dump.unquoted_note(),
            *_assumption_notes(objects),
            # the rules not applied after the skip reasons that kept rules from judging any object (a rule for
            # another kind of dump matters less than why rules that could judge this one did not), before the
            # reasons that skipped some objects only (trial 66: "no Node" came after a pod asking for no GPU)
            *idle_skips,
            *_not_applied_notes(not_applied),
            *other_skips,
            *(_unmatched_notes(objects, policies, selection is not None, not_applied) if policies.named else []),
            *(
                _nothing_matched_notes(objects, policies, every)
                if selection is None and not policies.named and not not_applied
                else []
            ),
            # (trial 196: not with a selection that leaves out objects the rule would match; trial 201: with one that
            # leaves out none, as without)
            *(_filtered_out_notes(objects, policies, every, not_applied) if selection is None or selected == len(every) else []),
            *_left_out_notes(policies),
            *([selection.missed(every)] if selection is not None and not selected else []),
            *_operator_notes(index),
            *exempter.notes((r.policy, r.id) for p in policies.policies for r in p.rules),
        ],
        timing={"indexMs": round((t1 - t0) * 1000, 3), "evaluateMs": round((t2 - t1) * 1000, 3)},
        objects_read=len(every),
        name=name,
        generated=_generated(now),
        rules=[
            {
                "id": r.uid,
                "policy": r.policy,
                "rule": r.id,
                "title": r.title,
                "description": r.description,
                "severity": r.severity,
                "category": r.category,
                "references": list(r.references),
                "onFailure": r.on_failure,
            }
            for r in policies.rules
        ],
        selection=None if selection is None else {**selection.to_dict(), "objectsSelected": selected},
        not_applied=not_applied,
    )
