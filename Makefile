# make demo   try pideck on the built-in scripted model (no API key needed)
# make test   run the whole test suite: the three parts below, one after another
# make test-engine-on  every test, real pi included, on TEST_WORKERS pytest-xdist workers
#             (PYTEST_ARGS="-k cli" to narrow it, TEST_WORKERS=0 to run it in one process)
# make test-engine-off  the app tests and snapshots again on Textual's own compositor, timer,
#             display and parser (PIDECK_ENGINE=off: what pideck does on another Textual)
# make test-lowest  the unit tests on the lowest Textual pyproject.toml allows (LOWEST_TEXTUAL,
#             in a virtualenv of its own, .venv-lowest)
# make bench  run the benchmarks
#
# Needs only python3 (3.11+), npm and make: the virtualenv is created in .venv and
# the pinned pi runtime is installed into ~/.cache/pideck on first use.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.pideck-installed
TEST_STAMP := $(VENV)/.pideck-test-installed
# The lowest Textual pyproject.toml allows (its highest is the one pideck's engine was checked on).
LOWEST_TEXTUAL := 8.2.7
LOWEST := .venv-lowest
LOWEST_STAMP := $(LOWEST)/.pideck-textual-$(LOWEST_TEXTUAL)
# The tests mostly wait on pi, tmux and ssh children, so more workers than cores pay off;
# loadgroup keeps the tests of a module that share a pi child or App on one worker.
TEST_WORKERS ?= 4

.PHONY: demo test test-engine-on test-engine-off test-lowest bench

demo: $(STAMP)
	$(BIN)/pideck --demo

test: test-engine-on test-engine-off test-lowest

test-engine-on: $(TEST_STAMP)
	@$(BIN)/python -m app.runtime --describe
	$(BIN)/pytest -q -n $(TEST_WORKERS) --dist loadgroup $(PYTEST_ARGS)

test-engine-off: $(TEST_STAMP)
	PIDECK_ENGINE=off $(BIN)/pytest -q -n $(TEST_WORKERS) --dist loadgroup tests/app $(PYTEST_ARGS)

test-lowest: $(LOWEST_STAMP)
	$(LOWEST)/bin/pytest -q -n $(TEST_WORKERS) tests/unit $(PYTEST_ARGS)

bench: $(STAMP)
	$(BIN)/python -m benchmarks

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null || { \
	  echo "pideck needs Python 3.11 or newer, and '$(PYTHON)' is not (or is missing)." >&2; \
	  echo "Point make at one, e.g.: make PYTHON=python3.12 demo" >&2; exit 1; }
	$(PYTHON) -m venv $(VENV) || { rm -rf $(VENV); \
	  echo "Creating the virtualenv failed; on Debian/Ubuntu install python3-venv first." >&2; exit 1; }

# What running pideck needs, then (for make test only) the test extras on top: pytest,
# hypothesis, playwright... Each is installed again whenever pyproject.toml changes.
# pideck's own modules are compiled as a non-editable install would have pip compile them:
# where PYTHONDONTWRITEBYTECODE is set, Python would compile them anew at every start (0.15 s).
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --disable-pip-version-check -e .
	$(BIN)/python -m compileall -q app widgets protocol
	touch $@

$(TEST_STAMP): $(STAMP)
	$(BIN)/python -m pip install --disable-pip-version-check -e '.[test]'
	touch $@

# The unit tests' virtualenv on the lowest Textual allowed (again when pyproject.toml or LOWEST_TEXTUAL changes).
$(LOWEST_STAMP): pyproject.toml | $(BIN)/python
	test -x $(LOWEST)/bin/python || $(PYTHON) -m venv $(LOWEST)
	$(LOWEST)/bin/python -m pip install --disable-pip-version-check -e '.[test]' 'textual==$(LOWEST_TEXTUAL)'
	touch $@
