package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/internal/testenv"
	"github.com/tablegate/tablegate/runner"
)

// A longer local run of the collection kill test:
//
//	go test ./cmd/tablegate/ -run KillCollection -v -killset.iterations=500 -killset.rows=2000000
var (
	killSetIterations = flag.Int("killset.iterations", 100, "SIGKILLs of collection runs in TestSlowKillCollectionMidWrite")
	killSetRows       = flag.Int("killset.rows", 100_000, "orders of the collection kill test's input (items have twice as many rows, refunds a quarter)")
)

// The kill test's collection: orders and their items, related one to at least one, and refunds
// outside the filter.
const (
	shopCollection = `collection: Shop
members:
  orders: orders.yaml
  items: items.yaml
  refunds: {schema: refunds.yaml, ignored_in_filters: true}
filters:
  - {name: orders_have_items, one_to_at_least_one: [orders, items]}
`
	shopOrdersYAML = `schema: Orders
columns:
  - {name: id, type: Int64, primary_key: true}
  - {name: amount, type: Float64, min: 0}
  - {name: note, type: String, nullable: true, max_length: 40}
`
	shopItemsYAML = `schema: Items
columns:
  - {name: id, type: Int64, primary_key: true}
  - {name: line, type: Int64, primary_key: true}
  - {name: amount, type: Float64, min: 0}
  - {name: note, type: String, nullable: true, max_length: 40}
`
	shopRefundsYAML = `schema: Refunds
columns:
  - {name: id, type: Int64, primary_key: true}
  - {name: amount, type: Float64, min: 0}
  - {name: note, type: String, nullable: true, max_length: 40}
`
)

var shopMembers = []string{"orders", "items", "refunds"}

// shopInputs writes the members' inputs: n orders and 2n items (one row in 1009 of each with a
// negative amount, when invalid), n/4 refunds (invalid like the others when invalid, otherwise
// all valid); every note carries tag, so that two runs' outputs differ.
func (f *fixture) shopInputs(dir string, n int, tag string, invalidRefunds bool) map[string]string {
	bad := func(i string) string {
		return fmt.Sprintf("CASE WHEN %s %% 1009 = 0 THEN 2000 ELSE 0 END", i)
	}
	refundsBad := "0"
	if invalidRefunds {
		refundsBad = bad("i")
	}
	note := fmt.Sprintf("CASE WHEN i %% 7 = 0 THEN NULL ELSE '%s ' || (i * 31 %% 100000) END AS note", tag)
	return map[string]string{
		"orders": f.parquet(dir+"/orders.parquet", fmt.Sprintf(
			"SELECT i AS id, (i %% 1000)::DOUBLE - %s AS amount, %s FROM range(%d) t(i)", bad("i"), note, n)),
		"items": f.parquet(dir+"/items.parquet", fmt.Sprintf(
			"SELECT i // 2 AS id, i %% 2 AS line, (i %% 1000)::DOUBLE - %s AS amount, %s FROM range(%d) t(i)", bad("(i + 5)"), note, 2*n)),
		"refunds": f.parquet(dir+"/refunds.parquet", fmt.Sprintf(
			"SELECT i * 4 AS id, (i %% 1000)::DOUBLE - %s AS amount, %s FROM range(%d) t(i)", refundsBad, note, n/4)),
	}
}

// setFiles is a member's output files: its table, quarantine and kept previous quarantine.
type setFiles struct{ table, quar, prev string }

// TestSlowKillCollectionMidWrite starts real `tablegate validate --collection` processes over a
// three-member collection (orders and items in one folder, refunds in another) that replace
// every member's previous table and quarantine, and SIGKILLs each at a seeded random moment (see
// killAt: anywhere in the run, while it writes, just after its last write statement, where the
// set's flushes, kept links, pointers, journal and renames are). The new run quarantines rows of
// orders and items and none of refunds, whose previous quarantine it keeps as .prev.
//
// After every kill, the next run's recovery on ONE member, drawn at random (duckdb.RecoverOutput,
// the step every run writing that table takes first), leaves EVERY member's previous table and
// quarantine, or every member's new ones: never a mix across members, never a table beside
// another run's quarantine. Then every member's recovery leaves nothing but the outputs.
func TestSlowKillCollectionMidWrite(t *testing.T) {
	require.NoError(t, buildErr)
	testenv.Slow(t) // kills a hundred collection runs at random points
	f := newFixture(t)
	collection := f.write("shop/shop.yaml", shopCollection)
	f.write("shop/orders.yaml", shopOrdersYAML)
	f.write("shop/items.yaml", shopItemsYAML)
	f.write("shop/refunds.yaml", shopRefundsYAML)
	big := f.shopInputs("in/big", *killSetRows, "new", false)
	small := f.shopInputs("in/small", 5000, "previous", true)
	rng := rand.New(rand.NewPCG(*killSeed, 35))
	t.Logf("%d orders, seed %d, %d kills", *killSetRows, *killSeed, *killSetIterations)

	files := func(root string) map[string]setFiles {
		out := map[string]setFiles{}
		for _, m := range shopMembers {
			dir := filepath.Join(root, "sales")
			if m == "refunds" {
				dir = filepath.Join(root, "refunds")
			}
			out[m] = setFiles{filepath.Join(dir, m+".parquet"), filepath.Join(dir, m+"_quarantine.parquet"), filepath.Join(dir, m+"_quarantine.prev.parquet")}
		}
		return out
	}
	args := func(in map[string]string, out map[string]setFiles) []string {
		a := []string{"--collection", collection, "--quarantine"}
		for _, m := range shopMembers {
			a = append(a, "--input", m+"="+in[m], "--out", m+"="+out[m].table)
		}
		return a
	}

	// The complete new outputs, and how long a whole run takes.
	refOut := files(f.path("ref"))
	ref := startValidate(t, f.dir, args(big, refOut)...)
	require.Equal(t, 0, ref.wait(), ref.stderr.String())
	full, write := time.Since(ref.start), ref.writing()
	newState := map[string][2]string{}
	for _, m := range shopMembers {
		quar := "absent"
		if fileExists(refOut[m].quar) {
			quar = f.parquetDigest(refOut[m].quar)
		}
		newState[m] = [2]string{f.parquetDigest(refOut[m].table), quar}
	}
	require.Equal(t, "absent", newState["refunds"][1], "the new run quarantines no refund")
	require.NotEqual(t, "absent", newState["orders"][1])
	require.NotEqual(t, "absent", newState["items"][1])

	// The previous outputs, every member with a quarantine.
	out := files(f.path("out"))
	prev := startValidate(t, f.dir, args(small, out)...)
	require.Equal(t, 0, prev.wait(), prev.stderr.String())
	saved := map[string]setFiles{}
	prevState := map[string][2]string{}
	for _, m := range shopMembers {
		s := setFiles{f.path("saved", m+".parquet"), f.path("saved", m+"_quarantine.parquet"), ""}
		require.NoError(t, os.MkdirAll(filepath.Dir(s.table), 0o755))
		copyFile(t, out[m].table, s.table)
		copyFile(t, out[m].quar, s.quar)
		saved[m] = s
		prevState[m] = [2]string{sha(t, out[m].table), sha(t, out[m].quar)}
	}
	t.Logf("a complete run takes %.2f s, %.2f s of it writing", full.Seconds(), write.Seconds())

	names := strings.Join(shopMembers, "|")
	temporary := regexp.MustCompile(`^\.(` + names + `)\.parquet\.tablegate-(\d+-\d+-(table|quarantine|keep\d+)|journal-\d+)\.tmp$`)
	hidden := regexp.MustCompile(`^\.(` + names + `)\.parquet\.tablegate(\.lock|-journal)$`)
	dirs := []string{filepath.Dir(out["orders"].table), filepath.Dir(out["refunds"].table)}
	outcomes := map[string]int{}
	journals, leftovers, mixed := 0, 0, 0
	// The last COPY is the fourth (two tables, two quarantines; refunds, all valid, is published
	// by copying its input's bytes); after it come the fsyncs, the kept links, the pointers, the
	// journal and the renames, which last a few milliseconds.
	killLoop(t, f, rng, *killSetIterations, args(big, out), full, write, "  COPY", 4, 30*time.Millisecond, func(p *validateProc, kills int) {
		for _, dir := range dirs {
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			for _, e := range entries {
				switch name := e.Name(); {
				case strings.HasSuffix(name, ".parquet") && !strings.HasPrefix(name, "."):
				case strings.HasSuffix(name, "-journal"):
					journals++
				case hidden.MatchString(name):
				case temporary.MatchString(name):
					leftovers++
				default:
					t.Fatalf("kill %d: unexpected file %s in %s", kills, name, dir)
				}
			}
		}
		// The next run touching one member, any of them, completes or rolls back the set.
		first := shopMembers[rng.IntN(len(shopMembers))]
		require.NoError(t, duckdb.RecoverOutput(context.Background(), runner.ParquetOutput{Path: out[first].table}), "kill %d", kills)

		states := map[string]string{}
		for _, m := range shopMembers {
			o := out[m]
			tab := "previous"
			if sha(t, o.table) != prevState[m][0] {
				tab = "new"
				require.Equal(t, newState[m][0], f.parquetDigest(o.table), "kill %d (%s): %s's table is neither the previous one nor the complete new one", kills, p.phase(), m)
			}
			quar := "previous"
			switch {
			case !fileExists(o.quar):
				require.Equal(t, "absent", newState[m][1], "kill %d (%s): %s's quarantine removed", kills, p.phase(), m)
				require.Equal(t, prevState[m][1], sha(t, o.prev), "kill %d: %s's kept quarantine is the previous one", kills, m)
				quar = "new"
			case sha(t, o.quar) != prevState[m][1]:
				require.Equal(t, newState[m][1], f.parquetDigest(o.quar), "kill %d (%s): %s's quarantine is neither the previous one nor the complete new one", kills, p.phase(), m)
				quar = "new"
			}
			if tab != quar {
				t.Errorf("kill %d (%s): %s's table is %s and its quarantine %s", kills, p.phase(), m, tab, quar)
			}
			states[m] = tab
		}
		state := states["orders"]
		for _, m := range shopMembers {
			if states[m] != state {
				state = "mixed"
			}
		}
		if state == "mixed" {
			mixed++
			t.Errorf("kill %d (%s), recovered from %s: members %v", kills, p.phase(), first, states)
		}
		outcomes[state]++

		// Every member's recovery leaves only the outputs.
		for _, m := range shopMembers {
			require.NoError(t, duckdb.RecoverOutput(context.Background(), runner.ParquetOutput{Path: out[m].table}))
		}
		for _, dir := range dirs {
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			for _, e := range entries {
				require.False(t, strings.HasPrefix(e.Name(), "."), "kill %d: %s left after every member's recovery", kills, e.Name())
			}
		}
		if state != "previous" {
			for _, m := range shopMembers {
				copyFile(t, saved[m].table, out[m].table)
				copyFile(t, saved[m].quar, out[m].quar)
				require.NoError(t, os.RemoveAll(out[m].prev))
			}
		}
	})
	t.Logf("member sets after each run (after one member's recovery):%s", histogram(outcomes))
	t.Logf("after the kills: %d hidden temporaries, %d journals or pointers of decided sets, %d mixed sets", leftovers, journals, mixed)
	assert.Zero(t, mixed, "a set of members from two runs")

	// The next run completes and writes every member's new outputs.
	p := startValidate(t, f.dir, args(big, out)...)
	require.Equal(t, 0, p.wait(), p.stderr.String())
	for _, m := range shopMembers {
		assert.Equal(t, newState[m][0], f.parquetDigest(out[m].table), m)
	}
}

// memberTables opens the database file read-only (replaying its WAL) and digests every table in
// it by schema-qualified name.
func (f *fixture) memberTables(file string) map[string]string {
	f.t.Helper()
	if _, err := f.db.Exec("ATTACH " + quoteLit(file) + " AS k (READ_ONLY)"); err != nil {
		f.t.Fatalf("the database is unreadable after the kill: %v", err)
	}
	defer f.exec("DETACH k")
	out := map[string]string{}
	for _, r := range f.query("SELECT schema_name, table_name FROM duckdb_tables() WHERE database_name = 'k' ORDER BY ALL") {
		s, n := r[0].(string), r[1].(string)
		out[s+"."+n] = f.digest("k." + quoteIdent(s) + "." + quoteIdent(n))
	}
	return out
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// TestSlowKillCollectionTablesMidWrite is TestSlowKillCollectionMidWrite for members written to
// tables of one DuckDB file (orders and items by --out-dir, refunds under a schema of its own by
// --out): SIGKILLed at seeded random moments (a third just after the last CREATE TABLE, where the
// commit and the checkpoint are), the file opened read-only afterwards (DuckDB replays a
// committed transaction, discards one never committed) holds every member's previous table and
// quarantine, or every member's new ones with refunds' previous quarantine kept as
// refunds_quarantine_prev: never a mix across members, nothing lost, nothing else in the file.
func TestSlowKillCollectionTablesMidWrite(t *testing.T) {
	require.NoError(t, buildErr)
	testenv.Slow(t) // kills a hundred collection runs at random points
	f := newFixture(t)
	collection := f.write("shop/shop.yaml", shopCollection)
	f.write("shop/orders.yaml", shopOrdersYAML)
	f.write("shop/items.yaml", shopItemsYAML)
	f.write("shop/refunds.yaml", shopRefundsYAML)
	big := f.shopInputs("in/big", *killSetRows, "new", false)
	small := f.shopInputs("in/small", 5000, "previous", true)
	rng := rand.New(rand.NewPCG(*killSeed, 36))
	t.Logf("%d orders, seed %d, %d kills", *killSetRows, *killSeed, *killSetIterations)
	args := func(in map[string]string, db string) []string {
		a := []string{"--collection", collection, "--quarantine", "--out-dir", db, "--out", "refunds=" + db + ":money.refunds"}
		for _, m := range shopMembers {
			a = append(a, "--input", m+"="+in[m])
		}
		return a
	}
	// The tables of each member: its table, quarantine and kept quarantine.
	memberOf := map[string]string{}
	for _, m := range shopMembers {
		s := "main"
		if m == "refunds" {
			s = "money"
		}
		for _, suffix := range []string{"", "_quarantine", "_quarantine_prev"} {
			memberOf[s+"."+m+suffix] = m
		}
	}

	refDB := f.path("ref", "shop.duckdb")
	ref := startValidate(t, f.dir, args(big, refDB)...)
	require.Equal(t, 0, ref.wait(), ref.stderr.String())
	full, write := time.Since(ref.start), ref.writing()
	newTables := f.memberTables(refDB)
	require.NotContains(t, newTables, "money.refunds_quarantine", "the new run quarantines no refund")
	require.Contains(t, newTables, "main.items_quarantine")

	db := f.path("out", "shop.duckdb")
	prev := startValidate(t, f.dir, args(small, db)...)
	require.Equal(t, 0, prev.wait(), prev.stderr.String())
	require.NoFileExists(t, db+".wal", "the run checkpointed")
	saved := f.path("saved", "shop.duckdb")
	require.NoError(t, os.MkdirAll(filepath.Dir(saved), 0o755))
	copyFile(t, db, saved)
	prevTables := f.memberTables(db)
	require.Len(t, prevTables, 6, "every member's table and quarantine: %v", prevTables)
	// Over the previous tables, the new run keeps refunds' previous quarantine.
	newTables["money.refunds_quarantine_prev"] = prevTables["money.refunds_quarantine"]
	t.Logf("a complete run takes %.2f s, %.2f s of it writing", full.Seconds(), write.Seconds())

	outcomes := map[string]int{}
	wals, mixed := 0, 0
	// The last CREATE TABLE is the fifth (three tables, two quarantines); after it come the
	// older quarantine's removal, the commit and the checkpoint.
	killLoop(t, f, rng, *killSetIterations, args(big, db), full, write, "  CREATE OR REPLACE TABLE", 5, 10*time.Millisecond, func(p *validateProc, kills int) {
		if fileExists(db + ".wal") {
			wals++
		}
		got := f.memberTables(db)
		states := map[string]string{}
		for name, digest := range got {
			m, ok := memberOf[name]
			require.True(t, ok, "kill %d (%s): a table %s that no member writes", kills, p.phase(), name)
			s := "unknown"
			switch {
			case prevTables[name] == digest && newTables[name] == digest:
				continue // the same in both
			case prevTables[name] == digest:
				s = "previous"
			case newTables[name] == digest:
				s = "new"
			}
			if states[m] != "" && states[m] != s {
				s = "mixed"
			}
			states[m] = s
		}
		for _, m := range shopMembers {
			want := prevTables
			if states[m] == "new" {
				want = newTables
			}
			for name, digest := range want {
				if memberOf[name] == m {
					require.Equal(t, digest, got[name], "kill %d (%s): member %s is %s but its %s is not", kills, p.phase(), m, states[m], name)
				}
			}
			for name := range got {
				if _, ok := want[name]; !ok && memberOf[name] == m {
					t.Errorf("kill %d (%s): member %s is %s but %s is there", kills, p.phase(), m, states[m], name)
				}
			}
		}
		state := states["orders"]
		for _, m := range shopMembers {
			if states[m] != state || state == "unknown" || state == "mixed" {
				state = "mixed"
			}
		}
		if state == "mixed" {
			mixed++
			t.Errorf("kill %d (%s): members %v", kills, p.phase(), states)
		}
		outcomes[state]++
		if state != "previous" {
			copyFile(t, saved, db)
			require.NoError(t, os.RemoveAll(db+".wal"))
		}
	})
	t.Logf("member sets after each run:%s", histogram(outcomes))
	t.Logf("kills that left a WAL: %d; mixed sets: %d", wals, mixed)
	assert.Zero(t, mixed, "a set of members from two runs")

	// The next run opens the database for writing (replaying or discarding the WAL) and completes.
	p := startValidate(t, f.dir, args(big, db)...)
	require.Equal(t, 0, p.wait(), p.stderr.String())
	assert.Equal(t, newTables, f.memberTables(db))
}
