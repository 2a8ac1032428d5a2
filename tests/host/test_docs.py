"""The repository explains itself: every rule and ruling number cited in firmware/ and host/ is explained in
docs/rules.md, every docs/ file the code points to exists, and the protocol's examples are what the board
really sends."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
RULES_MD = ROOT / "docs" / "rules.md"

# A Donkers rule ("2.4b", "2.5b(1)": parts 1-4, rules numbered from 1; "1.22" or "3.11" are versions) or a
# project ruling ("G7", "R10", "M4").
DONKERS = re.compile(r"(?<![\w.])([1-4]\.[1-8][a-d]?(?:\([12]\))?)(?![\w.]*\d)")
RULING = re.compile(r"\b([GRM](?:[1-9]|1[0-9]|2[0-5]))\b")
EXPLAINED = re.compile(r"^- \*\*([^*]+)\*\* \S", re.M)


def source_files() -> list[Path]:
    return sorted(p for d in ("firmware", "host") for p in (ROOT / d).rglob("*.py"))


def cited() -> dict[str, str]:
    """Every number cited in firmware/ and host/, with the first place it is cited."""
    out: dict[str, str] = {}
    for path in source_files():
        for lineno, line in enumerate(path.read_text().splitlines(), 1):
            for rx in (DONKERS, RULING):
                for m in rx.finditer(line):
                    out.setdefault(m.group(1), f"{path.relative_to(ROOT)}:{lineno}")
    return out


def explained() -> set[str]:
    text = RULES_MD.read_text()
    section = text[text.index("## What the numbers mean") :]
    return set(EXPLAINED.findall(section))


def test_the_pattern_finds_citations_and_skips_versions() -> None:
    line = 'return "2.4b", "..." (1.2, R9) 2.5b(1) M4 G7; MicroPython 1.22, Python 3.11, 0.5 s, RGB1 A5'
    assert [m.group(1) for m in DONKERS.finditer(line)] == ["2.4b", "1.2", "2.5b(1)"]
    assert [m.group(1) for m in RULING.finditer(line)] == ["R9", "M4", "G7"]


def test_every_cited_rule_number_is_explained_in_docs_rules_md() -> None:
    numbers = cited()
    assert {"1.2", "2.4b", "4.1", "R8", "R10", "G7", "M4"} <= set(numbers)  # the scan sees the code
    missing = {n: where for n, where in numbers.items() if n not in explained()}
    assert not missing, f"cited but not explained in docs/rules.md: {missing}"


def test_each_number_is_explained_once_on_one_line() -> None:
    section = RULES_MD.read_text().split("## What the numbers mean", 1)[1]
    keys = EXPLAINED.findall(section)
    assert len(keys) == len(set(keys)), sorted(k for k in keys if keys.count(k) > 1)
    for line in section.splitlines():
        if line.startswith("- **"):
            assert len(line) < 260, line  # one line each


def test_every_docs_file_the_code_names_exists() -> None:
    named = set()
    for path in [
        *source_files(),
        *sorted((ROOT / "tools").rglob("*.py")),
        ROOT / "Makefile",
        ROOT / "README.md",
        *sorted((ROOT / "hardware").glob("*.md")),
        *sorted((ROOT / "docs").glob("*.md")),
    ]:
        if "node_modules" in path.parts:
            continue
        for m in re.finditer(r"\bdocs/([\w.-]+\.(?:md|svg))", path.read_text()):
            named.add(m.group(1))
    missing = sorted(n for n in named if not (ROOT / "docs" / n).exists())
    assert not missing, missing


def test_protocol_examples_are_frames_the_board_really_sends() -> None:
    from bao import notation, position_json
    from baoproto.frames import decode

    text = (ROOT / "docs" / "protocol.md").read_text()
    frames = [line for line in text.splitlines() if re.match(r"^[EHRNCA]\d+ [A-Z]+.* \*[0-9A-F]{8}$", line)]
    assert frames, "the page shows whole frames"
    game = notation.parse_transcript((ROOT / "games" / "zanzibar-1994.txt").read_text())
    positions = notation.replay(game)
    for line in frames:
        decoded = decode(line.encode())
        assert isinstance(decoded, tuple), (line, decoded)  # the CRC and the syntax hold
        kind, num, typ, payload = decoded
        if typ == "MOVE":
            word, position = payload.split(" ", 1)
            # the example is ply `num` of the 1994 game, written as the board writes it
            move, child = notation.parse_move(positions[num - 1], word)
            assert notation.format_move(move, positions[num - 1].to_move) == word
            assert position_json.loads(position) == child
    # every other move quoted on the page is one the board wrote in that game (Donkers, G7)
    written = {notation.format_move(notation.parse_move(p, ply)[0], p.to_move) for p, ply in zip(positions, game.plies)}
    quoted = re.findall(r'(?:MOVE |"undone": ")([ABab]?[1-8][^ "]*)', text)
    assert quoted and set(quoted) <= written, set(quoted) - written
