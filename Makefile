# Ferry: `make demo` and `make test` work on a fresh Debian machine with Swift installed.
# They install the C libraries Ferry links (libsqlite3-dev, libcsv-dev, libssl-dev, libzstd-dev, libsnappy-dev)
# when missing, and libxml2, which Foundation's XMLParser (FoundationXML) loads to read Xcode models; `make test`
# also creates .venv-test/ with pyarrow, DuckDB, PySpark, pandas and Polars, which the tests read exports with,
# installs PostgreSQL's server and Java (TEST_PKGS) and runs a server for the tests (Tests/postgres-server.sh), stopped
# again when they end, pass or fail.

SWIFT        ?= swift
SYSTEM_PKGS  := libsqlite3-dev libcsv-dev libssl-dev libzstd-dev libsnappy-dev libxml2 libpq-dev
# Only the tests need a PostgreSQL server (ferry publish's tests run against a real one) and Java (Apache Spark reads
# the Parquet files Ferry writes).
TEST_PKGS    := postgresql openjdk-17-jre-headless
# Where Tests/postgres-server.sh remembers the server it started for `make test`.
TEST_POSTGRES := $(CURDIR)/.build/postgres-test.state
# Where Pipelines/demo.yml writes.
DEMO_OUT     := out/demo
FERRY        := .build/debug/ferry
# The tests read the Parquet files Ferry writes with pyarrow and DuckDB, from this virtual environment.
TEST_VENV    := .venv-test
TEST_PYTHON  := $(CURDIR)/$(TEST_VENV)/bin/python

.PHONY: all build demo test deps test-deps install-missing test-readers bench bench-publish docs clean

all: build

## deps: install the system libraries Ferry needs (apt-get, as root) if any is missing.
deps:
	@$(MAKE) --no-print-directory install-missing PKGS="$(SYSTEM_PKGS)"

## test-deps: the system packages only the tests need (PostgreSQL's server, Java for Apache Spark).
test-deps:
	@$(MAKE) --no-print-directory install-missing PKGS="$(TEST_PKGS)"

install-missing:
	@missing=""; for p in $(PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" -ne 0 ]; then \
	    echo "Ferry needs these system packages:$$missing"; \
	    echo "Run as root, or install them first: sudo apt-get install -y$$missing"; exit 1; \
	  fi; \
	  echo "Installing$$missing ..."; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

build: deps
	$(SWIFT) build

## test-readers: a Python virtual environment with pyarrow, DuckDB, PySpark, pandas and Polars (from PyPI) in
## $(TEST_VENV)/, if missing: readers of Ferry's exports that share no code with it. PySpark 4 runs on the Java 17
## of TEST_PKGS.
test-readers:
	@if ! $(TEST_PYTHON) -c "import pyarrow, duckdb, pyspark, pandas, polars" 2>/dev/null; then \
	  echo "Creating $(TEST_VENV)/ with pyarrow, duckdb, pyspark, pandas and polars ..."; \
	  if ! python3 -m venv $(TEST_VENV) 2>/dev/null; then \
	    if [ "$$(id -u)" -ne 0 ]; then \
	      echo "Python's venv module is missing: sudo apt-get install -y python3-venv"; exit 1; \
	    fi; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv && \
	      python3 -m venv $(TEST_VENV) || exit 1; \
	  fi; \
	  $(TEST_VENV)/bin/pip install -q pyarrow duckdb "pyspark>=4,<5" pandas polars || exit 1; \
	fi

## test: the whole test suite (what CI runs).
test: deps test-deps test-readers
	$(SWIFT) build --build-tests
	@bash Tests/postgres-server.sh stop $(TEST_POSTGRES)
	@url=$$(bash Tests/postgres-server.sh start $(TEST_POSTGRES)) || exit 1; \
	  FERRY_TEST_POSTGRES_URL="$$url" FERRY_TEST_PYTHON=$(TEST_PYTHON) $(SWIFT) test --skip-build; status=$$?; \
	  bash Tests/postgres-server.sh stop $(TEST_POSTGRES); exit $$status

## demo: run Pipelines/demo.yml on SampleData/ into out/demo/ and show what it made.
demo: build
	@rm -rf $(DEMO_OUT)
	$(FERRY) validate Pipelines/demo.yml
	$(FERRY) run Pipelines/demo.yml
	@echo; echo "Outputs in $(DEMO_OUT)/:"; ls -l $(DEMO_OUT)
	@echo; echo "First rows of $(DEMO_OUT)/products.csv:"; head -n 4 $(DEMO_OUT)/products.csv
	@echo; echo "Rejected records, with why: $(DEMO_OUT)/products.rejects.csv"; cut -c1-160 $(DEMO_OUT)/products.rejects.csv
	@echo; echo "Migrations: a store made with Pipelines/inventory.model/v1.yml, migrated v1 -> v2 -> v3 by ferry run"
	$(FERRY) import SampleData/inventory-v1.csv --store $(DEMO_OUT)/inventory.sqlite --entity Item \
	  --model Pipelines/inventory.model/v1.yml --quiet
	$(FERRY) migrate --store $(DEMO_OUT)/inventory.sqlite --model Pipelines/inventory.model --plan
	$(FERRY) run Pipelines/inventory.yml
	$(FERRY) inspect --store $(DEMO_OUT)/inventory.sqlite | sed -n '/Model versions/,/^$$/p'
	@echo; echo "Inspect the store: $(FERRY) inspect --store $(DEMO_OUT)/catalog.sqlite"
	@echo "Read the Parquet snapshot: duckdb -c \"SELECT * FROM '$(DEMO_OUT)/lake/Product/*.parquet'\""
	@echo "Read the Parquet dataset: duckdb -c \"SELECT * FROM read_parquet('$(DEMO_OUT)/products.parquet/**/*.parquet', hive_partitioning = true)\""

## bench: Ferry side by side with the C reference (see Tests/Benchmarks/README.md).
bench: deps
	bash Tests/Benchmarks/compare.sh

## bench-publish: ferry publish side by side with psql's \copy and a hand-written upsert (a throwaway server).
bench-publish: deps test-deps
	bash Tests/Benchmarks/publish-bench.sh

## docs: the DocC catalogs of the four libraries, into .build/plugins/Swift-DocC/outputs/.
docs: deps
	@for t in FerrySQLite FerryStore FerryIO FerryPipeline; do \
	  $(SWIFT) package generate-documentation --target $$t || exit 1; \
	done

clean:
	rm -rf .build $(DEMO_OUT) $(TEST_VENV)
