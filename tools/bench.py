"""`make bench`: every benchmark script in tools/ (bench_*.py but the shared module), one after another."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    scripts = sorted(
        p
        for p in (ROOT / "tools").glob("bench_*.py")
        if p.stem not in ("bench_common", "bench_rules_mp") and not p.stem.endswith("_mp")
    )
    status = 0
    for script in scripts:
        print(f"== {script.name}", flush=True)
        rc = subprocess.run([sys.executable, str(script)], cwd=ROOT).returncode
        if rc:
            print(f"{script.name} failed with status {rc}")
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
