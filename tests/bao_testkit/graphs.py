"""Import graphs of the structure tests (tests/host/test_structure.py, test_rules_structure.py)."""

from __future__ import annotations


def cycle(g: dict[str, set[str]]) -> list[str]:
    """One import cycle as a path of module names, or []."""
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def visit(m: str) -> list[str]:
        state[m] = 1
        path.append(m)
        for n in sorted(g.get(m, ())):
            if state.get(n) == 1:
                return path[path.index(n) :] + [n]
            if n not in state and (found := visit(n)):
                return found
        path.pop()
        state[m] = 2
        return []

    for m in sorted(g):
        if m not in state and (found := visit(m)):
            return found
    return []
