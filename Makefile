# ldp-notebooks: two commands from a fresh clone.
#   make figures   set up .venv, run every notebook under the paper profile, write figures/
#   make test      set up .venv, run the unit tests, nbval over every notebook and the browser tests
# Also: make quick (one paper in under a minute), make book (the book of build/paper), make explore,
#       make refresh (re-execute committed notebooks at their defaults, in place), make bench, make lab,
#       make clean (build outputs), make distclean (also .venv).

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
LOCK   := $(VENV)/requirements.lock
JOBS   ?= 1

# One numpy/OpenBLAS code path on every x86-64 machine, so that `make figures` gives the same bytes on
# any of them: numpy's AVX-512 kernels and OpenBLAS's per-CPU kernels differ in the last bit (log10 in
# a log-scale plot, a pseudo-inverse), and Agg turns such a bit into a changed pixel.  The runners give
# their kernels the same settings when started without make (ldp_tools/pipeline/_kernels.py's
# DETERMINISTIC_ENV; a test holds the two equal).
ifeq ($(shell uname -m),x86_64)
export NPY_DISABLE_CPU_FEATURES ?= X86_V4 AVX512_ICL AVX512_SPR
export OPENBLAS_CORETYPE ?= Haswell
endif
export OPENBLAS_NUM_THREADS ?= 1

# Compiled modules are cached (__pycache__/, git-ignored; pytest's rewritten test modules too): a run
# starts a hundred Python processes (workers, kernels, runners) that import the same package, and an
# environment that sets PYTHONDONTWRITEBYTECODE would have each of them compile it again (about 4 s of
# CPU per pytest worker's collection, 0.15 s per kernel).
export PYTHONDONTWRITEBYTECODE :=

.PHONY: setup peers browser figures test lint refresh bench bench-explore lab clean distclean book explore

setup: $(STAMP)

# Re-runs only when the lock (environment.yml) or the package metadata change.  jupyter-events pulls two
# optional packages back in through jsonschema's "format-nongpl" extra; they are removed again
# (environment.yml says why); `pip check` then confirms that no requirement is missing (extras are not checked).
$(STAMP): environment.yml pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info[:2] == (3, 11), "Python 3.11 is required, found " + sys.version.split()[0]' \
		|| { echo "error: set PYTHON=/path/to/python3.11" >&2; exit 1; }
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	sed -n 's/^ *- \([A-Za-z0-9][A-Za-z0-9._-]*==[^ #]*\).*/\1/p' environment.yml > $(LOCK)
	$(PY) -m pip install --quiet --disable-pip-version-check -r $(LOCK)
	$(PY) -m pip uninstall --quiet --yes rfc3987-syntax lark
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	$(PY) -m pip check --disable-pip-version-check
	@# Build matplotlib's font cache now, so that no notebook prints the notice on stderr.
	$(PY) -c 'import matplotlib.pyplot'
	touch $(STAMP)

figures: setup peers
	$(PY) -m ldp_tools.pipeline.reproduce --profile paper --jobs $(JOBS)

# A first look in under a minute (README, "Quick look"): one paper, the LDP tutorial, as `make figures` runs it.
.PHONY: quick
quick: setup
	$(PY) -m ldp_tools.pipeline.reproduce --profile paper --only 00_tutorial

# Three pytest workers (pytest-xdist) on two cores: a file's tests stay on one worker, so a notebook's
# cells run in order in one kernel.  The browser tests wait on their kernels, Voila and Chromium: with
# two workers 81 of 664 core-seconds sat idle, and pytest took 324-337 s; with three, 303-322 s (a
# fourth only added contention: 323 s).  The wall time is printed at the end (CI's budget is four
# minutes on 2 cores).
TEST_WORKERS ?= 3
test: setup peers browser build/mathjax/node_modules/mathjax/es5/tex-chtml-full.js lint
	@start=$$(date +%s); \
	  $(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder; status=$$?; \
	  echo "make test: pytest took $$(( $$(date +%s) - start )) s of wall time with $(TEST_WORKERS) workers"; exit $$status

# The formatter and the linter (pinned in environment.yml, configured in pyproject.toml): `make test` fails
# on a file that `ruff format` would change or a `ruff check` finding.
lint: setup
	$(VENV)/bin/ruff format --check --quiet .
	$(VENV)/bin/ruff check --quiet .

# The browser tests (explorer app, book) drive headless Chromium.  As root on Debian (CI, containers)
# a missing Chromium is installed from the Debian archive; elsewhere nothing is installed and the tests
# use the Chromium/Chrome they find (CHROME_PATH, CHROMEDRIVER_PATH) or fail naming what to install.
browser:
	@if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "make browser: installing Debian's chromium and chromium-driver (root, apt-get)"; \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium chromium-driver \
	  || { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium chromium-driver; }; \
	else echo "make browser: no chromium/chromedriver on PATH and not root on Debian: the browser tests will fail" \
	  "with the install hint unless CHROME_PATH and CHROMEDRIVER_PATH are set"; fi

refresh: setup
	$(PY) -m ldp_tools.pipeline.refresh
	$(PY) -m ldp_tools.pipeline.report

# The peers (pure-ldp, multi-freq-ldpy) and their own dependencies are benchmark-only and not in
# the lock: they go to build/bench-peers (git-ignored), never into .venv.
PEERS := build/bench-peers/.installed
$(PEERS): tests/benchmarks/requirements.txt $(STAMP)
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps --upgrade --target build/bench-peers -r tests/benchmarks/requirements.txt
	touch $(PEERS)

# pure-ldp 1.1.2 (audited in notebook 06 and tests/peers/test_audit_peers.py) cannot share a folder with 1.2.0.
PEERS_OLD := build/peers-1.1.2/.installed
$(PEERS_OLD): tests/benchmarks/requirements-pure-ldp-1.1.2.txt $(STAMP)
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps --upgrade --target build/peers-1.1.2 -r tests/benchmarks/requirements-pure-ldp-1.1.2.txt
	touch $(PEERS_OLD)

peers: $(PEERS) $(PEERS_OLD)

# Offline MathJax 3 for the book (npm registry at setup time; nothing is fetched at build/view time).
MATHJAX := build/mathjax/node_modules/mathjax/es5/tex-chtml-full.js
$(MATHJAX):
	mkdir -p build/mathjax && cd build/mathjax && npm install --silent --no-audit --no-fund mathjax@3.2.2

# The book shows the paper-profile executions that `make figures` wrote to build/paper: nothing is executed
# here when they exist; from a fresh clone (none yet) `make figures` runs first.
book: setup $(MATHJAX)
	@ls build/paper/[0-9][0-9]_*.ipynb >/dev/null 2>&1 || { echo "make book: no executed notebooks in build/paper: running make figures first"; \
	  $(MAKE) --no-print-directory figures; }
	$(PY) book/build.py build/book
	@echo "make book: open build/book/index.html"

bench: setup $(PEERS)
	$(PY) tests/benchmarks/run.py --write-readme $(BENCH)

# The explorer's rows alone (about a minute): each panel's p50/p95 at the app's defaults and heaviest settings.
bench-explore: setup
	$(PY) tests/benchmarks/bench_explore_panels.py

# JupyterLab refuses root without --allow-root; containers/CI run as root, so pass it then (and say so).
lab: setup
	@if [ "$$(id -u)" = 0 ]; then echo "make lab: running as root, starting JupyterLab with --allow-root"; \
	  exec $(VENV)/bin/jupyter lab --allow-root --ip=127.0.0.1 notebooks/; \
	else exec $(VENV)/bin/jupyter lab --ip=127.0.0.1 notebooks/; fi

# The explorer app (ldp_tools.explore panels) served by Voila on 127.0.0.1:$(PORT) (8866 by default), guarded:
# loopback Host and Origin headers only, a fresh token (printed in the URL), at most a few kernels, and a notice
# when it runs as root (ldp_tools/explore/serve.py); the book built by `make book` is served beside the app
# (/voila/files/build/book/), so each panel links to its chapter.
PORT ?= 8866
explore: setup
	exec $(PY) -m ldp_tools.explore.serve --port $(PORT)

clean:
	rm -rf build .pytest_cache
	find . -name __pycache__ -type d -not -path './.venv/*' -prune -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV) ldp_helpers.egg-info ldp_helpers/*.egg-info *.egg-info
