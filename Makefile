# Ferry: `make demo` and `make test` work on a fresh Debian machine with Swift installed.
# They install the C libraries Ferry links (libsqlite3-dev, libcsv-dev) when missing.

SWIFT        ?= swift
SYSTEM_PKGS  := libsqlite3-dev libcsv-dev
DEMO_OUT     ?= out/demo
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

## demo: convert the sample data and show what happened.
demo: build
	@mkdir -p $(DEMO_OUT)
	@for f in SampleData/*.csv; do \
	  n=$$($(FERRY) count $$f) && echo "$$f: $$n records"; done
	$(FERRY) convert SampleData/products.csv $(DEMO_OUT)/products.ndjson
	$(FERRY) convert SampleData/categories.csv $(DEMO_OUT)/categories.json
	$(FERRY) convert SampleData/product_updates.ndjson $(DEMO_OUT)/product_updates.csv
	$(FERRY) convert SampleData/orders.json $(DEMO_OUT)/orders.csv --flatten
	@echo; echo "Outputs in $(DEMO_OUT)/:"; ls -l $(DEMO_OUT)
	@echo; echo "First records of $(DEMO_OUT)/products.ndjson:"; head -n 3 $(DEMO_OUT)/products.ndjson

## bench: Ferry side by side with the C reference (see Tests/Benchmarks/README.md).
bench: deps
	bash Tests/Benchmarks/compare.sh

clean:
	rm -rf .build $(DEMO_OUT)
