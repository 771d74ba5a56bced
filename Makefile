# toolcat — make targets. `make demo` runs toolcat end to end on the
# example catalog; `make test` runs every test.

GO       ?= go
BIN      := bin/toolcat
EXAMPLE  := examples/articles/catalog
SCHEMA   := catalog/catalog.schema.json
RULESDOC := docs/lint-rules.md
# Catalogs with generated docs in their docs/ folder.
DOCS_DIRS := examples/articles
# Go packages compiled from a catalog in their catalog/ folder.
GEN_DIRS := examples/articles gen/internal/validatortest
GEN_DIRS += examples/mcp-conformance/fixtures basetools examples/agent-host/tickets

.PHONY: all build deps test test-unit test-race lint demo generate check-generate test-corpus corpus-present discovery-pool eval-discovery fuzz bench bench-compare clean
.PHONY: test-mcp-conformance test-cross bench-scale bench-discovery eval-poisoning

all: build

build:
	$(GO) build -o $(BIN) ./cmd/toolcat

# What the tests need besides Go: redis-server, Node.js and npm (the MCP
# tests install the npm clients they run themselves). As root with apt-get
# they are installed; otherwise this stops with the command that installs
# them.
deps:
	@sh .ci/deps

# Every test: generated files up to date, vet and gofmt clean, the whole
# module (Redis tests start their own redis-server) with the corpus tests
# of test-corpus, the runtime and hardware under the race detector, the
# modules of internal/, the MCP conformance suite. Each package is built
# and tested once: the race packages only under -race, the others without
# it; go vet runs once, in lint (go test -vet=off). The module's tests,
# the race tests and the modules of internal/ run side by side, so that
# while one of them waits on a long test or a large package the others
# keep the CPUs busy; each one's output is printed whole when it ends.
test: deps corpus-present
	$(MAKE) --no-print-directory check-generate lint
	TOOLCAT_CORPUS="$(CORPUS_ABS)" $(MAKE) --no-print-directory -j3 --output-sync=target test-unit test-race test-sdk
	$(MAKE) --no-print-directory test-mcp-conformance

# The packages whose tests run under the race detector (test-race) rather
# than in test-unit: runtime's and hardware's, but those whose code and
# tests run on one goroutine, where the race detector has nothing to
# check (runtime/codemode/tsdecl, whose test alone compiles esbuild;
# export, jsonscan, toolscan).
RACE_RE   := ^github.com/toolcat/toolcat/(runtime|hardware)(/|$$)
NORACE_RE := ^github.com/toolcat/toolcat/runtime/(codemode/tsdecl|export|jsonscan|toolscan)$$

# Compiler flags of the test builds, which cut their compile time without
# changing what runs. TEST_GCFLAGS turns off inlining in the third-party
# packages only tests build (their optimisation is most of their compile
# time: go-redis 39 s of CPU with inlining, 21 s without). The packages
# bin/toolcat and the generated code are made of keep the default flags,
# so that the go commands the tests run in modules of their own find them
# compiled. (OpenTelemetry's SDK and exporters, gRPC and go-jose are in
# the example commands too, and the go build of articles-serve in its
# tests compiles those it needs again with the default flags: still less
# CPU than compiling them all with inlining for every test that needs
# them, 981-986 s of make test's CPU against 1,027-1,061 from an empty
# cache.) Give the same flags to go vet and go test, so that go test
# reuses the packages go vet compiled. RACE_GCFLAGS does the same for all
# third-party packages of the race build, which nothing else shares, and
# leaves out its debugging information (DWARF, which only a debugger
# reads): 297 → 226 s of CPU for the race build from an empty cache.
TEST_ONLY_DEPS := github.com/redis/go-redis/v9 github.com/dop251/goja github.com/evanw/esbuild google.golang.org/grpc
TEST_ONLY_DEPS += go.opentelemetry.io/otel/sdk go.opentelemetry.io/otel/exporters github.com/zitadel/oidc/v3 github.com/go-jose/go-jose/v4
TEST_GCFLAGS := $(foreach p,$(TEST_ONLY_DEPS),-gcflags=$(p)/...=-l)
RACE_GCFLAGS := -gcflags='all=-l -dwarf=false' -gcflags=std=-dwarf=false -gcflags=github.com/toolcat/toolcat/...=-dwarf=false

test-unit:
	$(GO) test -count=1 -vet=off $(TEST_GCFLAGS) $$($(GO) list ./... | grep -v -E '$(RACE_RE)') $$($(GO) list ./runtime/... | grep -E '$(NORACE_RE)')

# TestEnvelopesBounded reads 100 MB values on one goroutine: ten times
# slower under the race detector, with nothing for it to check, so it
# runs without -race; so do TestCallAllocs, which counts allocations
# (sync.Pool drops what it is given at random under -race), and
# TestUntrustedTokens, whose tokenizer (a vocabulary of 200,000 entries
# in Go source) is not built for the race detector at all.
test-race:
	$(GO) test -count=1 -vet=off -race $(RACE_GCFLAGS) $$($(GO) list ./runtime/... ./hardware/... | grep -v -E '$(NORACE_RE)')
	$(GO) test -count=1 -vet=off -race $(RACE_GCFLAGS) -run TestLoadInParts ./catalog/
	$(GO) test -count=1 -vet=off $(TEST_GCFLAGS) -run '^(TestEnvelopesBounded|TestCallAllocs|TestUntrustedTokens)$$' ./runtime/

# The module builds for macOS and Windows too (the hardware tools answer
# unsupported where the OS has no I2C or SPI driver).
test-cross:
	GOOS=darwin $(GO) build ./...
	GOOS=windows $(GO) build ./...

# The provider exports read by the official SDKs (OpenAI, Anthropic, Gemini,
# MCP), in a module of their own so toolcat does not depend on them; and
# the discovery pool's builder, a module of its own too (its tests need no
# network); and the scale benchmark's pipeline at 20 tools (toolcat gen and
# oapi-codegen, each package built), a module of its own so toolcat does not
# depend on oapi-codegen (the module proxy serves it the first time).
# The SDKs are compiled without optimisation: the tests read a few
# definitions with them, and optimising their generated packages
# (Anthropic's and OpenAI's are among the largest Go packages there are)
# was most of the module's cost (Anthropic's package alone: 67 s of CPU
# optimised, 38 s not).
SDK_GCFLAGS := $(foreach p,github.com/anthropics/anthropic-sdk-go/v2 github.com/openai/openai-go/v3 google.golang.org/genai,-gcflags='$(p)/...=-N -l -dwarf=false')
test-sdk:
	cd internal/sdkcheck && $(GO) vet $(SDK_GCFLAGS) ./... && $(GO) test -count=1 -vet=off $(SDK_GCFLAGS) ./...
	cd internal/discoverypool && $(GO) vet ./... && $(GO) test -count=1 -vet=off ./...
	cd internal/scalebench && $(GO) vet ./... && $(GO) test -count=1 -vet=off ./...

# The official MCP conformance suite against the fixture server
# examples/mcp-conformance (tools compiled by toolcat), for revisions
# 2025-11-25 and 2026-07-28; every scenario must pass.
# Installs the suite and Node.js 22 from the npm registry on first use
# (npm must be on PATH; .ci/mcp-conformance says how to get it).
test-mcp-conformance:
	.ci/mcp-conformance

# Real tool definitions written by others (MCP servers' tool lists), each
# set taken through catalog, lint, gen, go vet and the generated
# conformance test, and through toolcat import, lint, gen and go vet. The
# corpus sits beside the checkout; CORPUS=dir for another. Without it,
# test-corpus and test fail (corpus-present): a corpus test that does not
# run must not pass. make test runs these tests in test-unit and
# test-race, with TOOLCAT_CORPUS set.
CORPUS ?= ../shared/corpus
CORPUS_ABS = $(abspath $(CORPUS))
corpus-present:
	@[ -d "$(CORPUS)" ] && [ -n "$$(ls -A "$(CORPUS)")" ] || { echo "no corpus at $(CORPUS): the corpus tests cannot run (CORPUS=dir gives another)" >&2; exit 1; }

test-corpus: corpus-present
	TOOLCAT_CORPUS="$(CORPUS_ABS)" $(GO) test -count=1 -vet=off -run '^(TestCorpus|TestImportCorpus)$$' -v ./cmd/toolcat/
	TOOLCAT_CORPUS="$(CORPUS_ABS)" $(GO) test -count=1 -vet=off -run '^TestCorpusQuality$$' -v ./runtime/discovery/
	TOOLCAT_CORPUS="$(CORPUS_ABS)" $(GO) test -count=1 -vet=off -run '^TestDirectMatchesCUEOnCorpus$$' -v ./catalog/
	TOOLCAT_CORPUS="$(CORPUS_ABS)" $(GO) test -count=1 -vet=off -run '^TestFalsePositivesCorpus$$' ./runtime/toolscan/

# The discovery evaluation (runtime/discovery/README.md): a pool of public
# tool definitions, outside the repository, then the evaluation's requests
# searched over it. discovery-pool installs the MCP servers of
# internal/discoverypool/servers.json from npm, asks each for its tools and
# adds the corpus's; it needs the npm registry and takes a few minutes the
# first time. Neither is part of `make test`. POOL=dir for another folder.
POOL ?= ../discovery-pool
discovery-pool:
	cd internal/discoverypool && $(GO) run . -pool "$(abspath $(POOL))" $(if $(wildcard $(CORPUS)),-corpus "$(abspath $(CORPUS))")

# The tool-poisoning check (runtime/toolscan, docs/security.md): the share
# of the poisoned set detected (at least 95%) and of the real tools of the
# corpus and the discovery pool flagged (at most 0.5%), each tool flagged
# listed with its findings.
eval-poisoning:
	$(GO) test -count=1 -run '^TestPoisonedSet$$' -v ./runtime/toolscan/
	@if [ -d "$(CORPUS)" ]; then TOOLCAT_CORPUS="$$(cd "$(CORPUS)" && pwd)" $(GO) test -count=1 -run '^TestFalsePositivesCorpus$$' -v ./runtime/toolscan/; \
	else echo "eval-poisoning: no corpus at $(CORPUS)"; fi
	@if [ -f "$(POOL)/manifest.json" ]; then TOOLCAT_DISCOVERY_POOL="$$(cd "$(POOL)" && pwd)" $(GO) test -count=1 -run '^TestFalsePositivesPool$$' -v ./runtime/toolscan/; \
	else echo "eval-poisoning: no pool at $(POOL) (make discovery-pool POOL=dir builds one)"; fi

eval-discovery:
	@if [ -f "$(POOL)/manifest.json" ]; then \
	  TOOLCAT_DISCOVERY_POOL="$$(cd "$(POOL)" && pwd)" $(GO) test -count=1 -run '^TestDirectMatchesCUEOnCorpus$$' -v ./catalog/ && \
	  TOOLCAT_DISCOVERY_POOL="$$(cd "$(POOL)" && pwd)" $(GO) test -count=1 -run '^Test(Eval|Howto)' -v ./runtime/discovery/ && \
	  TOOLCAT_DISCOVERY_POOL="$$(cd "$(POOL)" && pwd)" $(GO) test -count=1 -run '^TestFalsePositivesPool$$' ./runtime/toolscan/ && \
	  TOOLCAT_DISCOVERY_POOL="$$(cd "$(POOL)" && pwd)" $(GO) test -count=1 -run '^TestImportDiscoveryPool$$' -v ./cmd/toolcat/; \
	else echo "eval-discovery: no pool at $(POOL); not run (make discovery-pool POOL=dir builds one)"; fi

lint: build
	$(GO) vet $(TEST_GCFLAGS) ./...
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(BIN) lint hardware/catalog
	$(BIN) lint $(EXAMPLE)
	$(BIN) lint examples/mcp-conformance/fixtures/catalog
	$(BIN) lint basetools/catalog
	$(BIN) lint examples/agent-host/tickets/catalog
	$(BIN) breaking --against $(EXAMPLE)/toolcat.lock.json $(EXAMPLE)

# The example project, end to end: lint its catalog, compile it into Go,
# build it, run its conformance tests, then a few calls as an agent host
# makes them. A catalog with mistakes shows what lint reports. Last, the
# example agent host replays a scripted conversation over the base tools
# and its own; TRACE=1 prints its OpenTelemetry spans after it.
demo: build
	@echo "== toolcat lint $(EXAMPLE)"
	$(BIN) lint $(EXAMPLE)
	@echo "== toolcat gen (go generate ./examples/articles)"
	$(GO) generate ./examples/articles
	@echo "== go build and the conformance tests"
	$(GO) build ./examples/...
	$(GO) test -count=1 -run TestConformance -v ./examples/articles | grep -E '^(=== RUN|--- |ok|FAIL)' | grep -v '=== RUN'
	@echo "== calls, as the model sees them"
	$(GO) run ./examples/articles/cmd/articles-demo
	@echo "== a catalog with mistakes: toolcat lint examples/broken"
	-$(BIN) lint examples/broken
	@echo "== an agent host: the base tools and its own, one scripted conversation (examples/agent-host)"
	$(BIN) lint examples/agent-host/tickets/catalog
	$(GO) generate ./examples/agent-host/tickets
	$(GO) run ./examples/agent-host $(if $(TRACE),--trace)
	@echo "== the same host in code mode: search_api, one program over several tools with an approval in the middle, then the token figures"
	$(GO) run ./examples/agent-host --code-mode

# The hardware tools are a compiled catalog too.
GEN_DIRS += hardware
# Catalogs compiled with --validators=data, as out-dir=catalog-dir.
GEN_DATA_DIRS := gen/internal/validatortest/datamode=gen/internal/validatortest/catalog

# Files generated from the code: the format's JSON Schema and the rule
# reference.
generate: build
	$(BIN) schema > $(SCHEMA)
	$(GO) generate ./...
	$(BIN) lint --rules --format markdown > $(RULESDOC)

check-generate: build
	@$(BIN) schema | diff -u $(SCHEMA) - || { echo "$(SCHEMA) is stale: run make generate"; exit 1; }
	@for d in $(GEN_DIRS); do $(BIN) gen --check --out $$d $$d/catalog || exit 1; done
	@for p in $(GEN_DATA_DIRS); do $(BIN) gen --check --validators=data --out $${p%%=*} $${p#*=} || exit 1; done
	@for d in $(DOCS_DIRS); do $(BIN) docs --check --out $$d/docs $$d/catalog || exit 1; done
	@$(BIN) lint --rules --format markdown | diff -u $(RULESDOC) - || { echo "$(RULESDOC) is stale: run make generate"; exit 1; }

# Short fuzzing runs of the parsers and configuration files (the
# catalog's and toolcat import's); of exact
# integer reading against math/big and of the general validator's decoding
# against encoding/json; of generation
# from drawn catalogs into code that must type-check, and laid out by gen
# as gofmt lays it out; and of the generated
# validators against the general one, over the test catalog's arguments
# and over random schemas; of untrusted wrapping against tool text
# (FUZZTIME=10m for a longer one).
FUZZTIME ?= 30s
fuzz:
	$(GO) test -run '^$$' -fuzz FuzzLoadYAML -fuzztime $(FUZZTIME) ./catalog/
	$(GO) test -run '^$$' -fuzz FuzzLoadJSON -fuzztime $(FUZZTIME) ./catalog/
	$(GO) test -run '^$$' -fuzz FuzzLoadCUE -fuzztime $(FUZZTIME) ./catalog/
	$(GO) test -run '^$$' -fuzz FuzzLoadInParts -fuzztime $(FUZZTIME) ./catalog/
	$(GO) test -run '^$$' -fuzz '^FuzzDirect$$' -fuzztime $(FUZZTIME) ./catalog/
	$(GO) test -run '^$$' -fuzz FuzzDirectTwoFiles -fuzztime $(FUZZTIME) ./catalog/
	$(GO) test -run '^$$' -fuzz FuzzSplitYAML -fuzztime $(FUZZTIME) ./catalog/
	$(GO) test -run '^$$' -fuzz FuzzParseConfig -fuzztime $(FUZZTIME) ./catalog/lint/
	$(GO) test -run '^$$' -fuzz '^FuzzImport$$' -fuzztime $(FUZZTIME) ./catalog/importer/
	$(GO) test -run '^$$' -fuzz FuzzImportLoads -fuzztime $(FUZZTIME) ./catalog/importer/
	$(GO) test -run '^$$' -fuzz FuzzParseBaseline -fuzztime $(FUZZTIME) ./catalog/lint/
	$(GO) test -run '^$$' -fuzz FuzzReadLock -fuzztime $(FUZZTIME) ./catalog/breaking/
	$(GO) test -run '^$$' -fuzz 'FuzzParseConfig$$' -fuzztime $(FUZZTIME) ./catalog/breaking/
	$(GO) test -run '^$$' -fuzz FuzzParseInt64 -fuzztime $(FUZZTIME) ./runtime/jsonscan/
	$(GO) test -run '^$$' -fuzz FuzzDecodeExact -fuzztime $(FUZZTIME) ./runtime/
	$(GO) test -run '^$$' -fuzz FuzzGeneratedCodeCompiles -fuzztime $(FUZZTIME) ./gen/
	$(GO) test -run '^$$' -fuzz FuzzTextIsGofmt -fuzztime $(FUZZTIME) ./gen/
	$(GO) test -run '^$$' -fuzz FuzzDifferential -fuzztime $(FUZZTIME) ./gen/internal/validatortest/
	$(GO) test -run '^$$' -fuzz FuzzDifferential -fuzztime $(FUZZTIME) ./gen/internal/validatortest/datamode/
	$(GO) test -run '^$$' -fuzz FuzzDataPass -fuzztime $(FUZZTIME) ./runtime/
	$(GO) test -run '^$$' -fuzz FuzzUntrusted -fuzztime $(FUZZTIME) ./runtime/
	$(GO) test -run '^$$' -fuzz FuzzScanText -fuzztime $(FUZZTIME) ./runtime/toolscan/
	$(GO) test -run '^$$' -fuzz FuzzTakeIdempotencyKey -fuzztime $(FUZZTIME) ./runtime/
	$(GO) test -run '^$$' -fuzz FuzzSessionCall -fuzztime $(FUZZTIME) ./runtime/
	$(GO) test -run '^$$' -fuzz FuzzRun -fuzztime $(FUZZTIME) ./runtime/codemode/
	$(GO) test -run '^$$' -fuzz FuzzFileToolPaths -fuzztime $(FUZZTIME) ./basetools/
	$(GO) test -run '^$$' -fuzz FuzzCall -fuzztime $(FUZZTIME) ./hardware/
	$(GO) test -run '^$$' -fuzz FuzzMemorySessionStore -fuzztime $(FUZZTIME) ./runtime/
	$(GO) test -run '^$$' -fuzz FuzzCallArguments -fuzztime $(FUZZTIME) ./runtime/mcpserver/
	$(GO) test -run '^$$' -fuzz FuzzAuthorizationHeader -fuzztime $(FUZZTIME) ./runtime/mcpserver/
	$(GO) test -run '^$$' -fuzz FuzzDecodeRequest -fuzztime $(FUZZTIME) ./runtime/mcpserver/
	$(GO) test -run '^$$' -fuzz FuzzDirectPath -fuzztime $(FUZZTIME) ./runtime/mcpserver/
	$(GO) test -run '^$$' -fuzz FuzzSearch -fuzztime $(FUZZTIME) ./runtime/discovery/
	$(GO) test -run '^$$' -fuzz FuzzSchemaTexts -fuzztime $(FUZZTIME) ./runtime/discovery/
	$(GO) test -run '^$$' -fuzz FuzzPutState -fuzztime $(FUZZTIME) ./runtime/admin/
	$(GO) test -run '^$$' -fuzz '^FuzzArgPolicies$$' -fuzztime $(FUZZTIME) ./basetools/
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeCore$$' -fuzztime $(FUZZTIME) ./runtime/
	$(GO) test -run '^$$' -fuzz '^FuzzDeferHidden$$' -fuzztime $(FUZZTIME) ./runtime/export/
	$(GO) test -run '^$$' -fuzz '^FuzzEncodeJSON$$' -fuzztime $(FUZZTIME) ./runtime/
	$(GO) test -run '^$$' -fuzz '^FuzzEscapeUnescape$$' -fuzztime $(FUZZTIME) ./internal/jsonptr/
	$(GO) test -run '^$$' -fuzz '^FuzzOpenState$$' -fuzztime $(FUZZTIME) ./examples/mcp-conformance/fixtures/
	$(GO) test -run '^$$' -fuzz '^FuzzQuickSchema$$' -fuzztime $(FUZZTIME) ./catalog/
	$(GO) test -run '^$$' -fuzz '^FuzzSchemas$$' -fuzztime $(FUZZTIME) ./runtime/export/
	$(GO) test -run '^$$' -fuzz '^FuzzScript$$' -fuzztime $(FUZZTIME) ./examples/agent-host/
	$(GO) test -run '^$$' -fuzz '^FuzzSkip$$' -fuzztime $(FUZZTIME) ./runtime/jsonscan/
	$(GO) test -run '^$$' -fuzz '^FuzzValidName$$' -fuzztime $(FUZZTIME) ./runtime/
	$(GO) test -run '^$$' -fuzz '^FuzzValidators$$' -fuzztime $(FUZZTIME) ./runtime/
	$(GO) test -count=1 -timeout 0 -run '^TestDifferentialSchemas$$' ./gen/internal/validatortest/ -args -schemafuzz.time=$(FUZZTIME)

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./catalog/... ./gen/ ./runtime/... ./cmd/toolcat/

# toolcat at scale: lint, load and gen of 1,000 to 10,000 synthetic tools,
# toolcat gen against oapi-codegen on the same tools, and cold builds of
# both packages (internal/scalebench; docs/gen.md, "Scale"). Takes tens of
# minutes. BIG=1 adds a 5,000-tool package's build and conformance test;
# BENCH_SCALE_OUT=file writes the tables there too.
bench-scale:
	.ci/bench-scale

# runtime/discovery's figures side by side with the plain BM25 peer:
# search time and instructions over 5,000 tools, the ablation table and
# the evaluation sets (runtime/discovery/README.md, "Figures"). POOL=dir
# (make discovery-pool) adds the pool's benchmark and sets.
bench-discovery:
	.ci/bench-discovery $(if $(wildcard $(POOL)),"$(abspath $(POOL))")

# make bench-compare BASE=<commit> [PKG=./runtime] [BENCH='BenchmarkCall$$']
bench-compare:
	.ci/benchcmp $(BASE) $(or $(PKG),./runtime) '$(or $(BENCH),BenchmarkCall$$)'

clean:
	rm -rf bin
