package spark

import (
	"context"
	"strings"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/schema"
)

// CompileSchema compiles s for Spark in a program that links no SQL parser (compile.Parser), as
// tablegate-spark does without DuckDB, and returns the plan rendered in Spark SQL (Program.Spark),
// which Compile takes as it takes a DuckDB plan. Each custom rule is its Spark form, checked as
// Compile checks it and typed by Spark's analyzer before any row is read (Rule.Probe): a rule
// with DuckDB SQL alone is refused by name, never run unchecked. Whether a rule aggregates is read
// from the Spark functions it calls (sparkAggregates); table checks are refused (their SQL is
// DuckDB's, which the parser checks), and the rest as Compile refuses it.
func CompileSchema(ctx context.Context, s *schema.Schema) (*compile.Plan, error) {
	p, err := compile.CompileIn(ctx, s, Dialect, ownSQL)
	if err != nil {
		return nil, err
	}
	prog, err := CompileContext(ctx, p)
	if err != nil {
		return nil, err
	}
	return prog.Spark(), nil
}

// ownSQL is a custom rule's Spark form (bind) and whether it calls an aggregate.
func ownSQL(forms schema.Check, ref string) (compile.Custom, error) {
	expr, err := bind(forms, ref)
	if err != nil {
		return compile.Custom{}, err
	}
	return compile.Custom{SQL: expr, Aggregate: callsAggregate(expr)}, nil
}

// callsAggregate tells whether the Spark SQL expr (as bindSQL returns it: no comments) calls one
// of Spark's aggregate functions. A name followed by an opening parenthesis outside quotes is a
// call. An aggregate this misses is not run as a row's rule: Spark's analyzer refuses the run's
// query, which groups no rows.
func callsAggregate(expr string) bool {
	for i := 0; i < len(expr); {
		c := expr[i]
		switch {
		case c == '\'' || c == '"':
			j := i + 1
			for ; j < len(expr) && expr[j] != c; j++ {
				if expr[j] == '\\' {
					j++
				}
			}
			i = j + 1
		case c == '`' || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			// A word, or a `quoted` name (`` is a backquote in it): either may name a function.
			j := i + 1
			var word string
			if c == '`' {
				for ; j < len(expr) && (expr[j] != '`' || j+1 < len(expr) && expr[j+1] == '`'); j++ {
					if expr[j] == '`' {
						j++
					}
				}
				word = strings.ReplaceAll(expr[i+1:min(j, len(expr))], "``", "`")
				j++
			} else {
				for j < len(expr) && (expr[j] == '_' || expr[j] >= 'a' && expr[j] <= 'z' || expr[j] >= 'A' && expr[j] <= 'Z' || expr[j] >= '0' && expr[j] <= '9') {
					j++
				}
				word = expr[i:j]
			}
			word = strings.ToLower(word)
			k := j
			for k < len(expr) && (expr[k] == ' ' || expr[k] == '\t' || expr[k] == '\n' || expr[k] == '\r') {
				k++
			}
			if k < len(expr) && expr[k] == '(' && sparkAggregates[word] && (i == 0 || expr[i-1] != '.') {
				return true
			}
			i = j
		default:
			i++
		}
	}
	return false
}

// sparkAggregates are Spark SQL's built-in aggregate functions (Spark 3.5 and 4).
var sparkAggregates = map[string]bool{}

func init() {
	for _, name := range strings.Fields(`any any_value approx_count_distinct approx_percentile array_agg avg
		bit_and bit_or bit_xor bitmap_construct_agg bitmap_or_agg bool_and bool_or collect_list collect_set
		corr count count_if count_min_sketch covar_pop covar_samp every first first_value grouping grouping_id
		histogram_numeric hll_sketch_agg hll_union_agg kurtosis last last_value listagg max max_by mean median
		min min_by mode percentile percentile_approx percentile_cont percentile_disc regr_avgx regr_avgy
		regr_count regr_intercept regr_r2 regr_slope regr_sxx regr_sxy regr_syy skewness some std stddev
		stddev_pop stddev_samp string_agg sum try_avg try_sum var_pop var_samp variance`) {
		sparkAggregates[name] = true
	}
}
