# Two commands for a fresh Debian/Ubuntu machine (see README):
#   make test   set everything up, then run every test (unit tests, conformance, nbval notebooks) on
#               every core, leaving out the long randomized runs
#   make test-all   the same, with the long randomized runs (the whole fuzz corpus, more hypothesis examples)
#   make lab    set everything up, then open the course in JupyterLab
#   make book   set everything up, then build the course as a static website in build/book/
# The interpreter .venv is made from: the distribution's own Python 3 (/usr/bin/python3) where it is 3.11 or newer and
# can make a venv, else the first python3 on PATH; PYTHON=... chooses another. Debian's and Ubuntu's Python is built
# with profile-guided and link-time optimisation into a static executable; pyenv's default build has neither (a
# shared libpython, no --enable-optimizations). On this 2-core machine, Debian's 3.11.2 against pyenv's 3.11.7, in
# runs taken in turn: `make test` 1 to 37 s faster in four pairs (145-157 s against 158-188 s), about 10%; groups of
# engine and magic tests in one process, 11-22% less CPU. (An existing .venv keeps its interpreter: `make clean`.)
SYSTEM_PYTHON := /usr/bin/python3
ifeq ($(origin PYTHON),undefined)
QUALIFIES := import sys, ensurepip; sys.exit(sys.version_info < (3, 11) or not ensurepip.version())
PYTHON := $(shell $(SYSTEM_PYTHON) -c '$(QUALIFIES)' >/dev/null 2>&1 && echo $(SYSTEM_PYTHON) || echo python3)
endif
VENV   := .venv
PY     := $(VENV)/bin/python

# pytest-xdist workers for `make test` (auto: one per CPU, the root conftest.py says why; WORKERS=0 runs in
# this process, for a debugger)
WORKERS ?= auto

.PHONY: test test-all lab book book-js setup dot chromium conformance bench lint clean

# uv (Astral's installer, put into the venv by pip) installs cfnb and its extras: a fresh .venv takes about 10 s
# instead of pip's 60 on this 2-core machine. uv reads PyPI (or UV_DEFAULT_INDEX), not pip's configuration: where it
# cannot be installed or cannot install the extras, pip does it.
INSTALL = $(PY) -m uv pip install -q --python $(PY)

$(VENV)/.installed-test: pyproject.toml
	@echo "Making $(VENV) with $(PYTHON) ($$($(PYTHON) -c 'import sys; print(sys.version.split()[0])'))"
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q uv && $(INSTALL) -e ".[test]" || { \
	  echo "uv could not install cfnb's test extras: installing them with pip"; \
	  $(PY) -m pip install -q --upgrade pip && $(PY) -m pip install -q -e ".[test]"; }
	touch $@

$(VENV)/.installed-lab: $(VENV)/.installed-test
	$(INSTALL) -e ".[test,lab]" || $(PY) -m pip install -q -e ".[test,lab]"
	touch $@

dot:
	@command -v dot >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq graphviz >/dev/null; \
	  else echo "Graphviz's 'dot' is missing: run 'sudo apt-get install graphviz'" \
	    "(or use the conda route in README.md)"; exit 1; fi; }

# Debian's Chromium, for the browser tests (tests/browser.py launches it under Playwright: the explorer, the course
# site, the drawings' sizes, JupyterLab). Without it those tests are skipped, each with the reason.
chromium:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  elif command -v apt-get >/dev/null 2>&1 && sudo -n true 2>/dev/null; then \
	    sudo -n apt-get update -qq && \
	      sudo -n env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else echo "Chromium is missing, so the browser tests will be skipped: run 'sudo apt-get install chromium'"; fi; }

# The scripts the course site serves to render its widgets (RequireJS, ipywidgets' html-manager), fetched once
# from the npm registry with npm (tools/vendor_book_js.py); the site itself never fetches anything.
book-js: $(VENV)/.installed-test
	@command -v npm >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null; \
	  else echo "npm is missing (the course site fetches its widget scripts with it once):" \
	    "run 'sudo apt-get install npm'"; exit 1; fi; }
	$(PY) tools/vendor_book_js.py

setup: $(VENV)/.installed-test dot chromium book-js

# PYTHONDONTWRITEBYTECODE=1 (set in some environments, this one included) makes every pytest worker, nbval kernel
# and subprocess compile cfnb/, magics/ and the tests again, and keeps pytest from saving its assertion rewrites;
# the test run writes them once into __pycache__/ (ignored by git).
TEST_ENV := env -u PYTHONDONTWRITEBYTECODE

test: setup
	$(PY) -m ruff check .
	$(TEST_ENV) $(PY) -m pytest -n $(WORKERS) --durations=25

test-all: setup
	$(PY) -m ruff check .
	$(TEST_ENV) $(PY) -m pytest -n $(WORKERS) -m "long or not long"

# tools/lab.py serves the repository's root (so the notebooks' links to docs/ work), opens the first chapter,
# turns JupyterLab's first-start news pop-up off in this environment's settings, and passes --allow-root as
# root and --no-browser without a display (then it prints the URL with its token to open in a browser).
lab: $(VENV)/.installed-lab dot
	exec $(PY) tools/lab.py

# The course as a static website: the committed notebooks (never executed here), the README's course table as
# the front page, the reading guide as an appendix; every warning and broken reference fails the build.
book: $(VENV)/.installed-test dot book-js  # the test extra includes the book extra
	$(PY) -m sphinx -W --keep-going -n -q -b html -c docs -d build/.book-doctrees . build/book
	@echo "The course site is in build/book/: open file://$(CURDIR)/build/book/index.html in a browser"

conformance: setup
	$(PY) ../shared/conformance/run.py

bench: setup
	# OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE pin a slower matmul kernel on some machines: unset for timing only
	env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE $(PY) benchmarks/run_all.py

clean:
	rm -rf $(VENV) build *.egg-info
