package main

// The CLI runs on the DuckDB engine: importing it registers the engine that tablegate.Open opens,
// with the run history and DuckDB's SQL parser.
import _ "github.com/tablegate/tablegate/engines/duckdb"
