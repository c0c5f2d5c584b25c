package runner

import (
	"fmt"
	"strings"
)

// CatalogOutput writes the table to a table of a Spark catalog in an open table format (Delta
// Lake, Apache Iceberg), whose commits replace each table in one transaction; the quarantine is
// the table named after it in the same namespace. Only the Spark engine writes it (engines/spark): it
// keeps the table and its quarantine one run's pair.
type CatalogOutput struct {
	Format    string // FormatDelta or FormatIceberg
	Catalog   string // the Spark catalog, "" the session's current one
	Namespace string // the database (schema) in the catalog
	Table     string
}

// The table formats a CatalogOutput writes.
const (
	FormatDelta   = "delta"
	FormatIceberg = "iceberg"
)

// ParseCatalogOutput reads FORMAT:[catalog.]namespace.table (delta:spark_catalog.sales.orders,
// iceberg:lake.sales.orders); ok is false for an address that does not start with a format.
// Names are split at dots: a name with a dot in it cannot be written this way.
func ParseCatalogOutput(out string) (o CatalogOutput, ok bool, err error) {
	format, name, found := strings.Cut(out, ":")
	if !found || (format != FormatDelta && format != FormatIceberg) {
		return o, false, nil
	}
	parts := strings.Split(name, ".")
	for _, p := range parts {
		if strings.TrimSpace(p) == "" || strings.ContainsAny(p, "`/\\") {
			return o, true, fmt.Errorf("%q: want %s:[catalog.]namespace.table, names without backquotes, slashes or empty parts", out, format)
		}
	}
	switch len(parts) {
	case 2:
		return CatalogOutput{Format: format, Namespace: parts[0], Table: parts[1]}, true, nil
	case 3:
		return CatalogOutput{Format: format, Catalog: parts[0], Namespace: parts[1], Table: parts[2]}, true, nil
	}
	return o, true, fmt.Errorf("%q: want %s:[catalog.]namespace.table (a table in a namespace, optionally a catalog first)", out, format)
}

func (o CatalogOutput) String() string { return o.address(o.Table) }

func (o CatalogOutput) address(table string) string {
	name := o.Namespace + "." + table
	if o.Catalog != "" {
		name = o.Catalog + "." + name
	}
	return o.Format + ":" + name
}

// QuarantineAddress is the table named name in the output table's namespace.
func (o CatalogOutput) QuarantineAddress(name string) string { return o.address(name) }

// DefaultAssetName is the table's name.
func (o CatalogOutput) DefaultAssetName() string { return o.Table }

func (CatalogOutput) isOutput() {}

// RefuseOutput is the error of an output the engine named does not write; a catalog table's
// says where it is written.
func RefuseOutput(engine string, out Output) error {
	if o, ok := out.(CatalogOutput); ok {
		return fmt.Errorf("the %s engine cannot write %s tables: validate with --engine spark on a Spark Connect server whose catalog holds them (docs/spark.md), or write PATH.parquet or DBFILE.duckdb:[schema.]table", engine, o.Format)
	}
	return fmt.Errorf("the %s engine cannot write %s", engine, out)
}
