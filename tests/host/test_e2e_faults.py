"""Faults between the simulated board and the logger (bao_testkit.faults: the board, the proxy injecting
faults, a real `bao log` killed and started again, power cuts, a second board on the path): nothing is lost,
doubled, reordered or mixed up."""

from __future__ import annotations

from pathlib import Path

from bao_testkit.faults import SEED, run_faults


def test_faults_between_board_and_logger(tmp_path: Path) -> None:
    rep = run_faults(tmp_path)
    f = rep["faults"]
    t = rep["tally"]
    print(f"\ntally: {t}")
    assert (t["lost"], t["doubled"], t["reordered"], t["games mixed up"]) == (0, 0, 0, 0), t
    print(
        f"\ninjected faults (seed {SEED}): "
        + ", ".join(f"{k} {v}" for k, v in sorted(f.items()))
        + f"; {rep['games']} games, {rep['moves']} moves stored: 0 lost, 0 duplicated; "
        f"{rep['moves redone after a power cut']} moves played again after a power cut, "
        f"{rep['seconds']} s"
    )
    for kind in (
        "flipped",
        "dropped",
        "duplicated",
        "noise",
        "disconnects",
        "logger killed",
        "power cuts",
        "second board on the path",
    ):
        assert f.get(kind, 0) > 0, f"no {kind} injected: {f}"
    assert rep["flagged"] == 0  # nothing stored as a wrong move
    assert rep["logger errors"] == []
