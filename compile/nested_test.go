package compile_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tablegate/tablegate/schema"
)

// Nested columns: List, Array and Struct rules (docs/semantics.md).

func TestListRules(t *testing.T) {
	rtRun(t, []rtCase{
		{
			name:   "inner nullability: [NULL] fails, empty and NULL lists pass",
			schema: rtOne(schema.List("tags", schema.String("")).Nullable()),
			data: rtData{cols: "tags VARCHAR[]", rows: []string{
				"['a']", "[NULL]", "[]", "NULL", "['a', NULL]", "['a', 'b']"}},
			rules: []string{"tags|inner_nullability"},
			want:  map[string]string{"tags|inner_nullability": "TFTTFT"},
		},
		{
			name:   "list itself not null by default",
			schema: rtOne(schema.List("tags", schema.String("").Nullable())),
			data:   rtData{cols: "tags VARCHAR[]", rows: []string{"[NULL]", "NULL", "[]"}},
			rules:  []string{"tags|nullability"},
			want:   map[string]string{"tags|nullability": "TFT"},
		},
		{
			name:   "inner min_length on strings (bytes)",
			schema: rtOne(schema.List("tags", schema.String("").Nullable().MinLength(2)).Nullable()),
			data: rtData{cols: "tags VARCHAR[]", rows: []string{
				"['ab', 'c']", "['ab']", "[]", "NULL", "[NULL]", "['é']", "['xy', '', 'zz']"}},
			rules: []string{"tags|inner_min_length"},
			want:  map[string]string{"tags|inner_min_length": "FTTTTTF"},
		},
		{
			name: "inner rules of every kind",
			schema: schema.New("T",
				schema.List("n", schema.Int32("").Min(0).MaxExclusive(10).Check("", "_ % 2 = 0")),
				schema.List("f", schema.Float32("").Max(0.1).AllowNaN()),
				schema.List("s", schema.String("").Regex("^[a-z]+$").IsIn("ab", "it's")),
			),
			data: rtData{cols: "n INTEGER[], f FLOAT[], s VARCHAR[]", rows: []string{
				"[0, 2, 8], [0.1, 'nan'::FLOAT], ['ab']",
				"[-2, 4], [0.09], ['it''s']",
				"[10], [0.2], ['cd']",
				"[3], [], []",
			}},
			rules: []string{
				"n|nullability", "n|inner_nullability", "n|inner_check", "n|inner_min", "n|inner_max_exclusive",
				"f|nullability", "f|inner_nullability", "f|inner_max", "f|inner_inf",
				"s|nullability", "s|inner_nullability", "s|inner_regex", "s|inner_is_in",
			},
			want: map[string]string{
				"n|inner_check":         "TTTF",
				"n|inner_min":           "TFTT",
				"n|inner_max_exclusive": "TTFT",
				"f|inner_max":           "FTFT",
				"f|inner_inf":           "TTTT",
				"s|inner_regex":         "TFTT",
				"s|inner_is_in":         "TTFT",
			},
		},
		{
			name:   "Float family bounds on FLOAT elements compare as FLOAT",
			schema: rtOne(schema.List("f", schema.Float("").Max(0.1))),
			data:   rtData{cols: "f FLOAT[]", rows: []string{"[0.1]", "[0.05, 0.2]"}},
			want:   map[string]string{"f|inner_max": "TF"},
		},
		{
			name:   "inner check may use other columns",
			schema: schema.New("T", schema.List("l", schema.Int64("").Check("", "_ <= cap")), schema.Int64("cap")),
			data:   rtData{cols: "l BIGINT[], cap BIGINT", rows: []string{"[1, 2], 2", "[1, 3], 2", "[], 0"}},
			want:   map[string]string{"l|inner_check": "TFT"},
		},
		{
			name:   "inner temporal rules",
			schema: rtOne(schema.List("d", schema.Datetime("", schema.Micros, "Europe/Berlin").Resolution("1d").Min("2020-01-01 00:00:00+01:00"))),
			data: rtData{cols: "d TIMESTAMPTZ[]", rows: []string{
				"['2020-01-01 00:00:00+01']", "['2020-01-01 00:00:00+00']", "['2019-12-31 00:00:00+01', '2020-06-01 00:00:00+02']"}},
			want: map[string]string{"d|inner_min": "TTF", "d|inner_resolution": "TFT"},
		},
		{
			name:   "min_length and max_length count elements",
			schema: rtOne(schema.List("l", schema.Int64("").Nullable()).Nullable().MinLength(1).MaxLength(2)),
			data: rtData{cols: "l BIGINT[]", rows: []string{
				"[]", "[1]", "[1, 2]", "[1, 2, 3]", "NULL", "[NULL]", "[NULL, NULL, NULL]"}},
			rules: []string{"l|min_length", "l|max_length"},
			want:  map[string]string{"l|min_length": "FTTTTTT", "l|max_length": "TTTFTTF"},
		},
		{
			name:   "list of strings: lengths are element counts, not bytes",
			schema: rtOne(schema.List("l", schema.String("")).MaxLength(1)),
			data:   rtData{cols: "l VARCHAR[]", rows: []string{"['🇩🇪']", "['a', 'b']"}},
			want:   map[string]string{"l|max_length": "TF"},
		},
		{
			name:   "inner unique within each list; NULLs are equal",
			schema: rtOne(schema.List("l", schema.Int64("").Nullable().Unique()).Nullable()),
			data: rtData{cols: "l BIGINT[]", rows: []string{
				"[1, 2]", "[1, 1]", "[NULL, NULL]", "[NULL, 1]", "[]", "NULL", "[1]", "[1]", "[3, 1, 3]"}},
			rules: []string{"l|inner_unique"},
			want:  map[string]string{"l|inner_unique": "TFFTTTTTF"},
		},
		{
			name:   "inner unique on strings",
			schema: rtOne(schema.List("l", schema.String("").Unique())),
			data:   rtData{cols: "l VARCHAR[]", rows: []string{"['a', 'A']", "['a', 'a']"}},
			rules:  []string{"l|nullability", "l|inner_nullability", "l|inner_unique"},
			want:   map[string]string{"l|inner_unique": "TF"},
		},
		{
			name:   "inner unique on floats: NaN equals NaN",
			schema: rtOne(schema.List("l", schema.Float64("").AllowNaN().Unique())),
			data:   rtData{cols: "l DOUBLE[]", rows: []string{"['nan'::DOUBLE, 'nan']", "['nan'::DOUBLE, 1]", "[0.0, '-0.0'::DOUBLE]"}},
			want:   map[string]string{"l|inner_unique": "FTF"},
		},
		{
			name:   "list primary key via inner PrimaryKey",
			schema: rtOne(schema.List("l", schema.String("").PrimaryKey())),
			data: rtData{cols: "l VARCHAR[]", rows: []string{
				"['a', 'b']", "['a', 'a']", "[NULL, NULL]", "[]", "['a']", "['b', 'a', 'b']"}},
			rules: []string{"l|nullability", "l|primary_key", "l|inner_nullability"},
			want: map[string]string{
				"l|primary_key":       "TFFTTF",
				"l|inner_nullability": "TTFTTT",
			},
		},
		{
			name: "list primary key via struct key fields",
			schema: rtOne(schema.List("items", schema.Struct("",
				schema.Int64("k1").PrimaryKey(), schema.String("k2").PrimaryKey(), schema.Int64("v").Nullable()))),
			data: rtData{cols: "items STRUCT(k1 BIGINT, k2 VARCHAR, v BIGINT)[]", rows: []string{
				"[{'k1': 1, 'k2': 'a', 'v': 1}, {'k1': 1, 'k2': 'b', 'v': 1}]",
				"[{'k1': 1, 'k2': 'a', 'v': 1}, {'k1': 1, 'k2': 'a', 'v': 2}]",
				"[]",
				"[{'k1': 2, 'k2': 'a', 'v': NULL}]",
				"[{'k1': NULL, 'k2': 'a', 'v': 1}, {'k1': NULL, 'k2': 'a', 'v': 2}]",
			}},
			rules: []string{"items|nullability", "items|primary_key", "items|inner_nullability",
				"items|inner_inner_k1_nullability", "items|inner_inner_k2_nullability"},
			want: map[string]string{
				"items|primary_key":                "TFTTF",
				"items|inner_inner_k1_nullability": "TTTTF",
			},
		},
		{
			name: "struct element as a whole is the key: field keys are ignored",
			schema: rtOne(schema.List("items", schema.Struct("",
				schema.Int64("k").PrimaryKey(), schema.Int64("v")).PrimaryKey())),
			data: rtData{cols: "items STRUCT(k BIGINT, v BIGINT)[]", rows: []string{
				"[{'k': 1, 'v': 1}, {'k': 1, 'v': 2}]",
				"[{'k': 1, 'v': 1}, {'k': 1, 'v': 1}]",
			}},
			want: map[string]string{"items|primary_key": "TF"},
		},
		{
			name:   "unique on the whole list across rows",
			schema: rtOne(schema.List("l", schema.Int64("").Nullable()).Nullable().Unique()),
			data: rtData{cols: "l BIGINT[]", rows: []string{
				"[1, 2]", "[1, 2]", "[2, 1]", "[]", "[]", "NULL", "NULL", "[NULL]", "[NULL]", "[NULL, 1]"}},
			rules: []string{"l|unique"},
			want:  map[string]string{"l|unique": "FFTFFFFFFT"},
		},
		{
			name:   "primary key on a list column",
			schema: schema.New("T", schema.List("l", schema.String("")).PrimaryKey()),
			data:   rtData{cols: "l VARCHAR[]", rows: []string{"['a']", "['a']", "['a', 'b']", "[]"}},
			rules:  []string{"primary_key", "l|nullability", "l|inner_nullability"},
			want:   map[string]string{"primary_key": "FFTT"},
		},
		{
			name:   "multi-level list",
			schema: rtOne(schema.List("a", schema.List("", schema.String("").MinLength(2)).MaxLength(2))),
			data: rtData{cols: "a VARCHAR[][]", rows: []string{
				"[['ab'], ['cd', 'ef']]", "[['ab'], ['c']]", "[[]]", "[]", "[NULL]", "[['ab', NULL]]", "[['ab', 'cd', 'ef']]"}},
			rules: []string{"a|nullability", "a|inner_nullability", "a|inner_max_length",
				"a|inner_inner_nullability", "a|inner_inner_min_length"},
			want: map[string]string{
				"a|inner_nullability":       "TTTTFTT",
				"a|inner_max_length":        "TTTTTTF",
				"a|inner_inner_nullability": "TTTTTFT",
				"a|inner_inner_min_length":  "TFTTTTT",
			},
		},
		{
			name:   "inner unique of an inner list",
			schema: rtOne(schema.List("a", schema.List("", schema.Int64("").Nullable().Unique()))),
			data:   rtData{cols: "a BIGINT[][]", rows: []string{"[[1, 2], [1, 2]]", "[[1], [2, 2]]", "[[NULL, NULL]]"}},
			want:   map[string]string{"a|inner_inner_unique": "TFF"},
		},
		{
			name: "inner unique on a struct field within each list",
			schema: rtOne(schema.List("items", schema.Struct("",
				schema.Int64("k").Nullable().Unique(), schema.String("x").Nullable()).Nullable())),
			data: rtData{cols: "items STRUCT(k BIGINT, x VARCHAR)[]", rows: []string{
				"[{'k': 1, 'x': 'a'}, {'k': 2, 'x': 'a'}]",
				"[{'k': 1, 'x': 'a'}, {'k': 1, 'x': 'b'}]",
				"[{'k': NULL, 'x': 'a'}, {'k': NULL, 'x': 'b'}]",
				"[{'k': 1, 'x': 'a'}]",
				"[]",
			}},
			rules: []string{"items|nullability", "items|inner_inner_k_unique"},
			want:  map[string]string{"items|inner_inner_k_unique": "TFFTT"},
		},
		{
			// The struct rule is `when(element is null) then true otherwise is_unique(field)`, so
			// NULL elements pass, while their NULL field values still take part.
			name: "inner unique on a struct field: NULL elements pass",
			schema: rtOne(schema.List("items", schema.Struct("",
				schema.Int64("k").Nullable().Unique()).Nullable())),
			data: rtData{cols: "items STRUCT(k BIGINT)[]", rows: []string{
				"[NULL, NULL]",
				"[{'k': 1}, NULL, NULL]",
				"[{'k': NULL}, NULL]",
				"[{'k': 1}, NULL, {'k': 1}]",
			}},
			want: map[string]string{"items|inner_inner_k_unique": "TTFF"},
		},
		{
			name: "inner unique on a field of a nested struct",
			schema: rtOne(schema.List("items", schema.Struct("",
				schema.Struct("s", schema.Int64("a").Nullable().Unique()).Nullable()))),
			data: rtData{cols: "items STRUCT(s STRUCT(a BIGINT))[]", rows: []string{
				"[{'s': {'a': 1}}, {'s': NULL}]",
				"[{'s': {'a': NULL}}, {'s': NULL}]",
				"[{'s': {'a': 1}}, {'s': {'a': 1}}]",
				"[{'s': NULL}, {'s': NULL}, {'s': {'a': 2}}]",
			}},
			want: map[string]string{"items|inner_inner_s_inner_a_unique": "TFFT"},
		},
	})
}

func TestArrayRules(t *testing.T) {
	rtRun(t, []rtCase{
		{
			name:   "inner rules",
			schema: rtOne(schema.Array("a", schema.Int64("").Min(0), 3).Nullable()),
			data: rtData{cols: "a BIGINT[3]", rows: []string{
				"[1, 2, 3]", "[1, -1, 2]", "NULL", "[NULL, 1, 2]", "[NULL, NULL, -5]"}},
			rules: []string{"a|inner_nullability", "a|inner_min"},
			want: map[string]string{
				"a|inner_nullability": "TTTFF",
				"a|inner_min":         "TFTTF",
			},
		},
		{
			name:   "inner string rules",
			schema: rtOne(schema.Array("a", schema.String("").Nullable().MaxLength(2).Regex("^x"), 2)),
			data:   rtData{cols: "a VARCHAR[2]", rows: []string{"['x', 'xy']", "['xé', 'x']", "['y', NULL]"}},
			want:   map[string]string{"a|inner_max_length": "TFT", "a|inner_regex": "TTF"},
		},
		{
			name:   "inner unique",
			schema: rtOne(schema.Array("a", schema.Int64("").Nullable().Unique(), 3)),
			data:   rtData{cols: "a BIGINT[3]", rows: []string{"[1, 2, 3]", "[1, 1, 2]", "[NULL, 1, NULL]"}},
			want:   map[string]string{"a|inner_unique": "TFF"},
		},
		{
			name:   "inner primary key",
			schema: rtOne(schema.Array("a", schema.String("").PrimaryKey(), 2)),
			data:   rtData{cols: "a VARCHAR[2]", rows: []string{"['a', 'b']", "['a', 'a']"}},
			rules:  []string{"a|nullability", "a|primary_key", "a|inner_nullability"},
			want:   map[string]string{"a|primary_key": "TF"},
		},
		{
			// As in dataframely, the elements are the sub-arrays: nullability and checks see them
			// (a NULL inside a sub-array passes); bounds, which dataframely cannot take on a
			// sub-array, see the values.
			name:   "multi-dimensional: nullability and checks see the sub-arrays, bounds the values",
			schema: rtOne(schema.Array("a", schema.Int64("").Min(0).Check("", "list_sum(_) <= 15"), 2, 3)),
			data: rtData{cols: "a BIGINT[3][2]", rows: []string{
				"[[1, 2, 3], [4, 5, 6]]", "[[1, 2, 3], [4, -5, 6]]", "[[1, NULL, 3], [4, 5, 6]]", "[NULL, [4, 5, 6]]", "[[9, 9, 9], [0, 0, 0]]"}},
			rules: []string{"a|nullability", "a|inner_nullability", "a|inner_check", "a|inner_min"},
			want:  map[string]string{"a|inner_nullability": "TTTFT", "a|inner_min": "TFTTT", "a|inner_check": "TTTTF"},
		},
		{
			name:   "unique arrays across rows",
			schema: rtOne(schema.Array("a", schema.Int32(""), 2).Unique()),
			data:   rtData{cols: "a INTEGER[2]", rows: []string{"[1, 2]", "[2, 1]", "[1, 2]"}},
			want:   map[string]string{"a|unique": "FTF"},
		},
	})
}

func TestStructRules(t *testing.T) {
	rtRun(t, []rtCase{
		{
			name: "field rules pass when the struct is NULL",
			schema: rtOne(schema.Struct("address",
				schema.String("city"), schema.String("zip").Nullable().Regex("^[0-9]+$")).Nullable()),
			data: rtData{cols: "address STRUCT(city VARCHAR, zip VARCHAR)", rows: []string{
				"{'city': 'B', 'zip': '1'}", "{'city': NULL, 'zip': 'x'}", "NULL", "{'city': 'C', 'zip': NULL}"}},
			rules: []string{"address|inner_city_nullability", "address|inner_zip_regex"},
			want: map[string]string{
				"address|inner_city_nullability": "TFTT",
				"address|inner_zip_regex":        "TFTT",
			},
		},
		{
			name: "field bounds and checks",
			schema: rtOne(schema.Struct("s",
				schema.Int64("n").Min(0).Check("even", "_ % 2 = 0"), schema.Float64("f").AllowNaN().Max(1))),
			data: rtData{cols: "s STRUCT(n BIGINT, f DOUBLE)", rows: []string{
				"{'n': 2, 'f': 1}", "{'n': -2, 'f': 'nan'}", "{'n': 3, 'f': 'inf'}"}},
			rules: []string{"s|nullability", "s|inner_n_nullability", "s|inner_n_check__even", "s|inner_n_min",
				"s|inner_f_nullability", "s|inner_f_max", "s|inner_f_inf"},
			want: map[string]string{
				"s|inner_n_check__even": "TTF",
				"s|inner_n_min":         "TFT",
				"s|inner_f_max":         "TFF",
				"s|inner_f_inf":         "TTF",
			},
		},
		{
			name:   "struct inside struct",
			schema: rtOne(schema.Struct("s1", schema.Struct("s2", schema.String("a").MinLength(2))).Nullable()),
			data: rtData{cols: "s1 STRUCT(s2 STRUCT(a VARCHAR))", rows: []string{
				"{'s2': {'a': 'ab'}}", "{'s2': {'a': 'x'}}", "{'s2': NULL}", "NULL", "{'s2': {'a': NULL}}"}},
			rules: []string{"s1|inner_s2_nullability", "s1|inner_s2_inner_a_nullability", "s1|inner_s2_inner_a_min_length"},
			want: map[string]string{
				"s1|inner_s2_nullability":         "TTFTT",
				"s1|inner_s2_inner_a_nullability": "TTTTF",
				"s1|inner_s2_inner_a_min_length":  "TFTTT",
			},
		},
		{
			name:   "list inside struct",
			schema: rtOne(schema.Struct("s", schema.List("tags", schema.String("").MinLength(1)).MaxLength(2))),
			data: rtData{cols: "s STRUCT(tags VARCHAR[])", rows: []string{
				"{'tags': ['a']}", "{'tags': ['']}", "{'tags': ['a', 'b', 'c']}", "{'tags': NULL}"}},
			rules: []string{"s|nullability", "s|inner_tags_nullability", "s|inner_tags_max_length",
				"s|inner_tags_inner_nullability", "s|inner_tags_inner_min_length"},
			want: map[string]string{
				"s|inner_tags_nullability":      "TTTF",
				"s|inner_tags_max_length":       "TTFT",
				"s|inner_tags_inner_min_length": "TFTT",
			},
		},
		{
			name:   "struct inside list",
			schema: rtOne(schema.List("l", schema.Struct("", schema.String("city"), schema.Int64("n").Nullable().Min(1)))),
			data: rtData{cols: "l STRUCT(city VARCHAR, n BIGINT)[]", rows: []string{
				"[{'city': 'B', 'n': 1}]", "[{'city': NULL, 'n': 0}]", "[NULL]", "[{'city': 'C', 'n': NULL}, {'city': 'D', 'n': 5}]"}},
			rules: []string{"l|nullability", "l|inner_nullability", "l|inner_inner_city_nullability", "l|inner_inner_n_min"},
			want: map[string]string{
				"l|inner_nullability":            "TTFT",
				"l|inner_inner_city_nullability": "TFTT",
				"l|inner_inner_n_min":            "TFTT",
			},
		},
		{
			name:   "unique on a struct field across rows",
			schema: rtOne(schema.Struct("s", schema.Int64("id").Nullable().Unique(), schema.String("x").Nullable()).Nullable()),
			data: rtData{cols: "s STRUCT(id BIGINT, x VARCHAR)", rows: []string{
				"{'id': 1, 'x': 'a'}", "{'id': 1, 'x': 'b'}", "{'id': 2, 'x': 'a'}", "{'id': NULL, 'x': 'a'}", "{'id': NULL, 'x': 'b'}", "NULL"}},
			rules: []string{"s|inner_id_unique"},
			want:  map[string]string{"s|inner_id_unique": "FFTFFT"},
		},
		{
			// The NULL struct's NULL field value takes part in the count, but the row itself passes.
			name:   "unique on a struct field: a NULL struct collides with a NULL field",
			schema: rtOne(schema.Struct("s", schema.Int64("id").Nullable().Unique()).Nullable()),
			data:   rtData{cols: "s STRUCT(id BIGINT)", rows: []string{"{'id': 3}", "{'id': NULL}", "NULL"}},
			want:   map[string]string{"s|inner_id_unique": "TFT"},
		},
		{
			name:   "unique on a nested struct field across rows",
			schema: rtOne(schema.Struct("s1", schema.Struct("s2", schema.Int64("a").Unique()).Nullable()).Nullable()),
			data: rtData{cols: "s1 STRUCT(s2 STRUCT(a BIGINT))", rows: []string{
				"{'s2': {'a': 1}}", "{'s2': {'a': 1}}", "{'s2': {'a': 2}}", "{'s2': NULL}", "NULL"}},
			want: map[string]string{"s1|inner_s2_inner_a_unique": "FFTTT"},
		},
		{
			// A NULL struct and one whose fields are all NULL are duplicates, as in polars.
			name:   "unique on the whole struct across rows",
			schema: rtOne(schema.Struct("s", schema.Int64("a").Nullable()).Nullable().Unique()),
			data: rtData{cols: "s STRUCT(a BIGINT)", rows: []string{
				"{'a': 1}", "{'a': 1}", "{'a': 2}", "NULL", "NULL", "{'a': NULL}"}},
			rules: []string{"s|unique"},
			want:  map[string]string{"s|unique": "FFTFFF"},
		},
		{
			// One level only: a NULL inner struct differs from one of NULL fields.
			name: "unique on a struct of a struct",
			schema: rtOne(schema.Struct("s", schema.Int64("a").Nullable(),
				schema.Struct("b", schema.Int64("c").Nullable()).Nullable()).Nullable().Unique()),
			data: rtData{cols: "s STRUCT(a BIGINT, b STRUCT(c BIGINT))", rows: []string{
				"NULL", "{'a': NULL, 'b': NULL}", "{'a': NULL, 'b': {'c': NULL}}", "{'a': 1, 'b': NULL}"}},
			rules: []string{"s|unique"},
			want:  map[string]string{"s|unique": "FFTT"},
		},
		{
			name:   "inner unique of struct elements: NULL equals all-NULL fields",
			schema: rtOne(schema.List("l", schema.Struct("", schema.Int64("a").Nullable()).Nullable().Unique())),
			data: rtData{cols: "l STRUCT(a BIGINT)[]", rows: []string{
				"[NULL, {'a': NULL}]", "[{'a': NULL}, {'a': 1}]", "[NULL, NULL]", "[{'a': 1}, {'a': 2}]"}},
			rules: []string{"l|nullability", "l|inner_unique"},
			want:  map[string]string{"l|inner_unique": "FTFT"},
		},
		{
			name: "inner unique of a struct field that is a struct",
			schema: rtOne(schema.List("l", schema.Struct("",
				schema.Struct("k", schema.Int64("a").Nullable()).Nullable().Unique()).Nullable())),
			data: rtData{cols: "l STRUCT(k STRUCT(a BIGINT))[]", rows: []string{
				"[{'k': NULL}, {'k': {'a': NULL}}]", "[NULL, {'k': {'a': NULL}}]", "[{'k': {'a': 1}}, NULL]", "[{'k': {'a': 1}}, {'k': {'a': 2}}]"}},
			rules: []string{"l|nullability", "l|inner_inner_k_unique"},
			want:  map[string]string{"l|inner_inner_k_unique": "FFTT"},
		},
		{
			name:   "primary key on a struct column",
			schema: rtOne(schema.Struct("s", schema.Int64("a"), schema.String("b")).PrimaryKey()),
			data: rtData{cols: "s STRUCT(a BIGINT, b VARCHAR)", rows: []string{
				"{'a': 1, 'b': 'x'}", "{'a': 1, 'b': 'y'}", "{'a': 1, 'b': 'x'}"}},
			want: map[string]string{"primary_key": "FTF"},
		},
		{
			name:   "reserved and mixed-case field names",
			schema: rtOne(schema.Struct("order", schema.Int64("Select").Min(0), schema.String("from").Unique())),
			data: rtData{cols: `"order" STRUCT("Select" BIGINT, "from" VARCHAR)`, rows: []string{
				`{'Select': 1, 'from': 'a'}`, `{'Select': -1, 'from': 'a'}`, `{'Select': 0, 'from': 'b'}`}},
			rules: []string{"order|nullability", "order|inner_Select_nullability", "order|inner_Select_min",
				"order|inner_from_nullability", "order|inner_from_unique"},
			want: map[string]string{"order|inner_Select_min": "TFT", "order|inner_from_unique": "FFT"},
		},
	})
}

// TestDeepStructGuard: a NULL struct anywhere above a field passes the field's rules, also a
// check that is FALSE for NULL, however many structs lie between.
func TestDeepStructGuard(t *testing.T) {
	leaf := schema.Int64("n").Nullable().Check("set", "_ IS NOT NULL")
	s := rtOne(schema.Struct("a", schema.Struct("b", schema.Struct("c", leaf).Nullable()).Nullable()).Nullable())
	r := rtEval(t, s, rtData{cols: "a STRUCT(b STRUCT(c STRUCT(n BIGINT)))", rows: []string{
		"{'b': {'c': {'n': 1}}}", "{'b': {'c': {'n': NULL}}}", "{'b': {'c': NULL}}", "{'b': NULL}", "NULL"}})
	r.expect(t, map[string]string{"a|inner_b_inner_c_inner_n_check__set": "TFTTT"})
}

// TestDeepNestingCompilesLinearly: a rule's SQL grows with its depth, not its square, and a
// column nested to the limit compiles at once.
func TestDeepNestingCompilesLinearly(t *testing.T) {
	deep := func(n int) *schema.Column {
		c := schema.Int64(fmt.Sprintf("s%d", n)).Min(0)
		for i := n - 1; i >= 0; i-- {
			c = schema.Struct(fmt.Sprintf("s%d", i), c)
		}
		return c
	}
	deepest := func(n int) (int, time.Duration) {
		start := time.Now()
		p := rtCompile(t, rtOne(deep(n)))
		took := time.Since(start)
		r := p.Rules[len(p.Rules)-1]
		if r.Kind != schema.RuleMin {
			t.Fatalf("depth %d: last rule is %s, want the leaf's min", n, r.Name)
		}
		return len(r.Expr), took
	}
	half, _ := deepest(schema.MaxNestingDepth / 2)
	full, took := deepest(schema.MaxNestingDepth)
	if ratio := float64(full) / float64(half); ratio > 2.3 {
		t.Errorf("the leaf rule's SQL grows %.1fx from depth %d to %d (%d -> %d bytes); want about 2x", ratio, schema.MaxNestingDepth/2, schema.MaxNestingDepth, half, full)
	}
	if took > 2*time.Second {
		t.Errorf("compiling depth %d took %v", schema.MaxNestingDepth, took)
	}
	if _, err := compileShared(rtOne(deep(schema.MaxNestingDepth + 1))); err == nil || !strings.Contains(err.Error(), "levels deep") {
		t.Errorf("depth %d: want the depth error, got %v", schema.MaxNestingDepth+1, err)
	}
}
