# What firmware/main.py does at boot before the board starts: on the Bao-board image, retire the copies an
# earlier `make deploy` left on the flash; anywhere, leave the board off when a developer asks for the REPL.
#   retire_deployed(fs_root, log)  delete /bao, /baoboard, /baoproto left by `make deploy` (not the journal)
#   repl_requested(fs_root)        True when the flash holds REPL_MARKER: main.py then starts nothing
import os

# `make deploy` puts the firmware's packages at the flash's root as .mpy files (README.md, Other targets)
DEPLOYED = ("bao", "baoboard", "baoproto")
# An empty file of this name on the flash leaves the Pico at its REPL instead of starting the board: the
# running board turns Ctrl-C off, and a frozen main.py cannot be renamed (hardware/README.md)
REPL_MARKER = "repl.txt"


def _exists(p: str) -> bool:
    try:
        os.stat(p)
        return True
    except OSError:
        return False


def _remove_tree(p: str) -> None:
    try:
        names = os.listdir(p)
    except OSError:  # a file, not a folder
        os.remove(p)
        return
    for name in names:
        _remove_tree(p + "/" + name)
    os.rmdir(p)


def retire_deployed(fs_root: str, log=None) -> list:
    """Delete the packages an earlier `make deploy` copied onto the flash: once the image runs they are
    never imported again (main.py puts '.frozen' first on sys.path) and only take flash the journal may
    need. The journal, the self-test's mapping and any other file stay. Returns the paths deleted."""
    gone = []
    for name in DEPLOYED:
        p = fs_root.rstrip("/") + "/" + name
        if _exists(p):
            _remove_tree(p)
            gone.append(p)
            if log is not None:
                log("retired " + p + " (an earlier .mpy install: the image's own code runs)")
    return gone


def repl_requested(fs_root: str) -> bool:
    return _exists(fs_root.rstrip("/") + "/" + REPL_MARKER)
