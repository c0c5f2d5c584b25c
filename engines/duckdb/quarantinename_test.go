package duckdb_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/schema"
)

// TestQuarantineName: Asset.QuarantineName puts the quarantine under another name beside the
// table (dagster-dataframely's orders__error_rows), for Parquet and for DuckDB tables, and every
// check names it.
func TestQuarantineName(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"orders__error_rows", "Ärger_select"} {
		e := newEnv(t)
		out := runner.ParquetOutput{Path: e.path("out", "orders.parquet")}
		rep, err := run(t, ordersSchema(), runner.Asset{Input: runner.ParquetInput{Path: e.parquet("raw.parquet", ordersSelect(mixedRows))},
			Output: out, Quarantine: true, QuarantineName: name}, runner.Options{})
		require.NoError(t, err)
		want := e.path("out", name+".parquet")
		assert.Equal(t, want, rep.Quarantine.Address)
		assert.Equal(t, mixedQuar, e.parquetRows(want))
		assert.False(t, exists(t, e.path("out", "orders_quarantine.parquet")), "the default name is not written")
		for _, c := range rep.Checks {
			assert.Equal(t, want, c.ErrorRowsAddress, c.Name)
		}

		db := e.path("w.duckdb")
		rep, err = run(t, ordersSchema(), runner.Asset{Input: runner.ParquetInput{Path: e.parquet("raw.parquet", ordersSelect(mixedRows))},
			Output: runner.TableOutput{File: db, Table: "orders"}, Quarantine: true, QuarantineName: name}, runner.Options{})
		require.NoError(t, err)
		assert.Equal(t, db+":"+name, rep.Quarantine.Address)
		rows, _, ok := e.tableRows(db, name)
		require.True(t, ok, "quarantine table %s", name)
		assert.Len(t, rows, len(mixedQuar))
	}
}

// TestQuarantineNameRefused: a name that leaves the folder, replaces the table or comes without
// a quarantine is refused before anything is read or written.
func TestQuarantineNameRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, quarantineName string
		quarantine           bool
		want                 string
	}{
		{"path", "../elsewhere", true, "without path separators"},
		{"separator", "a/b", true, "without path separators"},
		{"the table", "orders", true, "the table's own name"},
		{"the table in another case", "ORDERS", true, "the table's own name"},
		{"no quarantine", "orders__error_rows", false, "without a quarantine"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			out := runner.ParquetOutput{Path: e.path("out", "orders.parquet")}
			rep, err := run(t, ordersSchema(), runner.Asset{Input: runner.ParquetInput{Path: e.parquet("raw.parquet", ordersSelect(allValidRows))},
				Output: out, Quarantine: tt.quarantine, QuarantineName: tt.quarantineName}, runner.Options{})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.Nil(t, rep.Outcome)
			assert.False(t, exists(t, out.Path), "nothing written")
		})
	}
}

// TestDecimalSamplesKeepDigits: a Decimal value in a failure sample keeps its scale ("-1.00"),
// which a JSON number loses in most readers; NULL stays null.
func TestDecimalSamplesKeepDigits(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := schema.New("Prices", schema.String("id"), schema.Decimal("price", 10, 2).Nullable().Min("0"))
	q := `SELECT * FROM (VALUES ('a', -1.00::DECIMAL(10,2)), ('b', 2.50::DECIMAL(10,2)), ('c', -0.05::DECIMAL(10,2)), ('d', NULL::DECIMAL(10,2))) t(id, price)`
	rep, err := run(t, s, runner.Asset{Input: runner.ParquetInput{Path: e.parquet("p.parquet", q)}}, runner.Options{})
	require.Error(t, err)
	assert.Equal(t, parseJSON(t, `[{"id": "a", "price": "-1.00"}, {"id": "c", "price": "-0.05"}]`),
		metadata(t, rep, "dy_rule__price__min")["dataframely/failed_examples"])
}

// TestQuarantineAddressOfURL: the quarantine of an output at a URL (an object store, HDFS) sits
// beside its last element, the URL's scheme and host kept.
func TestQuarantineAddressOfURL(t *testing.T) {
	t.Parallel()
	for out, want := range map[string]string{
		"s3a://bucket/out/orders.parquet":          "s3a://bucket/out/orders_quarantine.parquet",
		"s3a://bucket/orders.parquet":              "s3a://bucket/orders_quarantine.parquet",
		"hdfs://nn:8020/data/day=1/orders.parquet": "hdfs://nn:8020/data/day=1/orders_quarantine.parquet",
	} {
		o := runner.ParquetOutput{Path: out}
		assert.Equal(t, want, o.QuarantineAddress(runner.QuarantineName(o.DefaultAssetName())), out)
	}
}
