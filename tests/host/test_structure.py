"""The whole product reads as layers (issue #24's "Done when"), checked on the source of the rules core
(firmware/bao), the board application (firmware/baoboard) and the host (host/bao_host): no import cycle, no
private name imported or read across modules, no module __getattr__, no function over ~80 lines, and no
measured figure (a time in ms or us, a figure said to be about or typically so much, a measured decimal
in s or %, a date) in a comment or docstring: those go stale, and live in docs/benchmarks.md, which the
bench tools write. Generated code is left out. (tests/host/test_rules_structure.py checks more of the
rules core: no import inside a function, the layout folded as declared.)"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

from bao_testkit.graphs import cycle

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = {
    "bao": ROOT / "firmware" / "bao",
    "baoboard": ROOT / "firmware" / "baoboard",
    "baoproto": ROOT / "firmware" / "baoproto",
    "bao_host": ROOT / "host" / "bao_host",
}
# What the host may import of the firmware (issue #24): the protocol (baoproto) and the rules core (bao),
# anywhere; the board application only where the host runs it (the simulator, a Raspberry Pi: bao_host.boards),
# and there only its runtime: the run loop, the simulated or real hardware, the flash, never what the board
# does with them (its recogniser, guide, application): a UI hears that from the board, through the protocol.
RUNNERS = "bao_host.boards"
RUNTIME = {
    "baoboard.simhw",
    "baoboard.runtime",
    "baoboard.storage",
    "baoboard.memstorage",
    "baoboard.hal",
    "baoboard.drivers",
}
GENERATED = {
    ROOT / "firmware" / "bao" / "engine_weights.py",  # tools/tune_engine.py writes it
    ROOT / "firmware" / "baoboard" / "drivers" / "board_config.py",
}  # from hardware/board.json
SCRIPTS = {"main": ROOT / "firmware" / "main.py"}  # the board's entry point, beside the packages
LONGEST = 80  # lines of a function, its docstring included

_NUM = r"(?<![\w.])\d[\d,]*(?:\.\d+)?"
FIGURE = re.compile(
    rf"(?:about|~|typical|typically|takes?|costs?|measured)\W{{0,3}}{_NUM}\s?(?:ms|µs|us|s|KB|kB|MB|bytes|%)(?!\w)"
    rf"|{_NUM}\s?(?:ms|µs|us)(?!\w)"  # a time in ms or us: a constant's comment names the constant instead
    r"|(?<![\w.])\d+\.\d+\s?(?:s|%|KB)(?!\w)"
    r"|\b20\d\d-\d\d-\d\d\b"
)


def modules() -> dict[str, tuple[Path, ast.Module]]:
    out = {}
    for pkg, base in PACKAGES.items():
        for path in sorted(base.rglob("*.py")):
            if path in GENERATED:
                continue
            parts = [pkg, *path.relative_to(base).with_suffix("").parts]
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            out[name] = (path, ast.parse(path.read_text(encoding="utf-8"), str(path)))
    for name, path in SCRIPTS.items():
        out[name] = (path, ast.parse(path.read_text(encoding="utf-8"), str(path)))
    return out


def _annotations_only(node: ast.stmt) -> bool:
    """`if TYPE_CHECKING:`, or the firmware's `try: from typing import ...` (MicroPython has no typing): a
    block whose imports serve the annotations only, never run on the board."""
    if isinstance(node, ast.If):
        t = node.test
        return (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (
            isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING"
        )
    return isinstance(node, ast.Try) and any(
        isinstance(b, ast.ImportFrom) and b.module in ("typing", "collections.abc") for b in node.body
    )


def imports(name: str, path: Path, tree: ast.Module, known: set[str]) -> Iterator[tuple[str, str]]:
    """(module, name) for each import the module runs, at its top or in a function; name "" for a whole
    module."""

    def walk(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt) and _annotations_only(child):
                continue
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                yield child
            yield from walk(child)

    for node in walk(tree):
        if isinstance(node, ast.Import):
            yield from ((a.name, "") for a in node.names)
            continue
        base = node.module or ""
        if node.level:
            here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
            base = ".".join(here[: len(here) - node.level + 1] + ([base] if base else []))
        for a in node.names:
            yield (f"{base}.{a.name}", "") if f"{base}.{a.name}" in known else (base, a.name)


def graph() -> dict[str, set[str]]:
    mods = modules()
    known = set(mods)
    return {
        name: {m for m, _ in imports(name, path, tree, known) if m in known and m != name}
        for name, (path, tree) in mods.items()
    }


def _private(n: str) -> bool:
    return n.startswith("_") and not n.startswith("__")


def private_crossings() -> list[str]:
    mods = modules()
    known = set(mods)
    found = []
    for name, (path, tree) in mods.items():
        aliases = set()
        for m, n in imports(name, path, tree, known):
            if m.split(".")[0] in PACKAGES and m != name and _private(n):
                found.append(f"{name} imports {m}.{n}")
            if not n and m in known:
                aliases.add(m.rsplit(".", 1)[-1])
        for node in ast.walk(tree):
            if isinstance(node, ast.alias) and node.asname and node.name.split(".")[-1] in aliases:
                aliases.add(node.asname)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and _private(node.attr)
            ):
                found.append(f"{name} reads {node.value.id}.{node.attr}")
    return found


def texts(path: Path, tree: ast.Module) -> Iterator[tuple[int, str]]:
    """(line, text) of every comment and docstring of a module."""
    for tok in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline):
        if tok.type == tokenize.COMMENT:
            yield tok.start[0], tok.string
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                yield node.body[0].lineno, doc


def test_the_checks_see_what_they_check() -> None:
    # (a checker that sees nothing passes everything)
    g = graph()
    assert (
        "baoproto.frames" in g["baoboard.outbox"]
        and "bao_host.record.store.errors" in g["bao_host.record.store.rows"]
        and "bao.layout" in g["bao.sowing"]
    )
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert FIGURE.search("# an erase (4 KB, 45 ms typical)") and FIGURE.search("cost 0.46 ms a scan")
    assert FIGURE.search("on 2026-11-24") and FIGURE.search("about 280 bytes") and FIGURE.search("(1.4 s for 32)")
    assert not FIGURE.search("# 4 bytes a step (bao.layout)") and not FIGURE.search("held 3 s: the computer")


def firmware_imports_of_the_host() -> list[str]:
    mods = modules()
    known = set(mods)
    found = []
    for name, (path, tree) in mods.items():
        if not name.startswith("bao_host."):
            continue
        for m, _ in imports(name, path, tree, known):
            if m.split(".")[0] != "baoboard":
                continue
            runtime = any(m == r or m.startswith(r + ".") for r in RUNTIME)
            if not (name.startswith(RUNNERS + ".") and runtime):
                found.append(f"{name} imports {m}")
    return found


def test_the_host_imports_only_the_protocol_the_rules_and_the_runtime_of_the_firmware() -> None:
    # (the checker sees an import of the recogniser, as bao_host.ui.steps had one)
    assert firmware_imports_of_the_host() == []


# What a UI (bao_host.ui) never reads of the board it shows, even where it runs it (bao_host.boards): the
# firmware's objects behind the simulated board. The stage, the pits, the words come from the board through
# the protocol (its STATE notice, bao_host.record.state), as from a board on USB.
FIRMWARE_OBJECTS = {"app", "rec", "guide", "hw", "sim", "state_line", "outbox", "deb", "phase"}


def firmware_reads(name: str, path: Path, tree: ast.Module, known: set[str]) -> list[str]:
    """A UI module's imports of the board application and its reads of FIRMWARE_OBJECTS attributes."""
    found = [f"{name} imports {m}" for m, _ in imports(name, path, tree, known) if m.split(".")[0] == "baoboard"]
    return found + [
        f"{name}:{node.lineno} reads .{node.attr}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr in FIRMWARE_OBJECTS
    ]


def test_the_uis_neither_import_the_board_application_nor_read_its_objects() -> None:
    # (the checker sees a read of the recogniser's phase through a runner, and an import of the guide)
    seen = firmware_reads(
        "x", ROOT / "x.py", ast.parse("from baoboard.guide import WRONG\nk = runner.board.app.rec.phase"), set()
    )
    assert seen == ["x imports baoboard.guide", "x:2 reads .phase", "x:2 reads .rec", "x:2 reads .app"], seen
    mods = modules()
    known = set(mods)
    assert [
        f
        for name, (path, tree) in mods.items()
        if name == "bao_host.ui" or name.startswith("bao_host.ui.")
        for f in firmware_reads(name, path, tree, known)
    ] == []


def test_the_board_application_imports_no_driver() -> None:
    # the hardware is handed in (baoboard.hal): the application's modules import no driver, the self-test's
    # neither (it comes with the hardware)
    g = graph()
    assert [
        f"{n} imports {m}"
        for n, ms in g.items()
        if n.startswith("baoboard.") and not n.startswith("baoboard.drivers")
        for m in ms
        if m.startswith("baoboard.drivers")
    ] == []


def board_imports_of_the_facade() -> list[str]:
    g = graph()
    board = [n for n in g if n.split(".")[0] == "baoboard"] + ["bao.position_json", "bao.engine"]
    return [f"{n} imports bao.core" for n in board if "bao.core" in g[n]]


def test_the_board_imports_the_rules_cores_layers_not_its_facade() -> None:
    # bao.core re-exports every public name of the rules core, and on the board a module's names are heap: the
    # board application and what it imports of the core (positions as JSON, the engine) import the layers
    # (docs/benchmarks.md, Emulated Pico: the heap used by a running board)
    assert board_imports_of_the_facade() == []


def test_no_import_cycle() -> None:
    # every import a module runs counts, those in functions too (a rare job loaded for its work): a lower
    # module that needs an upper one's code at run time is handed it
    assert cycle(graph()) == []


def test_no_private_name_crosses_a_module() -> None:
    assert private_crossings() == []


def test_no_module_getattr() -> None:
    assert [
        name
        for name, (_, tree) in modules().items()
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name == "__getattr__"
    ] == []


def test_no_function_over_80_lines() -> None:
    long = [
        f"{name}.{node.name}: {node.end_lineno - node.lineno + 1} lines"
        for name, (_, tree) in modules().items()
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.end_lineno
        and node.end_lineno - node.lineno + 1 > LONGEST
    ]
    assert long == []


def test_no_measured_figure_in_a_comment() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}: {m.group(0)!r}"
        for path, tree in modules().values()
        for line, text in texts(path, tree)
        for m in FIGURE.finditer(text)
    ]
    assert found == []


def journal_record_kinds(name: str) -> dict[str, int]:
    """The record kinds a journal module declares (`_REC_X = const(0x..)`, `_MAGIC`)."""
    tree = ast.parse((ROOT / "firmware" / "baoboard" / name).read_text())
    return {
        t.id: ast.literal_eval(node.value.args[0])
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
        for t in node.targets
        if isinstance(t, ast.Name) and (t.id.startswith("_REC_") or t.id == "_MAGIC")
    }


def test_the_journal_and_its_recovery_agree_on_the_record_kinds() -> None:
    # declared in both, private (inlined on MicroPython): the recovery module stays out of RAM during play
    kinds = journal_record_kinds("journal.py")
    assert len(kinds) == 9 and len(set(kinds.values())) == 9, kinds
    assert journal_record_kinds("journal_io.py") == kinds
