# Runs ON the emulated Pico with the Bao-board image (repl.txt on its flash): what a rare job's module costs
# when it stays loaded (heap, collected) and what importing it costs (Pico time), for baoboard.compat's choice
# to keep frozen modules loaded. Prints one JSON line: [[module, heap bytes, import us, modules it brought]...].
#   node tools/pico/pico-run.mjs --uf2 build/bao-board-VERSION.uf2 --dir EMPTY_WITH_repl.txt:/ \
#       -c "$(cat tools/pico/onpico/rare_jobs.py)"
import gc
import json
import sys
import time

import baoboard.app  # noqa: F401  (the board application, as at boot)

out = []
for name in (
    "baoboard.commands",
    "baoboard.checks",
    "baoboard.opponent",
    "baoboard.sensors",
    "baoboard.refusal",
    "baoboard.setup_mode",
    "bao.reasons",
    "bao.notation",
    "bao.engine",
):
    before = set(sys.modules)
    gc.collect()
    free = gc.mem_free()
    t = time.ticks_us()
    __import__(name)
    dt = time.ticks_diff(time.ticks_us(), t)
    gc.collect()
    out.append([name, free - gc.mem_free(), dt, sorted(set(sys.modules) - before)])
print(json.dumps(out))
