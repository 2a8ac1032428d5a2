"""What goes onto the board: `make deploy` asks the board for its MicroPython version before copying
(tools/check_board.py), firmware/package.json installs the same files with `mip`, firmware/manifest.py
freezes them into an image (micropython-lib conventions)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import check_board
import pytest

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "firmware"


PICO = "BAO-CHECK micropython 1.29.0 4870 Raspberry Pi Pico with RP2040"  # .mpy 6.3, armv6m


def deployed_files() -> list[str]:
    """What `make deploy` copies (the Makefile's FIRMWARE_PY), as paths under firmware/."""
    return sorted(
        str(p.relative_to(FIRMWARE))
        for p in FIRMWARE.rglob("*.py")
        if p.name != "manifest.py" and "__pycache__" not in p.parts
    )


@pytest.mark.parametrize(
    "reply, ok, says",
    [
        (PICO, True, "MicroPython 1.29.0 on Raspberry Pi Pico with RP2040"),
        ("BAO-CHECK micropython 1.29.0 4870 Raspberry Pi Pico W with RP2040", True, "1.29.0"),
        ("BAO-CHECK micropython 1.19.1 1542 Raspberry Pi Pico with RP2040", False, "needs 1.23 or later"),
        ("BAO-CHECK micropython 1.22.2 4614 Raspberry Pi Pico with RP2040", False, "needs 1.23 or later"),
        ("BAO-CHECK micropython 1.23.0 5 Raspberry Pi Pico with RP2040", False, ".mpy format 5"),
        ("BAO-CHECK circuitpython 9.0.0 0 Raspberry Pi Pico with rp2040", False, "not MicroPython"),
        ("BAO-CHECK micropython 1.23.0 2822 ESP32 module with ESP32", True, "not a Pico?"),
        ("Traceback (most recent call last):", False, "did not answer as MicroPython does"),
        ("", False, "hold BOOTSEL"),
    ],
)
def test_the_board_s_answer_is_judged(reply: str, ok: bool, says: str) -> None:
    got_ok, message = check_board.verdict(reply)
    assert got_ok == ok and says in message, message
    if not ok:
        assert "RPI_PICO .uf2" in message and "\n" not in message


def test_the_firmware_s_native_code_needs_the_same_abi_on_the_board(tmp_path: Path) -> None:
    # bao/sowing.mpy's sowing kernel is armv6m machine code of .mpy 6.3: a board that loads another native ABI
    # (another release's, or another machine's) would fail to import the rules core at every boot
    (tmp_path / "bao").mkdir()
    (tmp_path / "bao" / "sowing.mpy").write_bytes(b"M\x06\x13\x1f" + bytes(20))
    native = check_board.native_abi(tmp_path)
    assert native == 0x1306 and check_board.mpy_name(native) == "6.3 for armv6m"
    assert check_board.verdict(PICO, native)[0]
    ok, message = check_board.verdict("BAO-CHECK micropython 1.23.0 4614 Raspberry Pi Pico with RP2040", native)
    assert not ok and "loads native .mpy 6.2 for armv6m, the firmware's native code is 6.3 for armv6m" in message
    ok, message = check_board.verdict("BAO-CHECK micropython 1.29.0 2822 Generic ESP32 with x64", native)
    assert not ok and "6.3 for x64" in message and "\n" not in message
    (tmp_path / "bao" / "sowing.mpy").write_bytes(b"M\x06\x00\x1f" + bytes(20))  # bytecode only: any 6.x
    assert check_board.native_abi(tmp_path) is None and check_board.native_abi(tmp_path / "none") is None


def fake_mpremote(tmp: Path, stdout: str, status: int = 0, stderr: str = "") -> str:
    script = tmp / "mpremote"
    script.write_text(
        f"#!{sys.executable}\nimport sys\n"
        "assert sys.argv[1:4] == ['connect', 'auto', 'exec']\n"
        f"sys.stdout.write({stdout!r}); sys.stderr.write({stderr!r}); sys.exit({status})\n"
    )
    script.chmod(0o755)
    return str(script)


def test_check_board_through_mpremote(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert check_board.main(["--mpremote", fake_mpremote(tmp_path, PICO + "\n")]) == 0
    assert "board: MicroPython 1.29.0" in capsys.readouterr().out
    old = fake_mpremote(tmp_path, "BAO-CHECK micropython 1.20.0 2822 Raspberry Pi Pico with RP2040\n")
    assert check_board.main(["--mpremote", old]) == 1
    err = capsys.readouterr().err
    assert err.startswith("make deploy: the board runs MicroPython 1.20.0") and err.count("\n") == 1
    gone = fake_mpremote(tmp_path, "", 1, "mpremote: no device found\n")
    assert check_board.main(["--mpremote", gone]) == 1
    assert "no MicroPython board answered on USB (mpremote: no device found)" in capsys.readouterr().err
    assert check_board.main(["--mpremote", str(tmp_path / "missing")]) == 1
    assert "cannot ask the board through mpremote" in capsys.readouterr().err


def test_make_deploy_checks_the_board_before_copying() -> None:
    recipe = re.search(r"^deploy:.*\n((?:\t.*\n)+)", (ROOT / "Makefile").read_text(), re.M)
    assert recipe is not None
    lines = recipe.group(1).splitlines()
    assert "tools/check_board.py" in lines[0] and "cp -r" in lines[1]


def test_package_json_installs_what_make_deploy_copies(monkeypatch: pytest.MonkeyPatch) -> None:
    from baoboard.app import FW_VERSION
    from mpremote import mip

    pkg = json.loads((FIRMWARE / "package.json").read_text())
    assert pkg["version"] == FW_VERSION and pkg["deps"] == []
    assert sorted(dest for dest, _ in pkg["urls"]) == deployed_files()
    # mpremote's own installer reads it: every file from beside package.json to the same path on the board
    fetched: list[tuple[str, str]] = []
    monkeypatch.setattr(mip, "_download_file", lambda transport, url, dest: fetched.append((url, dest)))
    mip._install_json(None, str(FIRMWARE / "package.json"), "", "", None, False)
    assert sorted(fetched) == sorted((f"{FIRMWARE}/{f}", f"/{f}") for f in deployed_files())


def test_manifest_freezes_the_same_firmware() -> None:
    from baoboard.app import FW_VERSION

    calls: dict[str, list[Any]] = {"metadata": [], "package": [], "module": []}
    env = {name: (lambda *a, _n=name, **k: calls[_n].append((a, k))) for name in calls}
    exec(compile((FIRMWARE / "manifest.py").read_text(), "manifest.py", "exec"), env)  # noqa: S102
    [(_, meta)] = calls["metadata"]
    assert meta["version"] == FW_VERSION
    frozen: list[str] = []
    for (name, *_), _ in calls["package"]:
        assert (FIRMWARE / name / "__init__.py").exists(), name
        frozen += [
            str(p.relative_to(FIRMWARE)) for p in (FIRMWARE / name).rglob("*.py") if "__pycache__" not in p.parts
        ]
    frozen += [a[0] for a, _ in calls["module"]]
    assert sorted(frozen) == deployed_files()
    # frozen with the optimisation `make firmware` compiles with (MPYOPT): the same bytecode in flash as in RAM
    level = int(re.search(r"^MPYOPT\s*:=\s*-O(\d)", (ROOT / "Makefile").read_text(), re.M).group(1))  # type: ignore[union-attr]
    assert [k.get("opt") for _, k in calls["package"] + calls["module"]] == [level] * 4


def test_the_version_advice_is_one_truth() -> None:
    """Issue #26: check_board said 1.22 or later, hardware/README.md 1.29, the native code needs .mpy 6.3 (1.23+).
    check_board holds the numbers; its advice and the READMEs say the same."""
    root = Path(__file__).resolve().parents[2]
    assert check_board.MIN_VERSION[:2] == (1, 23)  # the first release whose native .mpy is 6.3
    assert f"MicroPython {check_board.TESTED} (the tested release; {check_board.NEEDED} or later)" in check_board.HOW
    for doc in ("README.md", "hardware/README.md"):
        text = (root / doc).read_text()
        assert f"needs {check_board.NEEDED}+" in text and check_board.TESTED in text, doc
        assert "1.22+" not in text, doc
