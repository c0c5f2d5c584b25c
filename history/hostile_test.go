package history_test

import (
	"context"
	gosql "database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/history"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/report"
)

// hostileHistories reads testdata/hostile_history.txt: "=== label" lines start entries.
func hostileHistories(t *testing.T) [][2]string {
	t.Helper()
	data, err := os.ReadFile("testdata/hostile_history.txt")
	require.NoError(t, err)
	var out [][2]string
	for _, part := range strings.Split(string(data), "\n=== ")[1:] {
		label, body, _ := strings.Cut(part, "\n")
		out = append(out, [2]string{label, body})
	}
	return out
}

// TestHostileHistory: a history file someone changed into reading other files, running forever
// or running anything but tablegate's own statements is refused by every reader and writer, at
// once, naming what is wrong; nothing of the secret file reaches what they return. The same
// readers and writers work on the untampered file (the control).
func TestHostileHistory(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	secretDir := filepath.Join(dir, "secret")
	require.NoError(t, os.Mkdir(secretDir, 0o755))
	const marker = "TOPSECRET-7f3a"
	secret := filepath.Join(secretDir, "secret.txt")
	require.NoError(t, os.WriteFile(secret, []byte(marker+"\n"), 0o600))

	// The base: a collection's run of two members, as tablegate records it.
	base := filepath.Join(dir, "base.duckdb")
	start := time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)
	cid := "20260301T080000Z-c1"
	orders, items := memberRun(t, cid, "orders", 2, start), memberRun(t, cid, "items", 0, start)
	failed := outcome.CollectionFailed
	crep := &outcome.CollectionReport{Collection: "Shop", RunID: cid, StartedAt: "2026-03-01T08:00:00Z", Outcome: &failed,
		MemberOrder: []string{"orders", "items"}, Members: map[string]*outcome.Report{"orders": orders.Report, "items": items.Report}}
	require.NoError(t, history.AppendCollection(ctx, base, crep, []*report.Run{orders, items}))
	next := memberRun(t, "20260302T080000Z-c2", "orders", 1, start.Add(24*time.Hour))
	check := orders.Report.Checks[0].Name

	type op struct {
		name string
		do   func(ctx context.Context, path string) (string, error)
	}
	show := func(v any, err error) (string, error) { return fmt.Sprintf("%+v", v), err }
	ops := []op{
		{"runs", func(ctx context.Context, p string) (string, error) {
			return show(history.Runs(ctx, p, history.Filter{}))
		}},
		{"checks", func(ctx context.Context, p string) (string, error) {
			return show(history.Checks(ctx, p, history.Filter{}))
		}},
		{"collection-runs", func(ctx context.Context, p string) (string, error) {
			return show(history.CollectionRuns(ctx, p, history.Filter{}))
		}},
		{"load", func(ctx context.Context, p string) (string, error) {
			return show(history.Load(ctx, p, orders.Report.RunID))
		}},
		{"load-collection", func(ctx context.Context, p string) (string, error) {
			crep, runs, err := history.LoadCollection(ctx, p, cid)
			return fmt.Sprintf("%+v %+v", crep, runs), err
		}},
		{"trends", func(ctx context.Context, p string) (string, error) { return show(history.Trends(ctx, p, "orders", 0)) }},
		{"baselines", func(ctx context.Context, p string) (string, error) {
			return show(history.Baselines(ctx, p, "orders", map[string]int{check: 30}))
		}},
		{"append", func(ctx context.Context, p string) (string, error) { return "", history.Append(ctx, p, next) }},
	}

	// The control: every operation works on the file as tablegate wrote it.
	for _, o := range ops {
		control := filepath.Join(dir, "control.duckdb")
		copyFile(t, base, control)
		_, err := o.do(ctx, control)
		require.NoError(t, err, o.name)
	}

	tried, refused, ran, leaked, hung := 0, 0, 0, 0, 0
	for i, entry := range hostileHistories(t) {
		label, script := entry[0], entry[1]
		t.Run(label, func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprintf("h%d.duckdb", i))
			copyFile(t, base, path)
			db, err := gosql.Open("duckdb", path)
			require.NoError(t, err)
			script = strings.NewReplacer("{secret}", secret, "{dir}", secretDir).Replace(script)
			_, err = db.Exec(script)
			require.NoError(t, db.Close())
			require.NoError(t, err, "the tampering itself")
			// Three operations per entry, in turn, so that every operation meets most kinds of
			// tampering and the test stays quick: they all open the file the same way.
			for k := range 3 {
				o := ops[(3*i+k)%len(ops)]
				tried++
				ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
				began := time.Now()
				out, err := o.do(ctx, path)
				cancel()
				if time.Since(began) > 10*time.Second {
					hung++
					t.Errorf("%s took %s", o.name, time.Since(began).Round(time.Millisecond))
				}
				if err != nil {
					out += err.Error()
				}
				if strings.Contains(out, marker) {
					leaked++
					t.Errorf("%s read the secret file: %s", o.name, out)
				}
				var tampered *history.TamperedError
				if !errors.As(err, &tampered) {
					ran++
					t.Errorf("%s: want the file refused as tampered, got %v", o.name, err)
					continue
				}
				refused++
				require.Contains(t, err.Error(), "move the file aside", o.name)
			}
		})
	}
	t.Logf("hostile histories: %d attempts, %d refused, %d ran, %d leaked, %d hung", tried, refused, ran, leaked, hung)
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(to, data, 0o644))
}
