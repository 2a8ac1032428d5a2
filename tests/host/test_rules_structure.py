"""The rules core (firmware/bao) reads in layers: no import cycle, no private name imported or read across
modules, no import inside a function, no module __getattr__, no function over ~80 lines (issue #24)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from bao_testkit.graphs import cycle

BAO = Path(__file__).resolve().parent.parent.parent / "firmware" / "bao"
LONGEST = 80  # lines of a function, its docstring included


def _modules() -> dict[str, ast.Module]:
    return {f"bao.{p.stem}": ast.parse(p.read_text(), str(p)) for p in sorted(BAO.glob("*.py"))}


def _imported(node: ast.Import | ast.ImportFrom, names: set[str]) -> list[tuple[str, str]]:
    """(module, name) for each bao module or name the statement imports; name "" for a whole module."""
    out = []
    if isinstance(node, ast.Import):
        out += [(a.name, "") for a in node.names if a.name.startswith("bao.")]
    elif node.module == "bao":
        out += [(f"bao.{a.name}", "") for a in node.names if f"bao.{a.name}" in names]
    elif node.module and node.module.startswith("bao."):
        out += [(node.module, a.name) for a in node.names]
    return out


def _graph() -> dict[str, set[str]]:
    mods = _modules()
    return {
        name: {
            m
            for node in ast.walk(tree)
            if isinstance(node, (ast.Import, ast.ImportFrom))
            for m, _ in _imported(node, set(mods))
            if m != "bao.__init__" and m in mods  # (not bao.protocols: a stub, imported for annotations only)
        }
        for name, tree in mods.items()
    }


def test_no_import_cycle_in_the_rules_core() -> None:
    graph = _graph()
    assert graph["bao.sowing"] and not graph["bao.layout"] - {"bao.errors"}  # the checker sees imports
    assert cycle(graph) == []


def test_the_core_never_imports_a_plugged_in_ruleset() -> None:
    # The engine below the rulesets (position, sowing, rules) knows no ruleset's own rules: bao.malawi plugs
    # itself in when imported (as python-chess's variants subclass a board that knows nothing of them).
    graph = _graph()

    def below(m: str, seen: set[str]) -> set[str]:
        for n in graph[m] - seen:
            seen.add(n)
            below(n, seen)
        return seen

    for engine in ("bao.position", "bao.sowing", "bao.rules"):
        assert "bao.malawi" not in below(engine, set()), engine


def test_a_kuu_game_is_read_with_the_layers_alone() -> None:
    # The board imports bao.position_json, never bao.core (test_structure): importing bao.malawi, as
    # position_json does, plugs the kuu games in (M5), so their positions are read and listed without the facade
    code = (
        "import sys\n"
        "from bao import position_json\n"
        "from bao.rules import legal_move_codes\n"
        "from bao.position import initial\n"
        "p = position_json.loads(position_json.dumps(initial('malawi-intermediate')))\n"
        "print('bao.core' in sys.modules, p.rules.kuu is not None, len(legal_move_codes(p)) > 0)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=BAO.parent, check=True
    ).stdout.split()
    assert out == ["False", "True", "True"]


def test_no_private_name_crosses_a_module() -> None:
    mods = _modules()
    found = []
    for name, tree in mods.items():
        aliases = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for m, n in _imported(node, set(mods)):
                    if n.startswith("_") and not n.startswith("__"):
                        found.append(f"{name} imports {m}.{n}")
                    if not n:
                        aliases.add(m.rsplit(".", 1)[1])
            elif (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                found.append(f"{name} reads {node.value.id}.{node.attr}")
    assert found == []


def test_no_import_in_a_function_and_no_module_getattr() -> None:
    found = []
    for name, tree in _modules().items():
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if node.name == "__getattr__" and node in tree.body:
                    found.append(f"{name}.__getattr__")
                found += [
                    f"{name}.{node.name} imports"
                    for sub in ast.walk(node)
                    if isinstance(sub, (ast.Import, ast.ImportFrom))
                ]
    assert found == []


def test_no_function_over_80_lines() -> None:
    long = [
        f"{name}.{node.name}: {node.end_lineno - node.lineno + 1} lines"
        for name, tree in _modules().items()
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.end_lineno
        and node.end_lineno - node.lineno + 1 > LONGEST
    ]
    assert long == []


def test_the_hot_modules_fold_the_layout_as_it_is_declared() -> None:
    # bao.sowing and bao.rules, and the board's recogniser and guide, read the layout's numbers as private
    # const() copies, which MicroPython's compiler folds into the bytecode: each must be the number its module
    # of origin declares, named after it.
    import re

    from bao import layout, sowing

    origin = {"layout": layout, "sowing": sowing}
    seen = 0
    board = BAO.parent / "baoboard"
    for path in (BAO / "sowing.py", BAO / "rules.py", board / "recogniser.py", board / "guide.py"):
        name = path.stem
        for line in path.read_text().splitlines():
            m = re.match(r"_(\w+) = const\((\d+)\)  # (layout|sowing)\.(\w+)$", line)
            if m:
                assert m.group(1) == m.group(4), line
                assert getattr(origin[m.group(3)], m.group(4)) == int(m.group(2)), line
                seen += 1
            elif re.match(r"_[A-Z_]+ = const\(", line):
                assert not hasattr(layout, line[1 : line.index(" ")]), f"{name}: {line} (a layout name, unchecked)"
    assert seen > 30
