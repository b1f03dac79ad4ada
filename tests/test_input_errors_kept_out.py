"""What an input error kept out of the dump, and which verdicts it puts in doubt (trial 183): an empty must-gather
file named after the kind it holds kept out that kind, and the passes that read it say so; a broken copy of an
object read whole elsewhere in the dump kept nothing out."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from rules.evaluate import evaluate
from rules.loader import load_policies
from rules.reader import parse_bytes, read_path

LAB = Path(__file__).resolve().parent / "data" / "must-gather" / "lab"


def _results(report, rule):  # type: ignore[no-untyped-def]
    return {o.ref.name: r for o in report.objects for r in o.results if r.rule == rule}


def test_an_empty_cluster_policy_file_of_a_must_gather_kept_out_a_cluster_policy(tmp_path: Path) -> None:
    """Trial 183: a must-gather whose cluster_policy.yaml was empty (its kubectl get failed) was an input error, and
    the nodes passed deploy-labels-match-workload "(Assuming the GPU Operator reads this node's workload label: no
    ClusterPolicy in the dump ...)", unqualified, where the ClusterPolicy it lost turns sandbox workloads off."""
    folder = tmp_path / "must-gather"
    shutil.copytree(LAB, folder)
    (folder / "cluster_policy.yaml").write_text("")
    dump = read_path(str(folder))
    [error] = [e for e in dump.errors if e.source.file.endswith("cluster_policy.yaml")]
    assert (error.kind, error.count, error.reason) == (
        "ClusterPolicy",
        1,
        "the file is empty: kubectl writes nothing when it fails, so this part of the dump is missing",
    )
    report = evaluate(dump, load_policies(), name="must-gather")
    assert (
        "input errors kept out 1 ClusterPolicy (the input errors say where): a result that says the dump holds none of"
        " its kind, or that was judged without it, is about what was read"
    ) in report.notes
    passes = [r for r in _results(report, "deploy-labels-match-workload").values() if r.result == "pass"]
    assert passes and all(
        r.message.endswith(
            "Input errors kept objects of kind ClusterPolicy from being read (see the input errors), and this verdict"
            " reads that kind: what was not read may change it."
        )
        for r in passes
    )
    # a pass that reads no ClusterPolicy is not put in doubt
    single = _results(report, "single-resource-class")
    assert len(single) == 4 and all(r.result == "pass" and "Input errors kept" not in r.message for r in single.values())


def _list(*items: dict) -> str:
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": list(items)}, indent=4)


NODE = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {"name": "gpu-1", "labels": {"nvidia.com/gpu.present": "true", "nvidia.com/gpu.workload.config": "container"}},
    "status": {"allocatable": {"nvidia.com/gpu": "1"}, "capacity": {"nvidia.com/gpu": "1"}},
}


def _cut_copy(node: dict) -> bytes:
    """A JSON List of a Pod and ``node``, cut inside the node, as kubectl's output copied short."""
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "ml"}, "spec": {"containers": []}}
    text = _list(pod, node)
    return text[: text.index('"allocatable"')].encode()


def test_a_broken_copy_of_an_object_read_whole_elsewhere_kept_nothing_out(tmp_path: Path) -> None:
    """Trial 183: a List cut inside Node gpu-pt-1, beside the file that held it whole, was said to have "kept out 1
    Node", and that node's own findings were said to rest on what was not read."""
    (tmp_path / "cluster.json").write_text(_list(NODE))
    (tmp_path / "pods.json").write_bytes(_cut_copy(NODE))
    dump = read_path(str(tmp_path))
    [error] = dump.errors
    assert (error.kind, error.ref) == ("Node", "gpu-1")
    assert "(Node gpu-1, not read)" in error.reason
    report = evaluate(dump, load_policies(), name="two files")
    assert not [n for n in report.notes if "kept out" in n]
    assert all("input error" not in r.message.lower() for o in report.objects for r in o.results)


def test_a_broken_object_read_nowhere_else_is_kept_out() -> None:
    other = json.loads(json.dumps(NODE))
    other["metadata"]["name"] = "gpu-2"
    text = _list(NODE, other)
    dump = parse_bytes(text[: text.rindex('"allocatable"')].encode(), "n.json")
    lost = [e for e in dump.errors if e.lost]
    assert [(e.kind, e.ref) for e in lost] == [("Node", "gpu-2")]
    report = evaluate(dump, load_policies(), name="n.json")
    assert any(n.startswith("input errors kept out 1 Node (named in them)") for n in report.notes)


def test_a_broken_document_beside_the_cluster_policy_a_must_gather_file_held_kept_none_out(tmp_path: Path) -> None:
    """Trial 186: a cluster_policy.yaml holding the ClusterPolicy whole and a broken document after it was said to
    have kept out 1 ClusterPolicy, and 53 passes were put in doubt; the file's kind is taken only where it gave none."""
    folder = tmp_path / "must-gather"
    shutil.copytree(LAB, folder)
    with (folder / "cluster_policy.yaml").open("a") as fh:
        fh.write("---\nkind: [unclosed\n")
    dump = read_path(str(folder))
    [error] = [e for e in dump.errors if e.source.file.endswith("cluster_policy.yaml")]
    assert (error.kind, any(o.kind == "ClusterPolicy" for o in dump.objects)) == ("", True)
    report = evaluate(dump, load_policies(), name="must-gather")
    assert not [n for n in report.notes if "kept out" in n]
    # a must-gather's gpu_operator_pod.yaml holds the operator's one pod
    (folder / "cluster_policy.yaml").write_text("")
    (folder / "gpu_operator_pod.yaml").write_text("")
    errors = {e.source.file.rsplit("/", 1)[-1]: (e.kind, e.count) for e in read_path(str(folder)).errors}
    assert errors == {"cluster_policy.yaml": ("ClusterPolicy", 1), "gpu_operator_pod.yaml": ("Pod", 1)}


def test_a_note_says_objects_are_named_only_where_the_errors_name_them() -> None:
    """Trial 230 #9: "input errors kept out 1 Node (named in them)" of a YAML syntax error inside a Node's document,
    which names no node: the note says the errors say where."""
    text = (
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: gpu-1\n---\n"
        "apiVersion: v1\nkind: Node\nmetadata:\n  labels: {a: [b}\n  name: gpu-2\n"
    )
    dump = parse_bytes(text.encode(), "mixed.yaml")
    [error] = [e for e in dump.errors if e.lost]
    assert (error.kind, error.ref, error.source.document, error.reason) == (
        "Node",
        "",
        2,
        "YAML syntax error: did not find expected ',' or ']'",
    )
    report = evaluate(dump, load_policies(), name="mixed.yaml")
    assert any(n.startswith("input errors kept out 1 Node (the input errors say where): ") for n in report.notes)
    # where the error names it (its name before the error), the note says so
    named = parse_bytes(
        text.replace("  labels: {a: [b}\n  name: gpu-2\n", "  name: gpu-2\n  labels: {a: [b}\n").encode(), "m.yaml"
    )
    report = evaluate(named, load_policies(), name="m.yaml")
    assert any(n.startswith("input errors kept out 1 Node (named in them): ") for n in report.notes)


def test_pods_a_cut_describe_text_kept_out_are_not_said_named() -> None:
    """Trial 231 #11: describe text cut after its System Info kept out "an unknown number of Pods (named in them)"
    because "Pod" stood in "Non-terminated Pods": the error names the node, not its pods."""
    path = Path(__file__).parent.parent / "policies" / "gpu-operator" / "tests" / "dumps"
    text = "".join((path / "described_passthrough_node_without_operand_pods.txt").read_text().splitlines(True)[:67])
    dump = parse_bytes(text.encode(), "cut.txt")
    [error] = dump.errors
    assert "before Non-terminated Pods" in error.reason and error.kind == "Pod"
    report = evaluate(dump, load_policies(), name="cut.txt")
    assert any(n.startswith("input errors kept out an unknown number of Pods (the input errors say where)") for n in report.notes)


def test_the_doubt_a_finding_is_put_in_counts_the_errors_that_kept_something_out_of_all_of_them(tmp_path: Path) -> None:
    """Trial 239 #6: a folder's summary said "3 input errors" where each finding said "2 input errors kept part of the
    dump from being read": the third lost a copy of an object another file held whole, so it kept nothing out, which
    read as a miscount. The finding says how many of all of them."""
    wrong = json.loads(json.dumps(NODE))
    wrong["metadata"]["labels"]["nvidia.com/gpu.workload.config"] = "vm-vgpu"  # advertises nvidia.com/gpu: a finding
    (tmp_path / "cluster.json").write_text(_list(wrong))
    (tmp_path / "pods.json").write_bytes(_cut_copy(wrong))  # a copy of gpu-1, read whole from cluster.json
    (tmp_path / "vmis.yaml").write_text("")  # an empty file: what it should hold is not known
    dump = read_path(str(tmp_path))
    assert len(dump.errors) == 2
    report = evaluate(dump, load_policies(), name="folder")
    findings = [r for o in report.objects for r in o.results if r.result in ("fail", "warn") and "input error" in r.message]
    assert findings and all(
        r.message.endswith(
            "1 of its 2 input errors kept part of the dump from being read (see its input errors), and this verdict reads"
            " other objects of it: what was not read may change it."
        )
        for r in findings
    ), [r.message[-200:] for r in findings]


def test_the_note_counts_what_was_kept_out_of_a_kind_not_known_too(tmp_path: Path) -> None:
    """Trial 240 #5: a folder's note said "input errors kept out 1 Node" where a List cut inside an item of a kind the
    reader could not tell, and an empty file, lost more; and "1 of its 2 List items were read"."""
    (tmp_path / "good.yaml").write_text(json.dumps(NODE))
    (tmp_path / "broken.yaml").write_text(
        "apiVersion: v1\nkind: Node\nmetadata: {name: cpu-1}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: cpu-3,"
        " labels: {a: b}\nstatus: {}\n"
    )
    (tmp_path / "cut.json").write_text(
        '{"apiVersion": "v1", "kind": "List", "items": [\n'
        ' {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "cpu-4"}},\n'
        ' {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "cpu-5", "labels": {"x": '
    )
    (tmp_path / "empty.yaml").write_text("")
    dump = read_path(str(tmp_path))
    assert [e.kind for e in dump.errors] == ["Node", "", ""], [(e.source.file, e.kind, e.reason) for e in dump.errors]
    assert any(n.endswith(": 1 of its 2 List items was read one at a time") for n in dump.notes), dump.notes
    report = evaluate(dump, load_policies(), name="folder")
    assert (
        "input errors kept out 1 Node (the input errors say where), and 2 parts of the dump of a kind not known: a result"
        " that says the dump holds none of its kind, or that was judged without it, is about what was read"
    ) in report.notes, report.notes
