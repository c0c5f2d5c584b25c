// Package duckdbtune holds what tablegate knows of DuckDB's speed: the thread count with which
// its hash aggregates partition, the perfect-hash threshold that pays for a key range, and the
// memory one structure of a run may take. It is apart from exec because it depends on DuckDB's
// version, not on how a run is built: a DuckDB upgrade re-measures these and nothing else.
package duckdbtune

import "fmt"

// GrowThreads is the most threads with which DuckDB's hash aggregate grows one table per thread
// instead of partitioning its rows (GROW_STRATEGY_THREAD_THRESHOLD in DuckDB 1.5). A table
// grown to millions of keys misses the CPU caches: a key aggregate over 10M distinct keys takes
// 0.77-0.88 s with 2 threads and 0.32-0.40 s with 3, even on 2 cores (1 core: 1.06-1.23 s with
// 1 thread, 0.64-0.75 s with 3), with half the peak memory. So key aggregates run with one
// thread more than that.
const GrowThreads = 2

// PerfectHashBits is the largest key range, as a power of two, that DuckDB may aggregate in a
// perfect hash. Each thread allocates 8 bytes per value of the range (measured), and all of
// them together stay within a quarter of the memory limit and 1 GiB. Each thread also fills and
// scans its whole array, which pays only while the range is dense: for rows input rows (0:
// unknown) the arrays of all threads hold at most 4 values per row. Measured with 2 threads over
// 10M integer keys, against 0.75-0.9 s for DuckDB's hash table: a range of 2^24 (2 threads x
// 2^24 / 10M rows = 3.4 values per row) 0.38-0.56 s, 2^25 0.67-0.96 s, 2^26 1.24-1.55 s; with 3
// or more threads the hash table partitions (GrowThreads) and takes 0.33-0.44 s even for dense
// keys. DuckDB's default (12) is the floor, 26 the ceiling.
func PerfectHashBits(threads, memoryLimit, rows int64) int {
	budget := MemoryBudget(memoryLimit)
	threads = max(threads, 1)
	bits := 12
	for bits < 26 && threads*8<<(bits+1) <= budget && (rows == 0 || threads<<(bits+1) <= 4*rows) {
		bits++
	}
	return bits
}

// MemoryBudget is a quarter of the memory limit (0: none), at most 1 GiB.
func MemoryBudget(memoryLimit int64) int64 {
	if memoryLimit > 0 {
		return min(1<<30, memoryLimit/4)
	}
	return 1 << 30
}

// ParseSize reads a size as DuckDB prints it ("18.8 GiB", "91.5 MiB", "512 bytes"); 0 when it
// cannot.
func ParseSize(s string) int64 {
	var n float64
	var unit string
	if _, err := fmt.Sscanf(s, "%g %s", &n, &unit); err != nil {
		return 0
	}
	scale := map[string]float64{"bytes": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40,
		"KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12}[unit]
	return int64(n * scale)
}
