"""Gather the MicroPython RP2 stubs into one folder for mypy's mypy_path.

The stub wheels install loose modules (machine.pyi, rp2/, ...) straight into site-packages; pointing
mypy_path at site-packages itself would make mypy type-check every CPython package there too.
"""

import os
import sys
from importlib.metadata import distribution

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
dist = distribution("micropython-rp2-rpi-pico-stubs")
tops = set()
for f in dist.files or []:
    top = f.parts[0]
    if top.endswith(".dist-info") or top.startswith("__") or not (top.endswith(".pyi") or len(f.parts) > 1):
        continue
    if top == "stdlib":  # the typeshed replacement: used through custom_typeshed_dir
        continue
    tops.add(top)
site = str(dist.locate_file(""))
tops.add("_mpy_shed")  # helper types the stubs import, shipped by micropython-stdlib-stubs
for top in sorted(tops):
    link = os.path.join(out, top)
    if not os.path.lexists(link):
        os.symlink(os.path.join(site, top), link)
print(f"linked {len(tops)} stub modules into {out}")
