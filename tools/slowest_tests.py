"""Write tests/slowest.txt (the order tests/conftest.py gives the suite) from the last run's JUnit report.

    python tools/slowest_tests.py build/pytest-junit.xml      # make test-order (make test-py writes the report)

Keeps the 45 slowest tests of the report, slowest first."""

from __future__ import annotations

import argparse
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KEEP = 45


def node_id(classname: str, name: str) -> str:
    """pytest's node id of a JUnit test case: the longest prefix of its dotted class name that is a file."""
    parts = classname.split(".")
    for cut in range(len(parts), 0, -1):
        path = "/".join(parts[:cut]) + ".py"
        if (ROOT / path).is_file():
            return "::".join([path, *parts[cut:], name])
    return f"{classname}::{name}"


def slowest(report: Path, keep: int = KEEP) -> list[str]:
    timed = [
        (float(case.get("time", "0")), node_id(case.get("classname", ""), case.get("name", "")))
        for case in ET.parse(report).iter("testcase")
        if case.find("skipped") is None
    ]
    return [node for _, node in sorted(timed, key=lambda x: -x[0])[:keep]]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("report", type=Path, help="pytest's --junitxml report")
    ap.add_argument("--out", type=Path, default=ROOT / "tests" / "slowest.txt")
    args = ap.parse_args(argv)
    try:
        nodes = slowest(args.report)
    except (OSError, ET.ParseError) as e:
        print(f"slowest_tests: {args.report}: {e}", file=sys.stderr)
        return 1
    if not nodes:
        print(f"slowest_tests: no timed tests in {args.report}", file=sys.stderr)
        return 1
    head = "# The slowest tests, slowest first: run first (tests/conftest.py). Written by tools/slowest_tests.py.\n"
    args.out.write_text(head + "".join(f"{n}\n" for n in nodes))
    print(f"slowest_tests: {len(nodes)} tests in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
