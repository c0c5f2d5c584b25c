package duckdbtune

import "testing"

func TestPerfectHashBits(t *testing.T) {
	for _, c := range []struct {
		threads, limit, rows int64
		want                 int
	}{
		{2, 0, 0, 26},        // 2 x 8 B x 2^26 = 1 GiB
		{2, 20 << 30, 0, 26}, // the 1 GiB cap, not a quarter of 20 GiB
		{8, 20 << 30, 0, 24},
		{32, 20 << 30, 0, 22},
		{2, 4 << 30, 0, 26},
		{2, 96 << 20, 0, 20}, // a quarter of 96 MiB: 2 x 8 B x 2^20 = 16 MiB <= 24 MiB
		{2, 64 << 10, 0, 12}, // never below DuckDB's default
		{0, 0, 0, 26},
		// At most 4 values of the range per input row, over all threads' arrays.
		{2, 0, 10_000_000, 24},  // 2 x 2^24 <= 4 x 10M < 2 x 2^25
		{2, 0, 30_000_000, 25},  // 30M dense keys take 25 bits
		{2, 0, 100_000_000, 26}, // the memory ceiling first
		{8, 0, 10_000_000, 22},
		{2, 0, 1_000, 12}, // never below DuckDB's default
	} {
		if got := PerfectHashBits(c.threads, c.limit, c.rows); got != c.want {
			t.Errorf("PerfectHashBits(%d, %d, %d) = %d, want %d", c.threads, c.limit, c.rows, got, c.want)
		}
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{
		"18.5 GiB":  int64(18.5 * (1 << 30)),
		"91.5 MiB":  int64(91.5 * (1 << 20)),
		"512 bytes": 512,
		"4 GB":      4e9,
		"":          0,
		"lots":      0,
		"3 parsecs": 0,
	} {
		if got := ParseSize(in); got != want {
			t.Errorf("ParseSize(%q) = %d, want %d", in, got, want)
		}
	}
}
