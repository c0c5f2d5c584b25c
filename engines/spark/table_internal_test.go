package spark

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLockName: every address of one table takes one lock, named after its resolved, lower-cased
// name, and different tables take different locks.
func TestLockName(t *testing.T) {
	orders := lockName(tableName{"spark_catalog", "sales", "orders"})
	if orders != "spark_catalog.sales.orders.lock" {
		t.Errorf("the lock of spark_catalog.sales.orders is %q", orders)
	}
	// delta:Sales.Orders resolved in the session's current catalog, and named in another case.
	for _, same := range []tableName{{"spark_catalog", "Sales", "Orders"}, {"SPARK_CATALOG", "sales", "ORDERS"}} {
		if got := lockName(same); got != orders {
			t.Errorf("%v takes the lock %q, not %q", same, got, orders)
		}
	}
	// A dot or a separator inside a part (a library caller's name) neither merges names nor
	// leaves the folder.
	seen := map[string]tableName{}
	for _, other := range []tableName{
		{"spark_catalog", "sales", "orders"},
		{"spark_catalog", "sales", "orders_quarantine"},
		{"lake", "sales", "orders"},
		{"spark_catalog", "sales.orders", "x"},
		{"spark_catalog", "sales", "orders.x"},
		{"a", "b/../c", "d"},
		{"a", "b%2Ec", "d"},
		{"a", "b.c", "d"},
	} {
		name := lockName(other)
		if prev, dup := seen[name]; dup {
			t.Errorf("%v and %v take one lock %q", prev, other, name)
		}
		seen[name] = other
		if filepath.Base(name) != name {
			t.Errorf("the lock of %v, %q, is not a file name in the folder", other, name)
		}
	}
	dir := filepath.Join(t.TempDir(), "locks")
	path, err := lockFile(dir, tableName{"Spark_Catalog", "Sales", "Orders"})
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(dir, orders) {
		t.Errorf("lock file %q", path)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Errorf("lockFile did not make its folder: %v", err)
	}
}
