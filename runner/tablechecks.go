package runner

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strings"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/schema"
)

// tableResult is one table check judged in a run.
type tableResult struct {
	check  compile.TableCheck
	value  any // a metric as reported (metric.reported), bool for a condition, nil for NULL (or not evaluated)
	passed bool
	band   *anomalyBand
	why    string // what it found, for the check's result description and the error
	// compared are a comparison's sides with their values.
	compared []outcome.Compared
}

// failsRun reports whether the result fails the run: an error check that failed.
func (t tableResult) failsRun() bool { return !t.passed && t.check.Severity == schema.Error }

// anomalyBand is a metric's anomaly band from its earlier values: median ± threshold × 1.4826 × MAD
// (Low or High nil on the side a one-sided band leaves open). Runs is how many earlier values it
// was drawn from; with fewer than the check's min_history there is no band (Ready false).
type anomalyBand struct {
	Median, MAD float64
	Low, High   *float64
	Runs        int
	Ready       bool
}

// madScale makes the median absolute deviation estimate a normal distribution's standard
// deviation.
const madScale = 1.4826

// drawBand draws the band of an anomaly check from the metric's earlier values, newest first:
// the last a.Lookback of them that are numbers. The median and the deviations are computed on
// halved values, which no sum can take past the largest float; a band whose MAD or edges still
// do (metrics near 1e308) is not finite (Finite), and fails the check.
func drawBand(a schema.Anomaly, earlier []float64) anomalyBand {
	var vals []float64
	for _, v := range earlier {
		if len(vals) == a.Lookback {
			break
		}
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			vals = append(vals, v/2)
		}
	}
	b := anomalyBand{Runs: len(vals)}
	if len(vals) < a.MinHistory || len(vals) == 0 {
		return b
	}
	b.Ready = true
	half := median(vals)
	dev := make([]float64, len(vals))
	for i, v := range vals {
		dev[i] = math.Abs(v - half)
	}
	b.Median, b.MAD = 2*half, 2*median(dev)
	width := a.Threshold * madScale * b.MAD
	if a.Direction != schema.DirectionUp {
		low := b.Median - width
		b.Low = &low
	}
	if a.Direction != schema.DirectionDown {
		high := b.Median + width
		b.High = &high
	}
	return b
}

// Finite reports whether every number of the band is: a band past the largest float judges
// nothing.
func (b anomalyBand) Finite() bool {
	for _, v := range []*float64{&b.Median, &b.MAD, b.Low, b.High} {
		if v != nil && (math.IsInf(*v, 0) || math.IsNaN(*v)) {
			return false
		}
	}
	return true
}

// median is the middle value (the mean of the two middle ones, taken as halves so that their
// sum cannot overflow).
func median(vals []float64) float64 {
	s := slices.Clone(vals)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return s[n/2-1]/2 + s[n/2]/2
}

// judgeTableChecks judges the table checks' values, which the program's TableChecks step read
// (Asset.JudgeTables); baselines are the earlier values of each check.
func judgeTableChecks(p *compile.Plan, vals []any, baselines map[string][]float64) []tableResult {
	results := make([]tableResult, len(p.TableChecks))
	k := 0
	for i, c := range p.TableChecks {
		results[i] = judgeTableCheck(c, vals[k], baselines)
		k++
		for _, sd := range c.Sides {
			cmp := outcome.Compared{Expr: sd.Text, Value: textOf(vals[k])}
			k++
			if sd.Newest {
				if secs, ok := vals[k].(int64); ok {
					cmp.AgeS = &secs
				}
				k++
			}
			results[i].compared = append(results[i].compared, cmp)
		}
		if len(results[i].compared) > 0 && results[i].value != nil {
			results[i].why += ": " + comparedPhrase(results[i].compared)
		}
	}
	return results
}

// textOf is a side's value as the statement read it (text), "NULL" for NULL.
func textOf(v any) string {
	if v == nil {
		return "NULL"
	}
	return fmt.Sprint(v)
}

// comparedPhrase says what a comparison's sides were: "max(placed_at) is 2026-12-05 10:00:00,
// 2 days 3 hours old; now() - INTERVAL 1 DAY is 2026-12-06 12:00:00+00".
func comparedPhrase(sides []outcome.Compared) string {
	parts := make([]string, len(sides))
	for i, sd := range sides {
		parts[i] = sd.Expr + " is " + sd.Value
		if sd.AgeS != nil {
			parts[i] += ", " + outcome.AgePhrase(*sd.AgeS) + " old"
		}
	}
	return strings.Join(parts, "; ")
}

// readBaselines reads the earlier values of the plan's anomaly checks from the run history;
// nil when the run has none, or it cannot be read (a warning: the bands then pass).
func readBaselines(ctx context.Context, rep *outcome.Report, p *compile.Plan, opts Options) map[string][]float64 {
	if opts.Baselines == nil {
		return nil
	}
	checks := map[string]int{}
	for _, t := range p.TableChecks {
		if t.Anomaly != nil {
			checks[t.Check] = t.Anomaly.Lookback
		}
	}
	if len(checks) == 0 {
		return nil
	}
	vals, err := opts.Baselines(ctx, rep.Asset, checks)
	if err != nil {
		warn(rep, opts, fmt.Sprintf("the anomaly bands have no baseline: %v", err))
		return nil
	}
	if vals == nil {
		vals = map[string][]float64{}
	}
	return vals
}

// judgeTableCheck judges one check's value; baselines are the earlier values of each check (nil:
// no history was given).
func judgeTableCheck(c compile.TableCheck, v any, baselines map[string][]float64) tableResult {
	t := tableResult{check: c, passed: true}
	if !c.Metric {
		ok, isBool := v.(bool)
		switch {
		case !isBool:
			t.passed, t.why = false, c.Text+" is NULL (no rows, or only NULLs)"
		case !ok:
			t.value, t.passed, t.why = false, false, c.Text+" is false"
		default:
			t.value, t.why = true, c.Text+" is true"
		}
		return t
	}
	m, isNum := metricOf(v)
	if !isNum {
		t.why = c.Text + " is NULL (no rows, or only NULLs)"
		t.passed = c.Min == nil && c.Max == nil
		if t.passed && c.Anomaly != nil && baselines != nil {
			// A band is a bound once drawn: NULL is within none, as for min and max.
			if b := drawBand(*c.Anomaly, baselines[c.Check]); b.Ready {
				t.band, t.passed = &b, false
				t.why += fmt.Sprintf(", which is within no band (median %s of %s)", formatValue(b.Median), runsPhrase(b.Runs))
			}
		}
		return t
	}
	t.value = m.reported()
	shown := fmt.Sprintf("%s is %s", c.Text, m)
	switch {
	case math.IsNaN(m.f):
		t.passed, t.why = c.Min == nil && c.Max == nil && c.Anomaly == nil, shown
		if !t.passed {
			t.why += ", which is within no bound or band (a NaN among the values; filter them out of the aggregate)"
		}
		return t
	case c.Min != nil && m.cmp(*c.Min) < 0:
		t.passed, t.why = false, fmt.Sprintf("%s, below the minimum %s", shown, formatValue(*c.Min))
		return t
	case c.Max != nil && m.cmp(*c.Max) > 0:
		t.passed, t.why = false, fmt.Sprintf("%s, above the maximum %s", shown, formatValue(*c.Max))
		return t
	}
	t.why = shown
	if c.Min != nil || c.Max != nil {
		t.why += ", within its bounds"
	}
	if c.Anomaly == nil {
		return t
	}
	if baselines == nil {
		t.why += "; no anomaly band: the run has no history (--history) to draw it from"
		return t
	}
	b := drawBand(*c.Anomaly, baselines[c.Check])
	t.band = &b
	switch {
	case !b.Ready:
		t.why += fmt.Sprintf("; no anomaly band yet: %s recorded, the band needs %d", runsPhrase(b.Runs), c.Anomaly.MinHistory)
	case !b.Finite():
		t.passed, t.why = false, fmt.Sprintf("%s; its anomaly band is past the largest 64-bit float (the earlier values' median %s, MAD %s, threshold %s), "+
			"so it judges nothing: scale the metric down (divide it) or lower the threshold", shown, formatValue(b.Median), formatValue(b.MAD), formatValue(c.Anomaly.Threshold))
	// The band is drawn from the values the history records, as floats: the metric is compared
	// with it as its nearest float, so that a metric that does not change stays within it.
	case b.Low != nil && m.f < *b.Low:
		t.passed, t.why = false, fmt.Sprintf("%s, below the band's low %s (median %s of %s)", shown, formatValue(*b.Low), formatValue(b.Median), runsPhrase(b.Runs))
	case b.High != nil && m.f > *b.High:
		t.passed, t.why = false, fmt.Sprintf("%s, above the band's high %s (median %s of %s)", shown, formatValue(*b.High), formatValue(b.Median), runsPhrase(b.Runs))
	default:
		t.why += fmt.Sprintf(", within the band (median %s of %s)", formatValue(b.Median), runsPhrase(b.Runs))
	}
	return t
}

// metric is a metric's value: a float (DOUBLE, FLOAT), or an integer or DECIMAL read exactly as
// its digits (exact, with f its nearest float).
type metric struct {
	f      float64
	exact  *big.Rat
	digits string
}

// metricOf reads the value the program read for a metric: a float64, or the text of an exact
// one; false for NULL.
func metricOf(v any) (metric, bool) {
	switch x := v.(type) {
	case float64:
		return metric{f: x}, true
	case string:
		r, ok := new(big.Rat).SetString(x)
		if !ok {
			return metric{}, false
		}
		f, _ := r.Float64()
		return metric{f: f, exact: r, digits: x}, true
	}
	return metric{}, false
}

// cmp compares the metric with a bound, exactly.
func (m metric) cmp(bound float64) int {
	if m.exact != nil {
		return m.exact.Cmp(new(big.Rat).SetFloat64(bound))
	}
	return cmp.Compare(m.f, bound)
}

func (m metric) String() string {
	if m.exact != nil {
		return m.digits
	}
	return formatValue(m.f)
}

// reported is the metric as the report has it: its digits (a JSON number) when exact, the float
// otherwise, and the text of NaN and the infinities, which JSON has no number for.
func (m metric) reported() any {
	switch {
	case m.exact != nil:
		return json.Number(m.digits)
	case math.IsNaN(m.f), math.IsInf(m.f, 0):
		return outcome.NonFinite(m.f)
	}
	return m.f
}

func runsPhrase(n int) string {
	if n == 1 {
		return "1 earlier run"
	}
	return fmt.Sprintf("%d earlier runs", n)
}

// formatValue prints a number as briefly as it reads exactly (compile.FormatNumber), NaN and the
// infinities as the samples spell them.
func formatValue(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return outcome.NonFinite(f)
	}
	return compile.FormatNumber(f)
}

// tableFailed reports whether an error table check failed.
func tableFailed(results []tableResult) bool {
	return slices.ContainsFunc(results, tableResult.failsRun)
}

// tableCheckError is the error of a run whose error table checks failed.
func tableCheckError(p *compile.Plan, results []tableResult) *outcome.TableCheckError {
	e := &outcome.TableCheckError{Schema: p.Name}
	for _, t := range results {
		if t.failsRun() {
			e.Failures = append(e.Failures, outcome.TableCheckFailure{Check: t.check.Check, Why: t.why})
		}
	}
	return e
}

// tableChecks reports the table checks, after the rule checks. results is nil when they were not
// evaluated (no source data): each then passes, like every check.
func tableChecks(p *compile.Plan, results []tableResult) []outcome.Check {
	out := make([]outcome.Check, len(p.TableChecks))
	for i, c := range p.TableChecks {
		t := tableResult{check: c, passed: true, why: "Not evaluated: no source data."}
		if results != nil {
			t = results[i]
		}
		out[i] = tableCheck(t)
	}
	return out
}

func tableCheck(t tableResult) outcome.Check {
	c := t.check
	res := &outcome.TableResult{Value: t.value, Min: c.Min, Max: c.Max, Compared: t.compared}
	if b := t.band; b != nil {
		res.Baseline = &outcome.Baseline{Runs: b.Runs}
		if b.Ready {
			// JSON has no infinity: a band past the largest float reports its finite numbers.
			res.Baseline.Median, res.Baseline.MAD, res.Baseline.Low, res.Baseline.High = finite(&b.Median), finite(&b.MAD), finite(b.Low), finite(b.High)
		}
	}
	return outcome.Check{
		Name: c.Check, Passed: t.passed, Severity: outcome.FailedSeverity(t.failsRun()), Declared: outcome.FailedSeverity(c.Severity == schema.Error),
		Blocking:    c.Severity == schema.Error,
		Description: c.Description, ResultDescription: sentence(t.why), Expr: c.Expr, Table: res,
	}
}

// finite is a copy of *v when it is a finite number, else nil.
func finite(v *float64) *float64 {
	if v == nil || math.IsInf(*v, 0) || math.IsNaN(*v) {
		return nil
	}
	f := *v
	return &f
}

// sentence ends the text with a full stop.
func sentence(s string) string {
	if s == "" || s[len(s)-1] == '.' {
		return s
	}
	return s + "."
}
