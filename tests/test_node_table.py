"""kubectl get nodes' table read for the labels it shows (rules.nodetable; trial 156: such a table beside a node's
describe text was refused, and the node was judged as unlabelled)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.engine import audit_bytes
from rules.loader import load_policies
from rules.nodetable import parse
from rules.reader import parse_text

PASTE = """\
$ kubectl get nodes -L nvidia.com/gpu.workload.config
NAME        STATUS   ROLES    AGE   VERSION   GPU.WORKLOAD.CONFIG
gpu-a       Ready    <none>   3d    v1.30.2   container
gpu-b       Ready    <none>   3d    v1.30.2   vm-passthrough
$ kubectl describe node gpu-b | grep -A8 -E 'Capacity|Allocatable'
Capacity:
  cpu:                 32
  nvidia.com/gpu:      2
Allocatable:
  cpu:                 32
  nvidia.com/gpu:      2
"""


def test_a_label_table_beside_a_describe_fragment_gives_the_node_its_label() -> None:
    """The node made to disagree (labelled vm-passthrough, advertising nvidia.com/gpu) is caught from the paste."""
    dump = parse_text(PASTE, "chat.txt")
    assert dump.errors == []
    nodes = {o.obj["metadata"]["name"]: o for o in dump.objects}
    assert nodes["gpu-b"].obj["metadata"]["labels"] == {"nvidia.com/gpu.workload.config": "vm-passthrough"}
    assert nodes["gpu-b"].obj["status"]["allocatable"]["nvidia.com/gpu"] == "2"
    assert nodes["gpu-a"].obj == {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "gpu-a", "labels": {"nvidia.com/gpu.workload.config": "container"}},
    }
    assert str(nodes["gpu-a"].source) == "chat.txt, document 1, line 3"
    assert dump.notes[0].endswith(
        "Read as node gpu-b, as its prompt line names it; its labels are the table's; it holds no"
        " Taints, Non-terminated Pods sections: the rules that read them judge it as if it had none"
    )
    assert dump.notes[1] == (
        "chat.txt: a kubectl get nodes table is read for the labels it shows, 2 nodes: 1 merged into the node of the same"
        " name the dump holds, 1 judged with those labels alone (no status: the rules that read one skip them)"
    )
    report = audit_bytes(PASTE.encode(), "chat.txt", load_policies())
    failed = [(o.ref.name, r.rule) for o in report.objects for r in o.results if r.result == "fail"]
    assert failed == [("gpu-b", "resource-class-matches-workload")]


def test_a_label_column_is_read_by_the_key_its_command_line_names_else_as_an_nvidia_label() -> None:
    table = (
        "NAME    STATUS                     ROLES    AGE   VERSION   GPU.WORKLOAD.CONFIG   ZONE\n"
        "gpu-a   Ready                      <none>   3d    v1.30.2   container             a\n"
        "gpu-b   Ready,SchedulingDisabled   <none>   3d    v1.30.2   vm_passthrough\n"
        "gpu-c   NotReady                   <none>   3d    v1.30.2                         b\n"
    )
    objects, notes = parse(table) or ([], [])
    assert [(o["metadata"]["name"], o["metadata"]["labels"], o.get("spec"), line) for o, line in objects] == [
        ("gpu-a", {"nvidia.com/gpu.workload.config": "container"}, None, 2),
        ("gpu-b", {"nvidia.com/gpu.workload.config": "vm_passthrough"}, {"unschedulable": True}, 3),
        ("gpu-c", {}, None, 4),
    ]
    assert notes == [
        "column GPU.WORKLOAD.CONFIG as nvidia.com/gpu.workload.config (kubectl names a -L column by the part of its key"
        " after the last /; the command line with its -L flags, pasted above the table, says the key)",
        "column ZONE not read: no command line says its label's key",
    ]
    # the command line says both keys (-L a,b, --label-columns=..., -Lkey)
    for command in (
        "$ kubectl get nodes -L nvidia.com/gpu.workload.config,topology.kubernetes.io/zone",
        "$ kubectl get nodes --label-columns=nvidia.com/gpu.workload.config -Ltopology.kubernetes.io/zone",
    ):
        objects, notes = parse(table, command) or ([], [])
        assert objects[0][0]["metadata"]["labels"] == {
            "nvidia.com/gpu.workload.config": "container",
            "topology.kubernetes.io/zone": "a",
        }
        assert notes == []


def test_show_labels_and_wide_columns_are_read_by_where_their_titles_start() -> None:
    table = (
        "NAME    STATUS   ROLES    AGE   VERSION   INTERNAL-IP   EXTERNAL-IP   OS-IMAGE             KERNEL-VERSION"
        "     CONTAINER-RUNTIME     LABELS\n"
        "gpu-a   Ready    <none>   3d    v1.30.2   10.0.0.4      <none>        Ubuntu 22.04.4 LTS   5.15.0-1057-aws"
        "    containerd://1.7.2    nvidia.com/gpu.present=true,nvidia.com/gpu.workload.config=vm-vgpu\n"
    )
    [(node, _)], notes = parse(table) or ([], [])
    assert node["metadata"]["labels"] == {"nvidia.com/gpu.present": "true", "nvidia.com/gpu.workload.config": "vm-vgpu"}
    assert notes == []


def test_a_table_that_shows_no_label_stays_an_input_error() -> None:
    """A bare kubectl get nodes holds nothing to judge: it is refused as before, with the command to print objects."""
    table = "NAME    STATUS   ROLES    AGE   VERSION\ngpu-a   Ready    <none>   3d    v1.30.2\n"
    assert parse(table) is None
    dump = parse_text(table, "t.txt")
    assert dump.objects == []
    assert "the table kubectl get prints (columns NAME, STATUS, ROLES, AGE, VERSION)" in dump.errors[0].reason


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=" \tabcdefgnorsvyNRSTUV.-,=/<>0123456789", max_size=80), max_size=8), st.text(max_size=60))
def test_any_rows_under_a_label_header_are_read_or_passed_over_never_a_crash(rows: list[str], command: str) -> None:
    table = "NAME    STATUS   ROLES    AGE   VERSION   GPU.WORKLOAD.CONFIG   LABELS\n" + "\n".join(rows)
    got = parse(table, command)
    if got is not None:
        for node, line in got[0]:
            assert node["kind"] == "Node" and 2 <= line <= len(rows) + 1
            assert all(isinstance(k, str) and isinstance(v, str) for k, v in node["metadata"]["labels"].items())
    parse_text(table, "t.txt")  # whatever it holds, the reader answers


def test_a_paste_with_windows_line_ends_is_read_as_the_same_paste() -> None:
    """Trial 163: the paste above with CRLF line ends (a Windows terminal, a browser's text box) read its describe part
    as no dump: 84 skips, exit 0, for the node made to disagree."""
    crlf = PASTE.replace("\n", "\r\n")
    report = audit_bytes(crlf.encode(), "chat.txt", load_policies())
    failed = [(o.ref.name, r.rule) for o in report.objects for r in o.results if r.result == "fail"]
    assert failed == [("gpu-b", "resource-class-matches-workload")]


REPO = Path(__file__).resolve().parent.parent
BROKEN = (REPO / "tests" / "data" / "describe" / "lab_gpu-pt-01_vm-passthrough-advertising-nvidia-gpu.txt").read_text()
TABLE = """\
NAME          STATUS   ROLES    AGE   VERSION   GPU.WORKLOAD.CONFIG
gpu-ctr-01    Ready    <none>   41d   v1.29.4   container
gpu-pt-01     Ready    <none>   41d   v1.29.4   vm-passthrough
gpu-vgpu-01   Ready    <none>   41d   v1.29.4   vm-vgpu
"""


@pytest.mark.parametrize(
    ("paste", "line"),
    [
        (f"{TABLE}\n{BROKEN}", 6),  # the table, then the describe text, no prompt line
        (f"{TABLE}{BROKEN}", 5),  # not even a blank line between
        (f"$ kubectl get nodes -L nvidia.com/gpu.workload.config\n{TABLE}\n{BROKEN}", 7),  # one prompt, above the table
        (f"```\n{TABLE}\n{BROKEN}```\n", 7),  # one chat code block
        (f"{BROKEN}\n{TABLE}", 1),  # the describe text first
    ],
)
def test_describe_text_beside_a_table_without_its_own_prompt_line_is_read(paste: str, line: int) -> None:
    """Trial 168 (high): describe text after a kubectl get nodes table, with no prompt line of its own, was dropped
    with no word (the table's reader passed over every line that was no node's row): 3 objects, 84 skips, exit 0, and
    the node made to disagree was missed. The table's rows after describe text were dropped likewise."""
    report = audit_bytes(paste.encode(), "chat.txt", load_policies())
    failed = [(o.ref.name, r.rule, o.source.line) for o in report.objects for r in o.results if r.result == "fail"]
    assert failed == [("gpu-pt-01", "resource-class-matches-workload", line)]
    nodes = {o.ref.name for o in report.objects if o.ref.kind == "Node"}
    assert nodes == {"gpu-ctr-01", "gpu-pt-01", "gpu-vgpu-01"}
    assert report.input_errors == []


def test_a_label_the_table_and_the_describe_text_disagree_on_is_noted() -> None:
    """Trial 169: a table row reading container beside describe text reading vm-passthrough was merged without a word."""
    paste = TABLE.replace(
        "gpu-pt-01     Ready    <none>   41d   v1.29.4   vm-passthrough",
        "gpu-pt-01     Ready    <none>   41d   v1.29.4   container",
    )
    dump = parse_text(f"{paste}\n{BROKEN}", "chat.txt")
    [node] = [o for o in dump.objects if o.obj["metadata"]["name"] == "gpu-pt-01"]
    assert node.obj["metadata"]["labels"]["nvidia.com/gpu.workload.config"] == "vm-passthrough"
    assert (
        "chat.txt: node gpu-pt-01's label nvidia.com/gpu.workload.config is vm-passthrough in its describe text or YAML and"
        " container in the kubectl get nodes table (chat.txt, document 1, line 3): the node was relabelled between the two"
        " commands, or the paste holds two clusters' text; judged as vm-passthrough"
    ) in dump.notes
    assert not [n for n in parse_text(f"{TABLE}\n{BROKEN}", "chat.txt").notes if "relabelled between" in n]
    # trial 198: the table after the describe text is the later of the two: its value is judged, and said so
    later = parse_text(f"{BROKEN}\n{paste}", "chat.txt")
    [node] = [o for o in later.objects if o.obj["metadata"]["name"] == "gpu-pt-01"]
    assert node.obj["metadata"]["labels"]["nvidia.com/gpu.workload.config"] == "container"
    [said] = [n for n in later.notes if "relabelled between" in n]
    assert said.endswith("judged as container, the table's, which stands after it"), said
    # trial 201: describe text after the table that lists no such label: it was removed, and is judged so
    removed = BROKEN.replace("nvidia.com/gpu.workload.config=vm-passthrough", "nvidia.com/gpu.bogus-key=x")
    assert removed != BROKEN
    gone = parse_text(f"{TABLE}\n{removed}", "chat.txt")
    [node] = [o for o in gone.objects if o.obj["metadata"]["name"] == "gpu-pt-01"]
    assert "nvidia.com/gpu.workload.config" not in node.obj["metadata"]["labels"]
    assert any("not among the labels its describe text or YAML after it lists" in n for n in gone.notes), gone.notes
    # trial 202: with the kubectl label command that relabelled it between (and what it printed), as typed
    relabel = "$ kubectl label node gpu-pt-01 nvidia.com/gpu.workload.config=container --overwrite\nnode/gpu-pt-01 labeled\n"
    get = "$ kubectl get nodes -L nvidia.com/gpu.workload.config\n"
    prompted = f"$ kubectl describe node gpu-pt-01\n{BROKEN}\n{relabel}{get}{paste}"
    relabelled = parse_text(prompted, "chat.txt")
    [node] = [o for o in relabelled.objects if o.obj["metadata"]["name"] == "gpu-pt-01"]
    assert node.obj["metadata"]["labels"]["nvidia.com/gpu.workload.config"] == "container"
    assert (
        "chat.txt: read as a terminal paste, what each command printed between its prompt lines; set aside: 2 prompt lines"
        " and what kubectl label printed (no state of the cluster)"
    ) in relabelled.notes, relabelled.notes


def grep_after(text: str, pattern: str, after: int) -> str:
    """What ``grep -E -A<after> '<pattern>'`` prints of ``text``: each matching line and the ``after`` lines after it,
    a ``--`` line between groups that do not touch."""
    lines = text.splitlines()
    matched = [i for i, line in enumerate(lines) if re.search(pattern, line)]
    shown = sorted({j for i in matched for j in range(i, min(i + after + 1, len(lines)))})
    out: list[str] = []
    for k, j in enumerate(shown):
        if k and j != shown[k - 1] + 1:
            out.append("--")
        out.append(lines[j])
    return "\n".join(out) + "\n"


def test_a_label_describe_text_cut_by_grep_does_not_show_is_not_judged_removed() -> None:
    """Trial 204 (high): grep -E -A9 'Labels|Capacity|Allocatable' printed the first ten lines of the node's labels,
    not its nvidia.com/gpu.workload.config: the table's vm-passthrough was said to be removed, and the node that
    advertises nvidia.com/gpu passed (exit 0). Where the Labels section runs on to Annotations:, it is whole, and a
    label it lacks was removed."""
    get = "$ kubectl get nodes -L nvidia.com/gpu.workload.config\n"
    cut = grep_after(BROKEN, "Labels|Capacity|Allocatable", 9)
    assert "nvidia.com/gpu.workload.config" not in cut and "\n--\nCapacity:" in cut
    paste = f"{get}{TABLE}$ kubectl describe node gpu-pt-01 | grep -E -A9 'Labels|Capacity|Allocatable'\n{cut}"
    dump = parse_text(paste, "chat.txt")
    [node] = [o for o in dump.objects if o.name == "gpu-pt-01"]
    assert node.labels["nvidia.com/gpu.workload.config"] == "vm-passthrough"
    assert not [n for n in dump.notes if "removed" in n], dump.notes
    report = audit_bytes(paste.encode(), "chat.txt", load_policies())
    failed = [(o.ref.name, r.rule, o.source.line) for o in report.objects for r in o.results if r.result == "fail"]
    assert failed == [("gpu-pt-01", "resource-class-matches-workload", 7)]  # its Labels: line
    # grep -A20 prints the labels whole, up to Annotations: (not after a "--"): a label they lack was removed
    removed = BROKEN.replace("nvidia.com/gpu.workload.config=vm-passthrough", "nvidia.com/gpu.bogus-key=x")
    whole = grep_after(removed, "Labels|Capacity|Allocatable", 20)
    assert "\nAnnotations:" in whole and "\n--\nAnnotations:" not in whole
    prompt = "$ kubectl describe node gpu-pt-01 | grep -E -A20 'Labels|Capacity|Allocatable'\n"
    gone = parse_text(f"{get}{TABLE}{prompt}{whole}", "chat.txt")
    [node] = [o for o in gone.objects if o.name == "gpu-pt-01"]
    assert "nvidia.com/gpu.workload.config" not in node.labels
    assert any("the label was removed between the two commands" in n for n in gone.notes), gone.notes


def test_a_node_relabelled_after_the_text_it_is_judged_by_is_said_to_be() -> None:
    """Trial 204: describe text, then `kubectl label node ... --overwrite` and its "labeled" line: the node was judged
    on its state before the relabel, the fix being the command the paste had run, and only the lines set aside said."""
    relabel = "$ kubectl label node gpu-pt-01 nvidia.com/gpu.workload.config=container --overwrite\nnode/gpu-pt-01 labeled\n$\n"
    paste = f"$ kubectl describe node gpu-pt-01\n{BROKEN}{relabel}"
    line = len(BROKEN.splitlines()) + 2
    dump = parse_text(paste, "chat.txt")
    assert [n for n in dump.notes if "relabelled" in n] == [
        f"chat.txt: node gpu-pt-01 was relabelled (nvidia.com/gpu.workload.config=container, line {line}) after the text"
        " it is judged by: what is said of it is its state before the relabel"
    ]
    # a table printed after the relabel shows the node as it is now: judged so, and no such note (trial 202)
    get = "$ kubectl get nodes -L nvidia.com/gpu.workload.config\n"
    now = TABLE.replace("41d   v1.29.4   vm-passthrough", "41d   v1.29.4   container")
    after = parse_text(f"$ kubectl describe node gpu-pt-01\n{BROKEN}{relabel.removesuffix('$\n')}{get}{now}", "chat.txt")
    [node] = [o for o in after.objects if o.name == "gpu-pt-01"]
    assert node.labels["nvidia.com/gpu.workload.config"] == "container"
    assert not [n for n in after.notes if "relabelled (" in n], after.notes
    # a dry run, another node, or nodes chosen by a selector: no note
    for command in (
        "kubectl label node gpu-pt-01 nvidia.com/gpu.workload.config=container --overwrite --dry-run=client",
        "kubectl label node gpu-ctr-01 nvidia.com/gpu.workload.config=container --overwrite",
        "kubectl label nodes -l nvidia.com/gpu.present=true nvidia.com/gpu.workload.config=container --overwrite",
    ):
        other = parse_text(f"$ kubectl describe node gpu-pt-01\n{BROKEN}$ {command}\nnode/gpu-pt-01 labeled\n", "chat.txt")
        assert not [n for n in other.notes if "relabelled (" in n], (command, other.notes)
    # flags before the resource, as kubectl takes them (trial 208: no note); a selector there is still no relabel named
    for command, noted in (
        ("kubectl label --overwrite node gpu-pt-01 nvidia.com/gpu.workload.config=container", True),
        ("kubectl label -n default --overwrite nodes/gpu-pt-01 nvidia.com/gpu.workload.config=container", True),
        ("kubectl label --selector nvidia.com/gpu.present=true nodes nvidia.com/gpu.workload.config=container", False),
    ):
        flagged = parse_text(f"$ kubectl describe node gpu-pt-01\n{BROKEN}$ {command}\nnode/gpu-pt-01 labeled\n", "chat.txt")
        assert bool([n for n in flagged.notes if "node gpu-pt-01 was relabelled (" in n]) is noted, (command, flagged.notes)


def test_a_node_described_before_and_after_a_relabel_is_judged_once_as_the_later_text_shows_it() -> None:
    """Trial 204 #7: `kubectl describe node`, `kubectl label node ... --overwrite` and its "labeled" line, then `kubectl
    describe node` again: both copies of the node were judged, and a note told to "audit one cluster at a time", of
    one node seen before and after a change. The later text is the node's state: it alone is judged, and a note says
    the earlier copy was set aside for it."""
    describe = "$ kubectl describe node gpu-pt-01\n"
    relabel = "$ kubectl label node gpu-pt-01 nvidia.com/gpu.workload.config=container --overwrite\nnode/gpu-pt-01 labeled\n"
    after = BROKEN.replace("nvidia.com/gpu.workload.config=vm-passthrough", "nvidia.com/gpu.workload.config=container")
    assert after != BROKEN
    paste = f"{describe}{BROKEN}{relabel}{describe}{after}"
    label, later = len(BROKEN.splitlines()) + 2, len(BROKEN.splitlines()) + 5  # the label's line, the later Name: line
    report = audit_bytes(paste.encode(), "chat.txt", load_policies())
    [node] = [o for o in report.objects if o.ref.kind == "Node"]
    assert (node.ref.name, node.source.line) == ("gpu-pt-01", later)
    results = {r.rule: r.result for r in node.results}
    # judged as container, the later text's: it advertises nvidia.com/gpu as a container node does, and still carries
    # the deploy labels of vm-passthrough
    assert (results["resource-class-matches-workload"], results["deploy-labels-match-workload"]) == ("pass", "fail")
    assert not [n for n in report.notes if "one cluster at a time" in n or "is in the dump twice" in n], report.notes
    assert not [n for n in report.notes if "relabelled (" in n], report.notes
    assert (
        f"chat.txt: node gpu-pt-01 is shown before and after kubectl label (line {label}) on it: its earlier copy (line 2)"
        f" is set aside, and the later one (line {later}) stands as its state"
    ) in report.notes, report.notes
