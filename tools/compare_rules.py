"""Compare two copies of the rules core move by move: every legal move of random positions of every ruleset,
with its child position and its account, as listed by core.legal_moves(p, True).

    python tools/compare_rules.py [--rev main] [--n 20000] [--bound N]

The other core is `git archive REV firmware/bao`, unpacked in a temporary folder; each core runs in its own
process (both are the package `bao`). The positions are those of random games played by the other core, every
position with a move to play. --bound N plays them with option sow_bound N (R10, M4) instead of
the default. Prints the count of positions and moves compared, the moves listed by one core only, and the
moves whose child or account differ, with an example of each, and how many of these R10/M4's ruling (the bound
counts every seed dropped since the move began) does not explain; exit status 1 when any."""

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULESETS = ("zanzibar", "malawi", "malawi-intermediate", "malawi-advanced")
IDENTITY = 63 | 512 | (15 << 10)  # bao.layout: IDENTITY, DROP and the taken pit (TAKE_SHIFT)

# Run inside each core's firmware folder: `gen N SEED` prints N positions (JSON lines) of random games of every
# ruleset; `list` reads positions and prints, for each, its legal moves as [code, child hex, account hex].
WORKER = r"""
import json, random, sys
from bao import core, position_json

def gen(n, seed, bound):
    rnd = random.Random(seed)
    for ruleset in RULESETS[:]:
        left = n
        while left:
            p = core.initial(ruleset, core.Rules(ruleset, sow_bound=bound), rnd.randrange(2))
            while left:
                moves = core.legal_move_codes(p)
                if not moves:
                    break
                print(position_json.dumps(p, False))
                left -= 1
                p = core.play(p, rnd.choice(moves))

def listing():
    for line in sys.stdin:
        p = position_json.loads(line)
        out = [[m, bytes(c.d).hex(), bytes(a).hex()] for m, c, a in core.legal_moves(p, True)]
        print(json.dumps(out))

if sys.argv[1] == "gen":
    gen(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
else:
    listing()
""".replace("RULESETS[", repr(RULESETS) + "[")


def run(firmware: Path, args: list, text: str = "") -> list:
    proc = subprocess.run(
        [sys.executable, "-c", WORKER, *args], input=text, capture_output=True, text=True, cwd=firmware, check=True
    )
    return proc.stdout.splitlines()


def dropped(account_hex: str) -> int:
    """Seeds an account drops (R10/M4's count): every sowing's seeds and the store's seed (bao.layout)."""
    b = bytes.fromhex(account_hex)
    n = 0
    for i in range(0, len(b), 4):
        kind = b[i] & 15
        n += b[i + 3] if kind == 4 else (1 if kind == 1 else 0)
    return n


def explained(old: "tuple | None", new: "tuple | None", bound: int) -> bool:
    """Whether a difference is R10/M4's ruling: the new core counts every seed dropped, the old one only those
    lifted at relays. A move the old core lists and the new does not (R10, Zanzibar) has dropped more than
    the bound; a move whose child and account differ (M4) sleeps in the new core at the end of the sowing
    that passed the bound (at the first relay after it), earlier on the same way as the old core's account."""
    if new is None and old is not None:
        return dropped(old[1]) > bound
    if old is None or new is None:
        return False
    a, b = bytes.fromhex(old[1]), bytes.fromhex(new[1])
    slept = len(b) >= 4 and b[-4] & 15 == 8 and b[-2] == 6  # STEP_END, END_SLEEP
    relay = len(b) - 4
    while relay >= 0 and b[relay] & 15 != 6:
        relay -= 4  # the last relay (STEP_RELAY): the move had not passed the bound there
    before_relay = dropped(b[: max(relay, 0)].hex())
    return slept and a.startswith(b[:-4]) and dropped(new[1]) > bound >= before_relay


def consequence(xs: dict, ys: dict, m: int, bound: int) -> str:
    """A difference that follows from others of the ruling: takasa moves listed once every capture of the
    position passes the bound (1.7a, R10: captures that are all never-ending count as none), or only the
    takasia a takasa makes (R8: it needs the opponent's captures finite, and those now pass the bound)."""
    old_captures = [k for k in xs if not xs[k][2] & 64]  # TAKASA: not a capture move
    if (
        m not in xs
        and ys[m][2] & 64
        and old_captures
        and not [k for k in old_captures if k in ys]
        and all(dropped(xs[k][1]) > bound for k in old_captures)
    ):
        return "1.7a: takasa legal once every capture passes the bound"
    if m in xs and m in ys and xs[m][2] ^ ys[m][2] == 128 and xs[m][1] == ys[m][1]:
        a, b = bytes.fromhex(xs[m][0]), bytes.fromhex(ys[m][0])
        if [i for i in range(len(a)) if a[i] != b[i]] == [36]:  # TAKASIA (bao.layout)
            return "R8: only the takasia it makes (the opponent's captures pass the bound)"
    return ""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rev", default="main", help="the other core's git revision (default main)")
    ap.add_argument("--n", type=int, default=20000, help="random positions of each ruleset (default 20000)")
    ap.add_argument("--bound", type=int, default=10000, help="the games' sow_bound (default 10000)")
    ap.add_argument("--seed", type=int, default=24)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "archive", a.rev, "firmware/bao"], cwd=ROOT, capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
        old = Path(tmp) / "firmware"
        positions = run(old, ["gen", str(a.n), str(a.seed), str(a.bound)])
        text = "\n".join(positions) + "\n"
        before = run(old, ["list"], text)
        after = run(ROOT / "firmware", ["list"], text)
    moves = only_old = only_new = changed = unexplained = 0
    examples: dict = {}
    per_ruleset: dict = {}
    for line, x, y in zip(positions, before, after):
        ruleset = json.loads(line)["ruleset"]
        # by identity (ring, letter, house play; a drop's take): the descriptive bits follow the child (a
        # takasia it makes)
        xs = {m & IDENTITY: (c, acc, m) for m, c, acc in json.loads(x)}
        ys = {m & IDENTITY: (c, acc, m) for m, c, acc in json.loads(y)}
        moves += len(xs)
        for m in set(xs) | set(ys):
            if m not in ys:
                kind = "listed by the old core only"
                only_old += 1
                bound_note = f"drops {dropped(xs[m][1])} seeds"
            elif m not in xs:
                kind = "listed by the new core only"
                only_new += 1
                bound_note = f"drops {dropped(ys[m][1])} seeds"
            elif xs[m] != ys[m]:
                kind = "child, account or descriptive bits differ"
                changed += 1
                bound_note = f"drops {dropped(xs[m][1])} seeds before, {dropped(ys[m][1])} after"
            else:
                continue
            if not explained(xs.get(m), ys.get(m), a.bound):
                why = consequence(xs, ys, m, a.bound)
                if why:
                    kind += ", " + why
                else:
                    unexplained += 1
                    kind += ", NOT explained by R10/M4"
            key = (ruleset, kind)
            per_ruleset[key] = per_ruleset.get(key, 0) + 1
            examples.setdefault(key, (line, (xs.get(m) or ys[m])[2], bound_note))
    print(
        f"{len(positions)} positions ({a.n} of each ruleset), {moves} moves of the old core compared, "
        f"sow_bound {a.bound}"
    )
    print(f"listed by the old core only: {only_old}; by the new only: {only_new}; child or account differ: {changed}")
    for key in sorted(per_ruleset):
        line, m, note = examples[key]
        print(f"  {key[0]}, {key[1]}: {per_ruleset[key]}; e.g. move {m} ({note}) of {line}")
    print(f"not explained by R10/M4's ruling: {unexplained}")
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
