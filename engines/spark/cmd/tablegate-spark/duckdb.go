//go:build cgo

package main

// What a cgo build links of DuckDB: the run history, which is a DuckDB file, and DuckDB's SQL
// parser, which checks the schema's DuckDB SQL (custom rules and table checks) as the DuckDB
// engine does. A build without cgo links neither: it refuses --history, and runs custom rules
// from their Spark forms, which Spark's analyzer checks (table checks are refused by name).
import (
	_ "github.com/tablegate/tablegate/compile/duckdbparser"
	_ "github.com/tablegate/tablegate/history"
)
