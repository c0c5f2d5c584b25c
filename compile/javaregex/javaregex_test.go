package javaregex_test

import (
	"bytes"
	"context"
	gosql "database/sql"
	"encoding/hex"
	"errors"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/tablegate/tablegate/compile/javaregex"
	"github.com/tablegate/tablegate/internal/testenv"
)

// corpus pairs patterns with inputs where Java's defaults and RE2 disagree, and ordinary ones.
var corpus = []struct {
	pattern string
	inputs  []string
}{
	{`^ORD-\d+$`, []string{"ORD-12", "ORD-12\n", "ORD-12\r", "ORD-12\r\n", "ord-12", "ORD-", "ORD-١٢"}},
	{`^a.c$`, []string{"abc", "a\rc", "a\u2028c", "a\u0085c", "a\nc", "ac"}},
	{`(?s)^a.c$`, []string{"a\nc", "abc", "ac"}},
	{`(?i)straße`, []string{"STRAẞE", "strasse", "Straße"}},
	{`(?i)é`, []string{"É", "e"}},
	{`(?i)k`, []string{"\u212a", "K", "x"}},
	{`\bcat\b`, []string{"écat", "caté", "cat", "a cat.", "concat"}},
	{`\Bcat`, []string{"écat", "concat", "cat"}},
	{`^[[:alpha:]]+$`, []string{"abc", ":", "é"}},
	{`^[[:^digit:]]+$`, []string{"abc", "a1"}},
	{`(?m)^b$`, []string{"a\rb", "a\r\nb\r\n", "b\u2028", "a\nb", "a\nb\n"}},
	{`^\s$`, []string{"\u000b", " ", "\t", "\u00a0", "\n"}},
	{`^[a-z&&[^aeiou]]+$`, []string{"b", "a]", "&&"}},
	{`(?U)^\w+$`, []string{"é", "ab"}},
	{`(?U)a+`, []string{"aaa", "b"}},
	{`^$`, []string{"", "\n"}},
	{`^(?:[a-z0-9.]+)@example\.(com|de)$`, []string{"x@example.de\n", "x@example.de", "x@exampleXde"}},
	{`^\w+$`, []string{"abc_1", "é", "日本"}},
	{`^\d{3}-\d{2,4}$`, []string{"123-45", "123-45678", "12-45"}},
	{`colou?r`, []string{"color", "colour", "colr"}},
	{`a|b|`, []string{"", "c"}},
	{`^[^a]$`, []string{"\n", "b", "a", "日"}},
	{`^[\-\]\\]+$`, []string{`-]\`, "a"}},
	{`^\Q*+?\E$`, []string{"*+?", "a"}},
	{`x*?y`, []string{"xxy", "y", "x"}},
	{`^.{2}$`, []string{"日本", "ab", "a"}},
	{`\x{1F600}`, []string{"😀", ":)"}},
	{`^\pL$`, nil}, // refused
	{`a\z`, []string{"a", "a\n"}},
	{`\Aa`, []string{"a", "ba"}},
	{`'"\\`, []string{`'"\`, `'"`}},
	{`[[:word:]]+`, []string{"_", "-"}},
	{`(?i)[a-c]+$`, []string{"ABC", "abc", "d"}},
	{``, []string{"", "x"}},
}

func TestTranslateExamples(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`^ORD-\d+$`, `\AORD\x{2D}(?:[\x{30}-\x{39}])+\z`},
		{`(?i)k`, `[\x{4B}\x{6B}\x{212A}]`},
		{`a.b`, `a[^\x{A}]b`},
		{`x{2,}?`, `(?:x){2,}?`},
		{`(a)|b`, `(?:(?:a)|b)`},
	} {
		got, err := javaregex.Translate(tc.in)
		if err != nil {
			t.Fatalf("%q: %v", tc.in, err)
		}
		// The exact spelling matters less than its meaning (checked against Java below), but a
		// change here should be seen.
		if got != tc.want {
			t.Errorf("Translate(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestTranslateRefuses(t *testing.T) {
	for _, tc := range []struct{ in, why string }{
		{`\pL+`, "Unicode property"},
		{`\p{Greek}`, "Unicode property"},
		{`[\PN]`, "Unicode property"},
		{`(a+)+$`, "backtracks"},
		{`^(.*a){12}$`, "backtracks"},
		{`(?:x|y*)+`, "backtracks"},
		{`(?x) a`, "invalid"},
		{`a(?=b)`, "invalid"},
		{`(a`, "missing"},
		{"\xff", "UTF-8"},
	} {
		_, err := javaregex.Translate(tc.in)
		var e *javaregex.Error
		if !errors.As(err, &e) || !strings.Contains(err.Error(), tc.why) {
			t.Errorf("Translate(%q) = %v, want a *javaregex.Error saying %q", tc.in, err, tc.why)
		}
	}
	// Escaped backslashes and bounded nesting are not refused.
	for _, ok := range []string{`\\p`, `(ab?){3}`, `(a{2}){3}`, `a+b+`, `(?:ab)+`} {
		if _, err := javaregex.Translate(ok); err != nil {
			t.Errorf("Translate(%q): %v", ok, err)
		}
	}
}

type probe struct{ pattern, java, input string }

func probes(t *testing.T) []probe {
	var out []probe
	for _, c := range corpus {
		j, err := javaregex.Translate(c.pattern)
		if c.inputs == nil {
			if err == nil {
				t.Fatalf("%q: expected a refusal", c.pattern)
			}
			continue
		}
		if err != nil {
			t.Fatalf("Translate(%q): %v", c.pattern, err)
		}
		for _, in := range c.inputs {
			out = append(out, probe{c.pattern, j, in})
		}
	}
	return out
}

// duckMatches asks a real DuckDB (its RE2) whether each pattern is found in its input.
func duckMatches(t *testing.T, ps []probe) []bool {
	db, err := gosql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	out := make([]bool, len(ps))
	for i, p := range ps {
		if err := db.QueryRow("SELECT regexp_matches(?::VARCHAR, ?::VARCHAR)", p.input, p.pattern).Scan(&out[i]); err != nil {
			t.Fatalf("DuckDB %q: %v", p.pattern, err)
		}
	}
	return out
}

// TestCorpusIsRE2 checks the corpus against DuckDB: Go's regexp (whose tables the translation
// spells out) and DuckDB's RE2 agree on every case.
func TestCorpusIsRE2(t *testing.T) {
	ps := probes(t)
	duck := duckMatches(t, ps)
	for i, p := range ps {
		if got := regexp.MustCompile(p.pattern).MatchString(p.input); got != duck[i] {
			t.Errorf("%q on %q: Go %v, DuckDB %v", p.pattern, p.input, got, duck[i])
		}
	}
}

// TestSlowJavaAgreesWithDuckDB runs the translated patterns in a real JVM with java.util.regex,
// Matcher.find() as RLIKE does, and compares with DuckDB; the untranslated patterns must differ
// somewhere, or the corpus tests nothing.
func TestSlowJavaAgreesWithDuckDB(t *testing.T) {
	testenv.Slow(t)
	java, err := exec.LookPath("java")
	if err != nil {
		t.Skip("no java on PATH")
	}
	ps := probes(t)
	duck := duckMatches(t, ps)
	run := func(pattern func(probe) string) []bool {
		var in bytes.Buffer
		for _, p := range ps {
			in.WriteString(hex.EncodeToString([]byte(pattern(p))) + " " + hex.EncodeToString([]byte(p.input)) + "\n")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, java, "testdata/Probe.java")
		cmd.Stdin = &in
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("java: %v\n%s", err, stderr.String())
		}
		lines := strings.Fields(string(out))
		if len(lines) != len(ps) {
			t.Fatalf("java answered %d lines for %d probes", len(lines), len(ps))
		}
		res := make([]bool, len(ps))
		for i, l := range lines {
			res[i] = l == "1"
		}
		return res
	}
	translated := run(func(p probe) string { return p.java })
	asWritten := run(func(p probe) string { return p.pattern })
	differ := 0
	for i, p := range ps {
		if translated[i] != duck[i] {
			t.Errorf("%q (Java %q) on %q: Java %v, DuckDB %v", p.pattern, p.java, p.input, translated[i], duck[i])
		}
		if asWritten[i] != duck[i] {
			differ++
		}
	}
	t.Logf("%d probes; untranslated, Java differs from DuckDB on %d", len(ps), differ)
	if differ < 15 {
		t.Errorf("untranslated patterns differ on only %d probes: the corpus lost its hard cases", differ)
	}
}
