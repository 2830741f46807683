# Every target sets up what it needs: a fresh clone goes straight to `make story` or `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
ID ?= build-revise
ARGS ?=

.PHONY: help check lint docs venv bytecode agents packages engine browser oracle-image paperclip vibe-kanban findings prerequisites test defect-sweep story calibrate bench bench-report soak flaky testbed report clean cluster-node cluster-demo

help:
	@echo "make story ID=build-revise   run one cell (short case id or full execution id)"
	@echo "make check                   before every commit: make lint, then every test that starts nothing heavy"
	@echo "make test                    before a merge: set up everything, run make lint, then every test"
	@echo "make lint                    ruff (format and lint), mypy, import layers, docs in strict mode"
	@echo "make calibrate [ENGINE=ray]  prove the oracle and the stories catch every bad delivery (ENGINE=ray: on a Ray cluster)"
	@echo "make cluster-node [HEAD=ADDR] prepare this machine as a Ray node for --engine ray; join the cluster at ADDR"
	@echo "make cluster-demo            a two-node Ray cluster on this machine runs the free scripted cells with --engine ray"
	@echo "make bench                   print the speed figures (oracle, harness overhead, report, parallel cells, metering proxy, Ray)"
	@echo "make defect-sweep            every testbed defect's own flow (make test plays one per flow)"
	@echo "make flaky [K=10]            run every free scripted cell K times; print the cells whose verdicts differ"
	@echo "make soak                    kill the testbed controller at random during real work; print lost/duplicated/stuck"
	@echo "make oracle-image            build or verify the oracle's container image"
	@echo "make agents                  install every registered agent CLI (harness/agents/clis/) at its pin into .agents/"
	@echo "make testbed                 start the reference product on http://127.0.0.1:8765"
	@echo "make paperclip               install the pinned Paperclip and prepare its template data folder"
	@echo "make vibe-kanban             install the pinned vibe-kanban (an outside plug-in's product, plugins/vibe-kanban)"
	@echo "make findings                run each known Paperclip finding's standalone reproduction; exit 0 only if all still reproduce"
	@echo "make report                  build the static evidence report in report/ (open report/index.html)"
	@echo "make docs                    build the documentation site into site/ (open site/index.html)"
	@echo "make clean                   delete results/, report/, site/ and caches (asks first; FORCE=1 skips asking)"

# What a story needs: the project and its plug-ins, no extras. The template plug-in (plugins/example) is installed
# beside the project, as an outside package would be. scripts/step keeps each set-up step to one line with its time.
# Editable without an import hook: setuptools' compat mode writes plain-path .pth files, which scripts/editable_paths.py
# points at folders linking exactly each distribution's packages. Its default mode's finders slow the start of every
# Python process of the virtualenv (docs/measurements.md).
# A goal that needs the dev and Ray extras (below) gets them in the same pip call: one resolve and one editable build.
BASE := $(VENV)/.installed
DEV := $(VENV)/.dev
DEV_GOALS := venv lint check test defect-sweep docs findings bench soak testbed report bench-report cluster-node cluster-demo
DEV_EXTRAS := [dev,cluster]
EXTRAS := $(if $(filter $(DEV_GOALS),$(MAKECMDGOALS)),$(DEV_EXTRAS))
EDITABLE := --config-settings editable_mode=compat -e ".$(EXTRAS)" -e plugins/example -e plugins/paperclip -e plugins/vibe-kanban
$(BASE): pyproject.toml plugins/example/pyproject.toml plugins/paperclip/pyproject.toml plugins/vibe-kanban/pyproject.toml scripts/editable_paths.py
	@scripts/step python -- sh -c 'test -x $(PY) || $(PYTHON) -m venv $(VENV); \
		$(PY) -m pip install -q $(EDITABLE) && $(PY) scripts/editable_paths.py'
	@touch $@ $(if $(EXTRAS),$(DEV))

# The dev and Ray extras (linters, the docs site, the tests' Docker witness, Ray): make check, test and cluster-*.
# Nothing to do when the base install above brought them.
$(DEV): $(BASE)
	@scripts/step dev-tools --unless 'test -e $(DEV) && ! test $(BASE) -nt $(DEV)' -- sh -c \
		'$(PY) -m pip install -q --config-settings editable_mode=compat -e ".$(DEV_EXTRAS)" && $(PY) scripts/editable_paths.py'
	@touch $@

venv: $(DEV)

# The agent CLIs, pinned exactly by their registry entries (harness/agents/clis/: one module per CLI), which
# write the npm manifest (install scripts allowed only where an entry says so: Claude Code's postinstall
# links its native binary). npm runs only when the pins changed or a CLI is missing.
AGENTS := .agents
agents: $(BASE)
	$(PY) -m harness.agents.install $(AGENTS)

# The distribution packages the engine, the browser and the oracle's root would each install, in one apt-get call
# beside pip (as root on Debian; elsewhere nothing): dpkg's lock would run three installs one after the other.
packages:
	@scripts/step packages --unless 'bash scripts/ensure-packages.sh --check' -- bash scripts/ensure-packages.sh

engine: packages
	@scripts/step engine --unless 'docker info' -- bash scripts/ensure-docker-engine.sh

browser: $(BASE) packages
	@scripts/step browser --unless '$(PY) -m harness.running.browser --check' -- bash scripts/ensure-browser.sh $(PY)

# The oracle's image command needs only the standard library (oracle/engine.py speaks the engine's API itself), so
# it runs on the system Python, beside pip: a pull, or the root's build, never waits for the virtualenv.
oracle-image: engine
	@scripts/step oracle-image --unless '$(PYTHON) -m oracle preflight' -- $(PYTHON) -m oracle image

# Paperclip (npm, pinned in plugins/paperclip/everyday_paperclip/install.py) into .cache/paperclip (as root: /var/cache/everyday-evals/paperclip), plus its template data folder.
paperclip: $(BASE)
	$(PY) -m everyday_paperclip install

# vibe-kanban (npm, pinned in plugins/vibe-kanban/everyday_vibe_kanban/install.py) into .cache/vibe-kanban
# (as root: /var/cache/everyday-evals/vibe-kanban). The product comes in from an outside package (plugins/vibe-kanban).
vibe-kanban: $(BASE)
	@command -v unzip >/dev/null 2>&1 || ! { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; } \
		|| { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q unzip >/dev/null; }
	$(PY) -m everyday_vibe_kanban install

# Each known Paperclip finding's standalone reproduction (plugins/paperclip/everyday_paperclip/findings/), one after the other.
findings: venv paperclip
	$(PY) -m everyday_paperclip.findings

# The project's own bytecode, as any install of a package writes it. With PYTHONDONTWRITEBYTECODE
# set (as on these machines) nothing else would, and every process (a product's controller, each
# `python -m oracle grade`) would compile its modules again: 0.1 s of CPU at each start.
# Up-to-date files are skipped, so this costs nothing when nothing changed.
bytecode: $(BASE)
	@$(PY) -m compileall -q harness oracle calibration stories bench plugins

prerequisites: $(BASE) bytecode engine browser oracle-image

# pytest's rewritten test modules, written once before make test's workers start: with PYTHONDONTWRITEBYTECODE set (as
# on these machines) each worker would rewrite and compile every test module again (5 CPU-s each). Only this
# collection writes bytecode; the tests run as the environment says.
TEST_SOURCES := $(shell find tests plugins/*/tests -name '*.py' 2>/dev/null)
$(VENV)/.tests-compiled: $(DEV) $(TEST_SOURCES)
	@scripts/step test-bytecode -- env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest --collect-only -q -p no:cacheprovider
	@touch $@

lint: venv
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy harness oracle calibration stories bench plugins/example/everyday_example plugins/paperclip/everyday_paperclip plugins/vibe-kanban/everyday_vibe_kanban
	$(VENV)/bin/lint-imports --no-cache
	@out=$$(mktemp -d) && NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir $$out/site >$$out/log 2>&1; \
		status=$$?; [ $$status = 0 ] || grep -v '^INFO' $$out/log; rm -rf $$out; exit $$status

# The documentation site (MkDocs, Material) into site/; strict, so a broken link or a page left out fails.
docs: venv browser
	EVERYDAY_DOCS_PHOTOGRAPH=1 NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir site

# Five pytest workers on 2 cores: most tests wait on a product, a browser or a container, so five keep the cores
# busy through the stretches where four would all be waiting (docs/measurements.md; TEST_WORKERS=N to change). worksteal: a worker that
# runs out takes queued tests from a busy one. `make check` is the fast inner loop. The set-up steps and lint run at
# once, as for a story; each keeps its output together (-Otarget).
TEST_WORKERS ?= 5
TEST_NEEDS := lint prerequisites agents paperclip vibe-kanban $(VENV)/.tests-compiled
test:
	@$(MAKE) --no-print-directory -j4 -Otarget $(TEST_NEEDS)
	$(PY) -m pytest -n $(TEST_WORKERS) --dist worksteal --durations=15 $(ARGS)

# The inner loop, before every commit: lint, then every test that needs no browser, Docker engine, product, agent CLI
# or cluster (tests/needs.py). --no-launch also fails any selected test that starts one of them. Three workers on
# 2 cores: many of these tests wait on a subprocess they start, and two workers left the cores a third idle
# (docs/measurements.md; CHECK_WORKERS=N to change).
CHECK_WORKERS ?= 3
check: lint
	env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest --no-launch -n $(CHECK_WORKERS) --dist worksteal -q -p no:cacheprovider $(ARGS)

# Every testbed defect's own flow; make test plays one defect per flow, and every defect's calibration case.
defect-sweep: venv prerequisites
	$(PY) -m pytest -n $(TEST_WORKERS) --dist worksteal --defect-sweep tests/testbed/test_defects.py

# A Paperclip or vibe-kanban cell (its execution id names the product's environment), or --all, which holds them, installs the product first.
# The set-up steps run at once (make -j): pip beside the packages (one apt-get call), the engine once they are in, the
# image once the engine is up (still beside pip), the browser once pip and the packages are done.
STORY_NEEDS := prerequisites $(if $(findstring replay-,$(ID) $(ARGS))$(findstring runner-,$(ID) $(ARGS))$(findstring --all,$(ARGS)),agents) $(if $(findstring paperclip,$(ID) $(ARGS))$(findstring --all,$(ARGS)),paperclip) $(if $(findstring vibe-kanban,$(ID) $(ARGS))$(findstring --all,$(ARGS)),vibe-kanban)
story:
	@$(MAKE) --no-print-directory -j4 $(STORY_NEEDS)
	$(VENV)/bin/harness run --id $(ID) $(ARGS)

# ENGINE=ray: the story cells play on the Ray cluster at $$RAY_ADDRESS (else a two-node one started on this machine).
ENGINE ?= local
calibrate: prerequisites agents
	$(PY) -m calibration --engine $(ENGINE) $(ARGS)

# One command prepares a node: everything a cell needs here, its readiness checked as the driver will check it,
# then (with HEAD=ADDR) `ray start` joins the cluster with one cell slot per core (SLOTS=N to change).
HEAD ?=
SLOTS ?= $(shell nproc)
cluster-node: venv prerequisites agents paperclip vibe-kanban
	$(PY) -m harness.running.cluster.readiness
	$(if $(HEAD),$(VENV)/bin/ray start --address $(HEAD) --resources '{"harness_cell_slots": $(SLOTS)}',@echo "ready; join a cluster with: make cluster-node HEAD=<head address>")

cluster-demo: venv prerequisites
	$(PY) -m harness.running.cluster.demo $(ARGS)

bench: venv prerequisites
	$(PY) -m bench.oracle
	$(PY) -m bench.harness
	$(PY) -m bench.report
	$(PY) -m bench.parallel
	$(PY) -m bench.proxy
	$(PY) -m bench.controller_start
	$(PY) -m bench.replay_cells
	$(PY) -m bench.cell_worker
	$(PY) -m bench.calibration
	$(PY) -m bench.cluster
	$(MAKE) paperclip
	$(PY) -m everyday_paperclip.bench

soak: venv
	$(PY) -m bench.soak $(ARGS)

# Every free scripted testbed cell K times (default 10); ARGS="--id CELL" narrows it.
flaky: prerequisites
	$(PY) -m bench.flaky --attempts $(or $(K),10) $(ARGS)

testbed: venv
	$(PY) -m harness.testbed serve --data .cache/testbed --port 8765

report: venv
	$(VENV)/bin/harness report $(ARGS)

bench-report: venv
	$(PY) -m bench.report $(ARGS)

# results/ is evidence: clean asks before deleting it (FORCE=1 skips the question, for scripts).
FORCE ?=
clean:
	@if [ "$(FORCE)" != 1 ] && [ -d results ]; then \
		printf 'delete results/ (%s attempt(s) of evidence), report/, site/ and caches? [y/N] ' \
			"$$(find results -name attempt.json 2>/dev/null | wc -l)"; \
		read answer && [ "$$answer" = y ] || { echo "nothing deleted"; exit 1; }; \
	fi
	rm -rf results report site .cache .pytest_cache
