"""What a long audit tells a person while it runs: its phases, with counts.

The reader, the evaluator and the CLI call a ``Progress``; this base class tells nothing (the service and
tests use it as is). The CLI's terminal display (``rules.cli``) overrides it, on standard error and only on a
terminal: progress is never part of the report.
"""

from __future__ import annotations


class Progress:
    """Phases of an audit: reading (files, objects), evaluating (objects of the total, rules in force),
    rendering (the format and the results it lists). Every method is called from the thread of the run."""

    def dump(self, name: str) -> None:
        """Reading the dump ``name`` starts."""

    def file(self, name: str) -> None:
        """The file ``name`` of the dump is about to be read."""

    def objects(self, count: int) -> None:
        """``count`` more objects were read."""

    def evaluating(self, done: int, total: int, rules: int) -> None:
        """``done`` of the dump's ``total`` objects are evaluated, with ``rules`` rules in force."""

    def rendering(self, fmt: str, results: int) -> None:
        """The report is being written as ``fmt``, listing ``results`` results."""
