# petctl: `make run` serves the Petstore, `make test` runs every test.
GO       ?= go
PKGS     := ./...
BIN      := bin/petctl
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
LDFLAGS  := -X main.version=$(VERSION)

.PHONY: run test check build bench bench-go bench-load fmt-check tidy-check vet vuln fuzz clean

## run: serve the embedded Petstore at http://127.0.0.1:4010/v1 (key: petctl-dev-key),
## the records kept across restarts in .petctl/state (serve's default);
## ARGS go to petctl serve: make run ARGS='--addr 127.0.0.1:8080' (--state none: memory only)
ARGS ?=
run: build
	exec ./$(BIN) serve $(ARGS)

## test: every test, in two runs. The first has the race detector, which
## multiplies the CPU time of pure computation by four or five: the tests
## that serve the whole shared corpus were four fifths of the suite under
## it. So under -race they serve one document (internal/corpus.RaceSample)
## and skip the others, the plain run of the engine suite (TestPlainSuite)
## and the conformance runs against 4 MiB bodies skip, each saying so; the
## second run, without -race, runs those tests (NORACE_TESTS, in
## NORACE_PKGS). So it does the tests that feed one path many inputs: of
## a conformance run against each way of breaking a server, under -race
## the first case of each table runs; value plans against 4,000 values a
## schema and TuneGC's large store run without it alone (internal/race:
## Heavy, Light, Split). The second run, told by PETCTL_NORACE_PASS,
## leaves out what the first ran: those first cases, RaceSample, the
## light cases of TestHostileDeployments. internal/race's own test holds
## every test that leaves cases out under -race to NORACE_TESTS.
## Every document still goes through the lifecycle,
## the errors, the authentication, the conformance run and the reference
## page on each make test, and the detector still watches every path on
## the fixtures and on RaceSample. The time-out is per package.
## The two runs go side by side: much of the first is waiting (servers'
## time-outs, latencies, processes started), which the second fills; its
## output follows the first's. GOGC=200 halves the collector's work, a
## fifth of the corpus tests' CPU, for half as much memory again.
## GORACE=atexit_sleep_ms=0: a race-built program sleeps a second before it
## exits, so that goroutines still running may report a race; every test
## binary and every race-built petctl the tests start paid it. Races are
## reported as they happen, this only gives up the last second's.
## CI runs .ci/run, so a syntax error there fails here first, in a second.
NORACE_TESTS := ^(TestCorpus.*|TestPlainSuite|TestResourcesInferred|TestBrowserLargestDocument|TestBrowserPhoneCorpus|TestHostileDeployments|TestBrokenServers|TestShapesBroken|TestThingsBroken|TestLegitimateVariations|TestValuePlanAgreesWithSchema|TestTuneGC)$$
NORACE_PKGS  := ./engine ./engine/reference ./conformance ./spec
## RACE_FIRST: go test runs packages in the order named (./... then adds
## the rest, each once). The three that take longest under -race go
## first, so that the short ones fill the end, not wait behind them.
RACE_FIRST   := ./cmd/petctl ./engine ./conformance
TEST_RACE    := $(GO) test -race -count=1 -timeout 30m $(RACE_FIRST) $(PKGS)
TEST_NORACE  := PETCTL_NORACE_PASS=1 $(GO) test -count=1 -timeout 30m -run '$(NORACE_TESTS)' $(NORACE_PKGS)
test:
	sh -n .ci/run
	@echo "$(TEST_RACE)"; echo "$(TEST_NORACE) (beside it; its output follows)"; \
	log=$$(mktemp); trap 'rm -f "$$log"' EXIT; \
	GOGC=200 $(TEST_NORACE) >"$$log" 2>&1 & norace=$$!; \
	GOGC=200 GORACE=atexit_sleep_ms=0 $(TEST_RACE); race=$$?; \
	wait $$norace; rc=$$?; \
	echo "--- $(TEST_NORACE)"; cat "$$log"; \
	[ $$race -eq 0 ] && [ $$rc -eq 0 ]

## check: formatting, go.mod tidiness, go vet, known vulnerabilities, then the tests
check: fmt-check tidy-check vet vuln test

GOVULNCHECK := golang.org/x/vuln/cmd/govulncheck@v1.9.0

## vuln: govulncheck on every package (installs from the Go module proxy).
## Its database lives at vuln.go.dev; where that host cannot be reached the
## check says so and passes, unless VULN_STRICT=1.
vuln:
	@out=$$($(GO) run $(GOVULNCHECK) ./... 2>&1); rc=$$?; \
	if [ $$rc -eq 0 ]; then echo "govulncheck: no vulnerable call paths"; \
	elif echo "$$out" | grep -q "fetching vulnerabilities"; then \
		echo "govulncheck: NOT CHECKED: the vulnerability database (vuln.go.dev) cannot be reached from here"; \
		if [ -n "$(VULN_STRICT)" ]; then exit 1; fi; \
	else echo "$$out"; exit $$rc; fi

## fuzz: explore the handler's fuzz target (FUZZTIME=10m by default)
FUZZTIME ?= 10m
fuzz:
	$(GO) test -run '^$$' -fuzz FuzzHandler -fuzztime $(FUZZTIME) ./engine

## build: bin/petctl. It says so first, then names each package it compiles
## (-v): the first build compiles every dependency for a minute or two, and
## would otherwise look like a hang.
build:
	@echo "building $(BIN) (the first build downloads and compiles the modules: a minute or two)"
	$(GO) build -v -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/petctl

## bench: the Go benchmarks, then every comparison, written as one table into
## docs/performance.md (about 20 minutes; BENCH_FLAGS=-short checks the producers in a few)
bench: bench-go bench-load

## bench-go: validation, store, fixtures and handler benchmarks, in-process
bench-go:
	$(GO) test -run '^$$' -bench . -benchmem ./spec ./engine

## bench-load: every comparison of docs/performance.md (net/http baseline, CRUD,
## a million records, the largest corpus documents, the stores, Prism and Mockoon,
## conform, make test), its table written into that page
bench-load:
	$(GO) run ./bench/cmd/benchall $(BENCH_FLAGS)

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

tidy-check:
	@cp go.mod /tmp/petctl-go.mod.bak && cp go.sum /tmp/petctl-go.sum.bak; \
	$(GO) mod tidy; \
	if ! cmp -s go.mod /tmp/petctl-go.mod.bak || ! cmp -s go.sum /tmp/petctl-go.sum.bak; then \
		cp /tmp/petctl-go.mod.bak go.mod; cp /tmp/petctl-go.sum.bak go.sum; \
		echo "go mod tidy would change go.mod or go.sum"; exit 1; fi

vet:
	$(GO) vet $(PKGS)

clean:
	rm -rf bin
