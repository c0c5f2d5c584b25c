package spark

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/schema"
)

// TableCheck renders a table check in Spark SQL (compile.TableCheckDialect): the check's `spark:`
// form when it has one, else its DuckDB SQL when that is portable (portable), which reads the
// same in both dialects. Either way the rule results (invalid_rows(), failed_rows('rule')) become
// elements of the counts parameter, and a condition that is one comparison gets its sides.
func (dialect) TableCheck(t compile.TableCheck, decl *schema.TableCheck, columns, rules []string) (compile.TableCheckSQL, error) {
	var toks []token
	var err error
	if strings.TrimSpace(decl.Spark) != "" {
		if toks, err = lex(decl.Spark, sparkQuotes); err == nil {
			err = checkSpark(toks)
		}
		if err != nil {
			return compile.TableCheckSQL{}, fmt.Errorf("cannot run on Spark: spark: %w", err)
		}
	} else {
		if toks, err = lex(t.Text, duckQuotes); err == nil {
			toks, err = portable(toks, columns)
		}
		if err != nil {
			return compile.TableCheckSQL{}, fmt.Errorf("cannot run on Spark: %w; give its Spark SQL form (`spark:` beside `%s:`)", err, sqlKey(t))
		}
	}
	toks, counts, err := ruleResults(toks, rules)
	if err != nil {
		return compile.TableCheckSQL{}, fmt.Errorf("cannot run on Spark: spark: %w", err)
	}
	expr := render(toks)
	out := compile.TableCheckSQL{Expr: expr, Counts: counts, Value: "(" + expr + ")"}
	switch {
	case t.Exact:
		out.Value = "CAST((" + expr + ") AS STRING)"
	case t.Metric:
		out.Value = "CAST((" + expr + ") AS DOUBLE)"
	}
	if len(t.Sides) > 0 {
		out.Sides = sides(toks, t.Sides)
	}
	return out, nil
}

// sqlKey is the key a check's DuckDB SQL is written under.
func sqlKey(t compile.TableCheck) string {
	if t.Metric {
		return "metric"
	}
	return "sql"
}

// TableCheckProbe is the query Spark's analyzer types a table check's Spark SQL with before any
// row is read, over __tg_src (the input's view), the rule results it reads bound to zeros (rules:
// how many the plan has).
func TableCheckProbe(t compile.TableCheck, rules int) string {
	q := fmt.Sprintf("SELECT %s AS __tg_v FROM __tg_src", t.Expr)
	if bound, err := Bind(q, make([]int64, rules+1)); err == nil {
		return bound
	}
	return q // it reads no rule results
}

// token is one lexical token of a table check's SQL.
type token struct {
	kind byte   // 'w' word, 'i' quoted identifier, 's' string, 'n' number, 'o' operator or punctuation
	text string // as written; for 'i' and 's' the unquoted value in val
	val  string
}

// quotes says how a dialect quotes: DuckDB's strings are '…' with ” inside and identifiers "…";
// Spark's strings are '…' or "…" with backslash escapes and identifiers `…`.
type quotes struct{ duck bool }

var (
	duckQuotes  = quotes{duck: true}
	sparkQuotes = quotes{}
)

// lex splits SQL into tokens, dropping comments; a quote or comment left open is an error.
func lex(text string, q quotes) ([]token, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, fmt.Errorf("the SQL is empty")
	}
	if !utf8.ValidString(text) || strings.ContainsRune(text, 0) {
		return nil, fmt.Errorf("the SQL is not valid UTF-8 text")
	}
	var toks []token
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case strings.HasPrefix(text[i:], "--"):
			j := strings.IndexByte(text[i:], '\n')
			if j < 0 {
				j = len(text) - i
			}
			i += j
		case strings.HasPrefix(text[i:], "/*"):
			n, j := 0, i
			for ; j < len(text); j++ {
				if strings.HasPrefix(text[j:], "/*") {
					n++
					j++
				} else if strings.HasPrefix(text[j:], "*/") {
					n--
					j++
					if n == 0 || q.duck { // DuckDB's comments do not nest
						break
					}
				}
			}
			if j >= len(text) {
				return nil, fmt.Errorf("a /* comment is not closed")
			}
			i = j + 1
		case c == '\'' || c == '"' && !q.duck || c == '`' && !q.duck:
			end, val, err := quoted(text, i, c, q)
			if err != nil {
				return nil, err
			}
			kind := byte('s')
			if c == '`' {
				kind = 'i'
			}
			toks = append(toks, token{kind: kind, text: text[i:end], val: val})
			i = end
		case c == '"':
			end, val, err := quoted(text, i, c, q)
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{kind: 'i', text: text[i:end], val: val})
			i = end
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(text) && text[i+1] >= '0' && text[i+1] <= '9':
			j := i
			for j < len(text) && (text[j] >= '0' && text[j] <= '9' || text[j] == '.' || text[j] == '_' ||
				(text[j] == 'e' || text[j] == 'E') || (text[j] == '+' || text[j] == '-') && (text[j-1] == 'e' || text[j-1] == 'E')) {
				j++
			}
			toks = append(toks, token{kind: 'n', text: text[i:j]})
			i = j
		case isWord(rune(c)) || c >= utf8.RuneSelf:
			j := i
			for j < len(text) {
				r, n := utf8.DecodeRuneInString(text[j:])
				if !isWord(r) {
					break
				}
				j += n
			}
			if j == i {
				_, n := utf8.DecodeRuneInString(text[i:])
				toks = append(toks, token{kind: 'o', text: text[i : i+n]})
				i += n
				continue
			}
			toks = append(toks, token{kind: 'w', text: text[i:j]})
			i = j
		default:
			n := 1
			for _, op := range []string{">=", "<=", "<>", "!=", "==", "||", "::", "//", "**", "->", "=>", "<=>"} {
				if strings.HasPrefix(text[i:], op) && len(op) > n {
					n = len(op)
				}
			}
			toks = append(toks, token{kind: 'o', text: text[i : i+n]})
			i += n
		}
	}
	return toks, nil
}

// quoted reads the quoted text that starts at text[start] (quote c) and returns where it ends
// and its value.
func quoted(text string, start int, c byte, q quotes) (int, string, error) {
	var b strings.Builder
	for i := start + 1; i < len(text); i++ {
		switch {
		case text[i] == '\\' && !q.duck && c != '`' && i+1 < len(text):
			i++
			b.WriteByte(text[i])
		case text[i] == c:
			if (q.duck || c == '`') && i+1 < len(text) && text[i+1] == c {
				b.WriteByte(c)
				i++
				continue
			}
			return i + 1, b.String(), nil
		default:
			b.WriteByte(text[i])
		}
	}
	if c == '\'' || c == '"' && !q.duck {
		return 0, "", fmt.Errorf("a string literal is not closed")
	}
	return 0, "", fmt.Errorf("a quoted identifier is not closed")
}

// checkSpark refuses what a table check's Spark form may not hold, as a custom rule's (bindSQL):
// a subquery, a window, a statement separator, unbalanced parentheses, tablegate's names.
func checkSpark(toks []token) error {
	depth := 0
	for _, t := range toks {
		lw := strings.ToLower(t.text)
		switch {
		case t.kind == 'w' && lw == "select":
			return fmt.Errorf("subqueries are not allowed in table checks (%s)", t.text)
		case t.kind == 'w' && lw == "over":
			return fmt.Errorf("window functions (… OVER …) are not allowed in table checks")
		case t.kind == 'w' && lw == "_":
			return fmt.Errorf("`_` stands for a rule's checked value; a table check has none")
		case t.kind == 'w' && strings.HasPrefix(lw, "__tg_"), t.kind == 'i' && strings.HasPrefix(strings.ToLower(t.val), "__tg_"):
			return fmt.Errorf("the prefix __tg_ is reserved for tablegate's generated names")
		case t.text == ";":
			return fmt.Errorf("a table check is one expression: no ';'")
		case t.text == "(":
			depth++
		case t.text == ")":
			if depth--; depth < 0 {
				return fmt.Errorf("a ')' closes a parenthesis the check did not open")
			}
		}
	}
	if depth != 0 {
		return fmt.Errorf("a '(' is not closed")
	}
	return nil
}

// portableFuncs are the functions a table check's DuckDB SQL may call and still read the same in
// Spark SQL: the same name, arguments, NULL handling and result for every input. Aggregates
// whose results differ are left out: sum (DuckDB widens integers to HUGEINT, Spark's BIGINT
// overflows), avg (DuckDB's of a DECIMAL is a DOUBLE, Spark's a DECIMAL), as are floats'
// sums in another order.
var portableFuncs = map[string]bool{
	"count": true, "count_if": true, "min": true, "max": true, "coalesce": true, "nullif": true,
	"invalid_rows": true, "failed_rows": true,
}

// portableWords are the keywords that mean the same in both dialects.
var portableWords = map[string]bool{
	"and": true, "or": true, "not": true, "is": true, "null": true, "true": true, "false": true, "distinct": true,
	"filter": true, "where": true, "between": true, "in": true, "case": true, "when": true, "then": true, "else": true, "end": true,
}

// portableOps are the operators that mean the same in both dialects (for `/`, see portable).
var portableOps = map[string]bool{
	"(": true, ")": true, ",": true, "*": true, "+": true, "-": true, "/": true, "%": true,
	"<": true, ">": true, "<=": true, ">=": true, "=": true, "==": true, "<>": true, "!=": true,
}

// portable returns the tokens of a table check's DuckDB SQL as Spark SQL when every token means
// the same in both dialects (portableFuncs, portableWords, portableOps, numbers, strings, the
// schema's columns), and says which one does not otherwise. Identifiers are quoted again for
// Spark (backticks, the column's declared spelling, as Spark's names are case-sensitive here)
// and strings written as Spark reads them. A division with a fractional literal is not
// portable: DuckDB divides a DECIMAL into a DOUBLE, Spark into a DECIMAL of another scale.
func portable(toks []token, columns []string) ([]token, error) {
	out := make([]token, 0, len(toks))
	divides, fraction := false, ""
	for i, t := range toks {
		next := ""
		if i+1 < len(toks) {
			next = toks[i+1].text
		}
		switch t.kind {
		case 'n':
			if strings.ContainsAny(t.text, "_") {
				return nil, fmt.Errorf("the number %s is written differently in Spark SQL", t.text)
			}
			if strings.ContainsAny(t.text, ".eE") {
				fraction = t.text
			}
			out = append(out, t)
		case 's':
			out = append(out, token{kind: 's', text: String(t.val), val: t.val})
		case 'i':
			name, ok := columnNamed(t.val, columns)
			if !ok {
				return nil, fmt.Errorf("%s is not a column of the schema", t.text)
			}
			out = append(out, token{kind: 'i', text: Ident(name), val: name})
		case 'w':
			lw := strings.ToLower(t.text)
			switch {
			case portableWords[lw]:
				out = append(out, token{kind: 'w', text: strings.ToUpper(lw)})
			case next == "(":
				if !portableFuncs[lw] {
					return nil, fmt.Errorf("%s() is DuckDB's; Spark's may differ", t.text)
				}
				out = append(out, token{kind: 'w', text: lw})
			default:
				name, ok := columnNamed(t.text, columns)
				if !ok {
					return nil, fmt.Errorf("%s is DuckDB SQL that Spark may read differently", t.text)
				}
				out = append(out, token{kind: 'i', text: Ident(name), val: name})
			}
		default:
			if !portableOps[t.text] {
				return nil, fmt.Errorf("%s is DuckDB's operator; Spark's may differ", t.text)
			}
			divides = divides || t.text == "/"
			out = append(out, t)
		}
	}
	if divides && fraction != "" {
		return nil, fmt.Errorf("a division beside the number %s divides DECIMALs, into a DOUBLE in DuckDB and a DECIMAL in Spark", fraction)
	}
	return out, nil
}

// columnNamed finds the column a DuckDB identifier names (DuckDB matches names in any case).
func columnNamed(name string, columns []string) (string, bool) {
	for _, c := range columns {
		if c == name {
			return c, true
		}
	}
	for _, c := range columns {
		if strings.EqualFold(c, name) {
			return c, true
		}
	}
	return "", false
}

// ruleResults replaces the calls invalid_rows() and failed_rows('rule') by the elements of the
// counts parameter ($1: the invalid rows, then each rule's failures, 1-based in Spark's
// element_at) and reports whether there were any.
func ruleResults(toks []token, rules []string) ([]token, bool, error) {
	var out []token
	counts := false
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		lw := strings.ToLower(t.text)
		if t.kind != 'w' || (lw != "invalid_rows" && lw != "failed_rows") || i+1 >= len(toks) || toks[i+1].text != "(" {
			out = append(out, t)
			continue
		}
		k := 0
		switch {
		case lw == "invalid_rows" && i+2 < len(toks) && toks[i+2].text == ")":
			i += 2
		case lw == "failed_rows" && i+3 < len(toks) && toks[i+2].kind == 's' && toks[i+3].text == ")":
			k = -1
			for j, r := range rules {
				if r == toks[i+2].val {
					k = j + 1
				}
			}
			if k < 0 {
				return nil, false, fmt.Errorf("failed_rows('%s') names no rule; the rules are %s", toks[i+2].val, strings.Join(rules, ", "))
			}
			i += 3
		case lw == "invalid_rows":
			return nil, false, fmt.Errorf("invalid_rows() takes no argument")
		default:
			return nil, false, fmt.Errorf("failed_rows() takes a rule's name as a string literal: failed_rows('amount|min')")
		}
		counts = true
		out = append(out, token{kind: 'w', text: fmt.Sprintf("element_at(%s, %d)", compile.Param(1), k+1)})
	}
	return out, counts, nil
}

// render prints tokens as SQL, a space between two that would otherwise join.
func render(toks []token) string {
	var b strings.Builder
	for i, t := range toks {
		if i > 0 && spaced(toks[i-1], t) {
			b.WriteByte(' ')
		}
		b.WriteString(t.text)
	}
	return b.String()
}

func spaced(prev, t token) bool {
	switch {
	case t.text == ")" || t.text == ",":
		return false
	case prev.text == "(":
		return false
	case t.text == "(":
		return prev.kind != 'w' || portableWords[strings.ToLower(prev.text)]
	}
	return true
}

// comparisons are the operators that make a condition a comparison of two sides.
var comparisons = map[string]bool{"<": true, ">": true, "<=": true, ">=": true, "=": true, "==": true, "<>": true, "!=": true}

// sides are the values of a condition's compared sides (compile.Side) when the condition is one
// comparison whose sides that are not a constant are as many as the compiled check's: each side
// as text, with the age of a newest value in whole seconds (rounded, as DuckDB casts); nil
// otherwise.
func sides(toks []token, want []compile.Side) []compile.SideSQL {
	depth, at := 0, -1
	for i, t := range toks {
		switch {
		case t.text == "(":
			depth++
		case t.text == ")":
			depth--
		case depth == 0 && comparisons[t.text]:
			if at >= 0 {
				return nil
			}
			at = i
		case depth == 0 && t.kind == 'w' && portableWords[strings.ToLower(t.text)]:
			return nil // AND, OR, BETWEEN, IS …: not one comparison
		}
	}
	if at <= 0 || at == len(toks)-1 {
		return nil
	}
	var out []compile.SideSQL
	for _, side := range [][]token{toks[:at], toks[at+1:]} {
		if constant(side) {
			continue // a constant: its value is what it says
		}
		expr := render(side)
		sd := compile.SideSQL{Value: "CAST((" + expr + ") AS STRING)"}
		if len(out) < len(want) && want[len(out)].Newest {
			sd.Age = "CAST(round((unix_micros(current_timestamp()) - unix_micros(CAST((" + expr + ") AS TIMESTAMP))) / 1000000.0) AS BIGINT)"
		}
		out = append(out, sd)
	}
	if len(out) != len(want) {
		return nil
	}
	return out
}

// constant reports whether a side is a literal (a number, negative or not, a string, TRUE, FALSE
// or NULL), whose value the report does not repeat.
func constant(side []token) bool {
	switch {
	case len(side) == 2:
		return side[0].text == "-" && side[1].kind == 'n'
	case len(side) != 1:
		return false
	}
	lw := strings.ToLower(side[0].text)
	return side[0].kind == 'n' || side[0].kind == 's' || side[0].kind == 'w' && (lw == "true" || lw == "false" || lw == "null")
}
