# A tiny test runner for the MicroPython unix port, which has no unittest or pytest.
# It runs every test_* function of tests/firmware/test_*.py (the same files pytest runs on CPython),
# each in a fresh heap state, and ends with the line "N passed, N failed".
# Usage: micropython -X heapsize=64k tests/mprun.py [module-name-substring ...]
# tools/run_mp_tests.py runs each test module in a fresh interpreter (a fresh heap, as after a reset), and runs
# this runner precompiled too: from build/mpy-host, `MICROPYPATH=tests micropython -m mprun ...` (make test-mp
# compiles it there): a script is compiled in the heap it runs in, and every identifier of its source (its
# locals too) becomes an interned name (qstr), which the board's heap would pay for.
import gc
import os
import sys


def run(argv):
    gc.threshold(1024)  # as firmware/main.py in a small heap, until the board's App.boot() ends it
    # (the paths are locals and the short strings few: a precompiled module's globals and strings of up to
    # 10 characters are interned names)
    try:
        os.stat("baoboard/app.mpy")  # run from build/mpy-host (-m mprun): the precompiled firmware and tests
        tests = "tests/firmware"
        sys.path.insert(0, tests)
    except OSError:
        here = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
        if not here.startswith("/"):
            here = os.getcwd() + "/" + here
        tests = here + "/../tests/firmware"
        sys.path.insert(0, tests)
        sys.path.insert(0, here + "/../firmware")
        # The precompiled firmware and tests (make test-mp) come first, as on the board, loaded from the
        # folder they are in: a module's path is interned with its names, and is then "baoboard/app.mpy" as
        # on a Pico, whatever the checkout's path (which would otherwise change the heap from one machine to
        # the next); make test-mp compiles each module with that path as its source name, so that the two
        # are one name. The test helpers find the repository's files (games/, hardware/) through links in
        # build/mpy-host.
        try:
            os.stat(here + "/../build/mpy-host/baoboard")
            os.chdir(here + "/../build/mpy-host")
            sys.path.insert(0, "")
            sys.path.insert(0, "tests/firmware")
        except OSError:  # not built: the sources, as they are
            pass
    names = sorted(n[: n.rfind(".")] for n in os.listdir(tests) if n.startswith("test_") and n[-3:] in (".py", "mpy"))
    if argv:
        names = [n for n in names if any(f in n for f in argv)]
    passed = failed = 0
    for name in names:
        gc.collect()
        loaded = set(sys.modules)
        try:
            mod = __import__(name)
        except Exception as e:  # a module that cannot even import fails as a whole
            failed += 1
            print("test failed:", name, "(import failed)", repr(e))
            sys.print_exception(e)
            continue
        for attr in sorted(dir(mod)):
            if not attr.startswith("test_"):
                continue
            fn = getattr(mod, attr)
            if not callable(fn):
                continue
            gc.collect()
            try:
                fn()
            except Exception as e:
                failed += 1
                print("test failed:", name + "." + attr, repr(e))
                sys.print_exception(e)
            else:
                passed += 1
        mod = None
        for key in list(sys.modules):  # unload what this test module brought in
            if key not in loaded:
                del sys.modules[key]
        gc.collect()
    gc.collect()
    print("micropython heap free at end:", gc.mem_free())
    print("%d passed, %d failed" % (passed, failed))
    return failed


sys.exit(1 if run(sys.argv[1:]) else 0)
