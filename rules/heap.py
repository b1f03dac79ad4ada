"""The cyclic garbage collector around the phases that build or walk a whole dump.

A dump is millions of plain dicts, lists and strings that hold no reference cycles and live until the
report is written. The collector cannot free any of them, yet each full collection walks all of them:
while a parser builds them it is paused (``paused``), and once they exist they are frozen out of its view
(``frozen``: evaluation, then rendering the report), so a collection walks only what was made since.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    """The collector off while a parser builds millions of young objects that all stay alive: collections
    then find nothing to free and cost more than the parse (measured: YAML read 5.5 s -> 2.3 s on a 4 MiB
    List; bench/bench_engine.py)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        # What the parser built sits in the youngest generation: the first collection after the pause would
        # walk all of it (1.5 s of reading the 5k bench dump). It stays alive: freeze it (evaluation
        # unfreezes everything when it ends).
        gc.freeze()
        if was_enabled:
            gc.enable()


@contextmanager
def frozen() -> Iterator[None]:
    """Every object alive now left out of collections until the block ends (the first collection after a
    parse of 12,000 objects walked all of them: 0.25 s; rendering the 5k bench dump's JSON report in a
    process still holding the dump took 7.4-8.7 s with the collector walking it, 3.3-3.8 s without)."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
