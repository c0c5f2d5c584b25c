# The quick loop and the full one. `make test` is the README's second set-up command.
GO ?= go
STATICCHECK_VERSION := v0.8.2
STATICCHECK := $(shell $(GO) env GOPATH)/bin/staticcheck
GOTESTSUM_VERSION := v1.13.0
GOTESTSUM := $(shell $(GO) env GOPATH)/bin/gotestsum
# One line per test as it ends, so that a long package shows its progress.
GOTESTSUM_FLAGS := --format testname --format-hide-empty-pkg

.PHONY: test test-slow test-all lint regen staticcheck

# The quick loop: the test suite against a real in-process DuckDB, Arrow included (the
# README's `go test -tags duckdb_arrow ./...`, with a line per test).
test: $(GOTESTSUM)
	$(GOTESTSUM) $(GOTESTSUM_FLAGS) -- -tags duckdb_arrow ./...

# The slow tests alone (kills, signals, full disks, strace, sweeps, the binary once per case,
# other DuckDB builds, external programs), named TestSlow… so that -run picks them and no quick
# test; part of CI's slow tier.
test-slow: $(GOTESTSUM)
	TABLEGATE_SLOW=1 $(GOTESTSUM) $(GOTESTSUM_FLAGS) -- -tags duckdb_arrow -timeout 40m -run '^TestSlow' ./...

# Everything CI runs, tier by tier (setup, quick, slow, differential, dagster, spark), each
# within its budget; `make ci-TIER` runs one tier, installing what it needs.
test-all:
	bash .ci/run

ci-%:
	bash .ci/run $*

lint: $(STATICCHECK)
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) vet -tags duckdb_arrow ./...
	$(STATICCHECK) -tags duckdb_arrow ./...

$(STATICCHECK):
	$(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

$(GOTESTSUM):
	$(GO) install gotest.tools/gotestsum@$(GOTESTSUM_VERSION)

# Rewrite every golden file (compile's SQL, rules and programs, the Spark SQL, the CLI's outputs,
# the HTML pages) from the inputs beside them; review the diff before committing it.
regen:
	$(GO) test -tags duckdb_arrow ./compile/ -run '^TestGolden$$' -update
	$(GO) test -tags duckdb_arrow ./compile/spark/ -run '^TestGolden$$' -update
	$(GO) test -tags duckdb_arrow ./cmd/tablegate/ -run '^TestOutputsGolden$$' -update
	$(GO) test -tags duckdb_arrow ./report/htmlreport/ -run '^TestGolden$$' -update
