"""The README says what the tool does: its sample finding is the real output of the command it names, and
its table of ``verdict audit`` options lists every option the command has."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from rules.cli import audit, main

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_sample_finding_is_what_its_command_prints(monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: the sample was laid out by hand, in no format verdict prints."""
    found = re.search(r"A finding reads like this:.*?`(verdict audit [^`]+)`.*?\(exit (\d)[;)].*?\n```\n(.*?)```\n", README, re.S)
    assert found, "the README's sample finding names its command, its exit code and the output"
    command, status, shown = found.groups()
    monkeypatch.chdir(ROOT)  # the command names the lab by its path in the repository
    monkeypatch.delenv("COLUMNS", raising=False)  # in a pipe the table takes $COLUMNS: the README shows 160
    res = CliRunner().invoke(main, shlex.split(command)[1:], catch_exceptions=False)
    assert res.exit_code == int(status)
    assert res.stdout == shown, f"paste the output of `{command}` into the README"


def test_the_audit_options_table_lists_every_option() -> None:
    """Regression: --exemptions was missing from the table."""
    table = README.split("## `verdict audit`\n", 1)[1].split("\n\n", 1)[0]
    listed = set(re.findall(r"--[a-z][a-z-]*", table))
    options = {o for p in audit.params if isinstance(p, click.Option) for o in p.opts if o.startswith("--")}
    assert "--exemptions" in options
    assert options - {"--help"} <= listed, sorted(options - listed)


def _verdict_commands(text: str) -> list[list[str]]:
    """The ``.venv/bin/verdict`` command lines of a markdown text whose file arguments are in the repository."""
    import shlex

    commands = []
    for line in text.splitlines():
        if not line.startswith(".venv/bin/verdict "):
            continue
        args = shlex.split(line.split("  #", 1)[0])[1:]
        files = [a for a in args if a.startswith(("examples/", "tests/")) or a.endswith((".yaml", ".json", ".gz", ".txt"))]
        if all((ROOT / a).exists() for a in files):
            commands.append(args)
    return commands


def test_the_readme_commands_on_repository_files_run() -> None:
    """Regression (new user): the lab's third command (``-r workload-schedulable``) was refused as an
    ambiguous rule id. Every ``.venv/bin/verdict`` command line of the README whose file arguments are in
    the repository (not the placeholders my-cluster.json, must-gather.tar.gz...) runs: exit 0 or 1
    (findings), never 2 (a usage or input error)."""
    from click.testing import CliRunner

    from rules.cli import main

    commands = _verdict_commands(README)
    assert len(commands) >= 5, commands
    for args in commands:
        res = CliRunner().invoke(main, args, catch_exceptions=False)
        assert res.exit_code in (0, 1), (args, res.stderr[-500:])


@pytest.mark.parametrize(
    "doc", sorted(str(p.relative_to(ROOT)) for p in [*ROOT.glob("docs/*.md"), *ROOT.glob("examples/**/README.md")])
)
def test_the_commands_of_the_other_guides_run(doc: str) -> None:
    """Regression (new user): examples/lab/README.md kept the ``-r workload-schedulable`` the README had lost (an
    ambiguous id: exit 2). Every guide's ``.venv/bin/verdict`` lines on repository files run, exit 0 or 1."""
    from click.testing import CliRunner

    from rules.cli import main

    for args in _verdict_commands((ROOT / doc).read_text(encoding="utf-8")):
        res = CliRunner().invoke(main, args, catch_exceptions=False)
        assert res.exit_code in (0, 1), (doc, args, res.stderr[-500:])
