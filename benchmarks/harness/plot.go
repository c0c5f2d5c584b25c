package main

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// plot draws time against rows, one line per approach and rule set, for Parquet -> Parquet, as
// a self-contained SVG (log-scaled rows).
func plot(all []measurement) string {
	type key struct {
		approach string
		rules    int
	}
	series := map[key][]measurement{}
	var maxT float64
	var rows []int64
	for _, m := range all {
		if m.Storage != "parquet" || m.Set != "" || m.Error != "" || m.Median == 0 {
			continue
		}
		k := key{m.Approach, m.Rules}
		series[k] = append(series[k], m)
		maxT = math.Max(maxT, m.Median)
		if !slices.Contains(rows, m.Rows) {
			rows = append(rows, m.Rows)
		}
	}
	slices.Sort(rows)
	const w, h, left, bottom, top, right = 760.0, 440.0, 60.0, 50.0, 30.0, 200.0
	x := func(n int64) float64 {
		if len(rows) < 2 {
			return left + (w-left-right)/2
		}
		lo, hi := math.Log10(float64(rows[0])), math.Log10(float64(rows[len(rows)-1]))
		return left + (math.Log10(float64(n))-lo)/(hi-lo)*(w-left-right)
	}
	y := func(t float64) float64 { return h - bottom - t/math.Max(maxT, 1e-9)*(h-bottom-top) }
	colors := map[string]string{"floor": "#555", "counts": "#2a9d8f", "full": "#e76f51", "perrule": "#8338ec", "dataframely": "#264653"}
	dashes := map[int]string{5: "2,3", 15: "", 40: "8,3"}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="12">`+"\n", w, h)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/><text x="%.0f" y="18" font-size="14">Parquet → Parquet: median wall time vs rows (line style = rule set)</text>`+"\n", left)
	fmt.Fprintf(&b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="black"/><line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="black"/>`+"\n",
		left, h-bottom, w-right, h-bottom, left, top, left, h-bottom)
	for _, n := range rows {
		fmt.Fprintf(&b, `<text x="%.1f" y="%.0f" text-anchor="middle">%s</text>`+"\n", x(n), h-bottom+18, humanRows(n))
	}
	for i := 0; i <= 4; i++ {
		t := maxT * float64(i) / 4
		fmt.Fprintf(&b, `<text x="%.0f" y="%.1f" text-anchor="end">%.1fs</text>`+"\n", left-6, y(t)+4, t)
	}
	var keys []key
	for k := range series {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b key) int {
		if c := strings.Compare(a.approach, b.approach); c != 0 {
			return c
		}
		return a.rules - b.rules
	})
	for i, k := range keys {
		ms := series[k]
		slices.SortFunc(ms, func(a, b measurement) int { return int(a.Rows - b.Rows) })
		var pts []string
		for _, m := range ms {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(m.Rows), y(m.Median)))
		}
		color := colors[k.approach]
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2" stroke-dasharray="%s" points="%s"/>`+"\n", color, dashes[k.rules], strings.Join(pts, " "))
		ly := top + 16*float64(i)
		fmt.Fprintf(&b, `<line x1="%.0f" y1="%.1f" x2="%.0f" y2="%.1f" stroke="%s" stroke-width="2" stroke-dasharray="%s"/><text x="%.0f" y="%.1f">%s, %d rules</text>`+"\n",
			w-right+10, ly, w-right+40, ly, color, dashes[k.rules], w-right+46, ly+4, k.approach, k.rules)
	}
	b.WriteString("</svg>\n")
	return b.String()
}

func humanRows(n int64) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1000 && n%1000 == 0:
		return fmt.Sprintf("%dK", n/1000)
	}
	return fmt.Sprint(n)
}
