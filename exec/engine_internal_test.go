package exec

import "testing"

func TestPerfectHashBits(t *testing.T) {
	for _, c := range []struct {
		threads, limit int64
		want           int
	}{
		{2, 0, 26},        // 2 x 8 B x 2^26 = 1 GiB
		{2, 20 << 30, 26}, // the 1 GiB cap, not a quarter of 20 GiB
		{8, 20 << 30, 24},
		{32, 20 << 30, 22},
		{2, 4 << 30, 26},
		{2, 96 << 20, 20}, // a quarter of 96 MiB: 2 x 8 B x 2^20 = 16 MiB <= 24 MiB
		{2, 64 << 10, 12}, // never below DuckDB's default
		{0, 0, 26},
	} {
		if got := perfectHashBits(c.threads, c.limit); got != c.want {
			t.Errorf("perfectHashBits(%d, %d) = %d, want %d", c.threads, c.limit, got, c.want)
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
		if got := parseSize(in); got != want {
			t.Errorf("parseSize(%q) = %d, want %d", in, got, want)
		}
	}
}
