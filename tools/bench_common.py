"""Shared by the benchmark scripts: a plain Markdown table and the section writer for docs/benchmarks.md."""

from __future__ import annotations

import re
from pathlib import Path


class Table:
    def __init__(self, header: list[str]) -> None:
        self.header = header
        self.rows: list[list[str]] = []

    def add(self, *cells: str) -> None:
        self.rows.append(list(cells))

    def render(self) -> str:
        widths = [max(len(r[i]) for r in [self.header, *self.rows]) for i in range(len(self.header))]

        def line(cells: list[str]) -> str:
            return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths)) + " |"

        out = [line(self.header), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
        out += [line(r) for r in self.rows]
        return "\n".join(out)


def replace_section(path: Path, title: str, body: str) -> None:
    """Write `## title` with body into the Markdown file, replacing that section if present."""
    fresh = "# Benchmarks\n\nWritten by `make bench`; each section by its own script.\n"
    text = path.read_text() if path.exists() else fresh
    block = f"## {title}\n\n{body.rstrip()}\n\n"
    pattern = re.compile(rf"^## {re.escape(title)}\n.*?(?=^## |\Z)", re.S | re.M)
    if pattern.search(text):
        text = pattern.sub(lambda _: block, text)
    else:
        text = text.rstrip() + "\n\n" + block
    path.write_text(text.rstrip() + "\n")
