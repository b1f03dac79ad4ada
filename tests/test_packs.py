"""Every built-in pack's fixtures (policies/<pack>/tests/*.yaml), one pytest case per expectation, and the
coverage rule: each rule of a pack has at least one failing and one passing expectation. Then the runner
itself (rules/packtest.py) on small packs built in tmp_path."""

from __future__ import annotations

import json
import re
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import kubevirt_cr, operand_pod

from rules import packtest
from rules.evaluate import evaluate
from rules.loader import load_policies
from rules.reader import read_paths
from rules.report import Report

PACKS = packtest.builtin_packs()
CASES = [(pack.name, case) for pack in PACKS for case in packtest.run_pack_tests(pack)]
#: Fixtures of a built-in pack that read files of the repository (the lab, the examples, the vendored real node
#: and bug reports): they run here, not in the pack, whose tests ship in the wheel and must stand alone.
REPO_FIXTURES = Path(__file__).resolve().parent / "data" / "pack-tests"
REPO_CASES = [
    (folder.name, case)
    for folder in sorted(REPO_FIXTURES.iterdir())
    for case in packtest.run_pack_tests(
        folder,
        load_policies([str(packtest.BUILTIN_DIR / folder.name)]),
        (
            [t for f in sorted(folder.glob("*.yaml")) for t in packtest.load_test_file(f)],
            [],
        ),
    )
]


def test_the_gpu_operator_pack_has_fixtures() -> None:
    assert "gpu-operator" in [p.name for p in PACKS]
    assert len(packtest.fixture_files(PACKS[0].parent / "gpu-operator")) >= 10


@pytest.mark.parametrize(("pack", "case"), CASES, ids=[f"{p}:{c.id}" for p, c in CASES])
def test_pack_fixture(pack: str, case: packtest.TestCaseResult) -> None:
    assert case.ok, case.message


@pytest.mark.parametrize(("pack", "case"), REPO_CASES, ids=[f"{p}:{c.id}" for p, c in REPO_CASES])
def test_repository_fixture_of_a_pack(pack: str, case: packtest.TestCaseResult) -> None:
    assert case.ok, case.message


@pytest.mark.parametrize("pack", PACKS, ids=[p.name for p in PACKS])
def test_every_rule_has_a_failing_and_a_passing_expectation(pack: Path) -> None:
    assert packtest.coverage_gaps(pack) == []


@pytest.mark.parametrize("pack", PACKS, ids=[p.name for p in PACKS])
def test_a_packs_fixtures_read_only_files_of_the_pack(pack: Path) -> None:
    """Regression (new user): from an installed wheel, `verdict policies test` failed 4 fixtures whose
    resources were the repository's examples/ and tests/data/ (not in the wheel). A pack's own fixtures read
    only files under the pack; those that need the repository live in tests/data/pack-tests/."""
    outside = []
    for test in packtest.load_pack_tests(pack)[0]:
        for resource in test.resources:
            where = (Path(test.file).parent / resource).resolve()
            if not where.is_relative_to(pack.resolve()):
                outside.append(f"{Path(test.file).name}: {resource}")
    assert outside == []


# ------------------------------------------------------------------------------------------ the gpu-operator pack

GPU_PACK = Path(__file__).resolve().parent.parent / "policies" / "gpu-operator"
GPU_DUMPS = GPU_PACK / "tests" / "dumps"
REGEX_OPERATORS = ("matches", "notMatches", "classify")
REFERENCE_KEYS = {"path", "var", "context", "data", "format", "value"}


def _policy_docs(pack: Path) -> list[tuple[str, dict[str, Any]]]:
    return [
        (path.name, doc)
        for path in sorted(pack.glob("*.yaml"))
        for doc in yaml.safe_load_all(path.read_text())
        if isinstance(doc, dict)
    ]


def _regex_arguments(node: Any, where: str = "") -> list[tuple[str, Any]]:
    """Every argument of matches/notMatches/classify in a policy document, with where it is."""
    found: list[tuple[str, Any]] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key in REGEX_OPERATORS:
                found.append((f"{where}.{key}", value))
            found += _regex_arguments(value, f"{where}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found += _regex_arguments(value, f"{where}[{i}]")
    return found


def _static_pattern(where: str, arg: Any) -> bool:
    """A regex argument that cannot carry dump text: a literal, or a data table (whichever entry a key picks)."""
    if isinstance(arg, str) or (isinstance(arg, list) and all(isinstance(a, str) for a in arg)):
        return True
    if isinstance(arg, dict) and "data" in arg and set(arg) <= {"data", "key", "default"}:
        return True
    return (
        where.endswith(".classify")
        and isinstance(arg, dict)
        and not set(arg) & REFERENCE_KEYS
        and all(_static_pattern("", v) for v in arg.values())
    )


@pytest.mark.parametrize("pack", PACKS, ids=[p.name for p in PACKS])
def test_no_rule_builds_a_regex_from_dump_text(pack: Path) -> None:
    # A pattern built from a dump ({format: "(?i)^{device.deviceName}$"}, {var: ...}) runs the dump's text as a
    # regex: deviceName nvidia.com/(a+)+c takes minutes against 32 a's. Regexes are literals or data tables;
    # dump text is compared with equals/in or equalsIgnoreCase/inIgnoreCase.
    bad = [
        f"{name}{where}: {arg}"
        for name, doc in _policy_docs(pack)
        for where, arg in _regex_arguments(doc)
        if not _static_pattern(where, arg)
    ]
    assert bad == []
    assert not _static_pattern(".matches", {"format": "(?i)^{device.deviceName}$"})
    assert not _static_pattern(".matches", {"var": "deviceName"})


def test_a_hostile_device_name_is_answered_at_once() -> None:
    dump = read_paths(
        [str(GPU_DUMPS / "clusterpolicy_sandbox_enabled.yaml"), str(GPU_DUMPS / "vm_device_name_that_is_a_regex.yaml")]
    )
    assert "(a+)+c" in str([o.obj for o in dump.objects])
    policies = load_policies([str(GPU_PACK)])
    started = time.perf_counter()
    report = evaluate(dump, policies)
    assert time.perf_counter() - started < 5  # a regex built from the name took minutes
    results = {(o.ref.name, r.rule): r.result for o in report.objects for r in o.results}
    assert results[("vm-regex-device-name", "device-name-permitted")] == "pass"
    assert results[("vm-regex-device-name", "device-advertised")] == "fail"


def _only_result(text: str, rule: str, name: str) -> Any:
    """The one result of ``rule`` in the pack's report on the dump ``text`` (read as the file ``name``)."""
    from rules.reader import parse_bytes

    report = evaluate(parse_bytes(text.encode(), name), load_policies([str(GPU_PACK)]))
    (result,) = [r for o in report.objects for r in o.results if r.rule == rule]
    return result


def _fixes(dump: str, rule: str, result: str = "fail") -> dict[str, str]:
    """The remediations of ``rule``'s ``result`` results on the pack fixture dump ``dump``, by object name."""
    report = evaluate(read_paths([str(GPU_DUMPS / dump)]), load_policies([str(GPU_PACK)]))
    return {o.ref.name: r.remediation for o in report.objects for r in o.results if r.rule == rule and r.result == result}


def _sandbox_cluster(node: str, labels: dict[str, str], resources: dict[str, str], *more: dict[str, Any]) -> Report:
    """The pack's report on a ClusterPolicy enabling sandbox workloads (its sandbox device plugin and vGPU device manager
    too), one GPU node with ``labels`` advertising ``resources``, and ``more`` objects."""
    from rules.errors import Source
    from rules.reader import Dump, KObject

    policy = {
        "apiVersion": "nvidia.com/v1",
        "kind": "ClusterPolicy",
        "metadata": {"name": "cp"},
        "spec": {
            "sandboxWorkloads": {"enabled": True},
            "sandboxDevicePlugin": {"enabled": True},
            "vgpuDeviceManager": {"enabled": True},
        },
    }
    gpu_node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": node, "labels": {"nvidia.com/gpu.present": "true", **labels}},
        "status": {"capacity": resources, "allocatable": resources},
    }
    objects = [policy, gpu_node, *more]
    return evaluate(
        Dump(objects=[KObject(o, Source("d.yaml", i + 1, 1)) for i, o in enumerate(objects)]), load_policies([str(GPU_PACK)])
    )


def test_a_deploy_label_fix_adds_the_labels_its_message_names_and_no_other() -> None:
    """Trial 67: a vm-passthrough node lacking its deploy labels was told it lacks sandbox-device-plugin,
    sandbox-validator and vfio-manager, and the fix added kata-manager and cc-manager too (labels the rule does not
    judge: GPU Operator v23.3.0 does not write them)."""
    labels = {"nvidia.com/gpu.workload.config": "vm-passthrough", "feature.node.kubernetes.io/pci-10de.present": "true"}
    report = _sandbox_cluster("gpu-pt-1", labels, {"nvidia.com/GA102GL_A10": "1"})
    [(message, fix)] = [
        (r.message, r.remediation) for o in report.objects for r in o.results if r.rule == "deploy-labels-match-workload"
    ]
    named = [  # (in the order each operand waits on the one before: trial 192)
        "nvidia.com/gpu.deploy.vfio-manager",
        "nvidia.com/gpu.deploy.sandbox-validator",
        "nvidia.com/gpu.deploy.sandbox-device-plugin",
    ]
    assert f"lacks [{', '.join(named)}]" in message
    assert fix.endswith(f"for l in {' '.join(named)}; do kubectl label node gpu-pt-1 $l=true; done")


def test_a_pause_left_beside_a_vgpu_state_of_success_is_lifted_for_the_paused_operands_only() -> None:
    """Trial 142: the sandbox device plugin left paused-for-vgpu-change beside nvidia.com/vgpu.config.state=success
    passed. The warning's fix sets back to "true" the labels still paused (what vgpu-device-manager's maybeSetTrue
    does), never one that reads "false" (a disabled operand stays off)."""
    vgpu = {"nvidia.com/gpu.workload.config": "vm-vgpu", "nvidia.com/vgpu.config": "A10-12Q"}
    paused = "paused-for-vgpu-change"
    fixes = {}
    for validator in (paused, "false"):
        labels = {
            **vgpu,
            "nvidia.com/vgpu.config.state": "success",
            "nvidia.com/gpu.deploy.sandbox-device-plugin": paused,
            "nvidia.com/gpu.deploy.sandbox-validator": validator,
        }
        report = _sandbox_cluster("a10-1", labels, {"nvidia.com/NVIDIA_A10-12Q": "2"})
        # trial 152: a failure of its own rule (medium), not a low warning an audit exits 0 on
        [result] = [r for o in report.objects for r in o.results if r.rule == "vgpu-pause-lifted"]
        assert (result.result, result.severity) == ("fail", "medium")
        fixes[validator] = result.remediation
    assert fixes[paused] == (
        "kubectl label node a10-1 nvidia.com/gpu.deploy.sandbox-device-plugin=true nvidia.com/gpu.deploy.sandbox-validator=true"
        " --overwrite  # what vgpu-device-manager does once a config is applied (maybeSetTrue)"
    )
    assert fixes["false"].startswith("kubectl label node a10-1 nvidia.com/gpu.deploy.sandbox-device-plugin=true --overwrite")
    # while a config is being applied the pause is expected: the pending state is what is said, the fix reads the log
    labels = {**vgpu, "nvidia.com/vgpu.config.state": "pending", "nvidia.com/gpu.deploy.sandbox-device-plugin": paused}
    report = _sandbox_cluster("a10-1", labels, {"nvidia.com/NVIDIA_A10-12Q": "2"})
    [result] = [r for o in report.objects for r in o.results if r.rule == "vgpu-config-settled"]
    assert "is still applying vGPU config 'A10-12Q' (nvidia.com/vgpu.config.state=pending)" in result.message
    assert result.remediation.startswith("kubectl logs -n ")


def test_a_vm_node_left_prepared_while_sandbox_workloads_are_off_is_sent_to_the_clusterpolicy_first() -> None:
    """Trial 80: with the ClusterPolicy's sandbox workloads turned off, a vm-passthrough node still prepared for its
    label was told to relabel itself with the label it had (resource-class-matches-workload) and given the loop that
    converts it to a container node by hand (deploy-labels-match-workload), as its only fixes."""
    dump = "vm_nodes_prepared_while_sandbox_workloads_are_off.yaml"
    patch = (
        "kubectl patch clusterpolicies.nvidia.com cluster-policy --type merge -p "
        '\'{"spec":{"sandboxWorkloads":{"enabled":true}}}\''
    )
    # trial 81: a fix that turns the node to containers names the VMs that run on it
    vms = " (VirtualMachineInstance(s) vms/vm-a10 run on it now: once it serves containers, no VM gets a GPU there)"
    # trial 239 #1: turning sandbox workloads on is said to be cluster-wide
    wide = (
        "turning them on prepares every VM-labelled GPU node for its VM workload and takes the GPUs of any container"
        " pods there, which gpu-clusterpolicy/sandbox-workloads-enabled-for-vm-nodes names"
    )
    [resource] = _fixes(dump, "resource-class-matches-workload").values()
    # (trial 240 #1: the choice first, each command under its condition, so that the block pasted whole runs neither)
    assert resource == (
        "First decide what the node is for: ClusterPolicy cluster-policy has sandbox workloads off, so the operator"
        " ignores its label. If it is meant for the vm-passthrough workload its label asks and its resources are of,"
        f" turn them on: {patch} ({wide}). If it is meant for containers instead{vms}, remove the label and the operator"
        " relabels the node: kubectl label node gpu-pt-1 nvidia.com/gpu.workload.config-"
    ), resource
    assert "--overwrite nvidia.com/gpu.workload.config=vm-passthrough" not in resource
    [labels] = _fixes(dump, "deploy-labels-match-workload").values()
    assert labels.startswith(
        "First decide what the node is for: ClusterPolicy cluster-policy has spec.sandboxWorkloads.enabled=false, so "
        "the operator ignores nvidia.com/gpu.workload.config=vm-passthrough (gpu-nodes/label-ignored-sandbox-disabled)."
        f" If it should run VMs, enable sandbox workloads and change nothing on the node: {patch} ({wide}). If it should"
        f" run containers{vms}, remove that label: kubectl label node gpu-pt-1 nvidia.com/gpu.workload.config-. "
    )
    [ignored] = _fixes(dump, "label-ignored-sandbox-disabled", "warn").values()
    assert ignored == (
        "First decide what the node is for (VMs of the dump ask for vm-passthrough devices). If it is meant for VMs, turn"
        f" sandbox workloads on: {patch} ({wide}). If it is meant for containers, drop the label{vms}: kubectl label node"
        " gpu-pt-1 nvidia.com/gpu.workload.config-"
    ), ignored


def test_a_left_over_device_plugin_resource_gets_no_host_check_of_its_class() -> None:
    """Trial 80: a vm-passthrough node listing nvidia.com/gpu at capacity 1, allocatable 0 (its container device plugin
    gone) was told to run nvidia-smi and read the device plugin log its grep would not find; a container node that
    lost a GPU keeps its host checks."""
    fixes = _fixes("left_over_device_plugin_resource.yaml", "no-unhealthy-devices")
    assert fixes["gpu-pt-2"] == (
        "kubectl get pods -A -o wide --field-selector spec.nodeName=gpu-pt-2 | grep -i device-plugin  # no device plugin"
        " of another workload than vm-passthrough should be listed; the kubelet sets a stopped plugin's resource to"
        " capacity 0 about five minutes after it stopped"
    )
    assert fixes["gpu-c-1"].endswith("then on the host: dmesg | grep -i xid and nvidia-smi -q")
    # nothing shows the GPU Operator on gpu-c-1: its device plugin pod is looked for in every namespace (trial 145)
    assert "kubectl get pods -A -o wide --field-selector spec.nodeName=gpu-c-1 | grep -i device-plugin  #" in fixes["gpu-c-1"]
    # on a node the operator manages, one pod's log: the MPS control daemon's pod matched "device-plugin" too (trial 81)
    from rules.reader import parse_bytes

    managed = (
        (GPU_DUMPS / "left_over_device_plugin_resource.yaml")
        .read_text()
        .replace(
            "nvidia.com/gpu.workload.config: container}",
            "nvidia.com/gpu.workload.config: container, nvidia.com/gpu.deploy.device-plugin: 'true'}",
        )
    )
    report = evaluate(parse_bytes(managed.encode(), "m.yaml"), load_policies([str(GPU_PACK)]))
    [fix] = [
        r.remediation for o in report.objects for r in o.results if o.ref.name == "gpu-c-1" and r.rule == "no-unhealthy-devices"
    ]
    assert "spec.nodeName=gpu-c-1 | grep -m1 nvidia-device-plugin-daemonset)  #" in fix


def test_an_unpermitted_vm_device_is_corrected_where_the_vm_can_be_changed() -> None:
    """Trial 80: device-name-permitted's fix said to correct deviceName in the VirtualMachineInstance, whose spec
    cannot be updated; its VirtualMachine is edited and restarted, a VMI no VirtualMachine owns replaced."""
    dump = read_paths([str(GPU_DUMPS / "running_vmi_asking_an_unpermitted_vgpu.yaml")])
    report = evaluate(dump, load_policies([str(GPU_PACK)]))
    fixes = {
        (o.ref.kind, o.ref.name): r.remediation
        for o in report.objects
        for r in o.results
        if r.rule == "device-name-permitted" and r.result == "fail"
    }
    vm = fixes.pop(("VirtualMachine", "vm-vgpu"))
    # trial 87: the VM's own edit first (the permit may be right, as the nodes advertise it), then the permit
    permits = (
        "; or, where a node advertises the name it asks for, permit that name: kubectl edit kubevirt -n kubevirt kubevirt"
        "  # spec.configuration.permittedHostDevices"
    )
    # trial 81: the VM's fix did not say that its running VMI keeps the old spec until it restarts
    assert vm == (
        "kubectl edit virtualmachine -n vms vm-vgpu  # in its spec.template, then, if it runs, virtctl restart -n vms"
        " vm-vgpu (its running VMI keeps the old spec until then)" + permits
    )
    assert {name: fix for (_, name), fix in fixes.items()} == {
        "vm-vgpu": "kubectl edit virtualmachine -n vms vm-vgpu  # in spec.template (a VMI's spec cannot be"
        " updated), then virtctl restart -n vms vm-vgpu" + permits,
        "vmi-alone": "kubectl get vmi -n vms vmi-alone -o yaml > vmi.yaml  # edit vmi.yaml, then kubectl"
        " replace --force -f vmi.yaml (a VMI's spec cannot be updated)" + permits,
    }


def test_an_extended_resource_fix_is_true_of_the_container_it_names() -> None:
    """Trial 79: a request of 1 under a limit of 2 was told to set the limit to a whole number and to write the
    resource name in lower case, two fixes for faults it did not have."""
    from rules.errors import Source
    from rules.reader import Dump, KObject

    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "trainer", "namespace": "ml"},
        "spec": {
            "containers": [
                {"name": "cuda", "resources": {"requests": {"nvidia.com/gpu": "1"}, "limits": {"nvidia.com/gpu": "2"}}}
            ]
        },
    }
    report = evaluate(Dump(objects=[KObject(pod, Source("pod.yaml", 1, 1))]), load_policies([str(GPU_PACK)]))
    [(message, fix)] = [
        (r.message, r.remediation) for o in report.objects for r in o.results if r.rule == "extended-resource-request-valid"
    ]
    assert message.startswith("Pod ml/trainer: container cuda requests nvidia.com/gpu=1 but its limit is different")
    assert fix == (
        "in the manifest of Pod ml/trainer (then kubectl apply -f <manifest>): container cuda needs nvidia.com/gpu as a"
        " whole-number limit, with no request or one equal to the limit, under a name in lower case before '/' (the"
        " message says which of these it breaks)"
    )


def test_a_deploy_label_fix_first_offers_the_workload_the_node_serves() -> None:
    """Trial 80: a container node relabelled vm-vgpu by mistake (its resources and deploy labels still container's) was
    given only the loops that convert it to a vGPU node by hand."""
    container = ["driver", "gpu-feature-discovery", "container-toolkit", "device-plugin", "dcgm", "dcgm-exporter"]
    container += ["node-status-exporter", "operator-validator"]
    labels = {"nvidia.com/gpu.workload.config": "vm-vgpu", **{f"nvidia.com/gpu.deploy.{o}": "true" for o in container}}
    kubevirt = {
        "apiVersion": "kubevirt.io/v1",
        "kind": "KubeVirt",
        "metadata": {"name": "kubevirt", "namespace": "kubevirt"},
        "spec": {"configuration": {"developerConfiguration": {"featureGates": ["GPU"]}}},
        "status": {"observedKubeVirtVersion": "v1.3.1"},
    }
    report = _sandbox_cluster("gpu-c-2", labels, {"nvidia.com/gpu": "2"}, kubevirt)
    said = {r.rule: r for o in report.objects for r in o.results if r.result in ("fail", "warn")}
    # trial 81: the message said the container operands were "scheduled on a node that is not prepared for them"
    assert said["deploy-labels-match-workload"].message.endswith(
        "its effective workload is vm-vgpu, while the node advertises only container GPU resources (nvidia.com/gpu): its"
        " workload label or these deploy labels are wrong (the operator deletes them when it reconciles the node; see"
        " the remediation)."
    )
    # trial 81: KubeVirt was told the GPU Operator "creates the vGPUs" where no vGPU is advertised or asked for
    assert (
        "while node(s) gpu-c-2 are labelled nvidia.com/gpu.workload.config=vm-vgpu, where the GPU Operator's"
        " vgpu-device-manager creates the vGPUs (none is advertised or asked for in the dump yet): "
    ) in said["mediated-devices-left-to-gpu-operator"].message
    fix = said["deploy-labels-match-workload"].remediation
    assert fix.startswith(
        "First see whether the workload label is the mistake: the node advertises container GPU resources (nvidia.com/gpu),"
        " not those of nvidia.com/gpu.workload.config=vm-vgpu. If it should stay container, label it so and change"
        " nothing else: kubectl label node gpu-c-2 --overwrite nvidia.com/gpu.workload.config=container. Only if it is"
        " meant for vm-vgpu: The operator sets these labels itself"
    )


def test_deploy_label_remediation_is_a_command_in_the_operator_namespace() -> None:
    fixes = _fixes("stale_and_missing_deploy_labels.yaml", "deploy-labels-match-workload")
    assert set(fixes) == {"a40-vgpu-stale-container-labels", "l40s-pt-half-labelled"}
    stale, half = fixes["a40-vgpu-stale-container-labels"], fixes["l40s-pt-half-labelled"]
    assert "kubectl logs -n nvidia-gpu-operator deploy/gpu-operator" in stale
    # Only the labels the node carries or lacks (an operator's trial: it listed every label of every workload; a
    # remediation that says "delete these" of labels the node does not have is not true of the dump).
    # ... and no loop over nothing (trial 33: "for l in ; do ...", valid shell but odd to read)
    # (in the node's order, as its message names them: trial 226 #6)
    assert stale.endswith(
        "stays as it is): for l in nvidia.com/gpu.deploy.dcgm-exporter nvidia.com/gpu.deploy.device-plugin"
        " nvidia.com/gpu.deploy.driver; do kubectl label node a40-vgpu-stale-container-labels $l-; done"
    )
    # only the labels its message names (trial 67: kata-manager and cc-manager, which the rule does not judge, too)
    assert half.endswith(
        "stays as it is): for l in nvidia.com/gpu.deploy.vfio-manager; do kubectl label node l40s-pt-half-labelled $l=true; done"
    )
    for text in fixes.values():
        assert "<" not in text and "-n gpu-operator" not in text


def test_a_template_validation_refuses_is_fixed_in_its_manifest_not_edited_in_place(tmp_path: Path) -> None:
    """Trial 59: a Deployment whose pod template asks for a GPU request without a limit (or a request above a
    limit, an invalid toleration) was told "kubectl edit Deployment ...": the API server validates a template as it
    validates a Pod, so no such Deployment exists to edit; what the dump holds is a manifest."""
    manifest = tmp_path / "deploy.yaml"
    manifest.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: infer, namespace: ml}\nspec:\n  template:\n"
        "    spec:\n      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule, tolerationSeconds: 60}]\n"
        "      containers:\n      - name: cuda\n        resources:\n"
        "          requests: {nvidia.com/gpu: 1, cpu: '2'}\n          limits: {cpu: '1'}\n"
    )
    report = evaluate(read_paths([str(manifest)]), load_policies([str(GPU_PACK)]))
    fixes = {r.rule: r.remediation for o in report.objects for r in o.results if r.result == "fail"}
    assert set(fixes) >= {"extended-resource-request-valid", "requests-within-limits", "tolerations-valid"}
    for rule in ("extended-resource-request-valid", "requests-within-limits", "tolerations-valid"):
        assert fixes[rule].startswith("in the manifest of Deployment ml/infer (then kubectl apply -f <manifest>): "), rule
        assert "kubectl edit" not in fixes[rule]


def test_a_job_is_replaced_not_edited_and_a_fix_says_manifest_then_live_object() -> None:
    """Trial 60: "kubectl edit Job ..." is refused (a Job's pod template is immutable); and the fix read "in the
    manifest of Pod ..., or with kubectl get pod ... where it is created: set ...", the clause in the wrong place."""
    fixes = _fixes("manifests_selecting_vm_nodes_sandbox_on.yaml", "gpu-workload-selects-vm-nodes")
    assert fixes["train-on-vgpu-nodes"] == (
        "set its nodeSelector (or node affinity) on nvidia.com/gpu.workload.config to container: in its manifest, then"
        " kubectl apply -f <manifest>; where it is created already, kubectl get job -n ml train-on-vgpu-nodes -o yaml >"
        " job.yaml, edit it (and delete spec.selector and the controller-uid and batch.kubernetes.io/controller-uid"
        " labels of spec.template.metadata.labels, which the API server makes anew for the new Job) and kubectl replace"
        " --force -f job.yaml (a Job's pod template cannot change in place)"
    )
    assert fixes["cuda-selects-passthrough"].startswith(
        "set its nodeSelector (or node affinity) on nvidia.com/gpu.workload.config to container: in its manifest, then"
        " kubectl apply -f <manifest>; where it is created already, kubectl get pod -n ml cuda-selects-passthrough"
    )


def test_fixes_say_what_cannot_change_and_who_owns_a_vmi() -> None:
    """Trial 61: a Pod's container fix gave the nodeName/nodeSelector reason; a VMI no VirtualMachine owns was told to
    edit "the VirtualMachine that created it"."""
    vmi = _fixes("manifests_selecting_vm_nodes_sandbox_on.yaml", "vm-selects-nodes-of-its-device-class")
    assert vmi["vmi-pt-on-container-nodes"].endswith(
        "where it is created already, kubectl get vmi -n vms vmi-pt-on-container-nodes -o yaml > vmi.yaml, edit it, then"
        " kubectl replace --force -f vmi.yaml (a VirtualMachineInstance's spec cannot be updated, and no VirtualMachine"
        " owns this one)"
    )
    assert vmi["vm-pt-on-container-nodes"].endswith(
        "kubectl edit vm -n vms vm-pt-on-container-nodes, then virtctl restart -n vms vm-pt-on-container-nodes"
    )
    # trial 62: the fix named the nodeSelector where only the required node affinity selects on the label
    assert vmi["vm-vgpu-affinity-container"].startswith(
        "make the VM select nodes of the workload of the device it asks for (vm-passthrough for a PCI device name,"
        " vm-vgpu for a vGPU type) on nvidia.com/gpu.workload.config, in its nodeSelector or its required node"
        " affinity's In values, whichever names the label"
    )
    pod = _fixes("manifests_selecting_vm_nodes.yaml", "gpu-resource-name-known", "warn")
    assert pod["cuda-upper-case-gpu"].endswith("kubectl replace --force -f pod.yaml (a Pod's containers cannot change in place)")


def test_a_created_pod_is_never_told_to_kubectl_edit_its_containers() -> None:
    """Trial 52: "kubectl edit Pod -n ml mps-asks-two: set nvidia.com/gpu to 1 ..." is refused by the API server (a
    Pod's containers cannot change once created; in-place resize is cpu and memory only): the Pod is created again
    or its controller's template edited. A Pod the API server never created is a manifest to fix."""
    dump = read_paths([str(GPU_DUMPS / "mps_beside_mixed_mig.yaml")])
    report = evaluate(dump, load_policies([str(GPU_PACK)]))
    (fix,) = [
        r.remediation
        for o in report.objects
        for r in o.results
        if r.rule == "mps-request-within-one-replica" and o.ref.name == "mps-asks-two"
    ]
    assert fix == (
        "kubectl get pod -n ml mps-asks-two -o yaml > pod.yaml  # edit pod.yaml, then kubectl replace --force -f"
        " pod.yaml (a Pod's containers cannot change in place): set nvidia.com/gpu to 1 in container cuda's"
        " resources.limits"
    )
    # trial 54: nor a VMI (virt-api: "update of VMI object is restricted"), nor a Pod's nodeName in place
    for name, doc in _policy_docs(GPU_PACK):
        for rule in doc["spec"]["rules"]:
            if {"Pod", "VirtualMachineInstance"} & set(rule["match"]["kinds"]):
                text = rule.get("remediation", "")
                assert "kubectl edit {kind}" not in text and "then change spec.nodeName" not in text, (name, rule["id"])
    lab = read_paths([str(Path(__file__).resolve().parent.parent / "examples" / "lab-cluster.yaml")])
    fixes = {
        (o.ref.name, r.rule): r.remediation for o in evaluate(lab, load_policies([str(GPU_PACK)])).objects for r in o.results
    }
    assert fixes[("vm-resources-not-devices", "gpus-via-devices")].startswith(
        "kubectl get vmi -n vms vm-resources-not-devices -o yaml > vmi.yaml  # edit vmi.yaml, then kubectl replace"
        " --force -f vmi.yaml (a VMI's spec cannot be updated). The edit: move each nvidia.com/ resource"
    )


def _owned_pod(name: str, owner: tuple[str, str] | None, labels: dict[str, str] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "ml", "labels": labels or {}}
    if owner is not None:
        meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": owner[0], "name": owner[1], "controller": True}]
    container = {
        "name": "cuda",
        "image": "nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04",
        "resources": {"limits": {"nvidia.com/gpus": 1}},
    }
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": meta,
        "spec": {"containers": [container]},
        "status": {"phase": "Pending"},
    }


def test_a_pods_fix_names_the_controller_that_owns_it() -> None:
    """Trial 61: a Pod a ReplicaSet owns was told "if a controller owns it, edit the controller's pod template", where
    the dump names the controller: its Deployment (the ReplicaSet <deployment>-<pod-template-hash>), or the owner."""
    from rules.errors import Source
    from rules.reader import Dump, KObject

    pods = [
        _owned_pod("train-7d9f8b6c5-x2k4p", ("ReplicaSet", "train-7d9f8b6c5"), {"pod-template-hash": "7d9f8b6c5"}),
        _owned_pod("bare-rs-abcde", ("ReplicaSet", "bare-rs"), {}),
        _owned_pod("infer-0", ("StatefulSet", "infer")),
        _owned_pod("batch-xk2p4", ("Job", "batch")),
        _owned_pod("virt-launcher-vm-abcde", ("VirtualMachineInstance", "vm")),
        _owned_pod("alone", None),
    ]
    dump = Dump(objects=[KObject(p, Source("pods.yaml", i + 1, 1)) for i, p in enumerate(pods)])
    report = evaluate(dump, load_policies([str(GPU_PACK)]))
    fixes = {o.ref.name: r.remediation for o in report.objects for r in o.results if r.rule == "gpu-resource-name-known"}
    tail = "which creates the pod again from it (a Pod's containers cannot change in place)"
    assert fixes["train-7d9f8b6c5-x2k4p"].endswith(
        f"edit the pod template of its controller, Deployment ml/train (kubectl edit deployment -n ml train), {tail}"
    )
    assert fixes["bare-rs-abcde"].endswith(
        f"edit the pod template of its controller, ReplicaSet ml/bare-rs (kubectl edit ReplicaSet -n ml bare-rs), {tail}"
    )
    assert fixes["infer-0"].endswith(
        f"edit the pod template of its controller, StatefulSet ml/infer (kubectl edit StatefulSet -n ml infer), {tail}"
    )
    assert (
        "Job ml/batch, whose pod template cannot change in place either (kubectl get job -n ml batch -o yaml"
        in fixes["batch-xk2p4"]
    )
    for name in ("virt-launcher-vm-abcde", "alone"):  # no workload controller to name: the pod itself is replaced
        assert fixes[name].endswith(
            f"kubectl get pod -n ml {name} -o yaml > pod.yaml, edit it and kubectl replace --force -f pod.yaml (a Pod's"
            " containers cannot change in place)"
        )


def test_fixes_resting_on_a_vm_label_the_operator_may_ignore_look_at_the_clusterpolicy_first() -> None:
    """Trial 52: a node serving MIG slices, labelled vm-passthrough but carrying the container operands' deploy labels
    and pods, with no ClusterPolicy in the dump, was told to drop its driver and device-plugin labels and delete their
    pods: with sandbox workloads off (the Helm default) the operator ignores the label and the node is right."""
    dump = read_paths([str(GPU_DUMPS / "mig_node_labelled_vm_passthrough_run_as_container.yaml")])
    report = evaluate(dump, load_policies([str(GPU_PACK)]))
    fixes = {(o.ref.name, r.rule): r.remediation for o in report.objects for r in o.results if r.result == "warn"}
    check = (
        "First see whether sandbox workloads are on: kubectl get clusterpolicies.nvidia.com -o yaml | grep -A3 sandboxWorkloads"
    )
    deploy = fixes[("gpu-mig-vmpt", "deploy-labels-match-workload")]
    # (a sentence of its own after the command, which a shell reads alone: trial 194)
    assert deploy.startswith(check + ". Where enabled is not true, the operator ignores the workload label and the node is")
    # before it, no label command but the one that removes the workload label, for the case sandbox workloads are off
    # (trial 219: said without its command)
    head = deploy[: deploy.index("If they are on:")]
    assert re.findall(r"kubectl label node gpu-mig-vmpt \S+", head) == [
        "kubectl label node gpu-mig-vmpt nvidia.com/gpu.workload.config-."
    ], head
    # trial 108: the driver pod's DaemonSet still selects the node (nvidia.com/gpu.deploy.driver=true): no fix deletes
    # it (created again at once, and its restart evicts the GPU pods there); the node's findings say what to do
    assert ("nvidia-driver-daemonset-14f8e", "operand-pod-matches-node-workload") not in fixes
    [driver] = [
        r
        for o in report.objects
        for r in o.results
        if o.ref.name == "nvidia-driver-daemonset-14f8e" and r.rule == "operand-pod-matches-node-workload"
    ]
    assert driver.result == "skip" and "a pod deleted now is created again" in driver.message
    # elsewhere the fix is as it was, without a leading space
    other = read_paths([str(GPU_DUMPS / "stale_and_missing_deploy_labels.yaml")])
    for o in evaluate(other, load_policies([str(GPU_PACK)])).objects:
        for r in o.results:
            if r.rule == "deploy-labels-match-workload" and r.result == "fail":
                assert r.remediation.startswith("The operator sets these labels itself")


def test_the_mission_nodes_fix_offers_the_label_its_resources_show() -> None:
    """Trial 57: the fix for a node labelled vm-passthrough that advertises nvidia.com/gpu only looked at its pods;
    the other reading, that the label is wrong, gets its command (only where every GPU resource is of one class)."""
    lab = read_paths([str(Path(__file__).resolve().parent.parent / "examples" / "lab" / "nodes.yaml")])
    fixes = {
        o.ref.name: r.remediation
        for o in evaluate(lab, load_policies([str(GPU_PACK)])).objects
        for r in o.results
        if r.rule == "resource-class-matches-workload" and r.result in ("fail", "warn")
    }
    assert fixes["lab-passthrough-advertising-gpu"] == (
        "kubectl get pods -A -o wide --field-selector spec.nodeName=lab-passthrough-advertising-gpu | grep -i nvidia"
        "  # what runs there for the vm-passthrough workload; or, if the node is meant for the container workload its"
        " resources are of: kubectl label node lab-passthrough-advertising-gpu --overwrite"
        " nvidia.com/gpu.workload.config=container"
    )


def test_pack_remediations_never_hard_code_the_operator_namespace() -> None:
    for name, doc in _policy_docs(GPU_PACK):
        for rule in doc["spec"]["rules"]:
            text = " ".join(str(rule.get(k, "")) for k in ("message", "remediation"))
            assert "-n gpu-operator" not in text and "-n nvidia-gpu-operator" not in text, (name, rule["id"])


def test_deploy_label_tables_agree() -> None:
    tables = yaml.safe_load((GPU_PACK / "data" / "operands.yaml").read_text())
    for workload in tables["workloads"]:
        assert set(tables["requiredDeployLabels"][workload]) <= set(tables["deployLabels"][workload])
        assert set(tables["deployLabels"][workload]) <= set(tables["allDeployLabels"])
    accepted = tables["acceptedDeployLabelValues"]
    assert set(accepted) <= set(tables["allDeployLabels"])
    assert accepted["nvidia.com/gpu.deploy.driver"] == ["pre-installed"]
    operands = {e["operand"] for entries in tables["operands"].values() for e in entries}
    assert set(tables["operandPods"]) <= operands
    for spec in tables["operandPods"].values():
        assert all(prefix.endswith("-") for prefix in spec["namePrefixes"])  # nvidia-dcgm is not nvidia-dcgm-exporter


def test_each_data_table_is_defined_once() -> None:
    # extendedResource was written out in two policies; shared tables live in data/ and policies read them.
    files: dict[str, list[str]] = {}
    for path in sorted((GPU_PACK / "data").glob("*.yaml")):
        for table in yaml.safe_load(path.read_text()):
            files.setdefault(table, []).append(f"data/{path.name}")
    for name, doc in _policy_docs(GPU_PACK):
        for table in doc["spec"].get("data") or {}:
            files.setdefault(table, []).append(name)
    assert {t: f for t, f in files.items() if len(f) > 1} == {}
    assert files["extendedResource"] == ["data/resource-classes.yaml"]


# ------------------------------------------------------------------------------------------ the runner

POLICY = """\
apiVersion: verdict/v1
kind: Policy
metadata: {name: gpu-count}
spec:
  rules:
  - id: gpu-count-label
    title: nvidia.com/gpu.count is set
    match: {kinds: [Node]}
    assert: {path: "$.metadata.labels['nvidia.com/gpu.count']", exists: true}
    message: Node {name} has no nvidia.com/gpu.count label
    references: [NVIDIA/k8s-device-plugin@1b826acc6af3:internal/lm/resource.go]
"""
DUMP = """\
apiVersion: v1
kind: Node
metadata:
  name: gpu-1
  labels: {nvidia.com/gpu.count: "2"}
---
apiVersion: v1
kind: Node
metadata: {name: cpu-1}
"""


def make_pack(tmp_path: Path, test: str, dump: str = DUMP) -> Path:
    pack = tmp_path / "mini"
    (pack / "tests" / "dumps").mkdir(parents=True)
    (pack / "gpu-count.yaml").write_text(POLICY)
    (pack / "tests" / "dumps" / "nodes.yaml").write_text(dump)
    (pack / "tests" / "fixture.yaml").write_text(textwrap.dedent(test))
    return pack


def test_expected_results_pass(tmp_path: Path) -> None:
    pack = make_pack(
        tmp_path,
        """\
        apiVersion: verdict/v1
        kind: Test
        metadata: {name: gpu-count}
        resources: [dumps/nodes.yaml]
        strict: true
        results:
        - {policy: gpu-count, rule: gpu-count-label, kind: Node, name: gpu-1, result: pass}
        - {rule: gpu-count-label, kind: Node, name: cpu-1, result: fail, messageContains: "Node cpu-1 has no"}
        """,
    )
    results = packtest.run_pack_tests(pack)
    assert [(r.case, r.expected, r.actual, r.ok) for r in results] == [
        ("gpu-count/gpu-count-label on Node/gpu-1", "pass", "pass", True),
        ("gpu-count-label on Node/cpu-1", "fail", "fail", True),
        ("no other fail/warn/error (strict)", "none", "none", True),
    ]
    assert packtest.coverage_gaps(pack) == []


def test_a_wrong_expectation_says_what_differs(tmp_path: Path) -> None:
    pack = make_pack(
        tmp_path,
        """\
        apiVersion: verdict/v1
        kind: Test
        metadata: {name: wrong}
        resources: [dumps/nodes.yaml]
        results:
        - {rule: gpu-count-label, kind: Node, name: cpu-1, result: pass}
        - {rule: gpu-count-label, kind: Node, name: gpu-1, result: pass, messageContains: nope}
        - {rule: gpu-count-label, kind: Node, name: gpu-9, result: fail}
        - {rule: no-such-rule, kind: Node, name: gpu-1, result: fail}
        - {rule: gpu-count-lable, kind: Node, name: gpu-1, result: pass}
        """,
    )
    first, second, third, fourth, fifth = packtest.run_pack_tests(pack)
    assert (first.ok, first.actual) == (False, "fail")
    assert first.message == (
        "gpu-count-label on Node/cpu-1: expected pass, got fail: Node cpu-1 has no nvidia.com/gpu.count label"
    )
    assert not second.ok and "does not contain 'nope'" in second.message
    assert (third.ok, third.actual) == (False, "missing")
    assert "no such object" in third.message
    # a rule id no policy has is named as such (a trial's typo read "does the rule match it?")
    assert (fourth.ok, fourth.actual) == (False, "missing")
    assert fourth.message == "no-such-rule on Node/gpu-1: no rule named 'no-such-rule' in the policies tested"
    assert fifth.message == (
        "gpu-count-lable on Node/gpu-1: no rule named 'gpu-count-lable' in the policies tested; did you mean"
        " 'gpu-count/gpu-count-label'?"
    )
    assert packtest.coverage_gaps(pack) == []  # a fail and a pass expectation exist, right or wrong


def test_strict_lists_unexpected_findings(tmp_path: Path) -> None:
    pack = make_pack(
        tmp_path,
        """\
        apiVersion: verdict/v1
        kind: Test
        metadata: {name: strict}
        resources: [dumps/nodes.yaml]
        strict: true
        results:
        - {rule: gpu-count-label, kind: Node, name: gpu-1, result: pass}
        """,
    )
    strict = packtest.run_pack_tests(pack)[-1]
    assert (strict.ok, strict.actual) == (False, "1 unlisted")
    assert "gpu-count/gpu-count-label on Node/cpu-1: fail" in strict.message
    assert packtest.coverage_gaps(pack) == [f"gpu-count/gpu-count-label: no fail expectation in {pack / 'tests'}"]


def test_inline_objects(tmp_path: Path) -> None:
    pack = make_pack(
        tmp_path,
        """\
        apiVersion: verdict/v1
        kind: Test
        metadata: {name: inline}
        objects:
        - {apiVersion: v1, kind: Node, metadata: {name: inline-1}}
        results:
        - {rule: gpu-count-label, kind: Node, name: inline-1, result: fail}
        """,
    )
    assert [r.ok for r in packtest.run_pack_tests(pack)] == [True]


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (
            "apiVersion: verdict/v1\nkind: Test\nmetadata: {name: x}\nresources: [dumps/nope.yaml]\n"
            "results: [{rule: r, kind: Node, name: n, result: fail}]\n",
            "resource 'dumps/nope.yaml' not found",
        ),
        (
            "apiVersion: verdict/v1\nkind: Test\nmetadata: {name: x}\nresources: [dumps/nodes.yaml]\n"
            "results: [{rule: r, kind: Node, name: n, result: failed}]\n",
            "Must be one of",
        ),
        (
            "apiVersion: verdict/v1\nkind: Test\nmetadata: {name: x}\nresults: [{rule: r, kind: Node, name: n, result: fail}]\n",
            "neither resources nor objects",
        ),
        ("apiVersion: verdict/v1\nkind: Tests\nmetadata: {name: x}\n", "kind"),
        ("a: [\n", "line"),
    ],
)
def test_a_broken_fixture_is_a_failed_case(tmp_path: Path, body: str, reason: str) -> None:
    pack = make_pack(tmp_path, body)
    (result,) = packtest.run_pack_tests(pack)
    assert (result.ok, result.case) == (False, "load the fixture")
    assert reason in result.message


def test_a_refused_test_document_names_each_problem_by_line_and_field(tmp_path: Path) -> None:
    """Trial 47: a test file's field errors came as marshmallow's nested dict ({'results': {4: {...}}}), indexed from
    0, at the document's first line, named by the file's stem. Each problem is said as a policy's are: its line, its
    field, a "did you mean" for a misspelt key; the test is named by its metadata.name."""
    pack = make_pack(
        tmp_path,
        """\
        apiVersion: verdict/v1
        kind: Test
        metadata: {name: wrong-expectations}
        resources: [dumps/nodes.yaml]
        results:
        - {rule: gpu-count-label, kind: Node, name: gpu-1, result: pass}
        - {rule: gpu-count-label, kind: Node, name: cpu-1, result: failed}
        - {rule: gpu-count-label, kind: Node, name: cpu-1, result: fail, messageContain: label}
        """,
    )
    result, kept = packtest.run_pack_tests(pack)
    assert (result.test, result.ok, result.line) == ("wrong-expectations", False, 7)
    assert result.message == (
        "document 1: line 7: results[1].result: Must be one of: pass, fail, warn, error, skip; line 8:"
        " results[2].messageContain: unknown field 'messageContain' here; did you mean 'messageContains'?"
    )
    # trial 71: the expectations not refused still run, at their own lines
    assert (kept.test, kept.ok, kept.line, kept.case) == ("wrong-expectations", True, 6, "gpu-count-label on Node/gpu-1")


def test_a_bad_test_document_neither_drops_the_good_ones_nor_hides_the_next_ones_problems(tmp_path: Path) -> None:
    """Trial 64: the first bad document of a test file was the only problem said, and the file's good documents did
    not run (a missing resource in the second threw away the first's four cases)."""
    pack = make_pack(
        tmp_path,
        """        apiVersion: verdict/v1
        kind: Test
        metadata: {name: bad-word}
        resources: [dumps/nodes.yaml]
        results: [{rule: gpu-count-label, kind: Node, name: gpu-1, result: passed}]
        ---
        apiVersion: verdict/v1
        kind: Test
        metadata: {name: good}
        resources: [dumps/nodes.yaml]
        results: [{rule: gpu-count-label, kind: Node, name: gpu-1, result: pass}]
        ---
        apiVersion: verdict/v1
        kind: Test
        metadata: {name: missing-dump}
        resources: [dumps/nodes.yaml, dumps/missing.yaml, dumps/gone.yaml]
        results:
        - {rule: gpu-count-label, kind: Node, name: gpu-1, result: pas}
        - {rule: gpu-count-label, kind: Node, name: gpu-1, result: pass}
        """,
    )
    results = packtest.run_pack_tests(pack)
    assert [(r.test, r.ok, r.line) for r in results] == [("bad-word", False, 5), ("missing-dump", False, 16), ("good", True, 11)]
    # every problem of the document in its one case (trial 243 #1: the first resource not found hid the rest)
    assert results[1].message == (
        "document 3: line 16: resource 'dumps/missing.yaml' not found (paths are relative to the test file); line 16:"
        " resource 'dumps/gone.yaml' not found (paths are relative to the test file); line 18: results[0].result: Must be"
        " one of: pass, fail, warn, error, skip"
    )
    gaps = packtest.coverage_gaps(pack)
    aside = "(the expectations of 2 test documents that could not be read whole not counted)"
    assert gaps and all(g.endswith(aside) for g in gaps)


def test_a_resource_outside_the_pack_is_refused_at_its_line(tmp_path: Path) -> None:
    """Trial 123: a test with resources: [../../edge.yaml] ran against that file and passed, to fail once the pack was
    copied elsewhere (pack-tests.md: paths stay inside the pack). Refused at the resource's line; the file's other
    documents run."""
    (tmp_path / "edge.yaml").write_text(textwrap.dedent(DUMP))
    pack = make_pack(
        tmp_path,
        """        apiVersion: verdict/v1
        kind: Test
        metadata: {name: outside}
        resources:
        - dumps/nodes.yaml
        - ../../edge.yaml
        results: [{rule: gpu-count-label, kind: Node, name: gpu-1, result: pass}]
        ---
        apiVersion: verdict/v1
        kind: Test
        metadata: {name: inside}
        resources: [dumps/nodes.yaml]
        results: [{rule: gpu-count-label, kind: Node, name: gpu-1, result: pass}]
        """,
    )
    results = packtest.run_pack_tests(pack)
    assert [(r.test, r.ok, r.line) for r in results] == [("outside", False, 6), ("inside", True, 13)]
    assert results[0].message == (
        f"document 1: resource '../../edge.yaml' is outside the pack's folder {pack.resolve()}: a pack's tests travel"
        " with it (copy the file into the pack, e.g. tests/dumps/)"
    )
    # trial 133: a file reached through a symlink inside the pack is inside it, as written
    (pack / "tests" / "shared").symlink_to(tmp_path)
    (pack / "tests" / "fixture.yaml").write_text(
        (pack / "tests" / "fixture.yaml").read_text().replace("- ../../edge.yaml", "- shared/edge.yaml")
    )
    assert [(r.test, r.ok) for r in packtest.run_pack_tests(pack)] == [("outside", True), ("inside", True)]


def test_cli_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = make_pack(
        tmp_path,
        """\
        apiVersion: verdict/v1
        kind: Test
        metadata: {name: ok}
        resources: [dumps/nodes.yaml]
        results:
        - {rule: gpu-count-label, kind: Node, name: gpu-1, result: pass}
        - {rule: gpu-count-label, kind: Node, name: cpu-1, result: fail}
        """,
    )
    assert packtest.run_cli([str(good)]) == 0
    assert "mini: 2/2 cases passed" in capsys.readouterr().out
    (good / "tests" / "fixture.yaml").write_text(
        (good / "tests" / "fixture.yaml").read_text().replace("name: cpu-1, result: fail", "name: cpu-1, result: pass")
    )
    assert packtest.run_cli([str(good)]) == 1
    out = capsys.readouterr().out
    assert "GAP  gpu-count/gpu-count-label: no fail expectation" in out
    # trial 47: a FAIL line named the test file, not the line of the expectation that failed
    fixture = good / "tests" / "fixture.yaml"
    assert f"FAIL {fixture}:7: ok: gpu-count-label on Node/cpu-1: expected pass, got fail" in out
    assert packtest.run_cli([str(tmp_path / "nope")]) == 2


def test_a_test_document_that_cannot_be_read_is_not_buried_under_its_gaps(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Trial 165: a misspelt field of one test document (stict: true) was followed by a GAP line for each expectation
    it held; and kind: node in an expectation named no Node, with no word of the Node of that name."""
    pack = make_pack(
        tmp_path,
        """\
        apiVersion: verdict/v1
        kind: Test
        metadata: {name: ok}
        resources: [dumps/nodes.yaml]
        stict: true
        results:
        - {rule: gpu-count-label, kind: Node, name: gpu-1, result: pass}
        - {rule: gpu-count-label, kind: Node, name: cpu-1, result: fail}
        """,
    )
    fixture = pack / "tests" / "fixture.yaml"
    assert packtest.run_cli([str(pack)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"FAIL {fixture}:5: ok: document 1: line 5: stict: unknown field 'stict'")
    assert out[1:] == [
        "GAP  2 coverage gaps not listed while 1 test document above could not be read whole: its expectations are not counted",
        "mini: 0/1 cases passed, 2 coverage gaps",
    ]
    fixture.write_text(
        fixture.read_text().replace("stict: true\n", "").replace("kind: Node, name: gpu-1", "kind: node, name: gpu-1")
    )
    assert packtest.run_cli([str(pack)]) == 1
    assert capsys.readouterr().out.splitlines()[0] == (
        f"FAIL {fixture}:6: ok: gpu-count-label on node/gpu-1: expected pass, got no result: no such object among the"
        " evaluated objects; gpu-1 is a Node (did you mean kind: Node?)"
    )


TWO_TESTS = """\
    apiVersion: verdict/v1
    kind: Test
    metadata: {name: counted}
    resources: [dumps/nodes.yaml]
    results:
    - {rule: gpu-count-label, kind: Node, name: gpu-1, result: pass}
    ---
    apiVersion: verdict/v1
    kind: Test
    metadata: {name: uncounted}
    resources: [dumps/nodes.yaml]
    results:
    - {rule: gpu-count-label, kind: Node, name: cpu-1, result: pass}
    """


def test_cli_verbose_lists_every_case_and_run_selects_tests(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Trial 47 (not done then): ``policies test`` printed failed cases only and ran every fixture; ``-v`` lists
    each case as ``kyverno test --detailed-results`` and ``gator verify -v`` do, ``--run`` selects tests by
    name as ``gator verify --run`` does (coverage is not judged from a part of the fixtures)."""
    pack = make_pack(tmp_path, TWO_TESTS)
    fixture = pack / "tests" / "fixture.yaml"
    assert packtest.run_cli([str(pack)], verbose=True) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"PASS {fixture}:6: counted: gpu-count-label on Node/gpu-1: pass, as expected",
        f"FAIL {fixture}:13: uncounted: gpu-count-label on Node/cpu-1: expected pass, got fail:"
        " Node cpu-1 has no nvidia.com/gpu.count label",
        f"GAP  gpu-count/gpu-count-label: no fail expectation in {pack / 'tests'}",
        "mini: 1/2 cases passed, 1 coverage gap",
    ]
    assert packtest.run_cli([str(pack)], run="^count") == 0
    assert capsys.readouterr().out == "mini: 1/1 cases passed (1 test matching --run '^count'; coverage not checked)\n"
    assert packtest.run_cli([str(pack)], run="nothing-so-named") == 1
    assert capsys.readouterr().err == (
        "verdict: no test name (metadata.name) matches --run 'nothing-so-named'; the tests: counted, uncounted\n"
    )
    assert packtest.run_cli([str(pack)], run="(") == 2
    assert "--run '(' is not a regular expression" in capsys.readouterr().err


def test_cli_junit_names_each_case_and_validates(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--junit FILE``: a suite per pack, a test case per expectation and per coverage gap, valid against the
    Jenkins schema the audit's JUnit is checked with; a failure says where the expectation is written."""
    from tests.test_render import check_junit

    pack = make_pack(tmp_path, TWO_TESTS)
    out = tmp_path / "junit.xml"
    assert packtest.run_cli([str(pack)], junit=str(out)) == 1
    root = check_junit(out.read_text())
    assert (root.get("tests"), root.get("failures")) == ("3", "2")
    (suite,) = root
    assert (suite.get("name"), suite.get("tests"), suite.get("failures")) == ("mini", "3", "2")
    cases = [(c.get("classname"), c.get("name"), [f.get("type") for f in c]) for c in suite]
    assert cases == [
        ("mini.counted", "gpu-count-label on Node/gpu-1", []),
        ("mini.uncounted", "gpu-count-label on Node/cpu-1", ["fail"]),
        ("mini.coverage", "gpu-count/gpu-count-label", ["coverage"]),
    ]
    failure = suite[1][0]
    assert failure.get("message") == (
        "gpu-count-label on Node/cpu-1: expected pass, got fail: Node cpu-1 has no nvidia.com/gpu.count label"
    )
    assert failure.text.splitlines()[0] == f"{pack / 'tests' / 'fixture.yaml'}:13: expected pass, got fail"
    # a pack that cannot be loaded still replaces the last run's file (CI would upload that one as this run's)
    (pack / "gpu-count.yaml").write_text("apiVersion: verdict/v1\nkind: [")
    assert packtest.run_cli([str(pack)], junit=str(out)) == 2
    root = check_junit(out.read_text())
    assert [(c.get("name"), c[0].tag, c[0].get("type")) for c in root[0]] == [("load the policies", "error", "error")]
    assert (root.get("errors"), root.get("failures"), root[0].get("errors")) == ("1", "0", "1")
    capsys.readouterr()
    # trial 54: a --junit file that cannot be written was a traceback and exit 1 after every case passed
    for where, why in ((tmp_path / "no-such-folder" / "j.xml", "its folder does not exist"), (tmp_path, "is a folder")):
        assert packtest.run_cli([str(pack)], junit=str(where)) == 2
        assert capsys.readouterr().err == f"verdict: --junit {where}: {why}\n"


_DESCRIBED_MIG_NODE = """\
Name:               a100-single-0
Labels:             feature.node.kubernetes.io/pci-10de.present=true
                    kubernetes.io/hostname=a100-single-0
                    nvidia.com/gpu.deploy.device-plugin=true
                    nvidia.com/gpu.deploy.gpu-feature-discovery=true
                    nvidia.com/gpu.deploy.mig-manager=true
                    nvidia.com/gpu.deploy.operator-validator=true
                    nvidia.com/gpu.present=true
                    nvidia.com/gpu.product=NVIDIA-A100-SXM4-40GB-MIG-2g.10gb-SHARED
                    nvidia.com/gpu.replicas=2
                    nvidia.com/mig.capable=true
                    nvidia.com/mig.config=all-1g.5gb
                    nvidia.com/mig.config.state=success
                    nvidia.com/mig.strategy=single
Taints:             <none>
Capacity:
  cpu:                64
  nvidia.com/gpu:     14
Allocatable:
  cpu:                63500m
  nvidia.com/gpu:     14
Non-terminated Pods:          (3 in total)
  Namespace            Name                                  CPU Requests  CPU Limits  Memory Requests  Memory Limits  Age
  ---------            ----                                  ------------  ----------  ---------------  -------------  ---
  nvidia-gpu-operator  gpu-feature-discovery-7k2xq           0 (0%)        0 (0%)      0 (0%)           0 (0%)         14d
  nvidia-gpu-operator  nvidia-device-plugin-daemonset-9lq4m  0 (0%)        0 (0%)      0 (0%)           0 (0%)         14d
  nvidia-gpu-operator  nvidia-mig-manager-tr8cd              0 (0%)        0 (0%)      0 (0%)           0 (0%)         14d
"""


def test_without_a_clusterpolicy_the_operator_namespace_comes_from_its_operand_pods() -> None:
    """Trial 42: `oc describe node` text whose pod table shows the operand pods in nvidia-gpu-operator got
    remediations with the placeholder <gpu-operator namespace>. The namespace of the operator's own pods is used
    where no ClusterPolicy reports it; not that of a device plugin or GFD alone, which standalone installs
    (kube-system) name the same."""
    from rules.reader import parse_bytes

    policies = load_policies([str(GPU_PACK)])
    report = evaluate(parse_bytes(_DESCRIBED_MIG_NODE.encode(), "node.txt"), policies)
    (fix,) = [r.remediation for o in report.objects for r in o.results if r.rule == "mig-layout-served" and r.result == "fail"]
    assert "kubectl delete pod -n nvidia-gpu-operator --field-selector spec.nodeName=a100-single-0" in fix
    # the mig-manager pod gone, the device plugin and GFD alone do not say where the operator is
    alone = _DESCRIBED_MIG_NODE.replace("nvidia-mig-manager-tr8cd", "something-else-tr8cd")
    report = evaluate(parse_bytes(alone.encode(), "node.txt"), policies)
    (fix,) = [r.remediation for o in report.objects for r in o.results if r.rule == "mig-layout-served" and r.result == "fail"]
    # trial 75: a placeholder <gpu-operator namespace> is a redirection in a shell; the cluster's ClusterPolicy says it
    # (trial 103: without a ClusterPolicy in the cluster, -n was left empty: the Helm chart's namespace then; trial
    # 178: with one whose status.namespace is not written yet too, kubectl printing nothing and exiting 0)
    found = (
        "$(kubectl get clusterpolicies.nvidia.com -o jsonpath='{.items[0].status.namespace}' 2>/dev/null"
        " | grep . || echo gpu-operator)"
    )
    assert f"kubectl delete pod -n {found} --field-selector" in fix


def test_one_patch_enables_every_sandbox_operand_the_vm_nodes_need() -> None:
    """Trial 45: with sandbox workloads on and no operand fields, sandbox-operands-enabled named sandboxDevicePlugin
    alone and its fix patched that alone; the next run failed on vfioManager. The passthrough operands missing are all
    named, and one patch enables every operand the VM nodes need, one both workloads need once."""

    dump = """\
apiVersion: nvidia.com/v1
kind: ClusterPolicy
metadata: {name: cluster-policy}
spec:
  sandboxWorkloads: {enabled: true}
  vgpuDeviceManager: {enabled: true}
---
apiVersion: v1
kind: Node
metadata:
  name: pt-1
  labels: {nvidia.com/gpu.present: "true", nvidia.com/gpu.workload.config: vm-passthrough}
---
apiVersion: v1
kind: Node
metadata:
  name: vgpu-1
  labels: {nvidia.com/gpu.present: "true", nvidia.com/gpu.workload.config: vm-vgpu}
"""
    result = _only_result(dump, "sandbox-operands-enabled", "cp.yaml")
    assert result.result == "fail"
    # the message names what the passthrough nodes lack (the first assertion that fails); the patch is whole
    assert "does not enable sandboxDevicePlugin and vfioManager (" in result.message
    # (trial 214: vgpuManager enabled without its image fails the operator's state: the runnable patch leaves it out)
    assert result.remediation == (
        "kubectl patch clusterpolicies.nvidia.com cluster-policy --type merge -p"
        ' \'{"spec":{"sandboxDevicePlugin":{"enabled":true},"vfioManager":{"enabled":true}}}\''
        "  # spec.vgpuManager needs the vGPU Manager image you build from NVIDIA's vGPU host driver and push to a"
        " private registry (NVIDIA's KubeVirt guide): enabled without it, the operator fails its vgpu-manager state"
        " (empty image path); once it is pushed, kubectl patch clusterpolicies.nvidia.com cluster-policy --type merge -p"
        ' \'{"spec":{"vgpuManager":{"enabled":true,"repository":"<registry>","image":"vgpu-manager","version":"<driver'
        ' version>","imagePullSecrets":["<secret>"]}}}\''
    )


def test_a_refused_expectation_leaves_the_others_of_its_document_to_run(tmp_path: Path) -> None:
    """Trial 71: ``result: fial`` refused the whole document, so its misspelt rule id and its wrong object name
    were said only in the next run (and every rule showed a coverage gap). The refused expectation is its own failed
    case; the others run, and strict does not count the refused one's finding as unexpected."""
    pack = make_pack(
        tmp_path,
        """\
        apiVersion: verdict/v1
        kind: Test
        metadata: {name: three-mistakes}
        resources: [dumps/nodes.yaml]
        strict: true
        results:
        - {rule: gpu-count-label, kind: Node, name: cpu-1, result: fial}
        - {rule: gpu-count-labl, kind: Node, name: gpu-1, result: pass}
        - {rule: gpu-count-label, kind: Node, name: gpu-9, result: pass}
        """,
    )
    results = packtest.run_pack_tests(pack)
    assert [(r.ok, r.line) for r in results] == [(False, 7), (False, 8), (False, 9)]
    assert results[0].message.startswith("document 1: line 7: results[0].result: Must be one of")
    assert "did you mean 'gpu-count/gpu-count-label'?" in results[1].message
    assert "no such object among the evaluated objects" in results[2].message


def test_vgpus_advertised_without_the_device_manager_are_not_a_missing_operand() -> None:
    """Trial 72: a vm-vgpu node advertising vGPUs with vgpuDeviceManager unset was said to end up with "no vGPU
    devices", and the patch enabled vgpuDeviceManager without the message naming it. vGPUs advertised without the
    operand show their mediated devices made otherwise (as vGPUs without vgpuManager show a host-installed one)."""

    dump = """\
apiVersion: nvidia.com/v1
kind: ClusterPolicy
metadata: {name: cluster-policy}
spec:
  sandboxWorkloads: {enabled: true}
  sandboxDevicePlugin: {enabled: true}
  vfioManager: {enabled: true}
---
apiVersion: v1
kind: Node
metadata:
  name: vgpu-1
  labels: {nvidia.com/gpu.present: "true", nvidia.com/gpu.workload.config: vm-vgpu}
status:
  allocatable: {nvidia.com/NVIDIA_A10-12Q: "2"}
"""
    result = _only_result(dump, "sandbox-operands-enabled", "cp.yaml")
    assert result.result == "pass"
    assert result.message.endswith(
        "it leaves spec.vgpuDeviceManager off, and the vGPUs advertised show their mediated devices made otherwise"
    ), result.message


def test_a_feature_gate_is_added_by_a_merge_patch_of_the_whole_list() -> None:
    """Trial 82: a JSON patch adding at developerConfiguration/featureGates/- fails where the CR has no gates yet; the
    merge patch writes the CR's gates with the one missing."""
    said: dict[str, str] = {}

    def fix(gates: list[str] | None) -> str:
        config: dict[str, Any] = {} if gates is None else {"developerConfiguration": {"featureGates": gates}}
        kubevirt = {
            "apiVersion": "kubevirt.io/v1",
            "kind": "KubeVirt",
            "metadata": {"name": "kubevirt", "namespace": "kubevirt"},
            "spec": {"configuration": config},
            "status": {"observedKubeVirtVersion": "v1.5.0"},
        }
        labels = {"nvidia.com/gpu.workload.config": "vm-vgpu"}
        report = _sandbox_cluster("vgpu-1", labels, {"nvidia.com/NVIDIA_A10-12Q": "2"}, kubevirt)
        [(message, found)] = [
            (r.message, r.remediation)
            for o in report.objects
            for r in o.results
            if r.rule == "mediated-devices-left-to-gpu-operator"
        ]
        said[found] = message
        return found

    add = (
        "kubectl patch kubevirt -n kubevirt kubevirt --type json -p"
        """ '[{"op":"add","path":"/spec/configuration/developerConfiguration/featureGates/-","""
        """"value":"DisableMDEVConfiguration"}]'"""
        " || "
    )
    patch = "kubectl patch kubevirt -n kubevirt kubevirt --type merge -p "
    gates = '{"spec":{"configuration":{"developerConfiguration":{"featureGates":[%s]}}}}'
    assert fix(None) == add + patch + "'" + gates % '"DisableMDEVConfiguration"' + "'"
    assert fix([]) == add + patch + "'" + gates % '"DisableMDEVConfiguration"' + "'"
    assert fix(["GPU", "HostDevices"]) == add + patch + "'" + gates % '"GPU","HostDevices","DisableMDEVConfiguration"' + "'"
    # trial 83: a v1.5.0 CR was told that the mediatedDevicesConfiguration.enabled field, when set, wins over the gate
    assert said[fix(None)].startswith(
        "KubeVirt kubevirt/kubevirt still manages mediated devices (its feature gates [] lack DisableMDEVConfiguration),"
    )


def test_a_vgpu_config_applied_is_fixed_by_restarting_the_sandbox_device_plugin() -> None:
    """Trial 82: with vgpu.config.state=success the fix restarted vgpu-device-manager, which changes nothing."""
    [fix] = _fixes("vgpu_config_applied_plugin_not_restarted.yaml", "vgpu-profile-matches-config").values()
    assert fix.startswith(
        "kubectl delete pod -n gpu-operator -l app=nvidia-sandbox-device-plugin-daemonset --field-selector"
        " spec.nodeName=a10-vgpu-stale  # the plugin reads the vGPU types again when it starts"
    )


def test_a_mig_layout_never_taken_up_is_fixed_for_its_cause() -> None:
    """Trial 83: a node whose MIG layout mig-manager never took up was given the fix of a layout that failed (the log of
    a pod that is not there, WITH_REBOOT)."""
    [running] = _fixes("mig_layout_no_mig_manager_took_up.yaml", "mig-config-applied").values()
    assert running == (
        "kubectl get pods -n gpu-operator -o wide -l app=nvidia-mig-manager --field-selector spec.nodeName=a100-never-taken;"
        " kubectl describe daemonset -n gpu-operator nvidia-mig-manager  # no pod on the node: the DaemonSet's events and"
        " node selector say why"
    )
    [off] = _fixes("mig_layout_with_mig_manager_off.yaml", "mig-config-applied").values()
    assert off == (
        'kubectl patch clusterpolicies.nvidia.com cluster-policy --type merge -p \'{"spec":{"migManager":{"enabled":true}}}\''
    )


def test_a_deploy_label_fix_adds_the_mig_manager_label_its_message_asks_for() -> None:
    """Trial 83: the message said to add nvidia.com/gpu.deploy.mig-manager, and the fix said the node lacked none of its
    own labels."""
    container = ["driver", "gpu-feature-discovery", "container-toolkit", "device-plugin", "dcgm", "dcgm-exporter"]
    container += ["node-status-exporter", "operator-validator"]
    labels = {
        "nvidia.com/gpu.workload.config": "container",
        "nvidia.com/mig.capable": "true",
        **{f"nvidia.com/gpu.deploy.{o}": "true" for o in container},
    }
    report = _sandbox_cluster("mig-a100-1", labels, {"nvidia.com/gpu": "8"})
    [fix] = [r.remediation for o in report.objects for r in o.results if r.rule == "deploy-labels-match-workload"]
    assert fix.endswith("stays as it is): kubectl label node mig-a100-1 nvidia.com/gpu.deploy.mig-manager=true")


def test_a_deploy_label_fix_removes_the_labels_in_the_order_its_message_names_them() -> None:
    """Trial 226 #6: the message named a VM node's container deploy labels in the node's order, the fix's loop in the
    operator's table order (driver, gpu-feature-discovery, container-toolkit, ...)."""
    stale = ["driver", "container-toolkit", "device-plugin", "dcgm-exporter", "gpu-feature-discovery"]
    labels = {
        "nvidia.com/gpu.workload.config": "vm-passthrough",
        "nvidia.com/gpu.deploy.sandbox-device-plugin": "true",
        "nvidia.com/gpu.deploy.vfio-manager": "true",
        "nvidia.com/gpu.deploy.sandbox-validator": "true",
        **{f"nvidia.com/gpu.deploy.{o}": "true" for o in stale},
    }
    report = _sandbox_cluster("pt-1", labels, {"nvidia.com/GA102GL_A10": "1"})
    [result] = [r for o in report.objects for r in o.results if r.rule == "deploy-labels-match-workload"]
    named = ", ".join(f"nvidia.com/gpu.deploy.{o}" for o in stale)
    assert f'Node pt-1 carries [{named}] set to "true"' in result.message
    removed = " ".join(f"nvidia.com/gpu.deploy.{o}" for o in stale)
    assert result.remediation.endswith(f"stays as it is): for l in {removed}; do kubectl label node pt-1 $l-; done")


def test_every_fix_block_the_chat_format_writes_pastes_into_a_shell() -> None:
    """Regression (trial 194): the chat format's code block of a fix put "kubectl get clusterpolicies -o yaml | grep -A3
    sandboxWorkloads (enabled not true: ...)" on one line, and 3 of 8 blocks of a four-node dump were shell syntax
    errors. Every fix of every failing or warning result on the pack's fixtures (their dumps and the objects written
    in them), as chat lays it out, parses (bash -n: nothing is run)."""
    import shutil
    import subprocess

    from rules.reader import Dump, KObject, Source
    from rules.render.chat import fix_lines

    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("bash is not installed")
    pack = load_policies([str(GPU_PACK)])
    dumps = [read_paths([str(dump)]) for dump in sorted((GPU_PACK / "tests" / "dumps").iterdir())]
    for test in sorted((GPU_PACK / "tests").glob("*.yaml")):
        for doc in yaml.safe_load_all(test.read_text()):
            if doc and doc.get("objects"):
                dumps.append(Dump(objects=[KObject(o, Source(test.name)) for o in doc["objects"]]))
    fixes = {
        r.remediation: f"{r.policy}/{r.rule}"
        for dump in dumps
        for o in evaluate(dump, pack).objects
        for r in o.results
        if r.result in ("fail", "warn") and r.remediation
    }
    assert len(fixes) > 300  # (about 400 distinct when written)
    script = "\n".join(f"{{\n{chr(10).join(fix_lines(fix))}\n}}" for fix in fixes)
    parsed = subprocess.run([bash, "-n"], input=script, capture_output=True, text=True, timeout=60)
    if parsed.returncode:  # which fix: each alone
        broken = {}
        for fix, where in fixes.items():
            one = subprocess.run([bash, "-n"], input="\n".join(fix_lines(fix)), capture_output=True, text=True, timeout=30)
            if one.returncode:
                broken[where] = ("\n".join(fix_lines(fix)), one.stderr.strip())
        assert broken == {}


def test_a_fix_that_starts_with_kubectl_pastes_into_a_shell() -> None:
    """Trial 73: fixes mixed commands with prose ("| grep -i nvidia (what runs there ...)", "; then restart ...",
    "clusterpolicies.nvidia.com (no ClusterPolicy in the dump)"), so a pasted fix was a shell syntax error. A fix
    that starts with kubectl is shell text: prose and the steps a reader chooses by hand follow ' # '. Every such
    fix of every failing or warning result on the pack's fixture dumps parses (bash -n: nothing is run)."""
    import shutil
    import subprocess

    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("bash is not installed")
    pack = load_policies([str(GPU_PACK)])
    # every dump alone, and every pack test's resources together (a ClusterPolicy beside the nodes)
    inputs = [[dump] for dump in sorted((GPU_PACK / "tests" / "dumps").iterdir())]
    for test in sorted((GPU_PACK / "tests").glob("*.yaml")):
        for doc in yaml.safe_load_all(test.read_text()):
            if doc and doc.get("resources"):
                inputs.append([test.parent / r for r in doc["resources"]])
    fixes: dict[str, str] = {}
    for paths in inputs:
        report = evaluate(read_paths([str(p) for p in paths]), pack)
        for o in report.objects:
            for r in o.results:
                if r.result in ("fail", "warn") and r.remediation.startswith("kubectl "):
                    fixes.setdefault(r.remediation, f"{r.policy}/{r.rule} on {', '.join(p.name for p in paths)}")
    assert len(fixes) > 150  # the fixtures exercise most fixes (172 distinct when written)
    broken = {}
    for fix, where in fixes.items():
        parsed = subprocess.run([bash, "-n", "-c", fix], capture_output=True, text=True, timeout=30)
        if parsed.returncode:
            broken[where] = (fix, parsed.stderr.strip())
    assert broken == {}
    # prose that parses is no command either ("; compare with kubectl describe nodes", "; to label the node by hand:
    # kubectl ..."): every command of the part before ' # ' is one of these
    import shlex

    # (echo: the operator's namespace where no ClusterPolicy answers, "$(kubectl get ... || echo gpu-operator)")
    commands = {"kubectl", "grep", "tr", "virtctl", "echo"}
    for fix, where in fixes.items():
        lexer = shlex.shlex(fix, posix=True, punctuation_chars=";|&()<>")
        lexer.commenters, lexer.whitespace_split = "#", True
        first, words = True, []
        for token in lexer:
            if token == ")":
                first = False
            elif token in (";", "|", "&&", "||", "(", "|&"):
                first = True
            elif first:
                words.append(token)
                first = False
        assert set(words) <= commands, (where, fix)
        # nor prose the shell takes for arguments or a redirection (trial 75: "'{...}', or drop the label:
        # kubectl label ...", "kubectl edit daemonset -n ns name: add ...", "-n <gpu-operator namespace>"): outside
        # quotes, no word of the commands ends in ',' or ':', and none starts with '<'
        unquoted = re.sub(r"'[^']*'|\"[^\"]*\"", "Q", fix.split(" # ", 1)[0]).split()
        assert not [w for w in unquoted if w.startswith("<") or (len(w) > 1 and w.endswith((",", ":")))], (where, fix)
        # every patch a command sends is JSON (a merge patch's document, a JSON patch's list)
        for patch in re.findall(r"--type (?:merge|json) -p '([^']*)'", fix.split(" # ", 1)[0]):
            json.loads(patch)
    # the two fixes trial 73 named, as they read now
    report = evaluate(
        read_paths([str(GPU_PACK / "tests" / "dumps" / "mig_node_labelled_vm_passthrough_run_as_container.yaml")]), pack
    )
    rcm = {
        o.ref.name: r.remediation
        for o in report.objects
        for r in o.results
        if r.rule == "resource-class-matches-workload" and r.result == "warn"
    }
    assert rcm and all(" | grep -i nvidia  # what runs there for the " in fix for fix in rcm.values()), rcm


def test_an_unpinned_workload_assumes_nothing_of_a_node() -> None:
    """Trial 74: every unpinned GPU workload's message ended "(Assuming node <none> runs the default workload,
    container: ...)": the pinned node's assumptions held where no node was pinned. Trial 73's warning about an
    unpinned pod a VM node still advertising nvidia.com/gpu could take ends with its own words."""
    dumps = GPU_PACK / "tests" / "dumps"
    dump = read_paths(
        [str(dumps / "clusterpolicy_sandbox_enabled.yaml"), str(dumps / "unpinned_pods_beside_a_vm_node_serving_containers.yaml")]
    )
    report = evaluate(dump, load_policies([str(GPU_PACK)]))
    said = {
        (o.ref.name, r.rule): (r.result, r.message)
        for o in report.objects
        for r in o.results
        if r.rule == "gpu-pod-on-left-over-gpu-resource"
    }
    assert not [m for _, m in said.values() if "<none>" in m or "Assuming" in m], said
    result, message = said[("cuda-smi", "gpu-pod-on-left-over-gpu-resource")]
    assert result == "warn"
    assert message.endswith(
        "Keep it on container GPU nodes (nodeSelector nvidia.com/gpu.workload.config: container), or make those nodes"
        " stop advertising container GPUs."
    )
    assert said[("trainer", "gpu-pod-on-left-over-gpu-resource")] == (
        "pass",
        "A container GPU workload does not rely on a VM node's left-over container GPUs",
    )


def test_a_clusterpolicy_lacking_several_operands_of_a_workload_says_so_once() -> None:
    """Trial 74: one message per operand, each ending "The fix enables at once every operand the VM workload nodes
    lack.", were joined into one result. The workload's operands are named together, the sentence said once."""
    dump = read_paths([str(GPU_PACK / "tests" / "dumps" / "manifests_selecting_vm_nodes_sandbox_on.yaml")])
    report = evaluate(dump, load_policies([str(GPU_PACK)]))
    (result,) = [r for o in report.objects for r in o.results if r.rule == "sandbox-operands-enabled"]
    assert result.result == "fail"
    assert result.message.startswith(
        "ClusterPolicy cluster-policy does not enable sandboxDevicePlugin and vfioManager (spec.<operand>.enabled false"
        " or unset: a missing field counts as false), but nodes need the vm-passthrough workload"
    )
    assert result.message.count("The fix enables at once every operand the VM workload nodes lack.") == 1
    assert result.message.count("ClusterPolicy cluster-policy") == 1


def test_a_deploy_label_of_no_meaning_is_set_by_the_fix_the_message_asks_for() -> None:
    """Trial 75: nvidia.com/gpu.deploy.sandbox-device-plugin=paused-for-mig-change (a value of the container device
    plugin's) was to be set to "true" by the message, and the fix added the missing sandbox-validator label alone."""

    node = """\
apiVersion: v1
kind: Node
metadata:
  name: empty-pt
  labels:
    feature.node.kubernetes.io/pci-10de.present: "true"
    nvidia.com/gpu.present: "true"
    nvidia.com/gpu.workload.config: vm-passthrough
    nvidia.com/gpu.deploy.sandbox-device-plugin: paused-for-mig-change
    nvidia.com/gpu.deploy.vfio-manager: "true"
status:
  allocatable: {nvidia.com/GA102GL_A10: "0"}
"""
    result = _only_result(node, "deploy-labels-match-workload", "node.yaml")
    assert result.result == "fail"
    assert "Set it: kubectl label node empty-pt --overwrite nvidia.com/gpu.deploy.sandbox-device-plugin=true" in result.message
    assert result.remediation.endswith(
        ": for l in nvidia.com/gpu.deploy.sandbox-device-plugin; do kubectl label node empty-pt --overwrite $l=true; done;"
        " for l in nvidia.com/gpu.deploy.sandbox-validator; do kubectl label node empty-pt $l=true; done"
    )


def test_the_patch_enables_what_the_vgpu_nodes_lack_where_passthrough_is_served_apart() -> None:
    """Review: with the vm-passthrough node's device advertised (a plugin installed apart) and a vm-vgpu node serving
    nothing, the message named sandboxDevicePlugin, vgpuManager and vgpuDeviceManager, and the patch left out
    sandboxDevicePlugin, taken as the passthrough workload's to enable."""

    dump = """\
apiVersion: nvidia.com/v1
kind: ClusterPolicy
metadata: {name: cp}
spec:
  sandboxWorkloads: {enabled: true}
---
apiVersion: v1
kind: Node
metadata:
  name: pt-1
  labels: {nvidia.com/gpu.present: "true", nvidia.com/gpu.workload.config: vm-passthrough}
status:
  allocatable: {nvidia.com/GA102GL_A10: "1"}
---
apiVersion: v1
kind: Node
metadata:
  name: vg-1
  labels: {nvidia.com/gpu.present: "true", nvidia.com/gpu.workload.config: vm-vgpu}
status:
  allocatable: {cpu: "8"}
"""
    result = _only_result(dump, "sandbox-operands-enabled", "cp.yaml")
    assert result.result == "fail"
    assert "does not enable sandboxDevicePlugin and vgpuManager and vgpuDeviceManager (" in result.message
    # (vgpuManager, without its image, in the comment's patch: trial 214)
    assert result.remediation.startswith(
        "kubectl patch clusterpolicies.nvidia.com cp --type merge -p"
        """ '{"spec":{"sandboxDevicePlugin":{"enabled":true},"vgpuDeviceManager":{"enabled":true}}}'  # spec.vgpuManager"""
    )


def test_a_vm_operand_pod_with_sandbox_workloads_off_is_first_offered_to_turn_them_on() -> None:
    """Trial 96: with spec.sandboxWorkloads.enabled turned off (by mistake, perhaps), each VM operand pod on a node
    labelled for VMs was told only to be deleted, which would tear the VM operands off a node meant for them, while
    the node findings offered to turn sandbox workloads back on. The pod's fix offers it first too."""
    dumps = Path(__file__).resolve().parent.parent / "policies" / "gpu-operator" / "tests" / "dumps"
    node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": "gpu-pt-01",
            "labels": {
                "nvidia.com/gpu.present": "true",
                "nvidia.com/gpu.workload.config": "vm-passthrough",
                "nvidia.com/gpu.deploy.vfio-manager": "true",
            },
        },
        "status": {"allocatable": {"nvidia.com/GA102GL_A10": "1"}},
    }
    pod = operand_pod("nvidia-vfio-manager-q8m4d", "nvidia-vfio-manager", "gpu-pt-01")
    text = (dumps / "clusterpolicy_sandbox_disabled.yaml").read_text() + "\n---\n" + yaml.safe_dump_all([node, pod])
    from rules.engine import audit_bytes

    report = audit_bytes(text.encode(), "off.yaml", load_policies())
    [result] = [
        r
        for o in report.objects
        if o.ref.name == pod["metadata"]["name"]
        for r in o.results
        if r.rule == "operand-pod-matches-node-workload"
    ]
    assert result.result == "fail"
    assert result.remediation.startswith(
        "First decide what node gpu-pt-01 is for: it is labelled nvidia.com/gpu.workload.config=vm-passthrough, but"
        " ClusterPolicy cluster-policy does not enable sandbox workloads, so the operator serves containers there and"
        " removes its VM operands. If the node is meant for VMs, enable them and delete nothing: kubectl patch"
        ' clusterpolicies.nvidia.com cluster-policy --type merge -p \'{"spec":{"sandboxWorkloads":{"enabled":true}}}\';'
        " turning them on prepares every VM-labelled GPU node for its VM workload and takes the GPUs of any container"
        " pods there, which gpu-clusterpolicy/sandbox-workloads-enabled-for-vm-nodes names. If it is meant for"
        " containers: kubectl get node gpu-pt-01 --show-labels"
    )
    assert result.remediation.endswith("kubectl delete pod -n gpu-operator nvidia-vfio-manager-q8m4d")


def test_a_pin_fix_names_the_field_where_the_object_writes_its_pin() -> None:
    """Trial 121: a Deployment pinned to a VM workload node was told to fix "spec.nodeName / nodeSelector", fields a
    Deployment does not have: a template's pin is spec.template.spec's (a CronJob's spec.jobTemplate.spec.template.spec's),
    and a Pod its controller owns is fixed in that controller's template."""
    container = {"name": "cuda", "image": "nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04"}
    container["resources"] = {"limits": {"nvidia.com/gpu": 1}}
    spec = {"nodeName": "a10-pt-1", "containers": [container]}
    meta = {"namespace": "ml", "labels": {"app": "t"}}
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "pinned-deploy", **meta},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "t"}}, "template": {"metadata": meta, "spec": spec}},
    }
    job_template = {"spec": {"template": {"metadata": meta, "spec": {**spec, "restartPolicy": "Never"}}}}
    cron = {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": "pinned-cron", **meta},
        "spec": {"schedule": "0 3 * * *", "jobTemplate": job_template},
    }
    alone = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "pinned-pod", **meta}, "spec": spec}
    alone["status"] = {"phase": "Pending"}
    owned = {**alone, "metadata": {**alone["metadata"], "name": "pinned-deploy-7d9f8b6c5-x2k4p"}}
    owned["metadata"]["ownerReferences"] = [
        {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "pinned-deploy-7d9f8b6c5", "controller": True}
    ]
    owned["metadata"]["labels"] = {"app": "t", "pod-template-hash": "7d9f8b6c5"}
    report = _sandbox_cluster(
        "a10-pt-1",
        {"nvidia.com/gpu.workload.config": "vm-passthrough"},
        {"cpu": "32", "nvidia.com/GA102GL_A10": "2"},
        deployment,
        cron,
        alone,
        owned,
    )
    fixes = {
        o.ref.name: r.remediation
        for o in report.objects
        for r in o.results
        if r.rule == "gpu-pod-not-on-vm-node" and r.result == "fail"
    }
    tail = "kubernetes.io/hostname naming a container GPU node"
    assert fixes["pinned-deploy"].endswith(
        f"kubectl edit Deployment -n ml pinned-deploy, with spec.template.spec.nodeName / nodeSelector {tail}"
    )
    assert fixes["pinned-cron"].endswith(f"with spec.jobTemplate.spec.template.spec.nodeName / nodeSelector {tail}")
    assert fixes["pinned-pod"].endswith(
        f"(a Pod's nodeName and nodeSelector cannot change in place), with spec.nodeName / nodeSelector {tail}"
    )
    assert fixes["pinned-deploy-7d9f8b6c5-x2k4p"].endswith(
        f"which creates the pod again from it (a Pod's nodeName and nodeSelector cannot change in place), with"
        f" spec.template.spec.nodeName / nodeSelector {tail}"
    )


def test_a_test_name_used_twice_is_said_at_both_lines(tmp_path: Path) -> None:
    """Trial 135: "FAIL tests/bad.yaml: bad: test name 'bad-tests' is also used in tests/bad.yaml" gave no line for
    either document and the file's stem where the test's name stands."""
    one = """\
        apiVersion: verdict/v1
        kind: Test
        metadata: {name: gpu-count}
        resources: [dumps/nodes.yaml]
        results:
        - {rule: gpu-count-label, kind: Node, name: cpu-1, result: fail}
        """
    pack = make_pack(tmp_path, one + "---\n" + one)
    tests, errors = packtest.load_pack_tests(pack)
    fixture = pack / "tests" / "fixture.yaml"
    assert [t.line for t in tests] == [3, 10]
    assert [(str(e), e.test) for e in errors] == [
        (f"{fixture}:10: test name 'gpu-count' is also used at {fixture}:3", "gpu-count")
    ]


def test_a_vm_whose_template_live_migrates_before_its_restart_is_told_to_change_it_before_then() -> None:
    """Trial 120: the fix for a VM whose template says LiveMigrate while its running VMI says None said to stop the VM
    before a drain meanwhile, which its VMI does not need: the template is changed before the next restart."""
    from rules.reader import parse_bytes

    fixture = GPU_PACK / "tests" / "gpu_vms_set_to_live_migrate_on_eviction.yaml"
    [test] = [d for d in yaml.safe_load_all(fixture.read_text()) if d["metadata"]["name"].endswith("before-its-restart")]
    dump = parse_bytes(yaml.safe_dump_all(test["objects"]).encode(), "vms.yaml")
    report = evaluate(dump, load_policies([str(GPU_PACK)]))
    fixes = {
        (o.ref.kind, o.ref.name): r.remediation
        for o in report.objects
        for r in o.results
        if r.rule == "gpu-vm-eviction-does-not-block-drain" and r.result == "fail"
    }
    assert fixes[("VirtualMachine", "changed")] == (
        "kubectl patch virtualmachine -n vms changed --type merge -p"
        """ '{"spec":{"template":{"spec":{"evictionStrategy":"None"}}}}'  # or LiveMigrateIfPossible, before the VM"""
        " starts its next VMI"
    )


def test_a_vmi_no_node_can_take_for_want_of_kubevirt_s_label_is_told_to_look_at_virt_handler() -> None:
    """Trial 142: where no node had kubevirt.io/schedulable, the VMI's message said so but its fix only listed the
    nodes' resources: it shows the label and virt-handler's pods; with the label on a node, it is as before."""
    from rules.reader import parse_bytes

    node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": "gpu-pt-1",
            "labels": {"nvidia.com/gpu.present": "true", "nvidia.com/gpu.workload.config": "vm-passthrough"},
        },
        "status": {"allocatable": {"cpu": "32", "memory": "128Gi", "pods": "110", "nvidia.com/GA102GL_A10": "1"}},
    }
    vmi = {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachineInstance",
        "metadata": {"name": "vm-a10", "namespace": "vms"},
        "spec": {"domain": {"devices": {"gpus": [{"name": "gpu1", "deviceName": "nvidia.com/GA102GL_A10"}]}}},
    }
    fixes = {}
    for labelled in (False, True):
        if labelled:  # labelled, and failing for want of room: the fix as before (a device listed at 0 is
            # device-advertised's, trial 218 #6)
            node["metadata"]["labels"]["kubevirt.io/schedulable"] = "true"
            node["status"]["allocatable"]["pods"] = "0"
        report = evaluate(parse_bytes(yaml.safe_dump_all([node, vmi]).encode(), "d.yaml"), load_policies([str(GPU_PACK)]))
        [fixes[labelled]] = [r.remediation for o in report.objects for r in o.results if r.rule == "workload-schedulable"]
    assert fixes[False].endswith(
        "; kubectl get nodes -L kubevirt.io/schedulable; kubectl get pods -A -o wide -l kubevirt.io=virt-handler  #"
        " virt-launcher pods select kubevirt.io/schedulable=true, which virt-handler sets on the nodes where it runs and"
        " is ready, and no node of the dump has it"
    )
    assert (
        fixes[True] == "kubectl describe nodes | grep -E '^Name:|^Taints:|:(NoSchedule|PreferNoSchedule|NoExecute)$|"
        "^(Capacity|Allocatable|Allocated resources):|^[ ]{2}nvidia\\.com/'"
    )


def test_a_vfio_manager_pod_beside_a_running_vm_is_not_deleted_before_the_vm_stops() -> None:
    """Trial 144: the fix of a vfio-manager pod left on a node relabelled container deleted it beside a running VM,
    whose GPU its preStop unbinds from vfio-pci. The VMs on the node come first; without one, the fix is as before."""
    import yaml

    from rules.errors import Source
    from rules.reader import Dump, KObject

    [test] = [d for d in yaml.safe_load_all((GPU_PACK / "tests" / "vmi_on_a_node_relabelled_under_it.yaml").read_text()) if d]

    def fix(objects: list[dict[str, Any]]) -> str:
        dump = Dump(objects=[KObject(o, Source("d.yaml", i + 1, 1)) for i, o in enumerate(objects)])
        report = evaluate(dump, load_policies([str(GPU_PACK)]))
        [result] = [
            r for o in report.objects for r in o.results if r.rule == "operand-pod-matches-node-workload" and r.result == "fail"
        ]
        return result.remediation

    with_vm = fix(test["objects"])
    assert with_vm.startswith(
        "First stop or move the VMs on node gpu-node-7 (virt-launcher pods virt-launcher-win-cad-1-x7k2p): this pod's"
        " preStop unbinds every GPU from vfio-pci (vfio-manage unbind --all; in the v26.3 releases the hook is written so"
        " that it does not run) as it stops, under them. Then: kubectl get"
        " node gpu-node-7 --show-labels"
    )
    assert with_vm.endswith("; kubectl delete pod -n gpu-operator nvidia-vfio-manager-dm8q7")
    without_vm = fix([o for o in test["objects"] if not o["metadata"]["name"].startswith("virt-launcher-")])
    assert without_vm == with_vm[with_vm.index("kubectl get node") :]


def test_a_kubevirt_cr_alone_is_not_said_to_lack_a_configmap_nor_to_permit_what_nodes_advertise() -> None:
    """Trial 145 (kubevirt/kubevirt#4950, a KubeVirt CR pasted alone): "no kubevirt-config ConfigMap in the KubeVirt CR's
    namespace" was said of a dump holding no ConfigMap at all, and "every passthrough GPU or vGPU type a node
    advertises is permitted" of a dump holding no Node."""
    from rules.reader import parse_bytes

    cr = """
apiVersion: kubevirt.io/v1
kind: KubeVirt
metadata: {name: kubevirt, namespace: kubevirt}
spec:
  configuration:
    permittedHostDevices:
      pciHostDevices: [{pciVendorSelector: "10DE:1E02", resourceName: nvidia.com/TU102_TITAN_RTX}]
status: {observedKubeVirtVersion: v0.34.0}
"""
    report = evaluate(parse_bytes(cr.encode(), "kv.yaml"), load_policies([str(GPU_PACK)]))
    said = {r.rule: (r.result, r.message) for o in report.objects for r in o.results}
    assert said["advertised-vm-gpu-permitted"] == (
        "skip",
        "no Node in the dump whose advertised GPUs to compare with the permits",
    )
    assert "configuration-not-shadowed-by-configmap" not in said
    [note] = [n for n in report.notes if "configuration-not-shadowed-by-configmap" in n]
    assert note.startswith("not applied: the dump holds no ConfigMap named kubevirt-config, so whether one hides the CR's")


def test_an_unhealthy_container_gpu_of_a_node_nothing_shows_the_operator_on_names_no_plugin_as_fact() -> None:
    """Trial 145 (Project-HAMi/HAMi#477, describe text: nvidia.com/gpu capacity 80, allocatable 70): the finding is true,
    but NVIDIA's nvidia-device-plugin-daemonset and the gpu-operator namespace were named as fact where nothing in the
    dump shows which device plugin runs there."""
    from rules.reader import parse_bytes

    node = """
apiVersion: v1
kind: Node
metadata: {name: gpu-000-001, labels: {nvidia.com/gpu.present: "true"}}
status:
  capacity: {nvidia.com/gpu: "80"}
  allocatable: {nvidia.com/gpu: "70"}
"""
    report = evaluate(parse_bytes(node.encode(), "n.yaml"), load_policies([str(GPU_PACK)]))
    [result] = [r for o in report.objects for r in o.results if r.rule == "no-unhealthy-devices"]
    assert result.result == "fail"
    assert (
        "the device plugin that advertises the container GPU resources nvidia.com/gpu and nvidia.com/mig-* (NVIDIA's"
        " k8s-device-plugin, nvidia-device-plugin-daemonset under the GPU Operator, or another device plugin; the dump"
        " does not show which) reports the missing devices"
    ) in result.message
    assert result.remediation == (
        "kubectl describe node gpu-000-001 | grep -A20 -E 'Capacity|Allocatable'; kubectl get pods -A -o wide"
        " --field-selector spec.nodeName=gpu-000-001 | grep -i device-plugin  # read that pod's log (kubectl logs -n"
        " <namespace> <pod>); then on the host: dmesg | grep -i xid and nvidia-smi -q"
    )


def test_an_unhealthy_mig_resource_is_not_said_to_be_served_by_a_plugin_of_nvidia_com_gpu() -> None:
    """Trial 162 #7: the plugin of a nvidia.com/mig-1g.5gb resource with devices missing was "another that advertises
    nvidia.com/gpu", a resource the node does not list."""
    from rules.reader import parse_bytes

    node = """
apiVersion: v1
kind: Node
metadata: {name: gpu-mig-1, labels: {nvidia.com/gpu.present: "true", nvidia.com/mig.strategy: mixed}}
status:
  capacity: {nvidia.com/mig-1g.5gb: "7"}
  allocatable: {nvidia.com/mig-1g.5gb: "5"}
"""
    report = evaluate(parse_bytes(node.encode(), "n.yaml"), load_policies([str(GPU_PACK)]))
    [result] = [r for o in report.objects for r in o.results if r.rule == "no-unhealthy-devices"]
    assert result.result == "fail"
    assert result.message.startswith("Node gpu-mig-1 has nvidia.com/mig-1g.5gb allocatable 5, less than its capacity")
    assert (
        "(NVIDIA's k8s-device-plugin, nvidia-device-plugin-daemonset under the GPU Operator, or another device plugin;"
        " the dump does not show which) reports the missing devices (GPUs, or the MIG devices of a nvidia.com/mig-*"
        " resource) unhealthy"
    ) in result.message
    assert "advertises nvidia.com/gpu;" not in result.message


@pytest.mark.parametrize(("config", "relabel"), [("a10-12q", "A10-12Q"), ("bogus-9q", "<config>")])
def test_a_failed_vgpu_config_in_other_letters_case_is_told_the_config_meant(config: str, relabel: str) -> None:
    """Trial 156 #6: vgpu-config-applied (high) fixed a10-12q with nvidia.com/vgpu.config=<config>, while the medium
    vgpu-config-name-case beside it named A10-12Q; a name no built-in config has in any case keeps the placeholder."""
    from rules.reader import parse_bytes

    dump = f"""
apiVersion: nvidia.com/v1
kind: ClusterPolicy
metadata: {{name: cluster-policy}}
spec: {{sandboxWorkloads: {{enabled: true}}, vgpuDeviceManager: {{enabled: true}}}}
---
apiVersion: v1
kind: Node
metadata:
  name: a10-vgpu-1
  labels:
    nvidia.com/gpu.present: "true"
    nvidia.com/gpu.workload.config: vm-vgpu
    nvidia.com/vgpu.config: {config}
    nvidia.com/vgpu.config.state: failed
    nvidia.com/gpu.deploy.vgpu-device-manager: "true"
status: {{capacity: {{}}, allocatable: {{}}}}
"""
    report = evaluate(parse_bytes(dump.encode(), "n.yaml"), load_policies([str(GPU_PACK)]))
    [result] = [r for o in report.objects for r in o.results if r.rule == "vgpu-config-applied"]
    assert result.result == "fail"
    assert result.message.startswith(f"Node a10-vgpu-1: nvidia-vgpu-device-manager failed to apply vGPU config '{config}'")
    said = "then name the config meant" if relabel == "A10-12Q" else "then name a config it holds"
    assert result.remediation.endswith(
        f"-o name)  # {said}: kubectl label node a10-vgpu-1 --overwrite nvidia.com/vgpu.config={relabel}"
    )


def test_a_relabel_offered_beside_a_running_vm_stops_the_vm_first() -> None:
    """Trial 149: the fix of a vm-vgpu node advertising nvidia.com/gpu offered to relabel it container with no word of
    the VM with a vGPU running there, whose devices' operands the relabel takes away."""
    import yaml

    from rules.errors import Source
    from rules.reader import Dump, KObject

    path = GPU_PACK / "tests" / "vm_node_lost_its_resource_under_a_running_vm.yaml"
    [test] = [d for d in yaml.safe_load_all(path.read_text()) if d]

    def fix(objects: list[dict[str, Any]]) -> str:
        dump = Dump(objects=[KObject(o, Source("d.yaml", i + 1, 1)) for i, o in enumerate(objects)])
        report = evaluate(dump, load_policies([str(GPU_PACK)]))
        [result] = [r for o in report.objects for r in o.results if r.rule == "resource-class-matches-workload"]
        return result.remediation

    assert fix(test["objects"]).endswith(
        "; or, if the node is meant for the container workload its resources are of, first stop or move"
        " VirtualMachineInstance(s) vms/vm-vgpu-a10 running on it (once relabelled, the operator takes their devices'"
        " operands away under them: kubevirt-vms/vmi-node-keeps-its-device-workload), then: kubectl label node gpu-vg-01"
        " --overwrite nvidia.com/gpu.workload.config=container"
    )
    without_vm = fix([o for o in test["objects"] if o["kind"] != "VirtualMachineInstance"])
    assert without_vm.endswith(
        "; or, if the node is meant for the container workload its resources are of: kubectl label node gpu-vg-01"
        " --overwrite nvidia.com/gpu.workload.config=container"
    )


def test_a_node_advertising_nothing_for_a_pause_left_after_success_is_given_the_command_that_lifts_it() -> None:
    """Trial 152: the high finding of a vGPU node advertising nothing, its sandbox device plugin left paused beside
    nvidia.com/vgpu.config.state=success, suggested only a look at the pods; the command that lifts the pause was in the
    low warning alone."""
    fixes = _fixes("vm_nodes_advertising_nothing.yaml", "gpu-resources-advertised")
    assert fixes["a10-vgpu-plugin-paused"].endswith(
        "; kubectl label node a10-vgpu-plugin-paused nvidia.com/gpu.deploy.sandbox-device-plugin=true --overwrite  #"
        " vgpu-device-manager reports nvidia.com/vgpu.config.state=success: this lifts the pause it left, as it does"
        " once a config is applied"
    )
    assert "lifts the pause" not in fixes["a10-vgpu-created-not-advertised"]


def test_a_misspelt_workload_label_key_is_given_the_label_it_meant() -> None:
    """Trial 153: nvidia.com/gpu.workload.configuration=vm-passthrough was said by nothing. The fix takes the misspelt
    label off and writes the one the operator reads, with what that does to the node's operands."""
    from rules.engine import audit_bytes

    text = (GPU_PACK / "tests" / "workload_label_key_misspelt.yaml").read_text()
    objects = next(yaml.safe_load_all(text))["objects"]
    report = audit_bytes(yaml.safe_dump_all(objects).encode(), "typo.yaml", load_policies())
    fixes = {o.ref.name: r.remediation for o in report.objects for r in o.results if r.rule == "workload-label-key-spelled"}
    assert fixes["gpu-key-typo"] == (
        "kubectl label node gpu-key-typo nvidia.com/gpu.workload.configuration- nvidia.com/gpu.workload.config=vm-passthrough"
        "  # if vm-passthrough is the workload meant: the operator then prepares the node for it, replacing the operands of"
        " the one it runs now (move the GPU pods or VMs on it first)"
    )
    assert fixes["gpu-both"] == (
        "kubectl label node gpu-both gpu.workload.config-  # its nvidia.com/gpu.workload.config=container is what the"
        " operator reads"
    )


def test_a_default_workload_fix_is_a_patch_only_of_a_value_it_can_name() -> None:
    """Regression (trial 172): default-workload-valid's fix patched in the placeholder <container|vm-passthrough|vm-vgpu>
    for a value like no workload, which the API server refuses if pasted; a value it can name is patched in."""
    from rules.reader import parse_text

    def fix(value: str) -> str:
        dump = parse_text(
            f"apiVersion: nvidia.com/v1\nkind: ClusterPolicy\nmetadata: {{name: cp}}\n"
            f"spec: {{sandboxWorkloads: {{enabled: true, defaultWorkload: '{value}'}}}}\n",
            "cp.yaml",
        )
        report = evaluate(dump, load_policies([str(GPU_PACK)]))
        [result] = [r for o in report.objects for r in o.results if r.rule == "default-workload-valid"]
        assert result.result == "fail"
        return result.remediation

    assert fix("vm-passthru") == (
        'kubectl patch clusterpolicies.nvidia.com cp --type merge -p \'{"spec":{"sandboxWorkloads":{"defaultWorkload":'
        '"vm-passthrough"}}}\''
    )
    assert fix("kubevirt-gpu") == (
        "kubectl edit clusterpolicies.nvidia.com cp  # set spec.sandboxWorkloads.defaultWorkload to container,"
        " vm-passthrough or vm-vgpu"
    )


def _run_kubectl_patches(command: str, obj: dict[str, Any]) -> bool:
    """Run ``kubectl patch ... --type json|merge -p '...'`` commands joined by ``||`` on ``obj`` as the API server
    would: a JSON patch adding at ``.../-`` fails where the list does not exist (RFC 6902), a merge patch replaces a
    list whole (RFC 7386). True when one of them applied."""
    import shlex

    def merge(target: dict[str, Any], patch: dict[str, Any]) -> None:
        for key, value in patch.items():
            if isinstance(value, dict) and isinstance(target.get(key), dict):
                merge(target[key], value)
            else:
                target[key] = value

    for alternative in command.split(" || "):
        words = shlex.split(alternative.split("  #")[0])
        kind, body = words[words.index("--type") + 1], json.loads(words[words.index("-p") + 1])
        if kind == "merge":
            merge(obj, body)
            return True
        [op] = body
        *parents, last = op["path"].strip("/").split("/")
        node: Any = obj
        for step in parents:
            node = node.get(step) if isinstance(node, dict) else None
        if last == "-" and isinstance(node, list):
            node.append(op["value"])
            return True
    return False


@pytest.mark.parametrize("gates", [None, ["LiveMigration"]])
def test_the_feature_gate_fixes_of_one_kubevirt_cr_keep_each_others_gates(gates: list[str] | None) -> None:
    """Regression (trial 205): each gate's fix was a merge patch writing the dump's list with its own gate, so run one
    after the other only the last gate stayed (HostDevices and GPU lost, and the VMs rejected again). Each fix adds its
    gate to the list (a JSON patch), and writes the list only where there is none."""
    permits = {
        "mediatedDevices": [
            {"mdevNameSelector": "NVIDIA A10-12Q", "resourceName": "nvidia.com/NVIDIA_A10-12Q", "externalResourceProvider": True}
        ]
    }
    kubevirt = {**kubevirt_cr(permits, gates), "status": {"observedKubeVirtVersion": "v1.3.1"}}
    vmi = {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachineInstance",
        "metadata": {"name": "vm-a10", "namespace": "vms"},
        "spec": {
            "domain": {
                "devices": {
                    "gpus": [{"name": "gpu1", "deviceName": "nvidia.com/NVIDIA_A10-12Q"}],
                    "hostDevices": [{"name": "hd1", "deviceName": "nvidia.com/NVIDIA_A10-12Q"}],
                }
            }
        },
    }
    labels = {"nvidia.com/gpu.workload.config": "vm-vgpu", "nvidia.com/gpu.deploy.vgpu-device-manager": "true"}
    report = _sandbox_cluster("vgpu-1", labels, {"nvidia.com/NVIDIA_A10-12Q": "2"}, kubevirt, vmi)
    fixes = [
        r.remediation
        for o in report.objects
        for r in o.results
        if r.result in ("fail", "warn") and "featureGates" in (r.remediation or "")
    ]
    assert len(fixes) >= 3, fixes  # HostDevices and GPU (kubevirt-config and kubevirt-vms), DisableMDEVConfiguration
    cr: dict[str, Any] = json.loads(json.dumps(kubevirt))
    for command in fixes:
        assert _run_kubectl_patches(command, cr), command
    got = cr["spec"]["configuration"]["developerConfiguration"]["featureGates"]
    # (two rules ask for HostDevices and GPU, one of the KubeVirt CR and one of the VMI: a gate listed twice is on)
    assert {"HostDevices", "GPU", "DisableMDEVConfiguration"} <= set(got), got
    assert got[: len(gates or [])] == (gates or [])


def test_a_vm_labelled_node_serving_containers_is_fixed_by_its_label_first() -> None:
    """Regression (trial 209): with sandbox workloads off, a node labelled vm-passthrough that advertises nvidia.com/gpu
    (it serves containers, as the operator runs it) was given the patch turning sandbox workloads on as its fix's
    command: run, it would take that node's GPUs, and every VM-labelled node's, for VMs."""
    [fix] = _fixes("vm_label_ignored_on_a_container_node.yaml", "label-ignored-sandbox-disabled", "warn").values()
    assert fix.startswith(
        "kubectl label node node-a nvidia.com/gpu.workload.config-  # it serves containers now (it advertises"
        " nvidia.com/gpu), as the operator runs it while sandbox workloads are off, so the VM label is the likelier slip;"
        " if it is meant for VMs instead, move its GPU workloads off it and turn sandbox workloads on (kubectl patch"
        " clusterpolicies.nvidia.com cluster-policy --type merge -p"
    ), fix


def test_the_clusterpolicys_fix_runs_no_patch_where_a_vm_labelled_node_serves_containers() -> None:
    """Regression (trial 210): with sandbox workloads off beside a vm-passthrough-labelled node that serves containers
    (its device plugin runs there, it advertises nvidia.com/gpu), the ClusterPolicy's fix was the patch turning sandbox
    workloads on, runnable, where the node's own finding says its label is the likelier slip. Its command reads; the
    patch and the label are said for each case."""
    [fix] = _fixes("vm_label_ignored_on_a_container_node.yaml", "sandbox-workloads-enabled-for-vm-nodes", "warn").values()
    command, _, comment = fix.partition("  # ")
    assert command == (
        "kubectl get nodes -l 'nvidia.com/gpu.workload.config in (vm-passthrough,vm-vgpu)' -o"
        " custom-columns=NAME:.metadata.name,ALLOCATABLE:.status.allocatable"
    )
    # (trial 239 #2: said by what it is seen, the operator's part said of the nodes it manages)
    assert comment.startswith(
        "serving containers now: node-a (by container GPU resources advertised or nvidia.com/gpu.deploy.device-plugin=true:"
        " while sandbox workloads are off, the operator runs its device plugin on a VM-labelled node it manages)"
    ), comment


def test_a_vm_labelled_node_run_as_container_is_not_told_sandbox_workloads_leave_it_as_it_is() -> None:
    """Regression (trial 210): without a ClusterPolicy, a vm-vgpu-labelled node carrying the container operands' deploy
    labels was told "remove the label or enable sandbox workloads, and change nothing else" where sandbox workloads off
    leave it right as it is; turned on, they would prepare it for VMs and take its GPUs."""
    from rules.engine import audit_bytes
    from rules.loader import load_policies

    node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": "node-v",
            "labels": {
                "nvidia.com/gpu.present": "true",
                "nvidia.com/gpu.workload.config": "vm-vgpu",
                "nvidia.com/gpu.deploy.driver": "true",
                "nvidia.com/gpu.deploy.device-plugin": "true",
                "nvidia.com/gpu.deploy.container-toolkit": "true",
                "nvidia.com/gpu.deploy.operator-validator": "true",
            },
        },
        "status": {"allocatable": {"nvidia.com/gpu": "8"}, "capacity": {"nvidia.com/gpu": "8"}},
    }
    report = audit_bytes(json.dumps(node).encode(), "n.json", load_policies())
    [fix] = [r.remediation for o in report.objects for r in o.results if r.rule == "deploy-labels-match-workload"]
    assert fix.startswith(
        "First see whether sandbox workloads are on: kubectl get clusterpolicies.nvidia.com -o yaml | grep -A3 sandboxWorkloads."
        " Where enabled is not true, the operator ignores the workload label and the node is right as it is for"
        " containers (sandbox workloads turned on would prepare it for VMs"
    ), fix
    # (trial 219: "remove the label" came without its command)
    assert (
        "only for a node meant for VMs, its GPU pods moved off first); remove the label and change nothing else: kubectl"
        " label node node-v nvidia.com/gpu.workload.config-. If they are on:"
    ) in fix, fix


def test_a_device_plugin_config_label_written_like_an_entry_is_fixed_to_that_entry() -> None:
    """Trial 207: a node labelled nvidia.com/device-plugin.config=tesla_t4 beside a ConfigMap whose entry is tesla-t4
    leaves the device plugin's config manager exiting ("specified config tesla_t4 does not exist"). The fix relabels the
    node with the entry written like it, a command that runs as it stands; adding the entry is the other way."""
    fixes = _fixes("device_plugin_configs.yaml", "device-plugin-config-defined")
    assert fixes == {
        "t4-typo": "kubectl label node t4-typo --overwrite nvidia.com/device-plugin.config=tesla-t4  # the entry written"
        " like 'tesla_t4'; or add an entry 'tesla_t4' (a device-plugin config file): kubectl edit configmap -n"
        " gpu-operator time-slicing-config"
    }


def test_a_missing_default_device_plugin_config_is_fixed_on_the_clusterpolicy_read_first() -> None:
    """Trial 213: spec.devicePlugin.config.default naming no entry of the ConfigMap was fixed by labelling each node,
    where the ClusterPolicy's default is the one place; and the config manager's words for it name no config (it
    formats them with the label's empty value). The entry written like the default is offered, not run: it becomes
    the config of every unlabelled node."""
    from rules.reader import parse_text

    objects = [
        {
            "apiVersion": "nvidia.com/v1",
            "kind": "ClusterPolicy",
            "metadata": {"name": "cluster-policy"},
            "spec": {"devicePlugin": {"config": {"name": "ts-config", "default": "a100-40gb"}}},
            "status": {"state": "ready", "namespace": "gpu-operator"},
        },
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "ts-config", "namespace": "gpu-operator"},
            "data": {"a100-80gb": "version: v1\n"},
        },  # fmt: skip
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "name": "a100-1",
                "labels": {"nvidia.com/gpu.present": "true", "nvidia.com/gpu.deploy.device-plugin": "true"},
            },
            "status": {"capacity": {"nvidia.com/gpu": "8"}, "allocatable": {"nvidia.com/gpu": "8"}},
        },
    ]
    dump = parse_text("\n---\n".join(yaml.safe_dump(o) for o in objects), "d.yaml")
    report = evaluate(dump, load_policies([str(GPU_PACK)]))
    (result,) = [r for o in report.objects for r in o.results if r.rule == "device-plugin-config-defined"]
    assert result.result == "fail"
    assert 'exits with "specified config  does not exist" (no name in it: the config manager writes' in result.message
    assert result.remediation == (
        "kubectl get configmap -n gpu-operator ts-config -o yaml  # the entry written like 'a100-40gb' is 'a100-80gb':"
        " where it is the one meant, make it the default of every node without a label, kubectl patch"
        " clusterpolicies.nvidia.com cluster-policy --type merge -p"
        ' \'{"spec":{"devicePlugin":{"config":{"default":"a100-80gb"}}}}\'; or add an entry \'a100-40gb\': kubectl'
        " edit configmap -n gpu-operator ts-config"
    )


def test_vgpu_manager_alone_to_enable_is_fixed_by_a_read_and_its_image_first() -> None:
    """Trial 214: the fix ran a patch enabling spec.vgpuManager without its image, which the operator refuses ("empty
    image path provided through both ClusterPolicy CR and ENV VGPU_MANAGER_IMAGE"), failing its vgpu-manager state.
    Where vgpuManager alone is missing and has no image, the command reads it; the patch with the image follows."""
    dump = """\
apiVersion: nvidia.com/v1
kind: ClusterPolicy
metadata: {name: cp}
spec:
  sandboxWorkloads: {enabled: true}
  sandboxDevicePlugin: {enabled: true}
  vgpuDeviceManager: {enabled: true}
  vgpuManager: {enabled: false}
---
apiVersion: v1
kind: Node
metadata:
  name: vgpu-1
  labels: {nvidia.com/gpu.present: "true", nvidia.com/gpu.workload.config: vm-vgpu}
"""
    result = _only_result(dump, "sandbox-operands-enabled", "cp.yaml")
    assert result.result == "fail"
    assert result.remediation.startswith(
        "kubectl get clusterpolicies.nvidia.com cp -o jsonpath='{.spec.vgpuManager}'  # spec.vgpuManager needs the vGPU"
        " Manager image"
    ), result.remediation


def test_the_sandbox_operands_fix_sees_to_the_label_of_a_vm_node_still_serving_containers_first() -> None:
    """Regression (trial 215): with sandbox workloads on, a vm-passthrough-labelled node still serving containers (the
    real H100's container deploy labels and MIG resources) was given the cluster-wide patch enabling the VM operands
    alone, where its own findings say its label is the likelier slip. The fix relabels it first, by name, and the
    patch, for the nodes meant for VMs, is laid out commented out: the block pasted whole changes nothing."""
    from rules.render.chat import fix_lines

    [fix] = _fixes("vm_label_on_a_mig_container_node_sandbox_on.yaml", "sandbox-operands-enabled").values()
    assert fix.startswith(
        "First see whether the workload labels are the mistake: VM-labelled nodes still serve containers (node-a: the"
        " container device plugin's deploy label nvidia.com/gpu.deploy.device-plugin=true, or container GPU resources"
        " advertised, nvidia.com/gpu or nvidia.com/mig-<profile>). If one should stay a container node, label it so and"
        " enable nothing for it: kubectl label node node-a --overwrite nvidia.com/gpu.workload.config=container. Only"
        " for the nodes meant for VMs: kubectl patch clusterpolicies.nvidia.com cluster-policy --type merge -p"
    ), fix
    lines = fix_lines(fix)
    assert lines[-2:] == [
        "# Only for the nodes meant for VMs:",
        "# kubectl patch clusterpolicies.nvidia.com cluster-policy --type merge -p"
        ' \'{"spec":{"sandboxDevicePlugin":{"enabled":true},"vfioManager":{"enabled":true}}}\'',
    ]
    assert "# kubectl label node node-a --overwrite nvidia.com/gpu.workload.config=container" in lines
    # a dump of whose VM-labelled nodes none serves containers gets the patch alone, runnable
    [plain] = _fixes("default_passthrough_without_vfio_manager.yaml", "sandbox-operands-enabled").values()
    assert plain == (
        'kubectl patch clusterpolicies.nvidia.com cluster-policy --type merge -p \'{"spec":{"vfioManager":{"enabled":true}}}\''
    ), plain


def test_the_sandbox_operands_fix_sees_mig_only_and_defaulted_vm_nodes_serving_containers() -> None:
    """Regression (trial 217 #2 and #3, trial 220 #1): the hedge saw a VM node serving containers by the container
    device plugin's deploy label or nvidia.com/gpu alone. A node labelled vm-passthrough advertising MIG devices alone
    (no deploy label), and a GPU node without a workload label that defaultWorkload vm-passthrough makes a VM node, are
    seen; a VM node keeping nvidia.com/gpu at 0 (its plugin stopped) serves nothing and is not named."""
    [fix] = _fixes("vm_nodes_serving_mig_or_by_default.yaml", "sandbox-operands-enabled").values()
    assert fix.startswith(
        "First see whether the workload labels are the mistake: nodes meant for VMs (by their workload label, or,"
        " having none, by spec.sandboxWorkloads.defaultWorkload=vm-passthrough) still serve containers (mig-a,"
        " default-b: the container device plugin's deploy label nvidia.com/gpu.deploy.device-plugin=true, or container"
        " GPU resources advertised, nvidia.com/gpu or nvidia.com/mig-<profile>). If one should stay a container node,"
        " label it so and enable nothing for it: kubectl label node <node> --overwrite"
        " nvidia.com/gpu.workload.config=container. Only for the nodes meant for VMs: kubectl patch"
    ), fix
    assert "stopped-c" not in fix and "pt-1" not in fix


def test_a_pod_asking_nvidia_gpu_of_a_mig_only_cluster_is_told_to_ask_for_the_mig_device() -> None:
    """Regression (trial 219 #5): in a cluster whose one GPU node serves MIG devices under the mixed strategy, a pending
    pod asking nvidia.com/gpu was told only to compare the scheduler's events with the nodes; its fix says to ask for
    the MIG device a node advertises, in its manifest or by recreating the pod, before that comparison."""
    fixes = _fixes("mig_only_cluster_pod_asking_gpu.yaml", "workload-schedulable")
    assert fixes == {
        "train-0": "ask for a container GPU resource a node advertises with a device (nvidia.com/mig-1g.10gb) in place of"
        " nvidia.com/gpu, which none does (under the mixed MIG strategy a node advertises its MIG devices as"
        " nvidia.com/mig-<profile>, and no nvidia.com/gpu): in its manifest, then kubectl apply -f <manifest>; where it"
        " is created already, kubectl get pod -n ml train-0 -o yaml > pod.yaml, edit it and kubectl replace --force -f"
        " pod.yaml (a Pod's containers cannot change in place). Else: kubectl describe pod -n ml train-0; kubectl"
        " describe nodes  # compare the scheduler's events with the nodes' allocatable and taints"
    }, fixes


def test_with_sandbox_workloads_off_unlabelled_nodes_are_not_vm_nodes_serving_containers() -> None:
    """Regression (trial 222 #1): the VM nodes serving containers counted GPU nodes without a workload label that a VM
    defaultWorkload makes VM nodes even with sandbox workloads off, where the operator reads no default and they are
    container nodes: the sandbox fix said "serving containers now: more than five of them" beside a selector listing
    vm-1 alone. With sandbox workloads off, only the labelled node is named."""
    [fix] = _fixes(
        "sandbox_off_default_vm_beside_unlabelled_nodes.yaml", "sandbox-workloads-enabled-for-vm-nodes", "warn"
    ).values()
    assert "# serving containers now: vm-1 (by container GPU resources advertised" in fix, fix


def test_a_workload_label_typo_on_a_node_serving_containers_is_not_fixed_by_taking_its_gpus() -> None:
    """Regression (trial 223 #2): a node serving MIG devices to containers, its label vm-passtrough (ignored: the
    operator runs the default workload, container), was told to set vm-passthrough, which takes its GPUs from its pods,
    without a word of it. The fix lists what runs there and offers both labels, commented, the VM one after its pods
    are moved off."""
    from rules.render.chat import fix_lines

    [fix] = _fixes("mig_container_node_with_a_workload_label_typo.yaml", "workload-label-valid").values()
    lines = fix_lines(fix)
    assert lines[0] == (
        "kubectl get pods -A -o wide --field-selector spec.nodeName=node-a | grep -v Completed # it serves containers now"
        " (it advertises nvidia.com/mig-1g.10gb, nvidia.com/mig-3g.40gb, as the operator runs the default workload under"
        " a label it ignores)"
    ), lines
    assert "# kubectl label node node-a --overwrite nvidia.com/gpu.workload.config=vm-passthrough" in lines
    assert lines[-1] == "# kubectl label node node-a --overwrite nvidia.com/gpu.workload.config=container"


def test_a_pinned_pod_asking_what_no_node_advertises_is_told_to_move_its_pin_too() -> None:
    """Regression (trial 224 #2): pods pinned to a passthrough node, asking nvidia.com/gpu of a cluster whose GPU node
    serves MIG devices alone, were told to change the resource they ask for, and would still wait for their pin."""
    dump = (
        (GPU_DUMPS / "mig_only_cluster_pod_asking_gpu.yaml").read_text()
        + """\
- apiVersion: v1
  kind: Node
  metadata:
    name: pt-1
    labels: {nvidia.com/gpu.present: "true", nvidia.com/gpu.workload.config: vm-passthrough, kubernetes.io/hostname: pt-1}
  status:
    allocatable: {cpu: "64", pods: "110", memory: 256Gi, nvidia.com/GA102GL_A10: "2"}
"""
    )
    dump = dump.replace(
        "  metadata: {name: train-0, namespace: ml}\n  spec:\n",
        "  metadata: {name: train-0, namespace: ml}\n  spec:\n    nodeSelector: {kubernetes.io/hostname: pt-1}\n",
    )
    result = _only_result(dump, "workload-schedulable", "mig.yaml")
    assert result.result == "fail" and "1 node(s) didn't match Pod's node affinity/selector" in result.message
    assert (
        "which none does (under the mixed MIG strategy a node advertises its MIG devices as nvidia.com/mig-<profile>, and"
        " no nvidia.com/gpu), and point its pin (spec.nodeName / nodeSelector: pt-1) at a node that advertises it, or"
        " drop the pin: in its manifest" in result.remediation
    ), result.remediation


def test_a_pod_pinned_by_a_required_node_affinity_is_told_where_its_pin_is_written() -> None:
    """Regression (trial 211): a pod pinned to a vm-passthrough node by a required node affinity of one term naming it
    alone was not taken as pinned; it is, and its fix names the affinity's term, not spec.nodeName / nodeSelector."""
    fixes = _fixes("gpu_pods_pinned_by_node_affinity.yaml", "gpu-pod-not-on-vm-node")
    assert sorted(fixes) == ["pinned-by-hostname", "pinned-by-name"]
    for fix in fixes.values():
        assert fix.endswith(
            "with spec.affinity.nodeAffinity's required term kubernetes.io/hostname naming a container GPU node"
        ), fix


def _operator_node_cluster(sandbox: bool, workload: str, resource: str, *more: dict[str, Any]) -> list[dict[str, Any]]:
    """A ClusterPolicy with sandbox workloads ``sandbox``, node gpu-pt1 labelled ``workload`` with the container
    operands' deploy labels (as the operator runs it with sandbox workloads off) advertising 2 ``resource``, and
    ``more`` objects."""
    labels = {
        "nvidia.com/gpu.present": "true",
        "nvidia.com/gpu.workload.config": workload,
        "nvidia.com/gpu.deploy.driver": "true",
        "nvidia.com/gpu.deploy.device-plugin": "true",
    }
    return [
        {
            "apiVersion": "nvidia.com/v1",
            "kind": "ClusterPolicy",
            "metadata": {"name": "cp"},
            "spec": {"sandboxWorkloads": {"enabled": sandbox}},
        },
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": "gpu-pt1", "labels": labels},
            "status": {"allocatable": {"cpu": "32", "pods": "110", resource: "2"}},
        },
        *more,
    ]


def _audit_items(items: list[dict[str, Any]]) -> Report:
    """The built-in pack's report on a List of ``items``, read as JSON."""
    from rules.engine import audit_bytes

    return audit_bytes(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}).encode(), "d.json", load_policies())


def test_a_vm_running_with_the_devices_the_relabel_gives_back_is_not_stopped_first() -> None:
    """Regression (trial 218): a VMI running with its passthrough GPU on a node relabelled container was told, by the
    node's fix, to be stopped before the label is set back to vm-passthrough (which keeps it), and the VMI's own fix
    led with virtctl stop, runnable. The relabel that gives the VM's workload back keeps the VM; the VMI's fix lists
    the VMs there and says both ways after it."""
    from rules.render.chat import fix_lines

    vmi = {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachineInstance",
        "metadata": {"name": "win-pt", "namespace": "vms"},
        "spec": {"domain": {"devices": {"gpus": [{"name": "g", "deviceName": "nvidia.com/GA102GL_A10"}]}}},
        "status": {"phase": "Running", "nodeName": "gpu-pt1"},
    }
    report = _audit_items(_operator_node_cluster(True, "container", "nvidia.com/GA102GL_A10", vmi))
    fixes = {r.rule: r.remediation for o in report.objects for r in o.results if r.result == "fail"}
    assert fixes["resource-class-matches-workload"].endswith(
        "; or, if the node is meant for the vm-passthrough workload its resources are of (VirtualMachineInstance(s)"
        " vms/win-pt run on it with them, and keep them): kubectl label node gpu-pt1 --overwrite"
        " nvidia.com/gpu.workload.config=vm-passthrough"
    ), fixes["resource-class-matches-workload"]
    assert fix_lines(fixes["vmi-node-keeps-its-device-workload"]) == [
        "kubectl get vmi -A -o wide | grep -w gpu-pt1 # the VMs running there",
        "# to keep them, set the node's label back:",
        "# kubectl label node gpu-pt1 nvidia.com/gpu.workload.config=vm-passthrough --overwrite",
        "# for the node to become container, stop or migrate them first, and the operator then converts it:",
        "# virtctl stop -n vms win-pt",
    ]


def test_a_vm_labelled_node_with_sandbox_off_is_not_told_its_label_is_the_slip_beside_vms_asking_its_devices() -> None:
    """Regression (trial 218): with sandbox workloads off, a vm-passthrough-labelled node serving containers (as the
    operator runs it then) was told its VM label is the likelier slip, and the fix removed it, beside a VM of the dump
    asking for a passthrough device. VMs asking for the label's devices say the label is meant: the fix turns sandbox
    workloads on, and says why; without them, it drops the label as before."""
    vm = {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": {"name": "win-pt", "namespace": "vms"},
        "spec": {
            "runStrategy": "Always",
            "template": {"spec": {"domain": {"devices": {"gpus": [{"name": "g", "deviceName": "nvidia.com/GA102GL_A10"}]}}}},
        },
    }
    objects = _operator_node_cluster(False, "vm-passthrough", "nvidia.com/gpu", vm)

    def fix(items: list[dict[str, Any]]) -> str:
        [found] = [
            r.remediation for o in _audit_items(items).objects for r in o.results if r.rule == "label-ignored-sandbox-disabled"
        ]
        return found

    with_vm = fix(objects)
    # (trial 240 #1: the choice first, each command under its condition)
    assert with_vm.startswith(
        "First decide what the node is for (VMs of the dump ask for vm-passthrough devices). If it is meant for VMs, turn"
        " sandbox workloads on: kubectl patch clusterpolicies.nvidia.com cp --type merge -p"
        ' \'{"spec":{"sandboxWorkloads":{"enabled":true}}}\''
    ), with_vm
    assert fix(objects[:2]).startswith("kubectl label node gpu-pt1 nvidia.com/gpu.workload.config-  # it serves containers")


def test_a_pod_selecting_vm_nodes_is_told_to_select_container_only_where_nodes_carry_that_label() -> None:
    """Trial 227 #4: a pod asking nvidia.com/gpu and selecting nvidia.com/gpu.workload.config=vm-vgpu was told to select
    container, where the node serving nvidia.com/gpu carries no workload label (container is the operator's default),
    so that no node would match; where one is labelled container, selecting it is offered first."""
    pod = """\
apiVersion: v1
kind: Pod
metadata: {name: train, namespace: ml}
spec:
  nodeSelector: {nvidia.com/gpu.workload.config: vm-vgpu}
  containers: [{name: cuda, image: cuda, resources: {limits: {nvidia.com/gpu: "1"}}}]
status: {phase: Pending}
---
apiVersion: v1
kind: Node
metadata: {name: gpu-vg1, labels: {nvidia.com/gpu.workload.config: vm-vgpu}}
status: {allocatable: {cpu: "32", memory: 128Gi, pods: "110", nvidia.com/NVIDIA_A10-8Q: "6"}}
---
apiVersion: v1
kind: Node
metadata: {name: gpu-c1, labels: LABELS}
status: {allocatable: {cpu: "32", memory: 128Gi, pods: "110", nvidia.com/gpu: "4"}}
"""
    unlabelled = _only_result(pod.replace("LABELS", "{}"), "workload-schedulable", "pod.yaml")
    assert unlabelled.result == "fail" and "(its nodeSelector nvidia.com/gpu.workload.config=vm-vgpu picks" in unlabelled.message
    assert unlabelled.remediation.startswith(
        "drop its nodeSelector nvidia.com/gpu.workload.config (the nodes that advertise nvidia.com/gpu carry no container"
        " label: the operator's default workload needs none): in its manifest"
    ), unlabelled.remediation
    labelled = _only_result(
        pod.replace("LABELS", "{nvidia.com/gpu.workload.config: container}"), "workload-schedulable", "p.yaml"
    )
    assert labelled.remediation.startswith(
        "point its nodeSelector nvidia.com/gpu.workload.config at container (the label of nodes that advertise"
        " nvidia.com/gpu), or drop it: in its manifest"
    ), labelled.remediation
