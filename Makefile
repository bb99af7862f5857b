# One entry point for people and CI. `make test` installs everything it needs.
PY      ?= $(shell scripts/venv-python)
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed
NB      := notebooks/01_quickstart.ipynb
LAB     := labextension
PORT    ?= 8888

.PHONY: lab marimo setup build lint test test-js test-py test-temporal test-faults test-nb test-e2e bench bench-smoke wheel-check docs docs-build clean \
	test-deps checks-then-browser python-tiers kernel-tiers system-packages interop-venvs interop-langgraph interop-strands interop-adk

lab: setup ## Open JupyterLab on the quickstart notebook with the offline model.
	INTERRUPT_WIDGET_MODEL=offline $(BIN)/jupyter lab --allow-root --ServerApp.ip=127.0.0.1 --ServerApp.port=$(PORT) $(NB)

marimo: setup ## Open marimo on the quickstart with the offline model.
	INTERRUPT_WIDGET_MODEL=offline $(BIN)/marimo edit --host 127.0.0.1 --port $(PORT) notebooks/quickstart_marimo.py

setup: $(STAMP) build

## The editable install writes the lab extension's files into the venv: through the link an
## earlier build left there they would land in the build itself (a second install.json), so
## the link goes first and `build` makes it again.
$(STAMP): pyproject.toml requirements/ci.txt package.json package-lock.json tests/agui_client/package-lock.json \
		$(LAB)/package.json $(LAB)/package-lock.json
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade "pip==26.3"
	npm ci --no-audit --no-fund
	npm ci --no-audit --no-fund --prefix tests/agui_client
	npm ci --no-audit --no-fund --prefix $(LAB)
	npm run build
	if [ -L $(LAB_IN_VENV) ]; then rm -f $(LAB_IN_VENV) $(LAB_LINKED); fi
	$(BIN)/python -m pip install -q -c requirements/ci.txt -e ".[dev]"
	touch $(STAMP)

## The bundle, rebuilt only when its sources change: `make lab` while tests read it rewrites nothing.
BUNDLE     := $(addprefix src/interrupt_widget/static/,widget.js widget.css inbox.js inbox.css)
JS_SOURCES := $(shell find js -name '*.ts' -o -name '*.css') package.json package-lock.json terser.config.json
$(BUNDLE) &: $(JS_SOURCES) | $(STAMP)
	npm run build

## The JupyterLab extension (labextension/, its own npm packages): esbuild bundles its TypeScript
## with every JupyterLab package left to the page, and jupyter-builder (from the venv) makes the
## prebuilt extension in src/interrupt_widget/labextension/, which the wheel ships under
## share/jupyter/labextensions/. An editable install copies it once; the link made after each
## build puts this checkout's build in the venv's JupyterLab instead, so a reload shows a change.
LAB_BUILT   := src/interrupt_widget/labextension/package.json
LAB_LINKED  := $(VENV)/.labextension-linked
LAB_IN_VENV := $(VENV)/share/jupyter/labextensions/interrupt-widget-lab
LAB_SOURCES := $(shell find $(LAB)/src -name '*.ts' -o -name '*.css') $(JS_SOURCES) $(LAB)/package.json $(LAB)/package-lock.json
$(LAB_BUILT): $(LAB_SOURCES) | $(STAMP)
	PATH="$(abspath $(BIN)):$$PATH" npm run --prefix $(LAB) build
	touch $@

$(LAB_LINKED): $(LAB_BUILT)
	$(BIN)/python scripts/develop-labextension
	touch $@

build: $(BUNDLE) $(LAB_BUILT) $(LAB_LINKED)

lint: setup
	$(BIN)/ruff check --no-cache src tests bench
	$(BIN)/ruff format --no-cache --check src tests bench
	$(BIN)/mypy
	npm run typecheck
	npm run lint

test-js: setup
	npm test

## The documentation site (mkdocs.yml, docs/): `make docs` serves it on 127.0.0.1 and rebuilds on
## every change; `make docs-build` builds it with --strict into a temporary folder, so a broken
## link, a missing page or a docstring the reference cannot read fails. Nothing is fetched while
## building, and no page loads a script, stylesheet or image from another host.
DOCS_PORT ?= 8001
docs: setup
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve --dev-addr 127.0.0.1:$(DOCS_PORT)

docs-build: setup
	@set -e; site=$$(mktemp -d); trap 'rm -rf "$$site"' EXIT; \
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir "$$site"; \
	if grep -rlE '<(script|link|img)[^>]+(src|href)="(https?:)?//' "$$site"; then \
	  echo "these pages load something from another host" >&2; exit 1; fi

## Other frameworks' AG-UI servers, each in its own venv (their pins conflict with ours).
interop-venvs: interop-langgraph interop-strands interop-adk
interop-langgraph interop-strands interop-adk:
	scripts/interop-venv $(@:interop-%=%) >/dev/null

## Debian's PostgreSQL (the ledger's tests) and chromium (the browser tests), one apt at a time.
system-packages:
	scripts/ensure-postgresql
	scripts/ensure-chromium
	scripts/ensure-patch

## What the test tiers need beyond `setup`; `make -j` makes them side by side.
test-deps: interop-venvs system-packages copilotkit-build

test-py: setup interop-venvs
	scripts/ensure-postgresql
	scripts/ensure-patch
	$(BIN)/pytest -q -p no:cacheprovider tests --ignore=tests/e2e --ignore=tests/faults --ignore=tests/temporal

## Temporal: the workflow, its workers and the chat on it, on a dev server the tests start (apart
## from test-py only so that `make test` can put it in whichever line has room).
test-temporal: setup
	$(BIN)/pytest -q -p no:cacheprovider tests/temporal

## Faults: edited calls and saves, restarts, kill -9, stale saves in a new kernel, open binds,
## the ledger's database failing (PostgreSQL restarted and stopped, SQLite shared, locked, full).
test-faults: setup
	scripts/ensure-postgresql
	$(BIN)/pytest -q -p no:cacheprovider tests/faults

## Each notebook in its own kernel, offline, with no person, its model cassette (if any) replayed
## and never recorded (mode none): one with a decision file beside it
## (NAME.decisions.json) is answered by replaying that file, one that answers its questions
## itself (metadata interrupt_widget.answers_itself) by nobody else, any other by approve_all. A
## question nobody answers fails its cell in 5 s (UnattendedWait), never nbval's 2000 s timeout.
## Each records its approved calls in a ledger of its own in a temporary folder, never the user's.
## One pytest process runs them all (the kit imported once): tests/notebook_answers.py sets who
## answers each, and its ledger, before its kernel starts.
test-nb: setup
	OPENAI_API_KEY= INTERRUPT_WIDGET_MODEL=offline INTERRUPT_WIDGET_CASSETTE_MODE=none PYTHONPATH=tests \
	  $(BIN)/pytest -q -p no:cacheprovider -p notebook_answers --nbval-lax --nbval-current-env notebooks/*.ipynb

test-e2e: setup copilotkit-build
	scripts/ensure-chromium
	$(BIN)/pytest -q -p no:cacheprovider tests/e2e

## Every test, from a fresh clone: installs Python deps, npm deps and chromium itself. The
## installs first (side by side, mostly waiting on downloads); then three lines side by side:
## the quick checks (ruff, mypy, tsc, eslint, the wheel, the JS tests, the docs' build), then
## the browser tests; the Python tests, then Temporal's; the faults, the notebooks and the
## benches' smoke. Each line keeps about two thirds of a core busy (the rest is waiting on
## kernels, browsers, servers and disks), so three fill the two cores and end within a minute
## or two of each other; each tier takes its own free ports, temporary folders and databases,
## so none reaches into another's.
test: setup
	$(MAKE) --no-print-directory -j4 --output-sync=target test-deps
	$(MAKE) --no-print-directory -j3 --output-sync=target checks-then-browser python-tiers kernel-tiers

checks-then-browser: setup
	$(MAKE) --no-print-directory -j1 lint wheel-check test-js docs-build test-e2e

python-tiers: setup
	$(MAKE) --no-print-directory -j1 test-py test-temporal

kernel-tiers: setup
	$(MAKE) --no-print-directory -j1 test-faults test-nb bench-smoke

## The CopilotKit example (React and CopilotKit stay in examples/copilotkit, never in the widget).
CK      := examples/copilotkit
$(CK)/node_modules/.installed: $(CK)/package.json $(CK)/package-lock.json
	npm ci --no-audit --no-fund --prefix $(CK)
	touch $@

copilotkit-build: $(CK)/node_modules/.installed
	npm run --prefix $(CK) typecheck
	npm run --prefix $(CK) build

## The meeting scheduler as a web page beside `serve` (agent on :8000, page on :5173).
copilotkit-demo: setup copilotkit-build
	scripts/copilotkit-demo

## Every bench at its full size: the figures docs/performance.md reports. The browser bench
## needs chromium, the ledger bench measures PostgreSQL too when it is installed, and the durable
## bench runs LangGraph's side in LangGraph's own venv.
bench: setup system-packages interop-langgraph
	for b in bench/*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

## Every bench once at its smallest size (`--quick`), so none can rot; its figures mean nothing.
bench-smoke: setup system-packages interop-langgraph
	for b in bench/*.py; do echo "== $$b --quick"; $(BIN)/python $$b --quick || exit 1; done

wheel-check: setup
	scripts/check-wheel

clean:
	rm -rf $(VENV) node_modules src/interrupt_widget/static dist build .venv-interop $(CK)/node_modules $(CK)/dist \
		$(LAB)/node_modules $(LAB)/lib src/interrupt_widget/labextension
