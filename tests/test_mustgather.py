"""GPU Operator must-gather layout (rules/mustgather.py) and the lab fixture."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
import tarfile
from pathlib import Path
from typing import Any

import pytest
import yaml

from rules.describe import parse_describe_nodes
from rules.mustgather import MUST_GATHER_MARKERS, classify, is_must_gather, merge_nodes, parse_node_labels

DATA = Path(__file__).parent / "data" / "must-gather"
LAB = DATA / "lab"
# must-gather.sh, "Get the labels of the nodes with NVIDIA PCI cards" (NVIDIA/gpu-operator hack/must-gather.sh)
PIPELINE = r"""sed 's|,|,- |g' | tr ',' '\n' | sed 's/{"/- /' | tr : = | sed 's/"//g' | sed 's/}/\n/'"""


def lab_json_nodes() -> dict[str, dict[str, Any]]:
    items = json.loads((DATA / "lab.json").read_text())["items"]
    return {i["metadata"]["name"]: i for i in items if i["kind"] == "Node"}


def must_gather_labels(nodes: dict[str, dict[str, str]]) -> str:
    """What must-gather.sh writes: name, the jsonpath JSON through its pipeline, a blank line."""
    if not (shutil.which("bash") and shutil.which("sed") and shutil.which("tr")):
        pytest.skip("bash, sed and tr are needed to run the must-gather pipeline")
    out = []
    for name, labels in nodes.items():
        compact = json.dumps(labels, separators=(",", ":"), sort_keys=True)  # Go json.Marshal of a map
        piped = subprocess.run(["bash", "-c", PIPELINE], input=compact, capture_output=True, text=True, check=True).stdout
        out.append(f"{name}\n{piped}\n")
    return "".join(out)


# --------------------------------------------------------------------------- layout


@pytest.mark.parametrize(
    "name,kind",
    [
        ("cluster_policy.yaml", "yaml"),
        ("kubevirt.yaml", "yaml"),
        ("hyperconverged.yaml", "yaml"),
        ("gpu_operator_pod.yaml", "yaml"),
        ("gpu_operand_pods.yaml", "yaml"),
        ("gpu_operand_ds.yaml", "yaml"),
        ("openshift_version.yaml", "yaml"),
        ("extra-objects.yml", "yaml"),
        ("gpu_nodes.labels", "labels"),
        ("gpu_nodes.descr", "describe"),
        ("cluster_policy.missing", "missing-clusterpolicy"),
        ("gpu_nodes.status", "skip"),
        ("gpu_operator_pod.status", "skip"),
        ("gpu_operator_pod.log", "skip"),
        ("gpu_operator_pod.previous.log", "skip"),
        ("gpu_operand_pods.status", "skip"),
        ("gpu_operand_pod_images.txt", "skip"),
        ("gpu_operand_pod_nvidia-driver-daemonset-5p9zr.log", "skip"),
        ("gpu_operand_pod_nvidia-driver-daemonset-5p9zr.previous.log", "skip"),
        ("gpu_operand_pod_nvidia-driver-daemonset-5p9zr.descr", "skip"),
        ("gpu_operand_ds.status", "skip"),
        ("gpu_operand_ds_nvidia-driver-daemonset.descr", "skip"),
        ("all_machines.list", "skip"),
        ("version", "skip"),
        ("must-gather.log", "skip"),
        ("must-gather.stderr.log", "skip"),
        ("nvidia-bug-report_gpu-container-1.log.gz", "skip"),
        ("must-gather.local.5f2a/registry-example-com-gpu-operator/gpu_nodes.labels", "labels"),
        ("bundle.tar.gz!nvidia-gpu-operator_20250203_1041/gpu_nodes.descr", "describe"),
        ("bundle.tar.gz!cluster_policy.yaml", "yaml"),
        ("C:\\cases\\4711\\cluster_policy.missing", "missing-clusterpolicy"),
    ],
)
def test_classify_every_must_gather_file(name: str, kind: str) -> None:
    assert classify(name) == kind


def test_classify_the_lab_folder() -> None:
    kinds = {p.name: classify(p.name) for p in LAB.iterdir()}
    assert kinds == {
        "cluster_policy.yaml": "yaml",
        "kubevirt.yaml": "yaml",
        "gpu_operand_ds.yaml": "yaml",
        "gpu_nodes.labels": "labels",
        "gpu_nodes.descr": "describe",
        "gpu_nodes.status": "skip",
        "gpu_operand_ds.status": "skip",
        "gpu_operator_pod.log": "skip",
        "gpu_operator_pod.previous.log": "skip",
        "gpu_operand_pod_nvidia-vfio-manager-s5n2k.log": "skip",
        "must-gather.log": "skip",
        "must-gather.stderr.log": "skip",
        "version": "skip",
    }


def test_markers_name_the_files_the_script_writes() -> None:
    assert {
        "gpu_nodes.labels",
        "gpu_nodes.descr",
        "cluster_policy.yaml",
        "cluster_policy.missing",
        "gpu_operand_ds.yaml",
    } <= MUST_GATHER_MARKERS
    assert "version" not in MUST_GATHER_MARKERS and "kubevirt.yaml" not in MUST_GATHER_MARKERS


@pytest.mark.parametrize(
    "names,expected",
    [
        ([p.name for p in LAB.iterdir()], True),
        (["gpu_nodes.labels"], True),
        (["cluster_policy.missing", "must-gather.log"], True),
        (["cluster_policy.yaml", "gpu_operand_ds.yaml"], True),
        (
            ["nvidia-gpu-operator_20250203_1041/cluster_policy.yaml", "nvidia-gpu-operator_20250203_1041/gpu_operator_pod.yaml"],
            True,
        ),
        (["cluster_policy.yaml"], False),
        (["cluster_policy.yaml", "nodes.yaml", "pods.json"], False),
        (["kubevirt.yaml", "version", "must-gather.log"], False),
        ([], False),
    ],
)
def test_is_must_gather(names: list[str], expected: bool) -> None:
    assert is_must_gather(names) is expected


def test_lab_yaml_files_hold_the_expected_objects() -> None:
    policy = yaml.safe_load((LAB / "cluster_policy.yaml").read_text())
    assert (policy["kind"], policy["metadata"]["name"]) == ("ClusterPolicy", "gpu-cluster-policy")
    assert policy["spec"]["sandboxWorkloads"] == {"enabled": True, "defaultWorkload": "container"}
    for operand in ("sandboxDevicePlugin", "vfioManager", "vgpuDeviceManager", "vgpuManager"):
        assert policy["spec"][operand]["enabled"] is True
    kubevirt = yaml.safe_load((LAB / "kubevirt.yaml").read_text())
    (cr,) = kubevirt["items"]
    devices = cr["spec"]["configuration"]["permittedHostDevices"]
    assert devices["pciHostDevices"] == [
        {"externalResourceProvider": True, "pciVendorSelector": "10DE:2236", "resourceName": "nvidia.com/GA102GL_A10"}
    ]
    assert devices["mediatedDevices"] == [
        {"externalResourceProvider": True, "mdevNameSelector": "NVIDIA A10-12Q", "resourceName": "nvidia.com/NVIDIA_A10-12Q"}
    ]
    assert cr["spec"]["configuration"]["developerConfiguration"]["featureGates"] == [
        "GPU",
        "HostDevices",
        "DisableMDEVConfiguration",
    ]
    ds = yaml.safe_load((LAB / "gpu_operand_ds.yaml").read_text())
    assert ds["kind"] == "List"
    selectors = {d["metadata"]["name"]: d["spec"]["template"]["spec"]["nodeSelector"] for d in ds["items"]}
    assert selectors["nvidia-sandbox-device-plugin-daemonset"] == {"nvidia.com/gpu.deploy.sandbox-device-plugin": "true"}


# --------------------------------------------------------------------------- gpu_nodes.labels


def test_labels_file_written_by_the_real_pipeline_round_trips() -> None:
    original = {
        "gpu-1": {
            "feature.node.kubernetes.io/pci-10de.present": "true",
            "node-role.kubernetes.io/worker": "",
            "nvidia.com/gpu.workload.config": "vm-passthrough",
            "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3-MIG-1g.10gb",
            "feature.node.kubernetes.io/kernel-version.full": "5.15.0-126-generic",
            "topology.kubernetes.io/zone": "eu-west-3a",
            "app": "x_y.z-1",
        },
        "gpu-2.lab.example.com": {"kubernetes.io/hostname": "gpu-2.lab.example.com"},
    }
    text = must_gather_labels(original)
    assert text.splitlines()[:3] == [
        "gpu-1",
        "- app=x_y.z-1",
        "- feature.node.kubernetes.io/kernel-version.full=5.15.0-126-generic",
    ]
    objects, errors = parse_node_labels(text, "gpu_nodes.labels")
    assert errors == []
    assert {o["metadata"]["name"]: o["metadata"]["labels"] for o, _ in objects} == original
    assert [line for _, line in objects] == [1, 10]


def test_labels_file_of_the_real_h100_node_round_trips() -> None:
    path = Path(__file__).parent / "data" / "real" / "h100-mig-mixed-node-labels.json"
    if not path.exists():
        pytest.skip("tests/data/real/h100-mig-mixed-node-labels.json is not vendored")
    real = json.loads(path.read_text())
    objects, errors = parse_node_labels(must_gather_labels({"node-a": real}), "gpu_nodes.labels")
    assert errors == []
    assert objects[0][0]["metadata"]["labels"] == real


def test_minimal_node_shape() -> None:
    objects, errors = parse_node_labels("gpu-1\n- nvidia.com/gpu.present=true\n- nvidia.com/gpu.deploy.nvsm=\n\n", "f")
    assert errors == []
    assert objects == [
        (
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {
                    "name": "gpu-1",
                    "labels": {"nvidia.com/gpu.present": "true", "nvidia.com/gpu.deploy.nvsm": ""},
                    "annotations": {"verdict.dev/source": "must-gather-labels"},
                },
            },
            1,
        )
    ]


def test_node_listed_by_two_pci_selectors_is_one_node() -> None:
    text = "gpu-1\n- a=1\n\ngpu-2\n- b=2\n\ngpu-1\n- a=1\n\n"
    objects, errors = parse_node_labels(text, "f")
    assert errors == []
    assert [(o["metadata"]["name"], o["metadata"]["labels"], line) for o, line in objects] == [
        ("gpu-1", {"a": "1"}, 1),
        ("gpu-2", {"b": "2"}, 4),
    ]


def test_old_kubectl_map_print_and_missing_blank_lines() -> None:
    # kubectl printing {.metadata.labels} as Go's map[k:v ...] went through `tr : =` as well
    text = (
        "gpu-1\nmap[beta.kubernetes.io/arch=amd64 node-role.kubernetes.io/master= nvidia.com/gpu.present=true]\n"
        "gpu-2\n- kubernetes.io/hostname=gpu-2\n"
    )
    objects, errors = parse_node_labels(text, "f")
    assert errors == []
    assert {o["metadata"]["name"]: o["metadata"]["labels"] for o, _ in objects} == {
        "gpu-1": {"beta.kubernetes.io/arch": "amd64", "node-role.kubernetes.io/master": "", "nvidia.com/gpu.present": "true"},
        "gpu-2": {"kubernetes.io/hostname": "gpu-2"},
    }


def test_spaced_json_and_empty_label_map() -> None:
    # a JSON printer with '": "' leaves a space after '='; an empty map prints '{'
    objects, errors = parse_node_labels("gpu-1\n- a/b= x\n-  c = y\n\ngpu-2\n{\n\n", "f")
    assert errors == []
    assert [o["metadata"]["labels"] for o, _ in objects] == [{"a/b": "x", "c": "y"}, {}]


def test_values_that_break_label_syntax_are_kept_and_reported() -> None:
    # a hand-made file: "a:b" went through `tr : =`; the reader cannot know the second '=' was ':'
    objects, errors = parse_node_labels("gpu-1\n- example.com/endpoint=host=8080\n", "gpu_nodes.labels")
    assert objects[0][0]["metadata"]["labels"] == {"example.com/endpoint": "host=8080"}
    (error,) = errors
    assert (error.source.file, error.source.document, error.source.line) == ("gpu_nodes.labels", 1, 2)
    assert "':'" in error.reason


def test_unreadable_lines_are_reported_with_their_place() -> None:
    text = (
        "- orphan=1\n"  # 1: before any node name
        "gpu-1\n"  # 2
        "- good=yes\n"  # 3
        "- no-equals-sign\n"  # 4
        "- /bad-key=1\n"  # 5
        "\n"
        "Not A Node Name\n"  # 7
        "- skipped=1\n"  # 8
        "\n"
        "gpu-2\n"  # 10
        "- fine=1\n"
    )
    objects, errors = parse_node_labels(text, "f")
    assert {o["metadata"]["name"]: o["metadata"]["labels"] for o, _ in objects} == {
        "gpu-1": {"good": "yes"},
        "gpu-2": {"fine": "1"},
    }
    assert [(e.source.document, e.source.line, e.path) for e in errors] == [
        (1, 1, "$.metadata.name"),
        (1, 4, "$.metadata.labels"),
        (1, 5, "$.metadata.labels"),
        (2, 7, "$.metadata.name"),
    ]


# --------------------------------------------------------------------------- merge


def test_merge_precedence() -> None:
    described: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": "gpu-1",
            "labels": {"a": "from-describe", "b": "only-describe"},
            "annotations": {"verdict.dev/source": "kubectl-describe", "x": "1"},
        },
        "spec": {"taints": [{"key": "k", "effect": "NoSchedule"}], "unschedulable": True},
        "status": {"capacity": {"nvidia.com/gpu": "2"}, "allocatable": {"nvidia.com/gpu": "1"}},
    }
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "n"}, "spec": {"nodeName": "gpu-1"}}
    only_describe = copy.deepcopy(described)
    only_describe["metadata"]["name"] = "gpu-9"
    labelled = [
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "name": "gpu-1",
                "labels": {"a": "from-labels", "c": "only-labels"},
                "annotations": {"verdict.dev/source": "must-gather-labels"},
            },
        },
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": "gpu-2", "labels": {"d": "1"}, "annotations": {"verdict.dev/source": "must-gather-labels"}},
        },
    ]
    before = copy.deepcopy((labelled, described))
    merged = merge_nodes(labelled, [only_describe, described, pod])
    assert (labelled, described) == before  # inputs untouched
    assert [n["metadata"]["name"] for n in merged] == ["gpu-1", "gpu-2", "gpu-9"]
    gpu1 = merged[0]
    assert gpu1["metadata"]["labels"] == {"a": "from-labels", "c": "only-labels"}
    assert gpu1["status"] == described["status"]
    assert gpu1["spec"] == described["spec"]
    assert gpu1["metadata"]["annotations"] == {"verdict.dev/source": "must-gather-labels+kubectl-describe", "x": "1"}
    assert merged[1] == labelled[1]
    assert merged[2] == only_describe


def test_merge_keeps_describe_labels_when_the_labels_file_has_none() -> None:
    described = {"kind": "Node", "metadata": {"name": "gpu-1", "labels": {"a": "1"}}, "status": {}}
    merged = merge_nodes([{"kind": "Node", "metadata": {"name": "gpu-1", "labels": {}}}], [described])
    assert merged[0]["metadata"]["labels"] == {"a": "1"}
    assert merged[0]["metadata"]["annotations"]["verdict.dev/source"] == "must-gather-labels"


def test_lab_folder_merge_equals_lab_json() -> None:
    labelled, label_errors = parse_node_labels((LAB / "gpu_nodes.labels").read_text(), "gpu_nodes.labels")
    described, describe_errors = parse_describe_nodes((LAB / "gpu_nodes.descr").read_text(), "gpu_nodes.descr")
    assert label_errors == [] and describe_errors == []
    merged = merge_nodes([o for o, _ in labelled], [o for o, _ in described])
    expected = lab_json_nodes()
    assert [n["metadata"]["name"] for n in merged] == list(expected)
    for node in merged:
        want = expected[node["metadata"]["name"]]
        assert node["metadata"]["labels"] == want["metadata"]["labels"]
        assert node["status"]["allocatable"] == want["status"]["allocatable"]
        assert node["status"]["capacity"] == want["status"]["capacity"]
        assert node["spec"].get("taints", []) == want["spec"].get("taints", [])
        assert node["spec"].get("unschedulable", False) == want["spec"].get("unschedulable", False)
    by_name = {n["metadata"]["name"]: n for n in merged}
    broken = by_name["gpu-broken-1"]
    assert broken["metadata"]["labels"]["nvidia.com/gpu.workload.config"] == "vm-passthrough"
    assert broken["status"]["allocatable"]["nvidia.com/gpu"] == "2"
    assert by_name["gpu-passthrough-1"]["status"]["allocatable"]["nvidia.com/GA102GL_A10"] == "1"
    assert by_name["gpu-vgpu-1"]["status"]["allocatable"]["nvidia.com/NVIDIA_A10-12Q"] == "4"
    assert by_name["gpu-container-1"]["metadata"]["labels"]["nvidia.com/gpu.deploy.device-plugin"] == "true"
    pods = [o for o, _ in described if o["kind"] == "Pod"]
    assert len(pods) == 35
    launcher = next(p for p in pods if p["metadata"]["name"] == "virt-launcher-win11-a10-r8wz4")
    assert launcher["spec"]["nodeName"] == "gpu-passthrough-1"
    assert launcher["spec"]["containers"][0]["resources"] == {"requests": {"cpu": "100m", "memory": "8486Mi"}}


def test_lab_labels_file_is_exactly_what_the_pipeline_writes() -> None:
    nodes = {name: n["metadata"]["labels"] for name, n in sorted(lab_json_nodes().items())}
    assert (LAB / "gpu_nodes.labels").read_text() == must_gather_labels(nodes)


def _lab_tar_gz(extra: dict[str, bytes]) -> bytes:
    """The lab must-gather folder as a .tar.gz under its own folder, with ``extra`` members (name -> bytes)."""
    import io
    import tarfile

    def same_everywhere(info: tarfile.TarInfo) -> tarfile.TarInfo:
        # the checkout's owner and times (a fresh clone's mtimes are fractional: a pax header each) change where
        # each member's bytes fall in the stream; a test that cuts the stream must not depend on them
        info.mtime, info.uid, info.gid, info.uname, info.gname = 1_700_000_000, 0, 0, "", ""
        return info

    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        tar.add(LAB, arcname="must-gather", filter=same_everywhere)
        for name, payload in extra.items():
            info = tarfile.TarInfo(f"must-gather/{name}")
            info.size = len(payload)
            tar.addfile(info, io.BytesIO(payload))
    return buf.getvalue()


def test_a_must_gather_tar_gz_past_the_budget_by_its_logs_is_read() -> None:
    """Regression: a must-gather .tar.gz whose logs and bug reports unpacked past the bound was refused whole;
    only the members read count against it now (the tar is read as a stream)."""
    from rules.reader import Budget, parse_bytes

    lab = sum(f.stat().st_size for f in LAB.iterdir())
    log = b"I1203 10:00:00.000000 1 controller.go:42] reconciling ClusterPolicy\n" * 20_000  # 1.4 MB
    data = _lab_tar_gz({"gpu_operator_pod.log": log, "nvidia-bug-report_gpu-vgpu-1.log.gz": log[:500_000]})
    whole = parse_bytes(_lab_tar_gz({}), "mg.tar.gz")
    dump = parse_bytes(data, "mg.tar.gz", Budget(lab + 100_000))
    assert dump.errors == []
    assert sorted((o.kind, o.name) for o in dump.objects) == sorted((o.kind, o.name) for o in whole.objects)
    assert sorted(o.name for o in dump.objects if o.kind == "Node") == [
        "gpu-broken-1",
        "gpu-container-1",
        "gpu-passthrough-1",
        "gpu-vgpu-1",
    ]
    assert "mg.tar.gz!must-gather/nvidia-bug-report_gpu-vgpu-1.log.gz" in dump.files_skipped
    assert dump.notes[0] == "read as an NVIDIA GPU Operator must-gather"


def test_a_tar_gz_read_as_a_stream_still_bounds_what_it_reads_and_unpacks() -> None:
    import gzip
    import io
    import tarfile

    from rules.errors import DumpTooLarge
    from rules.reader import STREAM_FACTOR, Budget, parse_bytes

    node = b"apiVersion: v1\nkind: Node\nmetadata: {name: n%d}\n"
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for i, payload in enumerate([node % 1, b"# " + b"x" * 700_000 + b"\n" + node % 2, node % 3]):
            info = tarfile.TarInfo(f"dump/part{i}.yaml")
            info.size = len(payload)
            tar.addfile(info, io.BytesIO(payload))
        info = tarfile.TarInfo("dump/kubelet.log")
        info.size = 900_000
        tar.addfile(info, io.BytesIO(b"l" * 900_000))
    dump = parse_bytes(buf.getvalue(), "d.tar.gz", Budget(500_000))
    # the members read are charged one by one: the one past the budget is refused, the others read
    assert sorted(o.name for o in dump.objects) == ["n1", "n3"]
    assert [(e.source.file, e.reason) for e in dump.errors] == [
        ("d.tar.gz!dump/part1.yaml", "unpacks to more than 500,000 bytes (archives nested included)")
    ]
    assert dump.files_skipped[-1] == "d.tar.gz!dump/kubelet.log"
    # what it unpacks to in all, members passed over included, is bounded too
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        info = tarfile.TarInfo("bomb.log")
        info.size = 20 * 100_000
        tar.addfile(info, io.BytesIO(b"\0" * info.size))
    assert STREAM_FACTOR * 100_000 < 20 * 100_000
    with pytest.raises(DumpTooLarge) as err:
        parse_bytes(buf.getvalue(), "bomb.tar.gz", Budget(100_000))
    assert str(err.value) == (
        "bomb.tar.gz: unpacks to more than 1,600,000 bytes in all, members not read included (archives nested included)"
    )
    # a gzip'd file that is not a tar is refused past the budget as before
    with pytest.raises(DumpTooLarge):
        parse_bytes(gzip.compress(b" " * 200_000), "big.yaml.gz", Budget(100_000))


def test_the_gzipd_tars_of_one_input_share_what_they_may_unpack_to() -> None:
    """Many small .tar.gz members each passing over a large log must not add up past the bound: the bound is
    the input's, not each stream's."""
    import io
    import tarfile
    import zipfile

    from rules.reader import Budget, parse_bytes

    def tgz(i: int) -> bytes:
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w:gz") as tar:
            node = b"kind: Node\napiVersion: v1\nmetadata: {name: n%d}\n" % i
            for name, payload in ((f"n{i}.yaml", node), ("x.log", b"l" * 700_000)):
                info = tarfile.TarInfo(name)
                info.size = len(payload)
                tar.addfile(info, io.BytesIO(payload))
        return buf.getvalue()

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for i in range(3):
            zf.writestr(f"part{i}.tar.gz", tgz(i))
    dump = parse_bytes(buf.getvalue(), "b.zip", Budget(100_000))
    assert sorted(o.name for o in dump.objects) == ["n0", "n1"]
    assert [(e.source.file, e.reason) for e in dump.errors] == [
        (
            "b.zip!part2.tar.gz",
            "unpacks to more than 1,600,000 bytes in all, members not read included (archives nested included)",
        )
    ]


def test_a_pod_of_the_pods_yaml_and_of_the_describe_pod_table_is_read_once(tmp_path: Path) -> None:
    """Trial 38: an operand pod is in gpu_operand_pods.yaml and in gpu_nodes.descr's pod table; both were kept,
    inflating the counts, with a false "in the dump twice and the two differ ... audit one cluster at a time" note
    and "rebuilt from describe text: its containers are not known" skips. The YAML is the pod."""
    from rules.engine import audit_paths
    from rules.loader import load_policies
    from rules.reader import read_path

    folder = tmp_path / "must-gather"
    shutil.copytree(LAB, folder)
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "nvidia-vfio-manager-s5n2k",
            "namespace": "gpu-operator",
            "labels": {"app": "nvidia-vfio-manager"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "nvidia-vfio-manager"}],
        },
        "spec": {"nodeName": "gpu-passthrough-1", "containers": [{"name": "nvidia-vfio-manager", "image": "vfio"}]},
        "status": {"phase": "Running"},
    }
    (folder / "gpu_operand_pods.yaml").write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [pod]}))
    dump = read_path(str(folder))
    named = [o for o in dump.objects if o.name == "nvidia-vfio-manager-s5n2k"]
    assert [(o.source.file, o.obj["spec"]["containers"][0]["name"]) for o in named] == [
        (f"{folder}/gpu_operand_pods.yaml", "nvidia-vfio-manager")
    ]
    assert len([o for o in dump.objects if o.kind == "Pod"]) == 35  # the other 34 rows, and this one from YAML
    report = audit_paths([str(folder)], load_policies())
    assert not [n for n in report.notes if "twice" in n]


@pytest.mark.parametrize("packing", ["w:gz", "w", "zip"])
def test_an_archive_file_is_read_from_disk_not_whole(tmp_path: Path, packing: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Trial 38: a customer's must-gather tarball was read whole into memory (991 MB for a 1 GB .tar.gz, 1.9 GB for
    a tar holding it) and died of MemoryError under a memory limit. An archive file is now read from disk: the
    same objects as from its bytes, and the file's bytes are never read whole."""
    import tarfile
    import zipfile

    from rules.reader import parse_bytes, read_path

    archive = tmp_path / ("mg.zip" if packing == "zip" else "mg.tar.gz" if packing == "w:gz" else "mg.tar")
    if packing == "zip":
        with zipfile.ZipFile(archive, "w") as zf:
            for f in sorted(LAB.iterdir()):
                zf.write(f, f"must-gather/{f.name}")
    else:
        with tarfile.open(archive, packing) as tar:
            tar.add(LAB, arcname="must-gather")
    whole = parse_bytes(archive.read_bytes(), str(archive))
    monkeypatch.setattr(Path, "read_bytes", lambda self: pytest.fail(f"{self} read whole"))
    dump = read_path(str(archive))
    assert [(o.kind, o.name, o.source.file) for o in dump.objects] == [(o.kind, o.name, o.source.file) for o in whole.objects]
    assert len([o for o in dump.objects if o.kind == "Node"]) == 4
    assert (dump.errors, dump.notes, dump.files_skipped) == (whole.errors, whole.notes, whole.files_skipped)


def test_an_archive_beside_a_must_gather_is_named_as_not_read(tmp_path: Path) -> None:
    """Trial 38: a case folder with a must-gather and a second must-gather's .tar.gz judged the first alone; the
    archive showed only in the JSON's filesSkipped. A note now names it (not the bug reports the script writes)."""
    from rules.reader import read_path

    folder = tmp_path / "case"
    shutil.copytree(LAB, folder / "must-gather")
    # (inside the must-gather's folder: one beside it is a dump of its own, test_an_archive_beside_...)
    (folder / "must-gather" / "second-must-gather.tar.gz").write_bytes(b"\x1f\x8b" + b"\0" * 30)
    (folder / "must-gather" / "nvidia-bug-report_gpu-vgpu-1.log.gz").write_bytes(b"\x1f\x8b" + b"\0" * 30)
    dump = read_path(str(folder))
    assert [n for n in dump.notes if "not read" in n] == [
        f"1 archive in the must-gather not read ({folder}/must-gather/second-must-gather.tar.gz): an archive inside a"
        " must-gather is not opened (another must-gather, or a dump of another time); audit it on its own"
    ]


@pytest.mark.parametrize("mode", ["w:gz", "w"])
def test_an_archive_beside_the_must_gather_folder_of_an_archive_is_read(tmp_path: Path, mode: str) -> None:
    """Trial 183: a tarball of two cluster archives and a must-gather folder was judged as the must-gather alone (the
    archives in filesSkipped, "2 archives in the must-gather not read"), beside a note that it "holds 3 archives or
    must-gathers ..., read here as one dump". An archive beside the must-gather's folder is read, as an archive of
    archives reads them; one inside the folder is still not opened."""
    import io

    from rules.reader import read_path

    def tar_gz(members: dict[str, bytes]) -> bytes:
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w:gz") as tar:
            for name, payload in members.items():
                info = tarfile.TarInfo(name)
                info.size = len(payload)
                tar.addfile(info, io.BytesIO(payload))
        return buf.getvalue()

    node = b"apiVersion: v1\nkind: Node\nmetadata:\n  name: extra-gpu-1\n"
    path = tmp_path / ("batch.tar.gz" if mode == "w:gz" else "batch.tar")
    with tarfile.open(path, mode=mode) as tar:
        tar.add(LAB, arcname="mg")
        for name, payload in {
            "a-cluster.tar.gz": tar_gz({"nodes.yaml": node}),
            "mg/inner.tar.gz": tar_gz({"nodes.yaml": node.replace(b"extra-gpu-1", b"inner-gpu")}),
        }.items():
            info = tarfile.TarInfo(name)
            info.size = len(payload)
            tar.addfile(info, io.BytesIO(payload))
    dump = read_path(str(path))
    assert dump.errors == []
    assert [(o.name, o.source.file) for o in dump.objects if o.name.endswith("-gpu-1") or o.name == "inner-gpu"] == [
        ("extra-gpu-1", f"{path}!a-cluster.tar.gz!nodes.yaml")
    ]
    assert len([o for o in dump.objects if o.kind == "Node"]) == 5  # the lab's four and the archive's
    assert [n for n in dump.notes if "not read" in n or "holds" in n] == [
        f"1 archive in the must-gather not read ({path}!mg/inner.tar.gz): an archive inside a must-gather is not opened"
        " (another must-gather, or a dump of another time); audit it on its own",
        "the archive holds 2 archives or must-gathers, read here as one dump: if they are of different clusters (or one"
        " cluster at different times), unpack it and audit the folder, a batch that judges each alone"
        f" ({path}!a-cluster.tar.gz, {path}!mg)",
    ]


def test_dumps_added_to_a_must_gather_are_read_whatever_their_extension(tmp_path: Path) -> None:
    """Trial 154: inside a must-gather, a Node added as extra.yaml was read, one added as extra.json was passed over
    with a note that "a must-gather is read by the names its script writes" (untrue of the .yaml), and one saved as
    extra.txt was dropped without a word. Each is read as a folder reads it; the script's own text files are not."""
    from rules.reader import read_path

    folder = tmp_path / "must-gather"
    shutil.copytree(LAB, folder)
    node = "apiVersion: v1\nkind: Node\nmetadata:\n  name: extra-gpu-{}\n"
    (folder / "extra-nodes.yaml").write_text(node.format(8))
    (folder / "extra-nodes.json").write_text(json.dumps(yaml.safe_load(node.format(9))))
    (folder / "extra-nodes.txt").write_text(node.format(7))
    (folder / "gpu_operand_pod_images.txt").write_text("nvcr.io/nvidia/gpu-operator:v25.10.1\n")
    dump = read_path(str(folder))
    assert sorted(o.name for o in dump.objects if o.name.startswith("extra-")) == ["extra-gpu-7", "extra-gpu-8", "extra-gpu-9"]
    assert not [n for n in dump.notes if "not read" in n] and dump.errors == []
    assert f"{folder}/gpu_operand_pod_images.txt" in dump.files_skipped


def test_a_case_folder_of_two_must_gathers_is_a_batch(tmp_path: Path) -> None:
    """Trial 38: a case folder holding a must-gather taken before a fix and one after was read as one dump: each
    node and operand pod stood twice and differed, 22 notes asked to "audit one cluster at a time", and the
    verdicts mixed the two clusters. Each must-gather (the folder its script's files stand in, below any depth),
    and each archive beside them, is now a dump of its own; a README beside them is named as not read."""
    from click.testing import CliRunner

    from rules.cli import main
    from rules.engine import split_dumps

    case = tmp_path / "case-0042"
    shutil.copytree(LAB, case / "before")
    shutil.copytree(LAB, case / "after" / "must-gather.local.5f2a" / "registry-example-com-gpu-operator")
    (case / "after" / "must-gather.local.5f2a" / "timestamp").write_text("2026-12-02 10:00:00\n")
    (case / "notes.md").write_text("# Case 42\n\nBefore and after the driver upgrade.\n")
    notes: list[str] = []
    assert split_dumps([str(case)], notes) == [
        str(case / "after" / "must-gather.local.5f2a" / "registry-example-com-gpu-operator"),
        str(case / "before"),
    ]
    assert notes == [
        f"{case}: a batch of 2 must-gathers, each judged alone; 2 files not read: neither named *.yaml, *.yml, *.json"
        f" or an archive, nor starting as a dump or describe text ({case}/after/must-gather.local.5f2a/timestamp,"
        f" {case}/notes.md)"
    ]
    res = CliRunner().invoke(main, ["audit", str(case), "--fail-on", "never"])
    assert res.exit_code == 0, res.output
    reports = json.loads(res.stdout)["reports"]
    alone = json.loads(CliRunner().invoke(main, ["audit", str(LAB), "--fail-on", "never"]).stdout)
    assert [r["summary"] for r in reports] == [alone["summary"], alone["summary"]]
    assert not any("audit one cluster at a time" in n for r in reports for n in r.get("notes", []))

    # an archive of another must-gather beside one: two dumps too
    shutil.rmtree(case / "after")
    with tarfile.open(case / "after.tar.gz", "w:gz") as tar:
        tar.add(LAB, arcname="must-gather")
    assert split_dumps([str(case)]) == [str(case / "after.tar.gz"), str(case / "before")]
    # a must-gather alone in the folder, or with a dump's YAML beside it: the folder is one dump (one cluster's)
    (case / "after.tar.gz").unlink()
    assert split_dumps([str(case)]) == [str(case)]
    (case / "extra-nodes.yaml").write_text("apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n")
    assert split_dumps([str(case)]) == [str(case)]
    # trial 93: beside two must-gathers, the YAML is a dump of its own (read with both, it merged the two clusters)
    shutil.copytree(LAB, case / "after")
    notes = []
    assert split_dumps([str(case)], notes) == [str(case / "after"), str(case / "before"), str(case / "extra-nodes.yaml")]
    assert notes == [
        f"{case}: a batch of 2 must-gathers and 1 file, each judged alone; the files and folders beside the archives or"
        f" must-gathers ({case}/extra-nodes.yaml) are dumps of their own too: to judge one with an archive's cluster,"
        f" put it in a folder with the archive's files; 1 file not read: neither named *.yaml, *.yml, *.json or an archive, nor"
        f" starting as a dump or describe text ({case}/notes.md)"
    ]
    # the must-gather itself, with an archive inside: one dump
    assert split_dumps([str(case / "before")]) == [str(case / "before")]


@pytest.mark.parametrize("path", [False, True])
def test_a_must_gather_tar_gz_cut_short_is_read_up_to_the_cut(path: bool, tmp_path: Path) -> None:
    """Trial 38: a must-gather .tar.gz cut short (a download or upload that stopped) was refused whole, "broken
    gzip stream", though every file before the cut was intact. The files before the member the cut falls in are
    read and judged, and an input error says where the archive ends (so the audit does not pass as clean)."""
    import io
    import random
    import tarfile
    import zlib

    from rules.errors import DumpError
    from rules.reader import parse_bytes, read_path

    log = random.Random(7).randbytes(2_000_000)  # does not compress: the cut falls inside it
    data = _lab_tar_gz({"zz-gpu_operand_pod_nvidia-driver-daemonset.log": log})
    cut = data[: len(data) * 9 // 10]
    whole = parse_bytes(_lab_tar_gz({}), "mg.tar.gz")
    if path:
        (tmp_path / "mg.tar.gz").write_bytes(cut)
        dump = read_path(str(tmp_path / "mg.tar.gz"))
        name = str(tmp_path / "mg.tar.gz")
    else:
        dump, name = parse_bytes(cut, "mg.tar.gz"), "mg.tar.gz"
    assert sorted((o.kind, o.name) for o in dump.objects) == sorted((o.kind, o.name) for o in whole.objects)
    files = len([f for f in LAB.iterdir() if f.is_file()])
    assert [(e.source.file, e.reason) for e in dump.errors] == [
        (
            name,
            "the archive ends early (its gzip stream is cut short), in"
            f" must-gather/zz-gpu_operand_pod_nvidia-driver-daemonset.log: the {files} files before it are whole;"
            " must-gather/zz-gpu_operand_pod_nvidia-driver-daemonset.log and any file after it are missing (download"
            " or copy the archive again for the whole dump)",
        )
    ]
    # cut in the first file (past its tar header, the folder's before it): nothing is read, and the error names
    # it. Where that falls in the gzip stream depends on the headers' owner and times, so the cut is found from
    # what each prefix unpacks to (a fixed offset passed here and failed in CI, where it fell in the header).
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        member = tar.getmember("must-gather/cluster_policy.yaml")
    start, end = member.offset_data, member.offset_data + member.size  # where its bytes stand, unpacked
    inside = next(k for k in range(20, len(data)) if len(zlib.decompressobj(31).decompress(data[:k])) > start)
    assert start < len(zlib.decompressobj(31).decompress(data[:inside])) < end
    first = parse_bytes(data[:inside], "mg.tar.gz")
    assert first.objects == []
    assert [e.reason for e in first.errors] == [
        "the archive ends early (its gzip stream is cut short), in must-gather/cluster_policy.yaml: no file before it"
        " is whole; must-gather/cluster_policy.yaml and any file after it are missing (download or copy the archive"
        " again for the whole dump)"
    ]
    # cut before the first tar header: the archive is refused, as before
    with pytest.raises(DumpError, match="broken gzip stream"):
        parse_bytes(data[:20], "mg.tar.gz")


def test_a_tar_gz_cut_anywhere_gives_every_file_that_is_whole_before_the_cut() -> None:
    """Trial 43: cut at 50% the lab must-gather .tar.gz gave nothing (exit 2) while tar extracted gpu_nodes.descr,
    all its node data, whole; cut at 70% the ClusterPolicy was lost. gzip.GzipFile raised at the end as soon as
    its read-ahead met it, a record before the last whole file ended. The stream is unpacked to where its bytes
    end: each cut gives the files whole before it, as the unpacked bytes' own tar headers say."""
    import io
    import zlib

    from rules.errors import DumpError
    from rules.reader import parse_bytes

    data = _lab_tar_gz({})
    read_whole = set(parse_bytes(data, "mg.tar.gz").files_read)
    for percent in range(5, 100, 5):
        cut = data[: len(data) * percent // 100]
        prefix = zlib.decompressobj(31).decompress(cut)  # every byte the cut stream holds
        whole = set()
        with tarfile.open(fileobj=io.BytesIO(prefix + b"\0" * 1024), mode="r:") as tar:
            try:
                for m in tar:
                    if m.isfile() and m.offset_data + m.size <= len(prefix):
                        whole.add(f"mg.tar.gz!{m.name}")
            except tarfile.ReadError:
                pass
        try:
            dump = parse_bytes(cut, "mg.tar.gz")
        except DumpError:
            assert not whole & read_whole, percent
            continue
        assert set(dump.files_read) == whole & read_whole, percent
        assert dump.errors[0].reason.startswith("the archive ends early (its gzip stream is cut short)"), percent


def test_a_tar_gz_of_several_gzip_members_padded_with_zeros_is_read_whole() -> None:
    """The reader of a gzip'd tar unpacks the stream itself (to keep what a cut leaves, above): a stream of several
    gzip members (what `cat a.gz b.gz` or pigz makes) and zeros after the last (tape-style padding) read as
    gzip.GzipFile reads them, with no error and nothing said cut."""
    import gzip
    import io
    import tarfile

    from rules.reader import parse_bytes

    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:") as tar:
        tar.add(LAB, arcname="must-gather")
    raw = buf.getvalue()
    half = len(raw) // 2
    stream = gzip.compress(raw[:half]) + gzip.compress(raw[half:]) + b"\0" * 4096
    dump = parse_bytes(stream, "mg.tar.gz")
    whole = parse_bytes(gzip.compress(raw), "mg.tar.gz")
    assert dump.errors == [] and sorted(dump.files_read) == sorted(whole.files_read)
    assert [(o.kind, o.name) for o in dump.objects] == [(o.kind, o.name) for o in whole.objects]


def test_review_a_subfolder_of_a_batch_is_judged_as_it_would_be_alone(tmp_path: Path) -> None:
    """Review: a subfolder holding a must-gather and a loose YAML was a dump and its must-gather one more (judged
    twice); a subfolder holding two archives and a YAML merged both archives into one dump."""
    from rules.engine import split_dumps

    node = "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
    b1 = tmp_path / "b1"
    shutil.copytree(LAB, b1 / "clusterA" / "mg")
    (b1 / "clusterA" / "extra-nodes.yaml").write_text(node)
    with tarfile.open(b1 / "a.tar.gz", "w:gz") as tar:
        tar.add(LAB, arcname="must-gather")
    assert split_dumps([str(b1)]) == [str(b1 / "a.tar.gz"), str(b1 / "clusterA")]
    b2 = tmp_path / "b2" / "sub"
    b2.mkdir(parents=True)
    (b2 / "nodes.yaml").write_text(node)
    for name in ("a", "b"):
        with tarfile.open(b2 / f"{name}.tar.gz", "w:gz") as tar:
            tar.add(LAB, arcname="must-gather")
    notes: list[str] = []
    assert split_dumps([str(tmp_path / "b2")], notes) == [str(b2 / "a.tar.gz"), str(b2 / "b.tar.gz"), str(b2 / "nodes.yaml")]
    assert notes[0].startswith(f"{tmp_path / 'b2'}: a batch of 2 archives and 1 file, each judged alone; the files and folders")


def test_an_oc_adm_must_gather_beside_another_is_counted_as_a_must_gather(tmp_path: Path) -> None:
    """Trial 154: `oc adm must-gather` with the NVIDIA image and another (the NVIDIA must-gather in a subfolder, the
    other image's YAML beside it) was called a folder in the batch note, and told to be put with an archive's files,
    then read as a must-gather."""
    from rules.engine import split_dumps

    case = tmp_path / "case"
    shutil.copytree(LAB, case / "mg-before")
    oc = case / "must-gather.local.555"
    shutil.copytree(LAB, oc / "registry-nvidia-gpu-operator-sha256-a7c3")
    (oc / "namespaces" / "vm-team" / "core").mkdir(parents=True)
    (oc / "namespaces" / "vm-team" / "core" / "pods.yaml").write_text("apiVersion: v1\nkind: List\nitems: []\n")
    (case / "README.txt").write_text("case notes\n")
    notes: list[str] = []
    assert split_dumps([str(case)], notes) == [str(case / "mg-before"), str(oc)]
    assert notes[0].startswith(f"{case}: a batch of 2 must-gathers, each judged alone; 1 file not read:")


def test_an_archive_of_a_must_gather_holding_another_says_it_holds_two(tmp_path: Path) -> None:
    """The re-read of trial 183's change: a tar whose top is a must-gather with a second in a folder is two
    must-gathers read as one dump, and its note says so (as before the change)."""
    from rules.reader import read_path

    path = tmp_path / "mg.tar"
    with tarfile.open(path, "w") as tar:
        tar.add(LAB, arcname=".")
        tar.add(LAB, arcname="older")
    notes = [n for n in read_path(str(path)).notes if "holds" in n]
    assert notes == [
        "the archive holds 2 archives or must-gathers, read here as one dump: if they are of different clusters (or one"
        " cluster at different times), unpack it and audit the folder, a batch that judges each alone"
        f" ({path}!, {path}!older)"
    ]
