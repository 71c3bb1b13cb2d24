# The two commands a newcomer runs (make demo, make test) and the technician's targets.
PY ?= python3
PORT ?= auto
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: all venv test demo firmware deploy bench soak clean

all: test

$(STAMP): pyproject.toml setup.py
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

venv: $(STAMP)

test: $(STAMP)
	$(BIN)/pytest

demo: $(STAMP)
	$(BIN)/ring demo

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

soak: $(STAMP)
	$(BIN)/pytest -m slow

clean:
	rm -rf build .pytest_cache
