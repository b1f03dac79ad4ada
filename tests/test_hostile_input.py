"""Hostile or damaged input never crashes a read, never hangs it, and never loses the rest of the batch
(regressions from the code review; each holds the exact error)."""

from __future__ import annotations

import gzip
import io
import json
import os
import tarfile
import time
import zipfile
from pathlib import Path
from typing import Any

import orjson
import pytest

from rules.errors import DumpError, DumpTooLarge
from rules.quantity import QuantityError, parse_quantity
from rules.reader import MAX_DEPTH, Budget, parse_bytes, read_path

NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "gpu-1"}}


def test_non_list_items_on_an_object_is_read_as_the_object() -> None:
    dump = parse_bytes(orjson.dumps({**NODE, "items": 5}), "items5.json")
    assert [o.name for o in dump.objects] == ["gpu-1"]
    assert dump.errors == []


def test_deeply_nested_json_is_an_input_error_not_a_crash() -> None:
    # 300 levels: orjson reads it (its limit is 1024), JSONPath and the JSON writer could not (255).
    text = '[{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "deep", "x": ' + '{"a": ' * 300 + "1" + "}" * 300 + "}}]"
    dump = parse_bytes(text.encode(), "deep.json")
    assert dump.objects == []
    assert [(e.source.file, e.reason) for e in dump.errors] == [("deep.json", f"nesting deeper than {MAX_DEPTH} levels")]
    assert [e.path for e in dump.errors] == ["$[0]"]  # the item refused
    # One object too deep: the path of the list one level too deep (trial 79: the error had no path nor column).
    one = b'{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}, "data": ' + b"[" * 150 + b"]" * 150 + b"}"
    [err] = parse_bytes(one, "deep150.json").errors
    place = f": line 1, column 177 opens level {MAX_DEPTH + 1}"
    assert (err.reason, err.path) == (f"nesting deeper than {MAX_DEPTH} levels{place}", "$.data" + "[0]" * 99)
    # pretty-printed, the line that goes too deep (trial 81: placed at line 1)
    pretty = orjson.dumps(orjson.loads(one), option=orjson.OPT_INDENT_2)
    [err] = parse_bytes(pretty, "deep150.json").errors
    assert (err.source.line, err.reason) == (106, f"nesting deeper than {MAX_DEPTH} levels: line 106, column 201 opens level 101")


def test_damaged_zip_member_is_an_input_error_and_other_members_are_read() -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr("a/good.json", orjson.dumps(NODE))
        zf.writestr("b/bad.json", orjson.dumps({**NODE, "metadata": {"name": "gpu-2"}}))
    data = bytearray(buf.getvalue())
    at = data.find(b'"gpu-2"')
    data[at + 2] ^= 0xFF  # flip a byte inside the stored member: its CRC no longer matches
    dump = parse_bytes(bytes(data), "damaged.zip")
    assert [o.name for o in dump.objects] == ["gpu-1"]
    assert len(dump.errors) == 1
    assert dump.errors[0].source.file == "damaged.zip!b/bad.json"
    # trial 136: zlib's or zipfile's words alone; said plainly, theirs kept after
    assert dump.errors[0].reason.startswith(
        "cannot read: its data is corrupt: its bytes changed after the archive was written (they do not inflate, or"
        " fail the member's CRC-32), so nothing from it is judged: copy the archive again (Bad CRC-32"
    )


def test_a_tar_cut_short_keeps_its_whole_files_and_names_the_cut_one() -> None:
    """Trial 136: a plain tar cut short was refused whole ("broken tar archive: unexpected end of data"), its whole
    files lost and the cut unplaced, where a .tar.gz cut the same way keeps them and names the file the cut falls in.
    A tar cut before its first header is still refused."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for i, payload in enumerate((orjson.dumps(NODE), orjson.dumps({**NODE, "metadata": {"name": "gpu-2"}}) * 1)):
            info = tarfile.TarInfo(f"part{i}.json")
            info.size = len(payload)
            tar.addfile(info, io.BytesIO(payload))
        payload = orjson.dumps(NODE) * 200
        info = tarfile.TarInfo("dump.json")
        info.size = len(payload)
        tar.addfile(info, io.BytesIO(payload))
    whole = buf.getvalue()
    third = whole.index(b"dump.json")
    dump = parse_bytes(whole[: third + 1200], "cut.tar")
    assert sorted(o.name for o in dump.objects) == ["gpu-1", "gpu-2"]
    assert [str(e) for e in dump.errors] == [
        "cut.tar, document 1: the archive ends early (cut short), in dump.json: the 2 files before it are whole;"
        " dump.json and any file after it are missing (download or copy the archive again for the whole dump)"
    ]
    # cut after a whole last file, inside the next header: every file listed is whole
    dump = parse_bytes(whole[: third + 100], "cut.tar")
    assert [o.name for o in dump.objects] == ["gpu-1", "gpu-2"]
    assert dump.errors[0].reason.startswith("the archive ends early (cut short), after part1.json: its 2 files up to it")
    with pytest.raises(DumpError) as err:
        parse_bytes(whole[:300], "cut.tar")
    assert str(err.value).startswith("cut.tar: broken tar archive:")


def test_nested_archives_share_one_unpack_budget() -> None:
    inner = gzip.compress(b" " * 600_000)  # 600 kB of spaces, tiny compressed
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for i in range(3):
            zf.writestr(f"part{i}.yaml.gz", inner)
    dump = parse_bytes(buf.getvalue(), "nested.zip", Budget(1_000_000))
    # the first part fits, the next ones would pass the shared budget: refused one by one, not read
    too_large = [e for e in dump.errors if "unpacks to more than 1,000,000 bytes" in e.reason]
    assert [e.source.file for e in too_large] == ["nested.zip!part1.yaml.gz", "nested.zip!part2.yaml.gz"]
    with pytest.raises(DumpTooLarge):
        parse_bytes(gzip.compress(b" " * 2_000_000), "bomb.yaml.gz", Budget(1_000_000))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_folder_with_dangling_symlink_and_fifo_is_read(tmp_path: Path) -> None:
    (tmp_path / "node.json").write_bytes(orjson.dumps(NODE))
    (tmp_path / "gone.yaml").symlink_to(tmp_path / "nonexistent.yaml")
    os.mkfifo(tmp_path / "pipe.json")
    dump = read_path(str(tmp_path))
    assert [o.name for o in dump.objects] == ["gpu-1"]
    assert dump.errors == []


@pytest.mark.parametrize("value", [float("inf"), float("-inf"), float("nan")])
def test_non_finite_yaml_floats_are_not_quantities(value: float) -> None:
    with pytest.raises(QuantityError):
        parse_quantity(value)


@pytest.mark.parametrize("value", ["1e9999999", "1" * 65])
def test_hostile_quantity_text_is_refused_fast(value: str) -> None:
    with pytest.raises(QuantityError):
        parse_quantity(value)


def test_describe_text_in_a_folder_or_archive_is_read(tmp_path: Path) -> None:
    """Regression: a describe text saved as .txt next to YAML files (or in a tar.gz) was skipped silently."""
    src = Path(__file__).parent / "data" / "describe" / "k8s-device-plugin-58_kubectl-1.10_capacity-16-allocatable-0.txt"
    folder = tmp_path / "dump"
    folder.mkdir()
    (folder / "node-describe.txt").write_bytes(src.read_bytes())
    (folder / "notes.txt").write_text("operator said the GPUs vanished after a reboot\n")
    (folder / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: d}\n")
    dump = read_path(str(folder))
    assert sorted(o.name for o in dump.objects if o.kind in ("Node", "ConfigMap")) == ["c", "gpu-worker-16"]
    assert dump.files_skipped == [f"{folder}/notes.txt"]
    archive = tmp_path / "dump.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(folder, arcname="dump")
    dump = read_path(str(archive))
    assert "gpu-worker-16" in [o.name for o in dump.objects]


def test_tar_gz_is_charged_once_against_the_budget() -> None:
    """Regression: the unpacked tar was charged, then each member again, so a .tar.gz over half the bound
    lost members."""
    payload = b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big, namespace: d}\ndata: {x: '" + b"a" * 600_000 + b"'}\n"
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        info = tarfile.TarInfo("big.yaml")
        info.size = len(payload)
        tar.addfile(info, io.BytesIO(payload))
    dump = parse_bytes(buf.getvalue(), "one.tar.gz", Budget(1_000_000))
    assert ([o.name for o in dump.objects], dump.errors) == (["big"], [])


def test_yaml_errors_do_not_carry_pyyaml_marks() -> None:
    dump = parse_bytes(b"apiVersion: v1\nkind: Node\nmetadata: {name: a\n", "bad.yaml")
    assert len(dump.errors) == 1
    assert '"<unicode string>"' not in dump.errors[0].reason


@pytest.mark.parametrize("value", ["1" + "0" * 5000, "0x" + "f" * 5000])
def test_an_integer_of_more_digits_than_python_reads_is_an_input_error_at_its_line(value: str) -> None:
    """Regression (an adversarial trial): a 5,000-digit integer stopped the run with "ValueError: Exceeds the
    limit (4300 digits)" (CLI exit 1, HTTP 500), losing every other document and dump."""
    text = (
        "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n---\n"
        f"apiVersion: v1\nkind: Node\nmetadata:\n  name: b\n  labels: {{big: {value}}}\n---\n"
        "apiVersion: v1\nkind: Node\nmetadata: {name: c}\n"
    ).encode()
    dump = parse_bytes(text, "big.yaml")
    assert [o.name for o in dump.objects] == ["a", "c"]
    [err] = dump.errors
    assert (err.source.document, err.source.line) == (2, 9)
    assert err.reason == "YAML error: an integer longer than the 4,300 digits verdict reads (Node b, not read)"


def test_a_control_character_loses_only_its_own_document_and_is_said_at_its_line() -> None:
    """Regression (an adversarial trial): one NUL in the 5th document of the lab dump gave "document 1: YAML
    error: unacceptable character #x0000", no line, and none of the 19 objects was judged (libyaml refuses
    the stream)."""
    lines = (Path(__file__).resolve().parent.parent / "examples" / "lab-cluster.yaml").read_text().split("\n")
    lines[379] += "\x00"
    dump = parse_bytes("\n".join(lines).encode(), "lab.yaml")
    assert len(dump.objects) == 18 and "gpu-vgpu-1" not in [o.name for o in dump.objects]
    assert [str(e) for e in dump.errors] == [
        "lab.yaml, document 5, line 380: YAML error: character U+0000 (a control character) at column 15: YAML"
        " allows none, so this document is not read"
    ]


def test_documents_past_libyamls_reading_position_are_set_aside_too() -> None:
    """libyaml checks characters a buffer ahead of the documents it yields: the documents it yielded before
    meeting one are kept once, those after it are read, and each that holds one is its own error."""
    docs = [f"kind: Node\nmetadata: {{name: n{i}}}\n" + "# pad\n" * 200 for i in range(400)]
    docs[300] = docs[300].replace("name: n300", "name: n300\x01")
    docs[302] = docs[302].replace("name: n302", "name: n302\x7f")
    dump = parse_bytes("---\n".join(docs).encode(), "many.yaml")
    names = [o.name for o in dump.objects]
    assert names == [f"n{i}" for i in range(400) if i not in (300, 302)]
    assert [(e.source.document, e.source.line, e.reason.split(" (")[0]) for e in dump.errors] == [
        (301, 300 * 203 + 2, "YAML error: character U+0001"),
        (303, 302 * 203 + 2, "YAML error: character U+007F"),
    ]


@pytest.mark.parametrize(
    ("metadata", "reason"),
    [
        ({"name": 12345}, "Node: metadata.name is a number, not a string (quote it in YAML); the object is not judged"),
        ({"name": ["a", "b"]}, "Node: metadata.name is a list, not a string (quote it in YAML); the object is not judged"),
    ],
)
def test_an_object_whose_name_is_not_a_string_is_an_input_error(metadata: Any, reason: str) -> None:
    """Regression (an adversarial trial): a name written as a YAML number or list was taken as it came."""
    bad = {"apiVersion": "v1", "kind": "Node", "metadata": metadata}
    dump = parse_bytes(orjson.dumps({"apiVersion": "v1", "kind": "List", "items": [NODE, bad]}), "l.json")
    assert [o.name for o in dump.objects] == ["gpu-1"]
    assert [(e.reason, e.path, e.source.item) for e in dump.errors] == [(reason, "$.items[1].metadata.name", 1)]


GENERATED = " (only metadata.generateName: the API server names it)"


@pytest.mark.parametrize(
    ("metadata", "given"), [(None, ""), ({"labels": {"a": "b"}}, ""), ({"name": ""}, ""), ({"generateName": "gpu-"}, GENERATED)]
)
def test_an_object_without_a_name_is_judged_and_said(metadata: Any, given: str) -> None:
    """Regression (two trials): {"apiVersion": "v1", "kind": "Node"} was judged as "Node/" without a word. It
    stays evidence (a hand-built lab's bare ClusterPolicy decides what the nodes run), and a note says it."""
    bad = {"apiVersion": "v1", "kind": "Node", **({"metadata": metadata} if metadata is not None else {})}
    dump = parse_bytes(orjson.dumps({"apiVersion": "v1", "kind": "List", "items": [NODE, bad]}), "l.json")
    assert [o.name for o in dump.objects] == ["gpu-1", ""] and dump.errors == []
    assert dump.notes == [
        f"l.json, document 1, items[1], line 1: this Node has no metadata.name{given}, as no object a cluster holds;"
        " it is judged unnamed"
    ]


def _nested(levels: int) -> dict[str, Any]:
    deep: dict[str, Any] = {}
    cur = deep
    for _ in range(levels):
        cur["x"] = {}
        cur = cur["x"]
    return deep


def test_one_too_deep_list_item_is_refused_alone_at_its_line() -> None:
    """Regression (an adversarial trial): one of 50 nodes nested 150 levels lost the whole List ("nesting
    deeper than 100 levels" at line 1, nothing judged)."""
    nodes: list[dict[str, Any]] = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{i}"}} for i in range(50)]
    nodes[25]["metadata"]["annotations"] = _nested(150)
    for document, prefix in ((nodes, "$"), ({"apiVersion": "v1", "kind": "List", "items": nodes}, "$.items")):
        text = orjson.dumps(document, option=orjson.OPT_INDENT_2)
        dump = parse_bytes(text, "deep.json")
        assert [o.name for o in dump.objects] == [f"n{i}" for i in range(50) if i != 25]
        starts = [i + 1 for i, line in enumerate(text.decode().split("\n")) if line == ("  {" if prefix == "$" else "    {")]
        [err] = dump.errors
        assert (err.reason, err.path, err.source.item, err.source.line) == (
            f"nesting deeper than {MAX_DEPTH} levels",
            f"{prefix}[25]",
            25,
            starts[25],
        )
    # too deep outside the items: the document is refused whole, as before
    whole = parse_bytes(orjson.dumps({"kind": "List", "metadata": _nested(150), "items": nodes[:3]}), "deep.json")
    where = f"nesting deeper than {MAX_DEPTH} levels: line 1, column 522 opens level {MAX_DEPTH + 1}"
    assert (whole.objects, [(e.reason, e.path) for e in whole.errors]) == ([], [(where, "$.metadata" + ".x" * 99)])


def test_a_json_integer_of_more_digits_than_python_reads_is_an_input_error_not_a_traceback() -> None:
    """Trial 41: a JSON number of 5,000 digits crashed the CLI with a ValueError traceback and exit 1 (the code
    for findings), and gave a 500 from the service: orjson refuses it, and the stdlib parser that reads JSON values
    one after another raised Python's bound on integer digits. It is the input error of its document; the values
    around it are read."""
    big = "9" * 5000
    values = "\n".join(
        [
            '{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "a"}}',
            '{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "b"}, "x": ' + big + "}",
            '{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "c"}}',
        ]
    )
    dump = parse_bytes(values.encode(), "values.json")
    assert [o.name for o in dump.objects] == ["a", "c"]
    assert [(e.source.document, e.source.line, e.reason) for e in dump.errors] == [
        (2, 2, "JSON value with an integer longer than the 4,300 digits verdict reads")
    ]
    alone = parse_bytes(
        ('{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "j"}, "x": ' + big + "}").encode(), "one.json"
    )
    assert alone.objects == []
    assert [(e.source.line, e.reason) for e in alone.errors] == [
        (1, "JSON syntax error: number is infinity when parsed as double (line 1, column 70); not YAML either")
    ]


@pytest.mark.parametrize(("part", "length", "most"), [("name", 254, 253), ("name", 10_000_000, 253), ("namespace", 64, 63)])
def test_a_name_longer_than_kubernetes_allows_is_an_input_error(part: str, length: int, most: int) -> None:
    """Trial 41: a 10 MB Node name came back in every result of every format (a 240 MB JUnit answer, 1.15 GB in a
    worker), a 100 KB one took the table renderer 207 s, and policyreport blamed --policyreport-max-bytes. The API
    server refuses a name over 253 characters (a namespace over 63): such an object is not judged, and its error
    does not quote it. The other objects are."""
    other = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "ok", "namespace": "ml"}}
    long = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "ml", part: "n" * length}}
    dump = parse_bytes(orjson.dumps({"apiVersion": "v1", "kind": "List", "items": [other, long]}), "pods.json")
    assert [o.name for o in dump.objects] == ["ok"]
    assert [(e.path, e.reason) for e in dump.errors] == [
        (
            f"$.items[1].metadata.{part}",
            f"Pod: metadata.{part} is {length:,} characters, longer than the {most} Kubernetes allows (the API server"
            " refuses it); the object is not judged",
        )
    ]
    assert len(str(dump.errors[0])) < 400


def test_a_stream_of_more_documents_than_the_bound_stops_there(monkeypatch: pytest.MonkeyPatch) -> None:
    """Trial 41: six million empty YAML documents (`--- #xxx`, 105 KB gzip'd) held a service worker 132 s in the
    read, which the evaluation budget does not cover. The documents past VERDICT_MAX_DOCUMENTS are not read."""
    import rules.yamlsafe as yamlsafe

    monkeypatch.setattr(yamlsafe, "MAX_DOCUMENTS", 50)
    text = "--- #x\n" * 30 + "apiVersion: v1\nkind: Node\nmetadata: {name: early}\n" + "--- #x\n" * 100
    text += "---\napiVersion: v1\nkind: Node\nmetadata: {name: late}\n"
    dump = parse_bytes(text.encode(), "many.yaml")
    assert [o.name for o in dump.objects] == ["early"]
    assert [(e.source.document, e.reason) for e in dump.errors] == [
        (51, "more than 50 documents (VERDICT_MAX_DOCUMENTS): the rest is not read")
    ]


@pytest.mark.parametrize("packing", ["w:gz", "w:", "zip"])
def test_an_archive_of_more_members_than_the_bound_is_refused(packing: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Trial 41: 400,000 empty members of a 1.9 MB .tar.gz held a service worker 67 s and 486 MB, and the answer
    listed each one. Past VERDICT_MAX_ARCHIVE_MEMBERS the archive is not read, whichever way it is packed."""
    import rules.reader as reader

    monkeypatch.setattr(reader, "MAX_ARCHIVE_MEMBERS", 20)
    buf = io.BytesIO()
    if packing == "zip":
        with zipfile.ZipFile(buf, "w") as zf:
            for i in range(25):
                zf.writestr(f"f{i}.yaml", b"")
    else:
        with tarfile.open(fileobj=buf, mode=packing) as tar:
            for i in range(25):
                tar.addfile(tarfile.TarInfo(f"f{i}.yaml"), io.BytesIO(b""))
    with pytest.raises(DumpError, match=r"^many: more than 20 members \(VERDICT_MAX_ARCHIVE_MEMBERS\): not read$"):
        parse_bytes(buf.getvalue(), "many")


def test_a_gzip_bomb_is_refused_holding_a_chunk_not_the_bound() -> None:
    """Trial 41: a 2 MB .gz of 2 GiB of zeros took 1.21 GB of memory to refuse in the CLI: it was unpacked up to
    the bound before the bound was checked. It is measured first, a chunk at a time."""
    import tracemalloc

    from rules.errors import DumpTooLarge

    bomb = gzip.compress(b"\0" * (48 << 20), 9)
    tracemalloc.start()
    try:
        with pytest.raises(DumpTooLarge):
            parse_bytes(bomb, "bomb.gz", Budget(24 << 20))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 << 20, peak
    # within the bound, the same bytes are read, and charged once
    budget = Budget(64 << 20)
    node = b"apiVersion: v1\nkind: Node\nmetadata: {name: gz}\n"
    assert [o.name for o in parse_bytes(gzip.compress(node), "n.yaml.gz", budget).objects] == ["gz"]
    assert budget.left == (64 << 20) - len(node)
    # measured first (it could unpack past the bound), then read and charged once
    padded = node + b"#" * (500 << 10) + b"\n"
    budget = Budget(1 << 20)
    assert [o.name for o in parse_bytes(gzip.compress(padded), "p.yaml.gz", budget).objects] == ["gz"]
    assert budget.left == (1 << 20) - len(padded)


def test_nul_bytes_are_an_empty_tar_only_where_the_name_says_tar(tmp_path: Path) -> None:
    """Trial 136: an empty tar (tar czf x.tgz -T /dev/null) was read as text ("YAML error: character U+0000").
    Trial 137: a first fix took any 1,024 to 10,240 NULs for one, so a zeroed nodes.yaml beside others vanished
    without a word. An empty tar is one by its name; a zeroed YAML file stays an input error."""
    from rules.reader import read_paths

    for name, data in (
        ("x.tar", bytes(10240)),
        ("b40.tar", bytes(20480)),  # tar -b 40 (trial 138)
        ("x.tgz", gzip.compress(bytes(1024))),
        ("x.tar.gz", gzip.compress(bytes(10240))),
    ):
        dump = parse_bytes(data, name)
        assert (dump.objects, dump.errors, dump.notes) == ([], [], [f"{name}: an empty tar archive (it holds no file)"])
    folder = tmp_path / "dump"
    folder.mkdir()
    (folder / "nodes.yaml").write_bytes(bytes(4096))
    (folder / "pods.yaml").write_bytes(orjson.dumps(NODE))
    dump = read_paths([str(folder)])
    assert [o.name for o in dump.objects] == ["gpu-1"]
    [err] = dump.errors
    assert (err.source.file, err.reason.startswith("YAML error: character U+0000")) == (str(folder / "nodes.yaml"), True)


def test_a_whole_tar_ending_in_a_sparse_member_is_not_cut(tmp_path: Path) -> None:
    """Trial 137: a tar whose last member is sparse (tar --sparse) was said to end early: the end-of-archive check
    took the member's expanded size for what it stores."""
    import shutil
    import subprocess

    if shutil.which("tar") is None:
        pytest.skip("no tar command here")
    (tmp_path / "a.yaml").write_bytes(orjson.dumps(NODE))
    with open(tmp_path / "b.bin", "wb") as fh:
        fh.seek(1 << 20)
        fh.write(b"x")
    for fmt in ("gnu", "pax"):
        out = tmp_path / f"s-{fmt}.tar"
        subprocess.run(
            ["tar", "--sparse", f"--format={fmt}", "-cf", str(out), "-C", str(tmp_path), "a.yaml", "b.bin"], check=True
        )
        dump = parse_bytes(out.read_bytes(), out.name)
        assert ([o.name for o in dump.objects], dump.errors) == (["gpu-1"], []), fmt


@pytest.mark.parametrize("indent", [2, None])
def test_one_list_item_nested_past_the_parser_loses_that_item_alone(indent: int | None) -> None:
    """Regression (trial 191): a JSON List one of whose items nests 5,000 levels (past the JSON parser's own limit)
    was one error for the whole List ("JSON nested deeper than 100 levels"), and its other items were not judged,
    where an item with a syntax error loses itself alone. Laid out as kubectl prints it, the item alone is lost;
    on one line, the items before it are read (what follows it cannot be told apart)."""
    good = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "good"}}
    deep = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "deep"}, "spec": "X"}
    after = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "after"}}
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": [good, deep, after]}, indent=indent)
    dump = parse_bytes(text.replace('"X"', "[" * 5000 + "]" * 5000).encode(), "deep.json")
    [err] = dump.errors
    if indent:
        assert [o.name for o in dump.objects] == ["good", "after"]
        assert (err.source.item, err.kind, err.reason) == (
            1,
            "Node",
            "this item of the List (Node deep, not read) nests deeper than 100 levels",
        )
    else:
        assert [o.name for o in dump.objects] == ["good"]
        # (trial 240 #5: on one line too, the item is named by its kind and name)
        assert (err.source.item, err.kind, err.ref, err.reason) == (
            1,
            "Node",
            "deep",
            "this item of the List (Node deep, not read) nests deeper than 100 levels: it and the items after it are not read",
        )


@pytest.mark.parametrize("depth", [256, 300, 1000, 1200])
def test_json_nested_between_the_writers_limit_and_the_readers_is_an_input_error(depth: int) -> None:
    """Regression (trial 196): a Node nested 256 to 1,023 levels (orjson reads 1,024 and writes 255) crashed the CLI
    and was a 500 of the service, in the check for a key written twice; from 1,022 levels a List whose items were
    read one at a time said the depth twice, once as the List's "JSON syntax error". The object, or the List item,
    is one input error of its nesting and the others are judged."""
    good = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "good"}}
    deep = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "deep"}, "spec": "X"}
    after = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "after"}}
    nested = "[" * depth + "]" * depth
    for indent in (2, None):
        text = json.dumps({"apiVersion": "v1", "kind": "List", "items": [good, deep, after]}, indent=indent)
        dump = parse_bytes(text.replace('"X"', nested).encode(), "deep.json")
        assert [o.name for o in dump.objects] == ["good", "after"], indent
        assert [(e.source.item, e.reason) for e in dump.errors] == [(1, "nesting deeper than 100 levels")], indent
    alone = parse_bytes(json.dumps(deep).replace('"X"', nested).encode(), "one.json")
    [err] = alone.errors
    assert (alone.objects, err.reason.endswith("deeper than 100 levels: line 1, column 175 opens level 101")) == ([], True)


@pytest.mark.parametrize(
    ("data", "name", "what", "path"),
    [
        (b"[" + b"a," * 99_999 + b"a]", "flood.yaml", "a string", "$[10]"),
        (b"[" + b"1," * 99_999 + b"1]", "nums.json", "a number", "$[10]"),
        (b"[" + b"{}," * 99_999 + b"{}]", "empties.json", "no 'kind'", "$[10]"),
        (b'[{"kind": "List", "items": [' + b"1," * 99_999 + b"1]}]", "nested.json", "a number", "$[0].items[10]"),
    ],
)
def test_list_items_that_are_no_object_are_said_each_up_to_a_bound(data: bytes, name: str, what: str, path: str) -> None:
    """Trial 206: a 6 MB `[a,a,...]` gave 3,000,000 input errors ("list item is not a Kubernetes object: a string"),
    a 397 MB problem document, and the worker went past its memory; the same values under a key were refused at once.
    The dump's first ten such items are each an input error; one more, at the first of the rest, counts them."""
    dump = parse_bytes(data, name)
    assert dump.objects == []
    assert [e.reason for e in dump.errors[:10]] == [f"list item is not a Kubernetes object: {what}"] * 10
    [rest] = dump.errors[10:]
    assert (rest.path, rest.source.item, rest.reason) == (
        path,
        0 if "items" in path else 10,
        f"list item is not a Kubernetes object ({what}), and so are the 99,989 list items after it that this one input"
        " error counts (the dump's first 10 such items have one each)",
    )


def test_a_node_among_many_numbers_is_judged_and_the_numbers_counted() -> None:
    """Trial 206: a List of one Node and 100,000 numbers answered 200 with 19 MB of JSON."""
    data = orjson.dumps({"apiVersion": "v1", "kind": "List", "items": [NODE, *[1] * 100_000, "x", None]})
    dump = parse_bytes(data, "junk.json")
    assert [o.name for o in dump.objects] == ["gpu-1"]
    assert [(e.path, e.reason) for e in dump.errors[9:]] == [
        ("$.items[10]", "list item is not a Kubernetes object: a number"),
        (
            "$.items[11]",
            "list item is not a Kubernetes object (a number, a string, a null), and so are the 99,991 list items after it"
            " that this one input error counts (the dump's first 10 such items have one each)",
        ),
    ]
    # one past the bound is said as the others are
    dump = parse_bytes(orjson.dumps([1] * 11), "eleven.json")
    assert [e.reason for e in dump.errors] == ["list item is not a Kubernetes object: a number"] * 11


def test_a_cut_list_of_numbers_read_item_by_item_is_bounded_too() -> None:
    """Trial 206: a compact JSON List cut short is read one item after another: each number was an input error."""
    dump = parse_bytes(b'{"apiVersion": "v1", "kind": "List", "items": [' + b"1," * 2_000, "cut.json")
    reasons = [e.reason for e in dump.errors]
    assert reasons[:10] == ["not a Kubernetes object: a number"] * 10
    assert reasons[10:] == [
        "list item is not a Kubernetes object (a number), and so are the 1,989 list items after it that this one input"
        " error counts (the dump's first 10 such items have one each)",
        "JSON syntax error in this item of the List (Expecting value): the text ends inside it (cut short?), it and the"
        " items after it are not read",
    ]


def test_a_compact_list_cut_short_is_read_in_linear_time() -> None:
    """Trial 206: a compact JSON List cut short is read one item after another, and for each the lines before it were
    counted from the start and the rest of the text copied: 50,000 items (3.4 MB) took 43 s, 300,000 numbers 42 s."""
    item = b'{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}, '
    data = b'\n\n{"apiVersion": "v1", "kind": "List", "items": [' + item * 50_000
    started = time.perf_counter()
    dump = parse_bytes(data, "cut.json")
    assert time.perf_counter() - started < 5
    assert len(dump.objects) == 50_000 and {o.source.line for o in dump.objects} == {3}
    assert [(e.source.line, e.source.item) for e in dump.errors] == [(3, 50_000)]
