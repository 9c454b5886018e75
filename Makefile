# skirmish — developer commands. `make demo` and `make test` work on a fresh machine:
# each creates .venv if needed and installs the project with its dev extras.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export SDL_VIDEODRIVER ?= dummy
export SDL_AUDIODRIVER ?= dummy
export MPLBACKEND ?= Agg
export PYGAME_HIDE_SUPPORT_PROMPT = 1

.PHONY: scenarios-doc lock demo test test-all lint typecheck contracts check bench sidebyside soak soak-ci clean venv fairness warmup

venv: $(STAMP)

$(STAMP): pyproject.toml requirements.lock
	@echo "make: installing skirmish and its dependencies into $(VENV) (a few minutes the first time)"
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c requirements.lock -e '.[dev,distributed,rl,analysis]'
	touch $(STAMP)

## Rewrite requirements.lock from the venv (after changing a dependency in pyproject.toml).
lock:
	$(BIN)/python -m pip install --quiet -e '.[dev,distributed,rl,analysis]'
	{ echo "# requirements.lock: the exact versions CI and 'make venv' install (pip's constraints file)."; \
	  echo "# Regenerate after changing a dependency: make lock"; \
	  $(BIN)/python -m pip freeze --exclude-editable | grep -v '^skirmish'; } > requirements.lock

## Compile the geometry and path kernels (once per installation; says so when it does).
warmup: $(STAMP)
	$(BIN)/skirmish warmup

## The main job: AI-vs-AI battles on the shipped 5v5 scenario, headless.
demo: $(STAMP)
	$(BIN)/skirmish battle scenarios/skirmish-5v5.yaml -n 40 --seed 1 --red cautious --blue aggressive --out out/demo --log out/demo/logs

## Are the shipped scenarios fair? Mirror-AI battles, one Markdown table (docs/scenarios.md).
fairness: $(STAMP)
	$(BIN)/skirmish fairness scenarios/*.yaml -n 200 --policy cautious --policy aggressive --check

## docs/scenarios.md's fairness table and docs/img/fairness.png: every small shipped scenario
## under every ruleset, mirror cautious and aggressive, 200 battles a row (14,000 battles, about
## 25 minutes on 2 cores): at 40 battles a row even an exactly symmetric scenario shows a
## weaker side under 40 % in one row of seven by chance alone, at 200 in one of two hundred.
SMALL_SCENARIOS := $(filter-out scenarios/profiles.yaml scenarios/village-battle.yaml,$(wildcard scenarios/*.yaml))
scenarios-doc: $(STAMP)
	$(BIN)/skirmish fairness $(SMALL_SCENARIOS) --ruleset all -n 200 --min-decisive 0 --max-battles 200 \
	  --policy cautious --policy aggressive --workers 2 --heatmap docs/img/fairness.png --write-doc docs/scenarios.md

## The test suite (slow soak tests run in their short CI form). The kernels are compiled
## first, once, not by each test worker.
test: warmup
	$(BIN)/python -m pytest -q -n 2 --dist loadfile

test-all: warmup
	SKIRMISH_SOAK=full $(BIN)/python -m pytest -q -n 2 --dist loadfile

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

contracts: $(STAMP)
	$(BIN)/lint-imports

## Everything CI checks.
check: test lint typecheck contracts

bench: $(STAMP)
	$(BIN)/python benchmarks/cover.py --quick
	$(BIN)/python benchmarks/paths.py
	$(BIN)/python benchmarks/battles.py --quick
	$(BIN)/python benchmarks/render.py

## CPU per battle and per command of REF (a git commit, checked out beside the tree and kept in
## ~/.cache/skirmish/sidebyside) against this tree, alternating in one sitting, on the issue's
## measure: the shipped 5v5, cautious vs aggressive, every registered ruleset (docs/batch.md).
REF ?= cbdbca2
SIDEBYSIDE ?= --scenario skirmish-5v5 --policies cautious,aggressive --seeds 1-6 --rounds 5
sidebyside: $(STAMP)
	$(BIN)/python benchmarks/sidebyside.py --ref $(REF) $(SIDEBYSIDE)

## The long soak: thousands of random-policy battles with invariants on.
soak: $(STAMP)
	$(BIN)/python benchmarks/soak.py --battles 5000 --jobs 2

## CI's soak: 1,000 full-length random-policy battles over every small scenario x ruleset,
## then 10 battles of the 40v40 village (4 rounds each: a full-length random 40v40 battle takes
## ~5,000 commands with every invariant checked after each); about 5 minutes on 2 cores.
soak-ci: $(STAMP)
	$(BIN)/python benchmarks/soak.py --battles 1000 --seed 0 --jobs 2 --no-progress $(addprefix --scenario ,$(SMALL_SCENARIOS))
	$(BIN)/python benchmarks/soak.py --battles 10 --seed 0 --jobs 2 --no-progress --rounds 4 --scenario scenarios/village-battle.yaml

clean:
	rm -rf out .pytest_cache .mypy_cache .ruff_cache
