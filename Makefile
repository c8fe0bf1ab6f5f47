# Ferry: `make demo` and `make test` work on a fresh Debian machine with Swift installed.
# They install the C libraries Ferry links (libsqlite3-dev, libcsv-dev, libssl-dev, libzstd-dev, libsnappy-dev)
# when missing.

SWIFT        ?= swift
SYSTEM_PKGS  := libsqlite3-dev libcsv-dev libssl-dev libzstd-dev libsnappy-dev
# Where Pipelines/demo.yml writes.
DEMO_OUT     := out/demo
FERRY        := .build/debug/ferry

.PHONY: all build demo test deps bench clean

all: build

## deps: install the system libraries Ferry needs (apt-get, as root) if any is missing.
deps:
	@missing=""; for p in $(SYSTEM_PKGS); do \
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

## test: the whole test suite (what CI runs).
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

## demo: run Pipelines/demo.yml on SampleData/ into out/demo/ and show what it made.
demo: build
	@rm -rf $(DEMO_OUT)
	$(FERRY) validate Pipelines/demo.yml
	$(FERRY) run Pipelines/demo.yml
	@echo; echo "Outputs in $(DEMO_OUT)/:"; ls -l $(DEMO_OUT)
	@echo; echo "First rows of $(DEMO_OUT)/products.csv:"; head -n 4 $(DEMO_OUT)/products.csv
	@echo; echo "Rejected records, with why: $(DEMO_OUT)/products.rejects.csv"; cut -c1-160 $(DEMO_OUT)/products.rejects.csv
	@echo; echo "Inspect the store: $(FERRY) inspect --store $(DEMO_OUT)/catalog.sqlite"

## bench: Ferry side by side with the C reference (see Tests/Benchmarks/README.md).
bench: deps
	bash Tests/Benchmarks/compare.sh

clean:
	rm -rf .build $(DEMO_OUT)
