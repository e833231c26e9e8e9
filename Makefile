# Everything a fresh machine needs, with only Python 3.11 and pip (no root):
#
#   make lab      open the course in JupyterLab
#   make test     run the test suite
#   make bench    the engine's speed next to NumPy
#
# Each target creates .venv if it is missing and installs the project into it
# (editable, so edits to engine/ take effect at once). The install runs again
# only when pyproject.toml changes: a stamp file in .venv carries its checksum.
# Extra arguments: make test ARGS="-x tests/test_viz.py", make lab ARGS="--no-browser".

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip install --disable-pip-version-check --progress-bar off
HASH   := $(firstword $(shell cksum pyproject.toml))
ARGS   ?=

# What JupyterLab's file browser does not list: jupyter_server's defaults, and the jupytext twins of
# the lessons and assignments (10_tensors_and_eager.py beside its .ipynb), so each notebook shows once.
HIDDEN_IN_BROWSER := __pycache__ *.pyc *.pyo .DS_Store *~ *.so *.dylib [0-9][0-9]_*.py A[0-9].py A[0-9][0-9].py

.PHONY: lab test bench install install-test clean

# JupyterLab serves the repository root, where nbgrader_config.py configures nbgrader (its formgrader
# needs the course root inside the server root), and opens course/. Jupyter refuses to run as root
# unless told (containers often run as root). `python` is the course's everywhere in JupyterLab, so
# `python -m autograder check A1.ipynb` means the same in a notebook cell and in a terminal:
# .venv/bin goes first on PATH (the kernels and their `!` commands inherit it), and a terminal is bash
# with .venv/bin/activate as its startup file. (jupyter_server's default, a login shell, reads
# /etc/profile, which resets PATH; ~/.bashrc may put pyenv's or conda's python first.)
lab: $(VENV)/.installed-$(HASH)
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" "$(CURDIR)/$(VENV)/bin/jupyter" lab --ServerApp.root_dir="$(CURDIR)" \
		--LabApp.default_url=/lab/tree/course/lessons/00_start_here.ipynb \
		$(foreach g,$(HIDDEN_IN_BROWSER),--ContentsManager.hide_globs='$(g)') \
		$(if $(shell command -v bash),--ServerApp.terminado_settings=shell_command="bash --rcfile '$(CURDIR)/$(VENV)/bin/activate' -i") \
		$(if $(filter 0,$(shell id -u)),--allow-root) $(ARGS)

test: $(VENV)/.installed-test-$(HASH)
	$(PY) -m pytest $(ARGS)

bench: $(VENV)/.installed-$(HASH)
	$(PY) -m bench $(ARGS)

install: $(VENV)/.installed-$(HASH)
install-test: $(VENV)/.installed-test-$(HASH)

# Some Debian machines lack the venv module's pip bootstrap (package python3-venv);
# then build the venv without pip and let the system's pip install pip into it.
$(PY):
	$(PYTHON) -m venv $(VENV) || { rm -rf $(VENV) && $(PYTHON) -m venv --without-pip $(VENV) \
		&& $(PYTHON) -m pip --python $(PY) install --disable-pip-version-check pip; }

$(VENV)/.installed-$(HASH): | $(PY)
	$(PIP) -e .
	rm -f $(VENV)/.installed-[0-9]*
	touch $@

# The test install includes the plain one, so it stamps both.
$(VENV)/.installed-test-$(HASH): | $(PY)
	$(PIP) -e ".[test]"
	rm -f $(VENV)/.installed-[0-9]* $(VENV)/.installed-test-*
	touch $(VENV)/.installed-$(HASH) $@

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
