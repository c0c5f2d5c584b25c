package duckdb

// The DuckDB engine's plans check their custom SQL with DuckDB's own parser: a program that links
// the engine compiles schemas with it (package compile links no DuckDB).
import _ "github.com/tablegate/tablegate/compile/duckdbparser"
