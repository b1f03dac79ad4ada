"""What a rule name means is decided in one place (``PolicySet.select``/``PolicySet.rule``): a bare rule id
that several policies use is an error listing them, everywhere (``-r``, ``rule=`` on ``POST /v1/evaluate``,
``GET /v1/rules/<id>``), and an unknown name gets the same reason from each."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from flask.testing import FlaskClient

from api import create_app
from rules.cli import main
from rules.errors import RuleLookupError
from rules.loader import PolicySet, load_policies

LAB = Path(__file__).resolve().parent.parent / "examples" / "lab-cluster.yaml"
BOTH = ("gpu-pods/workload-schedulable", "kubevirt-vms/workload-schedulable")
AMBIGUOUS = f"rule id 'workload-schedulable' is ambiguous: {', '.join(BOTH)}; name one as policy/rule"
TYPO = "no rule named 'workload-label-vaild'; did you mean 'gpu-nodes/workload-label-valid'?"
UNKNOWN = "no rule named 'nope'; name a rule as policy/rule, e.g. gpu-clusterpolicy/sandbox-operands-enabled"


@pytest.fixture(scope="module")
def builtin() -> PolicySet:
    return load_policies()


@pytest.fixture(scope="module")
def client() -> FlaskClient:
    return create_app({}).test_client()


def test_policy_set_refuses_an_ambiguous_bare_id_with_its_candidates(builtin: PolicySet) -> None:
    with pytest.raises(RuleLookupError) as info:
        builtin.select(rules=["workload-schedulable"])
    [problem] = info.value.problems
    assert (problem.name, problem.reason, problem.candidates) == ("workload-schedulable", AMBIGUOUS, BOTH)
    with pytest.raises(RuleLookupError) as info:
        builtin.rule("workload-schedulable")
    assert str(info.value) == AMBIGUOUS
    # Named as policy/rule, or narrowed by the policy, it is one rule.
    assert [r.uid for r in builtin.select(rules=[BOTH[1]]).rules] == [BOTH[1]]
    assert [r.uid for r in builtin.select(policies=["gpu-pods"], rules=["workload-schedulable"]).rules] == [BOTH[0]]
    assert builtin.rule(BOTH[0]).uid == BOTH[0]
    assert builtin.rule("workload-label-valid").uid == "gpu-nodes/workload-label-valid"


def test_unknown_names_say_the_closest_rule_or_the_form(builtin: PolicySet) -> None:
    with pytest.raises(RuleLookupError) as info:
        builtin.select(rules=["workload-label-vaild", "nope", "gpu-nodes/workload-label-valid"])
    assert [(p.name, p.reason, p.candidates) for p in info.value.problems] == [
        ("workload-label-vaild", TYPO, ()),
        ("nope", UNKNOWN, ()),
    ]
    assert str(info.value) == f"{TYPO}\n{UNKNOWN}"


def test_cli_rule_option_refuses_an_ambiguous_id_and_reports_nothing() -> None:
    """Regression: ``-r workload-schedulable`` silently ran both policies' rules."""
    res = CliRunner().invoke(main, ["audit", str(LAB), "-r", "workload-schedulable"])
    assert res.exit_code == 2
    assert res.stdout == ""
    assert f"Error: Invalid value for --rule: {AMBIGUOUS}\n" in res.stderr
    res = CliRunner().invoke(main, ["audit", str(LAB), "-r", "nope"])
    assert (res.exit_code, res.stdout) == (2, "")
    assert f"Error: Invalid value for --rule: {UNKNOWN}\n" in res.stderr
    one = CliRunner().invoke(main, ["audit", str(LAB), "-r", BOTH[0], "--format", "json"])
    assert one.exit_code == 1 and '"rule":"workload-schedulable"' in one.stdout and "kubevirt-vms" not in one.stdout


def test_evaluate_rule_query_refuses_an_ambiguous_id_with_candidates(client: FlaskClient) -> None:
    """Regression: ``?rule=workload-schedulable`` silently ran both policies' rules."""
    resp = client.post("/v1/evaluate?rule=workload-schedulable", data=LAB.read_bytes(), content_type="application/yaml")
    body = resp.get_json()
    assert (resp.status_code, resp.mimetype, body["type"]) == (
        400,
        "application/problem+json",
        "https://verdict.dev/problems/invalid-query",
    )
    assert body["detail"] == f"rule: {AMBIGUOUS}"
    assert body["errors"] == [{"parameter": "rule", "reason": AMBIGUOUS}]
    assert body["candidates"] == list(BOTH)
    narrowed = client.post(
        "/v1/evaluate?policy=gpu-pods&rule=workload-schedulable", data=LAB.read_bytes(), content_type="application/yaml"
    )
    assert narrowed.status_code == 200
    assert {r["policy"] for o in narrowed.get_json()["objects"] for r in o["results"]} == {"gpu-pods"}


def test_rules_route_says_the_same_reason(client: FlaskClient) -> None:
    body = client.get("/v1/rules/workload-schedulable").get_json()
    assert (body["status"], body["detail"], body["candidates"]) == (404, AMBIGUOUS, list(BOTH))
    assert client.get(f"/v1/rules/{BOTH[1]}").status_code == 200


@pytest.mark.parametrize(("name", "reason"), [("nope", UNKNOWN), ("workload-label-vaild", TYPO)])
def test_an_unknown_rule_has_one_reason_on_every_route(client: FlaskClient, name: str, reason: str) -> None:
    """Regression: evaluate said "no rule named nope; see GET /v1/policies" with the item reason "unknown nope",
    /v1/rules said "no rule 'nope'; name it policy/rule ..."."""
    evaluated = client.post(f"/v1/evaluate?rule={name}", data=LAB.read_bytes(), content_type="application/yaml").get_json()
    assert (evaluated["status"], evaluated["detail"], evaluated["errors"]) == (
        400,
        f"rule: {reason}",
        [{"parameter": "rule", "reason": reason}],
    )
    assert "candidates" not in evaluated
    looked_up = client.get(f"/v1/rules/{name}").get_json()
    assert (looked_up["status"], looked_up["detail"], "candidates" in looked_up) == (404, reason, False)
    cli = CliRunner().invoke(main, ["audit", str(LAB), "-r", name])
    assert f"Error: Invalid value for --rule: {reason}\n" in cli.stderr


def rules_reported(report_json: str) -> set[str]:
    import json

    return {f"{r['policy']}/{r['rule']}" for o in json.loads(report_json)["objects"] for r in o["results"]}


def test_skipped_rules_are_left_out_and_named_as_rule_names_them(builtin: PolicySet) -> None:
    every = {r.uid for r in builtin.rules}
    assert {r.uid for r in builtin.select(skip=[BOTH[0]]).rules} == every - {BOTH[0]}
    # a bare id one policy uses; with a policy chosen, the ambiguous id is that policy's rule
    assert {r.uid for r in builtin.select(skip=["workload-label-valid"]).rules} == every - {"gpu-nodes/workload-label-valid"}
    chosen = builtin.select(policies=["gpu-pods"], skip=["workload-schedulable"])
    assert BOTH[0] not in {r.uid for r in chosen.rules} and {r.policy for r in chosen.rules} == {"gpu-pods"}
    # -r less --skip-rule; named stays about -r (a named rule that matches nothing gets a note)
    both = builtin.select(rules=list(BOTH), skip=[BOTH[1]])
    assert ([r.uid for r in both.rules], both.named) == ([BOTH[0]], True)
    assert builtin.select(skip=[BOTH[1]]).named is False
    with pytest.raises(RuleLookupError) as info:
        builtin.select(skip=["workload-schedulable", "nope"])
    assert [(p.name, p.reason) for p in info.value.problems] == [("workload-schedulable", AMBIGUOUS), ("nope", UNKNOWN)]


def test_cli_skip_rule_leaves_a_rule_out_of_the_report() -> None:
    whole = CliRunner().invoke(main, ["audit", str(LAB), "--fail-on", "never"])
    skipped = CliRunner().invoke(main, ["audit", str(LAB), "--fail-on", "never", "--skip-rule", BOTH[0]])
    assert (whole.exit_code, skipped.exit_code) == (0, 0)
    assert BOTH[0] in rules_reported(whole.stdout)
    assert rules_reported(skipped.stdout) == rules_reported(whole.stdout) - {BOTH[0]}
    # the report says what it leaves out (a new user's trial: the summary read like a whole audit)
    assert f"verdict: note: rules left out by name (--skip-rule, skipRule=): {BOTH[0]}\n" in skipped.stderr
    assert "left out" not in whole.stderr
    res = CliRunner().invoke(main, ["audit", str(LAB), "--skip-rule", "workload-label-vaild"])
    assert (res.exit_code, res.stdout) == (2, "")
    assert f"Error: Invalid value for --skip-rule: {TYPO}\n" in res.stderr
    res = CliRunner().invoke(main, ["audit", str(LAB), "-r", BOTH[0], "--skip-rule", BOTH[0]])
    assert (res.exit_code, res.stdout) == (2, "")
    assert "Error: Invalid value for --skip-rule: leaves no rule to judge\n" in res.stderr


def test_evaluate_skip_rule_query_leaves_a_rule_out(client: FlaskClient) -> None:
    import json

    resp = client.post(f"/v1/evaluate?skipRule={BOTH[0]},{BOTH[1]}", data=LAB.read_bytes(), content_type="application/yaml")
    assert resp.status_code == 200
    whole = client.post("/v1/evaluate", data=LAB.read_bytes(), content_type="application/yaml")
    assert rules_reported(resp.get_data(as_text=True)) == rules_reported(whole.get_data(as_text=True)) - set(BOTH)
    assert json.loads(resp.get_data())["summary"] != json.loads(whole.get_data())["summary"]
    assert f"rules left out by name (--skip-rule, skipRule=): {BOTH[0]}, {BOTH[1]}" in json.loads(resp.get_data())["notes"]
    bad = client.post("/v1/evaluate?skipRule=nope", data=LAB.read_bytes(), content_type="application/yaml").get_json()
    assert (bad["status"], bad["detail"]) == (400, f"skipRule: {UNKNOWN}")
    assert bad["errors"] == [{"parameter": "skipRule", "reason": UNKNOWN}]
    none = client.post(
        f"/v1/evaluate?rule={BOTH[0]}&skipRule={BOTH[0]}", data=LAB.read_bytes(), content_type="application/yaml"
    ).get_json()
    assert (none["status"], none["detail"]) == (400, "policy, rule and skipRule select no rule together")
