# The quick loop and the full one. `make test` is the README's second set-up command.
GO ?= go
STATICCHECK_VERSION := v0.8.2
STATICCHECK := $(shell $(GO) env GOPATH)/bin/staticcheck

.PHONY: test test-slow test-all lint regen staticcheck

# The quick loop: the test suite against a real in-process DuckDB, Arrow included.
test:
	$(GO) test -tags duckdb_arrow ./...

# The quick loop plus the slow tests (kills, signals, full disks, strace, other DuckDB builds,
# external servers); CI's second stage.
test-slow:
	TABLEGATE_SLOW=1 $(GO) test -tags duckdb_arrow ./...

# Everything CI runs: lint, examples, tests, race detector, fuzzing, interop, benchmark guard.
test-all:
	bash .ci/run

lint: $(STATICCHECK)
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) vet -tags duckdb_arrow ./...
	$(STATICCHECK) -tags duckdb_arrow ./...

$(STATICCHECK):
	$(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

# Rewrite the golden files (compile/testdata/*.sql, *.rules) from the schemas beside them; review
# the diff before committing it.
regen:
	$(GO) test -tags duckdb_arrow ./compile/ -run '^TestGolden$$' -update
