# MicroPython grows a module's globals table (sizes 47, 59, 73, 97, 127...) only once it is full, and a
# lookup of a name the table lacks probes until it meets an empty slot: in a full table, all of it. Every
# builtin a function names (range, len, bytearray) is such a lookup, in its module's table first: the rules
# core's hot modules (bao.sowing, bao.rules) with a full table list moves slower (docs/architecture.md,
# Memory on the board). CPython has no such table: there is nothing to check.
import sys

from bao import rules, sowing

_FULL = (17, 23, 29, 37, 47, 59, 73, 97, 127, 167, 223)  # MicroPython's table sizes (py/map.c)


def test_the_rules_core_tables_are_not_full():
    if sys.implementation.name != "micropython":
        return
    for module in (sowing, rules):
        n = len(module.__dict__)
        assert n not in _FULL, "%s has %d globals: a full table (add or remove one)" % (module.__name__, n)
