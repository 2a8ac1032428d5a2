"""The suite's order (tests/conftest.py): tests/slowest.txt names tests that exist, and tools/slowest_tests.py
writes it from a JUnit report, slowest first."""

from __future__ import annotations

import re
from pathlib import Path

import slowest_tests

ROOT = Path(__file__).resolve().parent.parent.parent


def test_every_test_named_first_exists() -> None:
    lines = (ROOT / "tests" / "slowest.txt").read_text().splitlines()
    nodes = [x for x in lines if x and not x.startswith("#")]
    assert len(nodes) >= 20
    for node in nodes:
        path, func = node.split("::")[0], re.sub(r"\[.*\]$", "", node.split("::")[-1])
        source = ROOT / path
        assert source.is_file() and f"def {func}(" in source.read_text(), f"tests/slowest.txt: no test {node}"


def test_the_order_is_written_slowest_first_from_a_junit_report(tmp_path: Path) -> None:
    report = tmp_path / "junit.xml"
    report.write_text(
        '<testsuites><testsuite name="pytest">'
        '<testcase classname="tests.host.test_e2e" name="test_a" time="2.5" />'
        '<testcase classname="tests.host.test_e2e" name="test_b[x y]" time="9.0" />'
        '<testcase classname="tests.host.test_e2e" name="test_c" time="99.0"><skipped /></testcase>'
        "</testsuite></testsuites>"
    )
    out = tmp_path / "slowest.txt"
    assert slowest_tests.main([str(report), "--out", str(out)]) == 0
    assert out.read_text().splitlines()[1:] == [
        "tests/host/test_e2e.py::test_b[x y]",
        "tests/host/test_e2e.py::test_a",
    ]
    report.write_text("<not xml")
    assert slowest_tests.main([str(report), "--out", str(out)]) == 1
