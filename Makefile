# Two commands for a fresh Debian/Ubuntu machine (see README):
#   make test   set everything up, then run every test (unit tests, conformance, nbval notebooks)
#   make lab    set everything up, then open the course in JupyterLab
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python

.PHONY: test lab setup dot conformance bench lint clean

$(VENV)/.installed-test: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[test]"
	touch $@

$(VENV)/.installed-lab: $(VENV)/.installed-test
	$(PY) -m pip install -q -e ".[test,lab]"
	touch $@

dot:
	@command -v dot >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq graphviz >/dev/null; \
	  else echo "Graphviz's 'dot' is missing: run 'sudo apt-get install graphviz' (or use the conda route in README.md)"; exit 1; fi; }

setup: $(VENV)/.installed-test dot

test: setup
	$(PY) -m ruff check .
	$(PY) -m pytest

lab: $(VENV)/.installed-lab dot
	$(VENV)/bin/jupyter lab notebooks/

conformance: setup
	$(PY) ../shared/conformance/run.py

bench: setup
	$(PY) benchmarks/run_all.py

clean:
	rm -rf $(VENV) build *.egg-info
