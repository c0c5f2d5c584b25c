//go:build cgo

package main

// The run history is a DuckDB file: a cgo build links it, one without refuses --history.
import _ "github.com/tablegate/tablegate/history"
