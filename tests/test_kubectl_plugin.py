"""``kubectl verdict`` against a stand-in ``kubectl`` on PATH: a script that records its arguments and
answers from canned files (the ``api-resources`` table of a cluster with the GPU Operator, Kyverno and no
KubeVirt; the lab as the JSON ``List`` that ``kubectl get -o json`` prints), so the test asserts both what the
plugin asks kubectl and what the audit says."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner, Result
from conftest import make_policy, make_rule

from rules.kubectl import KindRead, command, kinds_read, parse_api_resources
from rules.loader import load_policies

ROOT = Path(__file__).resolve().parent.parent
LAB = ROOT / "examples" / "lab-cluster.yaml"
#: a 3-rule pack over Nodes, for the tests where which kinds are fetched does not matter (it loads faster)
SMALL = ("-p", str(ROOT / "tests" / "data" / "api" / "gpu-lab"))

#: ``kubectl api-resources --verbs=list`` of a cluster with the GPU Operator and Kyverno, without KubeVirt
API_RESOURCES = """\
NAME                              SHORTNAMES   APIVERSION                        NAMESPACED   KIND
configmaps                        cm           v1                                true         ConfigMap
nodes                             no           v1                                false        Node
pods                              po           v1                                true         Pod
replicationcontrollers            rc           v1                                true         ReplicationController
daemonsets                        ds           apps/v1                           true         DaemonSet
deployments                       deploy       apps/v1                           true         Deployment
replicasets                       rs           apps/v1                           true         ReplicaSet
statefulsets                      sts          apps/v1                           true         StatefulSet
cronjobs                          cj           batch/v1                          true         CronJob
jobs                                           batch/v1                          true         Job
clusterpolicies                   cpol         kyverno.io/v1                     false        ClusterPolicy
clusterpolicies                                nvidia.com/v1                     false        ClusterPolicy
nvidiadrivers                     nvd          nvidia.com/v1alpha1               false        NVIDIADriver
runtimeclasses                                 node.k8s.io/v1                    false        RuntimeClass
"""
#: what the plugin asks ``kubectl get`` for, in api-resources' order (not Kyverno's ClusterPolicy); ConfigMaps are
#: asked by name (only KubeVirt's legacy kubevirt-config is read), in a call of their own
FETCHED = (
    "nodes,pods,replicationcontrollers,daemonsets.apps,deployments.apps,replicasets.apps,statefulsets.apps,"
    "cronjobs.batch,jobs.batch,clusterpolicies.nvidia.com,runtimeclasses.node.k8s.io"
)
REFUSED = "The connection to the server 127.0.0.1:6443 was refused - did you specify the right host or port?\n"
FORBIDDEN = (
    'Error from server (Forbidden): pods is forbidden: User "dev" cannot list resource "pods" in API group "" '
    "at the cluster scope\n"
)
PARTIAL = (
    "error: unable to retrieve the complete list of server APIs: metrics.k8s.io/v1beta1: "
    "the server is currently unable to handle the request\n"
)

STAND_IN = """\
#!{python}
# A stand-in kubectl: records its arguments, answers from <verb>.out/.err/.status beside it.
import json, pathlib, sys
here = pathlib.Path(__file__).parent
with open(here / "calls.jsonl", "a") as log:
    log.write(json.dumps(sys.argv[1:]) + "\\n")
verb = next(a for a in sys.argv[1:] if a in ("api-resources", "get"))
if verb == "get":  # an answer for one type alone, where get-<types>.* is beside it
    types = sys.argv[sys.argv.index("get") + 1]
    if any((here / f"get-{{types}}.{{n}}").exists() for n in ("out", "err", "status")):
        verb = f"get-{{types}}"
if any(a.startswith("--field-selector") for a in sys.argv[1:]):
    verb = "get-named"
    if not (here / "get-named.out").exists():
        sys.stdout.write('{{"apiVersion": "v1", "kind": "List", "items": []}}')
for name, stream in (("out", sys.stdout.buffer), ("err", sys.stderr.buffer)):
    part = here / f"{{verb}}.{{name}}"
    if part.exists():
        stream.write(part.read_bytes())
status = here / f"{{verb}}.status"
sys.exit(int(status.read_text()) if status.exists() else 0)
"""


class Kubectl:
    """The stand-in's folder: what it answers, and the calls it got."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def answer(self, verb: str, out: str | bytes = "", err: str = "", status: int = 0) -> None:
        (self.folder / f"{verb}.out").write_bytes(out.encode() if isinstance(out, str) else out)
        (self.folder / f"{verb}.err").write_text(err)
        (self.folder / f"{verb}.status").write_text(str(status))

    @property
    def calls(self) -> list[list[str]]:
        log = self.folder / "calls.jsonl"
        return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def lab_list() -> bytes:
    """The lab as ``kubectl get ... -o json`` prints several types: one ``List``."""
    items = [d for d in yaml.safe_load_all(LAB.read_text()) if d]
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": items, "metadata": {"resourceVersion": ""}}).encode()


@pytest.fixture()
def kubectl(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Kubectl:
    folder = tmp_path / "bin"
    folder.mkdir()
    script = folder / "kubectl"
    script.write_text(STAND_IN.format(python=sys.executable))
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}:/usr/bin:/bin")
    stand_in = Kubectl(folder)
    stand_in.answer("api-resources", API_RESOURCES)
    stand_in.answer("get", lab_list())
    return stand_in


def plugin(*args: str) -> Result:
    return CliRunner().invoke(command, list(args), prog_name="kubectl verdict", catch_exceptions=False)


def test_kinds_read_are_what_the_builtin_pack_matches_and_reads() -> None:
    assert [str(k) for k in kinds_read(load_policies())] == [
        "ClusterPolicy (nvidia.com/*)",
        "ConfigMap",
        "CronJob",
        "DaemonSet",
        "Deployment",
        "HyperConverged (hco.kubevirt.io/*)",
        "Job",
        "KubeVirt (kubevirt.io/*)",
        "Node",
        "Pod",
        "ReplicaSet",
        "ReplicationController",
        "RuntimeClass (node.k8s.io/*)",
        "StatefulSet",
        "VirtualMachine (kubevirt.io/*)",
        "VirtualMachineInstance (kubevirt.io/*)",
    ]


def test_a_kind_read_only_by_exact_name_is_fetched_by_name(load_policy: Callable[..., Any]) -> None:
    def pack(match: dict[str, Any], context: dict[str, Any]) -> Any:
        rule = make_rule({"context": "cm", "exists": True}, match=match)
        return load_policy(make_policy([rule], context={"cm": context}))

    by_name = {"kind": "ConfigMap", "path": "$.metadata.name", "where": {"field": "$.metadata.name", "equals": "a"}}
    # The built-in pack reads only KubeVirt's legacy ConfigMap: every ConfigMap of a cluster is not fetched.
    assert {k.kind: k.names for k in kinds_read(load_policies())}["ConfigMap"] == ("kubevirt-config",)
    read = kinds_read(pack({"kinds": ["ConfigMap"], "names": ["b"]}, by_name))
    assert [(k.kind, k.names) for k in read] == [("ConfigMap", ("a", "b"))]
    # A glob in match.names, a rule matching the kind without names, or a context joined on another field:
    # every object of the kind.
    assert kinds_read(pack({"kinds": ["ConfigMap"], "names": ["kube*"]}, by_name))[0].names == ()
    assert kinds_read(pack({"kinds": ["ConfigMap"]}, by_name))[0].names == ()
    other = {**by_name, "where": {"field": "$.metadata.namespace", "equals": "a"}}
    assert kinds_read(pack({"kinds": ["ConfigMap"], "names": ["b"]}, other))[0].names == ()


def test_objects_fetched_by_name_join_the_dump(kubectl: Kubectl) -> None:
    config = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "kubevirt-config", "namespace": "kubevirt"},
        "data": {"feature-gates": "GPU"},
    }
    kubectl.answer("get-named", json.dumps({"apiVersion": "v1", "kind": "List", "items": [config]}))
    res = plugin("-A", "--results", "fail")
    assert kubectl.calls[-1] == ["get", "configmaps", "-A", "--field-selector=metadata.name=kubevirt-config", "-o", "json"]
    report = json.loads(res.stdout)
    assert report["summary"]["objectsRead"] == 20  # the lab's 19 and the ConfigMap
    assert any(o["kind"] == "ConfigMap" and o["name"] == "kubevirt-config" for o in report["objects"]), report["objects"]


@pytest.mark.parametrize("operator", ["schedulable", "toleratesNodes"])
def test_a_rule_backed_by_the_scheduler_model_reads_nodes_and_pods(operator: str, load_policy: Callable[..., Any]) -> None:
    policies = load_policy(make_policy([make_rule({operator: {}}, match={"kinds": ["DaemonSet"]})]))
    assert [str(k) for k in kinds_read(policies)] == ["DaemonSet", "Node", "Pod"]


def test_api_resources_rows_are_read_with_and_without_short_names() -> None:
    rows = parse_api_resources(API_RESOURCES)
    assert len(rows) == 14
    jobs, kyverno, nvidia = rows[9], rows[10], rows[11]
    assert (jobs.name, jobs.api_version, jobs.namespaced, jobs.kind, jobs.argument) == (
        "jobs",
        "batch/v1",
        True,
        "Job",
        "jobs.batch",
    )
    assert KindRead("ClusterPolicy", "nvidia.com/*").served_by(nvidia)
    assert not KindRead("ClusterPolicy", "nvidia.com/*").served_by(kyverno)
    assert (rows[1].argument, rows[1].namespaced) == ("nodes", False)


def test_the_plugin_fetches_what_the_pack_reads_and_audits_it(kubectl: Kubectl) -> None:
    res = plugin("--context", "lab", "-n", "ml", "-r", "gpu-pods/workload-schedulable", "--results", "fail")
    assert res.exit_code == 1, res.stderr
    assert kubectl.calls == [
        ["--context=lab", "api-resources", "--verbs=list"],
        ["--context=lab", "get", FETCHED, "-n", "ml", "-o", "json"],
        ["--context=lab", "get", "configmaps", "-n", "ml", "--field-selector=metadata.name=kubevirt-config", "-o", "json"],
    ]
    report = json.loads(res.stdout)
    assert [(o["kind"], o["namespace"], o["name"], o["verdict"]) for o in report["objects"]] == [
        ("Pod", "ml", "cuda-on-passthrough-node", "fail")
    ]
    assert report["summary"]["objectsRead"] == 19
    # named after what it read, and what it ran said (trial 85: "<stdin>", and no word of the commands)
    assert report["objects"][0]["source"]["file"] == "kubectl get --context=lab -n ml"
    assert (
        f"kubectl verdict: ran kubectl --context=lab get {FETCHED} -n ml -o json\n"
        "kubectl verdict: ran kubectl --context=lab get configmaps -n ml --field-selector=metadata.name=kubevirt-config"
        " -o json\n"
    ) in res.stderr
    quiet = plugin("--context", "lab", "-q", "--fail-on", "never")
    assert "kubectl verdict: ran" not in quiet.stderr and "kubectl verdict: note:" not in quiet.stderr
    note = (
        "kubectl verdict: note: the cluster serves no HyperConverged (hco.kubevirt.io/*), KubeVirt (kubevirt.io/*), "
        "VirtualMachine (kubevirt.io/*), VirtualMachineInstance (kubevirt.io/*): not fetched\n"
    )
    assert note in res.stderr


def test_the_plugin_gives_the_same_verdicts_as_an_audit_of_the_dump(kubectl: Kubectl, tmp_path: Path) -> None:
    from rules.cli import main

    via_kubectl = plugin("--kubeconfig", "/etc/lab.conf", "--as", "admin", "--as-group", "ops", "--fail-on", "never")
    assert via_kubectl.exit_code == 0, via_kubectl.stderr
    assert kubectl.calls[1] == ["--kubeconfig=/etc/lab.conf", "--as=admin", "--as-group=ops", "get", FETCHED, "-A", "-o", "json"]
    dump = tmp_path / "lab.json"
    dump.write_bytes(lab_list())
    direct = CliRunner().invoke(main, ["audit", str(dump), "--fail-on", "never"], catch_exceptions=False)

    def verdicts(text: str) -> dict[str, Any]:
        return {f"{o['kind']}/{o['namespace']}/{o['name']}": o["verdict"] for o in json.loads(text)["objects"]}

    assert verdicts(via_kubectl.stdout) == verdicts(direct.stdout)
    assert verdicts(via_kubectl.stdout)["Pod/ml/cuda-on-passthrough-node"] == "fail"


def test_the_format_and_an_output_file_pass_through(kubectl: Kubectl, tmp_path: Path) -> None:
    out = tmp_path / "audit.yaml"
    res = plugin("-f", "yaml", "-o", str(out), "-r", "gpu-pods/workload-schedulable", "--results", "fail")
    assert (res.exit_code, res.stdout) == (1, "")
    report = yaml.safe_load(out.read_text())
    assert [(o["name"], o["results"][0]["rule"], o["verdict"]) for o in report["objects"]] == [
        ("cuda-on-passthrough-node", "workload-schedulable", "fail")
    ]


def test_no_cluster_exits_2_with_kubectls_message_and_no_report(kubectl: Kubectl) -> None:
    kubectl.answer("api-resources", "", REFUSED, 1)
    res = plugin(*SMALL, "-f", "table")
    assert (res.exit_code, res.stdout) == (2, "")
    assert res.stderr == REFUSED + (
        "kubectl verdict: kubectl api-resources failed (exit 1): is the cluster reachable with these credentials?\n"
    )
    assert len(kubectl.calls) == 1  # no get after a failed api-resources


def test_an_unknown_context_is_not_asked_whether_the_cluster_is_reachable(kubectl: Kubectl) -> None:
    """Trial 104: kubectl's 'context "my-cluster" does not exist' was followed by "is the cluster reachable with these
    credentials?", a question about something else: where kubectl names the cause, the plugin points to it."""
    unknown = 'error: context "my-cluster" does not exist\n'
    kubectl.answer("api-resources", "", unknown, 1)
    res = plugin(*SMALL, "--context", "my-cluster")
    assert (res.exit_code, res.stdout) == (2, "")
    assert res.stderr == unknown + "kubectl verdict: kubectl api-resources failed (exit 1): see its error above\n"


def test_api_resources_that_lists_nothing_with_exit_0_is_not_called_a_failure(kubectl: Kubectl) -> None:
    kubectl.answer("api-resources", "", "", 0)
    res = plugin(*SMALL)
    assert (res.exit_code, res.stdout) == (2, "")
    assert res.stderr == "kubectl verdict: kubectl api-resources listed no resource type: the cluster serves nothing to fetch\n"
    assert len(kubectl.calls) == 1


def test_api_resources_failing_with_no_message_says_its_exit(kubectl: Kubectl) -> None:
    kubectl.answer("api-resources", "", "", 1)
    res = plugin(*SMALL)
    assert (res.exit_code, res.stdout) == (2, "")
    assert res.stderr == (
        "kubectl verdict: kubectl api-resources failed (exit 1): is the cluster reachable with these credentials?\n"
    )


def test_a_refused_get_exits_2_never_a_clean_audit(kubectl: Kubectl) -> None:
    kubectl.answer("get", "", FORBIDDEN, 1)
    res = plugin(*SMALL, "--user", "dev")
    assert (res.exit_code, res.stdout) == (2, "")
    assert res.stderr.endswith(
        FORBIDDEN
        + "kubectl verdict: kubectl get failed (exit 1) (the API server refuses every type these credentials asked for)\n"
    )


def test_types_rbac_refuses_are_left_out_with_a_note_and_the_rest_audited(kubectl: Kubectl) -> None:
    """Trial 88: a user who may list only their namespace's objects got "kubectl get failed" for the whole pack,
    because one get of every type fails on the nodes it may not list."""
    nodes_forbidden = (
        'Error from server (Forbidden): nodes is forbidden: User "dev" cannot list resource "nodes" in API group "" at'
        " the cluster scope\n"
    )
    kubectl.answer("get", "", nodes_forbidden, 1)  # the get of every type at once
    # review: kubectl may print a warning before the refusal; the note names the refusal
    memcache = "E0312 10:01:02.123456   4242 memcache.go:265] couldn't get current server API group list\n"
    for forbidden in ("nodes", "clusterpolicies.nvidia.com", "runtimeclasses.node.k8s.io"):
        kubectl.answer(f"get-{forbidden}", "", memcache + nodes_forbidden.replace("nodes", forbidden.split(".")[0]), 1)
    lab = json.loads(lab_list())
    pods = [o for o in lab["items"] if o["kind"] == "Pod" and o["metadata"].get("namespace") == "ml"]
    kubectl.answer("get-pods", json.dumps({"apiVersion": "v1", "kind": "List", "items": pods}).encode())
    for other in FETCHED.split(","):
        if other not in ("nodes", "pods", "clusterpolicies.nvidia.com", "runtimeclasses.node.k8s.io"):
            kubectl.answer(f"get-{other}", b'{"apiVersion": "v1", "kind": "List", "items": []}')
    res = plugin("-n", "ml", "--results", "fail,warn")
    gets = [c for c in kubectl.calls if "get" in c and not any(a.startswith("--field-selector") for a in c)]
    assert gets[0] == ["get", FETCHED, "-n", "ml", "-o", "json"]
    assert [c[1] for c in gets[1:]] == FETCHED.split(",")
    assert "verdict: note: not fetched: Error from server (Forbidden): nodes is forbidden: User" in res.stderr
    assert "not fetched: E0312" not in res.stderr
    assert "verdict: note: not fetched: Error from server (Forbidden): clusterpolicies is forbidden" in res.stderr
    assert "kubectl verdict: ran kubectl get pods -n ml -o json\n" in res.stderr
    assert "kubectl verdict: ran kubectl get nodes" not in res.stderr
    report = json.loads(res.stdout)
    assert report["summary"]["objectsRead"] == len(pods) > 0
    assert {o["kind"] for o in report["objects"]} == {"Pod"}
    # trial 89: the report itself says which kinds were left out (a file saved with -o, a chat message)
    refused = [n for n in report["notes"] if n.startswith("not fetched: ")]
    assert [n.split("(Forbidden): ")[1].split(" is forbidden")[0] for n in refused] == [
        "nodes",
        "clusterpolicies",
        "runtimeclasses",
    ]
    # -q keeps them off standard error, not out of the report
    quiet = plugin("-n", "ml", "-q")
    assert "not fetched" not in quiet.stderr
    assert any(n.startswith("not fetched: Error from server (Forbidden): nodes") for n in json.loads(quiet.stdout)["notes"])


def test_an_api_group_that_does_not_answer_is_noted_and_the_rest_audited(kubectl: Kubectl) -> None:
    kubectl.answer("api-resources", API_RESOURCES, PARTIAL, 1)
    res = plugin(*SMALL)
    assert res.exit_code == 1
    assert kubectl.calls[1] == ["get", "nodes", "-A", "-o", "json"]
    assert f"kubectl verdict: note: kubectl api-resources: {PARTIAL.strip()}\n" in res.stderr
    assert json.loads(res.stdout)["summary"]["objectsRead"] == 19


def test_a_cluster_serving_none_of_the_kinds_exits_2(kubectl: Kubectl) -> None:
    kubectl.answer("api-resources", API_RESOURCES.splitlines()[0] + "\nconfigmaps  cm  v1  true  ConfigMap\n")
    res = plugin(*SMALL)
    assert res.exit_code == 2
    assert res.stderr.endswith("kubectl verdict: the cluster serves none of the kinds the policies read; nothing to audit\n")
    assert len(kubectl.calls) == 1


def test_policies_that_name_no_kind_exit_2_before_kubectl_is_asked(kubectl: Kubectl, tmp_path: Path) -> None:
    policy = tmp_path / "any.yaml"
    policy.write_text(
        "apiVersion: verdict/v1\nkind: Policy\nmetadata: {name: labelled}\nspec:\n  rules:\n  - id: has-labels\n"
        "    title: every object has labels\n    match: {kinds: ['*']}\n"
        "    assert: {path: $.metadata.labels, exists: true}\n    message: '{kind} {name} has no labels'\n"
        "    references: [https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/]\n"
    )
    res = plugin("-p", str(policy))
    assert (res.exit_code, kubectl.calls) == (2, [])
    assert res.stderr == (
        "kubectl verdict: the policies name no kind to fetch (kinds: ['*'] matches any): pipe kubectl get to verdict audit -\n"
    )


def test_an_empty_list_is_not_a_clean_cluster(kubectl: Kubectl) -> None:
    kubectl.answer("get", json.dumps({"apiVersion": "v1", "kind": "List", "items": []}))
    res = plugin(*SMALL)
    assert res.exit_code == 2
    assert json.loads(res.stdout)["summary"]["objectsRead"] == 0  # a JSON report of nothing, never a clean one
    assert "verdict: no Kubernetes object found in kubectl get -A" in res.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-o", "table"], "-o names the report's file, not its format: -f table (or -o table.out for a file)"),
        (["lab.yaml"], "kubectl verdict audits the cluster, not lab.yaml (for files: verdict audit PATH)"),
        (["-n", "ml", "-A"], "-n/--namespace and -A/--all-namespaces: give one"),
        (["-f", "pdf"], "Invalid value for '-f' / '--format': 'pdf' is not one of"),
    ],
)
def test_bad_arguments_exit_2_before_kubectl_is_asked(kubectl: Kubectl, args: list[str], message: str) -> None:
    res = plugin(*args)
    assert res.exit_code == 2
    assert message in res.stderr
    assert kubectl.calls == []


def test_without_kubectl_on_path_it_says_so(kubectl: Kubectl, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    res = plugin(*SMALL)
    assert (res.exit_code, res.stderr) == (2, "kubectl verdict: neither kubectl nor oc is on PATH\n")


def test_with_oc_alone_on_path_it_asks_oc(kubectl: Kubectl, monkeypatch: pytest.MonkeyPatch) -> None:
    """Trial 53: an OpenShift bastion with oc and no kubectl stopped with "kubectl is not on PATH"; oc serves the
    same get and api-resources."""
    (kubectl.folder / "kubectl").rename(kubectl.folder / "oc")
    monkeypatch.setenv("PATH", str(kubectl.folder))
    res = plugin(*SMALL)
    assert res.exit_code in (0, 1), res.stderr
    assert [call[0] for call in kubectl.calls][:2] == ["api-resources", "get"]
    # its failures are said as oc's (trial 54: "kubectl api-resources failed")
    kubectl.answer("api-resources", "", "error: You must be logged in to the server (Unauthorized)", 1)
    res = plugin(*SMALL)
    assert res.exit_code == 2 and "kubectl verdict: oc api-resources failed (exit 1)" in res.stderr


def test_a_match_of_several_kinds_and_groups_pairs_each_kind_with_its_own_group(load_policy: Callable[..., Any]) -> None:
    """The permittedHostDevices rules match KubeVirt and HyperConverged in kubevirt.io/* and hco.kubevirt.io/*: the
    plugin asked the cluster for HyperConverged in kubevirt.io and KubeVirt in hco.kubevirt.io, which no cluster
    serves, and said so in a note. A kind the pack reads elsewhere in one of the groups is fetched in that one."""
    match = {"kinds": ["KubeVirt", "HyperConverged"], "apiVersions": ["kubevirt.io/*", "hco.kubevirt.io/*"]}
    contexts = {
        "kv": {"kind": "KubeVirt", "apiVersion": "kubevirt.io/*", "path": "$.metadata.name"},
        "hco": {"kind": "HyperConverged", "apiVersion": "hco.kubevirt.io/*", "path": "$.metadata.name"},
    }
    rule = make_rule({"context": "kv", "exists": True}, match=match)
    assert [str(k) for k in kinds_read(load_policy(make_policy([rule], context=contexts)))] == [
        "HyperConverged (hco.kubevirt.io/*)",
        "KubeVirt (kubevirt.io/*)",
    ]
    # read nowhere else: every pair, as before
    alone = make_rule({"path": "$.metadata.name", "exists": True}, match=match)
    assert len(kinds_read(load_policy(make_policy([alone])))) == 4


def test_an_option_the_plugin_does_not_take_is_said_as_the_plugin_s(kubectl: Kubectl) -> None:
    """Trial 139: kubectl's --server was refused under verdict audit's synopsis ("kubectl verdict [OPTIONS] PATHS...",
    which the plugin does not take) with "did you mean --min-severity, --selector"; it says what the plugin passes to
    kubectl and where another setting goes, before kubectl is asked anything."""
    res = plugin("--server", "http://127.0.0.1:6443", "-f", "table")
    assert res.exit_code == 2
    assert "PATHS" not in res.stderr and "Did you mean" not in res.stderr
    assert res.stderr.splitlines()[-1] == (
        "Error: no such option: --server. kubectl verdict passes --context, --kubeconfig, --cluster, --user, --as,"
        " --as-group, --request-timeout and -n/-A to kubectl (another kubectl setting, such as the server, goes in a"
        " kubeconfig or context), and takes verdict audit's report options (verdict audit --help)"
    )
    assert kubectl.calls == []
    # trial 140: a typo of an option it takes keeps its "did you mean"
    # trial 141: the plugin's own options too, the closest only
    for typo, meant in (("--reults", "--results"), ("--contxt", "--context"), ("--all-namespace", "--all-namespaces")):
        res = plugin(typo, "x")
        assert (res.exit_code, res.stderr.splitlines()[-1]) == (2, f"Error: no such option: {typo}; did you mean {meant}?")


def test_no_kubeconfig_and_a_404_from_localhost_is_said_so(
    kubectl: Kubectl, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Trial 156: with no kubeconfig, kubectl asks localhost:8080, where verdict's own service (make run) answered 404:
    the plugin asked whether the cluster was reachable with these credentials."""
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.kube/config
    notfound = "Error from server (NotFound): the server could not find the requested resource\n"
    kubectl.answer("api-resources", "", notfound, 1)
    res = plugin(*SMALL)
    assert (res.exit_code, res.stdout) == (2, "")
    assert res.stderr == notfound + (
        "kubectl verdict: kubectl api-resources failed (exit 1): kubectl has no cluster configured (no KUBECONFIG, no"
        " ~/.kube/config), so it asked localhost:8080, where something that is no Kubernetes API server answered"
        " (verdict serve listens there by default)\n"
    )
    # with a kubeconfig, the question about the cluster stays
    (tmp_path / ".kube").mkdir()
    (tmp_path / ".kube" / "config").write_text("apiVersion: v1\nkind: Config\n")
    assert plugin(*SMALL).stderr.endswith("is the cluster reachable with these credentials?\n")


def test_a_configmap_the_clusterpolicy_names_is_fetched_in_a_second_pass(kubectl: Kubectl) -> None:
    """Trial 213: the device-plugin ConfigMap a ClusterPolicy names (spec.devicePlugin.config.name) was never fetched,
    so a node selecting an entry it lacks came back clean through kubectl verdict. Its name is known once the dump is
    read: a second call fetches it by name, and the rule judges the node."""
    policy = {
        "apiVersion": "nvidia.com/v1",
        "kind": "ClusterPolicy",
        "metadata": {"name": "cluster-policy"},
        "spec": {"devicePlugin": {"config": {"name": "ts-config", "default": "any"}}},
        "status": {"state": "ready", "namespace": "gpu-operator"},
    }
    labels = {
        "nvidia.com/gpu.present": "true",
        "nvidia.com/gpu.deploy.device-plugin": "true",
        "nvidia.com/device-plugin.config": "tesla_t4",
    }
    node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "t4-1", "labels": labels},
        "status": {"capacity": {"nvidia.com/gpu": "1"}, "allocatable": {"nvidia.com/gpu": "1"}},
    }
    config = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "ts-config", "namespace": "gpu-operator"},
        "data": {"any": "version: v1\n", "tesla-t4": "version: v1\n"},
    }
    kubectl.answer("get", json.dumps({"apiVersion": "v1", "kind": "List", "items": [policy, node]}))
    kubectl.answer("get-named", json.dumps({"apiVersion": "v1", "kind": "List", "items": [config]}))
    res = plugin("-A", "-r", "gpu-nodes/device-plugin-config-defined", "--results", "fail")
    assert kubectl.calls[-1] == ["get", "configmaps", "-A", "--field-selector=metadata.name=ts-config", "-o", "json"]
    assert "kubectl verdict: ran kubectl get configmaps -A --field-selector=metadata.name=ts-config -o json" in res.stderr
    report = json.loads(res.stdout)
    assert [(o["name"], o["verdict"]) for o in report["objects"]] == [("t4-1", "fail")], report["objects"]


def test_the_second_pass_resolves_only_names_of_kinds_not_fetched_whole_and_a_constant_name_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Re-read of trial 213's second pass: it resolved every context joined on a name, the Node each Pod is bound to
    among them, on every object of the dump (a 12,000-object dump gave back every Node's and VMI's name, in 4.5 s of
    CPU, for types fetched whole already). Only the kinds fetched by name are resolved, and a name the same for every
    object (the ConfigMap a ClusterPolicy names) on one object."""
    import rules.scope
    from rules.kubectl import names_the_dump_gives

    policy = {
        "apiVersion": "nvidia.com/v1",
        "kind": "ClusterPolicy",
        "metadata": {"name": "cluster-policy"},
        "spec": {"devicePlugin": {"config": {"name": "ts-config", "default": "any"}}},
    }
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "t4-1", "labels": {"nvidia.com/gpu.present": "true"}}}
    pods = [
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i}", "namespace": "a"}, "spec": {"nodeName": "t4-1"}}
        for i in range(50)
    ]
    data = json.dumps({"apiVersion": "v1", "kind": "List", "items": [policy, node, *pods]}).encode()
    pack = load_policies()
    built: list[object] = []

    class Counted(rules.scope.Scope):
        def __init__(self, *args: Any) -> None:
            built.append(args[0])
            super().__init__(*args)

    monkeypatch.setattr(rules.scope, "Scope", Counted)
    names = names_the_dump_gives(pack, data, lambda read: read.kind == "ConfigMap")
    assert [(kind, name) for kind, _, name in names] == [("ConfigMap", "ts-config")]
    joined = [c for p in pack.policies for c in p.contexts.values() if c.kind == "ConfigMap" and c.where_value is not None]
    assert 0 < len(built) <= len(joined) < 10, (len(built), len(joined))
    # every kind wanted: the Node the pods name is one of them (what the plugin's filter leaves out)
    built.clear()
    assert ("Node", "", "t4-1") in names_the_dump_gives(pack, data)
    assert len(built) > len(pods)
