# toolcat — make targets. `make demo` runs toolcat end to end on the
# example catalog; `make test` runs every test.

GO       ?= go
BIN      := bin/toolcat
EXAMPLE  := examples/articles/catalog
SCHEMA   := catalog/catalog.schema.json
RULESDOC := docs/lint-rules.md

.PHONY: all build test test-unit test-race lint demo generate check-generate fuzz bench clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/toolcat

# Every test: generated files up to date, vet and gofmt clean, the whole
# module (Redis tests start their own redis-server), and the runtime under
# the race detector.
test: check-generate lint test-unit test-race

test-unit:
	$(GO) test -count=1 ./...

test-race:
	$(GO) test -count=1 -race ./runtime/...

lint: build
	$(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(BIN) lint $(EXAMPLE)

# The example catalog, end to end.
demo: build
	@echo "== toolcat lint $(EXAMPLE)"
	$(BIN) lint $(EXAMPLE)
	@echo "== toolcat lint --format json (summary)"
	$(BIN) lint --format json $(EXAMPLE) | tail -6
	@echo "== a catalog with mistakes: toolcat lint examples/broken"
	-$(BIN) lint examples/broken

# Files generated from the code: the format's JSON Schema and the rule
# reference.
generate: build
	$(BIN) schema > $(SCHEMA)
	$(BIN) lint --rules --format markdown > $(RULESDOC)

check-generate: build
	@$(BIN) schema | diff -u $(SCHEMA) - || { echo "$(SCHEMA) is stale: run make generate"; exit 1; }
	@$(BIN) lint --rules --format markdown | diff -u $(RULESDOC) - || { echo "$(RULESDOC) is stale: run make generate"; exit 1; }

# Short fuzzing runs of the parsers (FUZZTIME=10m for a longer one).
FUZZTIME ?= 30s
fuzz:
	$(GO) test -run '^$$' -fuzz FuzzLoadYAML -fuzztime $(FUZZTIME) ./catalog/
	$(GO) test -run '^$$' -fuzz FuzzLoadJSON -fuzztime $(FUZZTIME) ./catalog/
	$(GO) test -run '^$$' -fuzz FuzzLoadCUE -fuzztime $(FUZZTIME) ./catalog/

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./catalog/... ./runtime/...

clean:
	rm -rf bin
