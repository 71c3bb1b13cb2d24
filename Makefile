# The two commands a newcomer runs (make demo, make test) and the technician's targets.
PY ?= python3
PORT ?= auto
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

# The console's browser tests drive Debian's chromium through chromium-driver (Selenium).
CHROMIUM := /usr/bin/chromium
CHROMEDRIVER := /usr/bin/chromedriver
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo -n)

.PHONY: all venv browser test screenshots demo firmware deploy bench soak clean

all: test

$(STAMP): pyproject.toml setup.py
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

venv: $(STAMP)

browser:
	@if [ ! -x $(CHROMIUM) ] || [ ! -x $(CHROMEDRIVER) ]; then \
	  echo "make: installing Debian's chromium and chromium-driver (console browser tests)"; \
	  ( $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq \
	      chromium chromium-driver >/dev/null ) || \
	  { echo "make: cannot install chromium: install the Debian packages 'chromium' and 'chromium-driver' (apt-get install chromium chromium-driver), then run make test again"; exit 1; }; \
	fi

test: $(STAMP) browser
	$(BIN)/pytest

screenshots: $(STAMP) browser
	RING_SCREENSHOTS=1 $(BIN)/pytest tests/console/test_browser.py

demo: $(STAMP)
	$(BIN)/ring demo --console 8080

firmware: $(STAMP)
	$(BIN)/ring device build

deploy: $(STAMP)
	$(BIN)/ring device deploy --port $(PORT)

bench: $(STAMP)
	$(BIN)/ring bench link --json
	$(BIN)/ring bench firmware --json
	$(BIN)/ring bench vision --json
	$(BIN)/ring bench sim --json
	$(BIN)/ring bench rules --json
	$(BIN)/ring bench log --json
	$(BIN)/ring sim rest-bench --ring-mm 3000 --cameras 2 --tosses 20 --json
	$(BIN)/ring bench console --json

# serial (-n 0): the soaks are long real-time sessions, measured one at a time
soak: $(STAMP)
	$(BIN)/pytest -m slow -n 0

clean:
	rm -rf build .pytest_cache
