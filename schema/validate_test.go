package schema_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tablegate/tablegate/schema"
)

// problems returns every problem of a Validate/Load error, failing the test when err is not a
// *schema.Errors.
func problems(t *testing.T, err error) []error {
	t.Helper()
	if err == nil {
		t.Fatalf("expected declaration errors, got none")
	}
	var errs *schema.Errors
	if !errors.As(err, &errs) {
		t.Fatalf("expected *schema.Errors, got %T: %v", err, err)
	}
	if len(errs.Problems) == 0 {
		t.Fatalf("*schema.Errors with no problems: %v", err)
	}
	return errs.Problems
}

// declErr finds the DeclarationError about column and key; it fails the test with every problem
// when there is none.
func declErr(t *testing.T, err error, column, key string) *schema.DeclarationError {
	t.Helper()
	for _, p := range problems(t, err) {
		var d *schema.DeclarationError
		if errors.As(p, &d) && d.Column == column && d.Key == key {
			return d
		}
	}
	t.Fatalf("no declaration error for column %q key %q in:\n%v", column, key, err)
	return nil
}

func severityErrs(t *testing.T, err error) []*schema.InvalidSeverityError {
	t.Helper()
	var out []*schema.InvalidSeverityError
	for _, p := range problems(t, err) {
		var s *schema.InvalidSeverityError
		if errors.As(p, &s) {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no InvalidSeverityError in: %v", err)
	}
	return out
}

func mustValid(t *testing.T, s *schema.Schema) {
	t.Helper()
	if err := s.Validate(); err != nil {
		t.Fatalf("expected %s to be valid, got: %v", s.Name, err)
	}
}

// TestConstructionErrors covers every construction error of docs/schema.md (and the tablegate
// additions): each must be a DeclarationError naming the schema, the column and the argument.
func TestConstructionErrors(t *testing.T) {
	cases := []struct {
		name   string
		col    *schema.Column
		key    string
		msgHas string
	}{
		{"min greater than max", schema.Int64("x").Min(5).Max(3), "max", "greater than"},
		{"min_exclusive equal to max", schema.Int64("x").MinExclusive(3).Max(3), "max", "min_exclusive"},
		{"min_exclusive greater than max", schema.Float64("x").MinExclusive(4.5).Max(3), "max", "min_exclusive"},
		{"min equal to max_exclusive", schema.Int32("x").Min(3).MaxExclusive(3), "max_exclusive", "equal to"},
		{"min_exclusive equal to max_exclusive", schema.Int32("x").MinExclusive(3).MaxExclusive(3), "max_exclusive", "min_exclusive"},
		{"both min and min_exclusive", schema.Int64("x").Min(1).MinExclusive(0), "min_exclusive", "not both"},
		{"both max and max_exclusive", schema.Int64("x").Max(1).MaxExclusive(2), "max_exclusive", "not both"},
		{"Int8 max beyond range", schema.Int8("x").Max(200), "max", "outside the range of Int8"},
		{"Int8 min beyond range", schema.Int8("x").Min(-129), "min", "outside the range of Int8"},
		{"Int16 max beyond range", schema.Int16("x").Max(32768), "max", "Int16"},
		{"Int32 min beyond range", schema.Int32("x").Min(int64(-2147483649)), "min", "Int32"},
		{"Int64 beyond range", schema.Int64("x").Max("9223372036854775808"), "max", "Int64"},
		{"Integer uses the Int64 range", schema.Integer("x").Min("-9223372036854775809"), "min", "Integer"},
		{"UInt8 min -1", schema.UInt8("x").Min(-1), "min", "outside the range of UInt8"},
		{"UInt8 max 256", schema.UInt8("x").Max(256), "max", "UInt8"},
		{"UInt16 max beyond range", schema.UInt16("x").Max(65536), "max", "UInt16"},
		{"UInt32 max beyond range", schema.UInt32("x").Max(int64(4294967296)), "max", "UInt32"},
		{"UInt64 max beyond range", schema.UInt64("x").Max("18446744073709551616"), "max", "UInt64"},
		{"integer bound not an integer", schema.Int64("x").Min(1.5), "min", "not an integer"},
		{"float min -inf", schema.Float64("x").Min("-inf"), "min", "finite"},
		{"float max +inf", schema.Float("x").Max("inf"), "max", "finite"},
		{"float bound NaN", schema.Float64("x").Min("nan"), "min", "finite"},
		{"float bound overflowing float64", schema.Float64("x").Max("1e400"), "max", "finite"},
		{"Float32 max beyond FLOAT", schema.Float32("x").Max(1.7976931348623157e308), "max", "Float32"},
		{"Float32 min beyond FLOAT", schema.Float32("x").Min(-3.5e38), "min", "Float32"},
		{"float bound not a number", schema.Float64("x").Min("abc"), "min", "not a number"},
		{"is_in with min on integers", schema.Int64("x").IsIn(1, 2).Min(0), "is_in", "min or max"},
		{"is_in with max on integers", schema.UInt8("x").IsIn(1, 2).Max(9), "is_in", "min or max"},
		{"is_in value out of range", schema.Int8("x").IsIn(1, 300), "is_in", "Int8"},
		{"decimal bound more fractional digits than scale", schema.Decimal("x", 10, 2).Min("1.234"), "min", "fractional digits"},
		{"decimal bound scale 0", schema.Decimal("x", 0, 0).Max("1.5"), "max", "fractional digits"},
		{"decimal bound too many integer digits", schema.Decimal("x", 5, 2).Max("1234.5"), "max", "integer digits"},
		{"decimal bound negative too many integer digits", schema.Decimal("x", 4, 2).Min("-100"), "min", "integer digits"},
		{"decimal bound exponent", schema.Decimal("x", 10, 2).Min("1e3"), "min", "not a decimal"},
		{"decimal bound infinite", schema.Decimal("x", 10, 2).Min("inf"), "min", "not a decimal"},
		{"decimal bound NaN", schema.Decimal("x", 10, 2).Max("NaN"), "max", "not a decimal"},
		{"decimal precision beyond 38", schema.Decimal("x", 39, 2), "precision", "1..38"},
		{"decimal scale beyond precision", schema.Decimal("x", 4, 5), "scale", "scale"},
		{"date bound off a daily grid", schema.Date("x").Min("2020-01-02").Resolution("1w"), "min", "not aligned"},
		{"date bound off a monthly grid", schema.Date("x").Max("2020-02-15").Resolution("1mo"), "max", "not aligned"},
		{"date bound off a quarterly grid", schema.Date("x").Max("2020-02-01").Resolution("1q"), "max", "not aligned"},
		{"datetime bound off the hour", schema.Datetime("x", "", "").Min("2020-03-01 12:30:00").Resolution("1h"), "min", "not aligned"},
		{"zoned datetime bound off local hour", schema.Datetime("x", "us", "Asia/Kolkata").Min("2020-03-01 12:00:00+00:00").Resolution("1h"), "min", "not aligned"},
		{"time bound off the hour", schema.Time("x").Max("12:30:00").Resolution("1h"), "max", "not aligned"},
		{"duration bound off the hour", schema.Duration("x").Max("90m").Resolution("1h"), "max", "not aligned"},
		{"resolution too fine for Date", schema.Date("x").Resolution("1h"), "resolution", "too fine"},
		{"resolution 24h too fine for Date", schema.Date("x").Resolution("24h"), "resolution", "too fine"},
		{"resolution too coarse for Time (day)", schema.Time("x").Resolution("1d"), "resolution", "too coarse"},
		{"resolution too coarse for Time (24h)", schema.Time("x").Resolution("24h"), "resolution", "too coarse"},
		{"resolution too coarse for Time (month)", schema.Time("x").Resolution("1mo"), "resolution", "too coarse"},
		{"resolution months on Duration", schema.Duration("x").Resolution("1mo"), "resolution", "fixed length"},
		{"mixed resolution units 1d6h", schema.Datetime("x", "", "").Resolution("1d6h"), "resolution", "mix"},
		{"mixed resolution units 1w1d", schema.Date("x").Resolution("1w1d"), "resolution", "mix"},
		{"mixed resolution units 1mo1d", schema.Date("x").Resolution("1mo1d"), "resolution", "mix"},
		{"bad resolution", schema.Date("x").Resolution("1 day"), "resolution", "not a duration"},
		{"nullable primary key", schema.String("x").PrimaryKey().Nullable(), "nullable", "primary-key"},
		{"regex on Int64", schema.Int64("x").Regex("^a"), "regex", "does not apply to a Int64"},
		{"min on String", schema.String("x").Min("a"), "min", "does not apply"},
		{"min_length on Int64", schema.Int64("x").MinLength(1), "min_length", "does not apply"},
		{"max_length on Array", schema.Array("x", schema.Int64(""), 3).MaxLength(1), "max_length", "does not apply"},
		{"allow_inf on Int64", schema.Int64("x").AllowInf(), "allow_inf", "does not apply"},
		{"allow_nan on Decimal", schema.Decimal("x", 10, 2).AllowNaN(), "allow_nan", "does not apply"},
		{"resolution on String", schema.String("x").Resolution("1d"), "resolution", "does not apply"},
		{"is_in on Float64", schema.Float64("x").IsIn(1.0), "is_in", "does not apply"},
		{"min_length greater than max_length", schema.String("x").MinLength(5).MaxLength(2), "max_length", "greater than"},
		{"negative min_length", schema.String("x").MinLength(-1), "min_length", "negative"},
		{"bad regex", schema.String("x").Regex("[a-"), "regex", "not a valid RE2 pattern"},
		{"bad regex group", schema.String("x").Regex("(ab"), "regex", "not a valid RE2 pattern"},
		{"Rust class intersection", schema.String("x").Regex("[a-z&&[^aeiou]]"), "regex", "&&"},
		{"Rust class difference", schema.String("x").Regex("^[a-z--aeiou]+$"), "regex", "--"},
		{"Rust class symmetric difference", schema.String("x").Regex("[a-z~~aeiou]"), "regex", "~~"},
		{"Rust nested class", schema.String("x").Regex("^[a[bc]]$"), "regex", "nests a character class"},
		{"Rust nested negated class", schema.String("x").Regex("[[^a]b]"), "regex", "nests a character class"},
		{"named group RE2 rejects", schema.String("x").Regex(`(?<year>\d{4})`), "regex", "(?P<name>...)"},
		{"verbose mode RE2 rejects", schema.String("x").Regex(`(?x) a b`), "regex", "not a valid RE2 pattern"},
		{"backslash Z RE2 rejects", schema.String("x").Regex(`a\Z`), "regex", "not a valid RE2 pattern"},
		{"date bound not a date", schema.Date("x").Min("2020-02-30"), "min", "not a date"},
		{"time bound not a time", schema.Time("x").Min("25:00:00"), "min", "not a time"},
		{"naive datetime bound with offset", schema.Datetime("x", "us", "").Min("2020-03-01 12:00:00+01:00"), "min", "no time zone"},
		{"zoned datetime bound without offset", schema.Datetime("x", "us", "Europe/Berlin").Min("2020-03-01 12:00:00"), "min", "offset"},
		{"duration bound with months", schema.Duration("x").Max("1mo"), "max", "months"},
		{"duration bound finer than a microsecond", schema.Duration("x").Max("1500ns"), "max", "microseconds"},
		{"bad time unit", schema.Datetime("x", "s", ""), "time_unit", "not one of"},
		{"bad time zone", schema.Datetime("x", "us", "Mars/Olympus"), "time_zone", "IANA"},
		{"enum without categories", schema.Enum("x"), "categories", "at least one"},
		{"enum with a duplicate category", schema.Enum("x", "a", "b", "a"), "categories", "twice"},
		{"enum category with a NUL byte", schema.Enum("x", "a", "b\x00c"), "categories", "NUL byte"},
		{"is_in value with a NUL byte", schema.String("x").IsIn("a", "b\x00c"), "is_in", "NUL byte"},

		{"list without inner", schema.List("x", nil), "inner", "inner column"},
		{"array without shape", schema.Array("x", schema.Int64("")), "shape", "shape"},
		{"array with a zero size", schema.Array("x", schema.Int64(""), 0), "shape", "positive"},
		{"struct without fields", schema.Struct("x"), "fields", "at least one"},
		{"any as primary key", schema.Any("x").PrimaryKey(), "primary_key", "Any"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := schema.New("Shop", tc.col).Validate()
			d := declErr(t, err, tc.col.Name, tc.key)
			if d.Schema != "Shop" {
				t.Errorf("schema = %q, want Shop", d.Schema)
			}
			msg := d.Error()
			for _, want := range []string{"Shop", "column '" + tc.col.Name + "'", "key '" + tc.key + "'", tc.msgHas} {
				if !strings.Contains(msg, want) {
					t.Errorf("message %q does not contain %q", msg, want)
				}
			}
		})
	}
}

// TestNestedConstructionErrors: errors inside nested columns name the nesting path.
func TestNestedConstructionErrors(t *testing.T) {
	cases := []struct {
		name   string
		col    *schema.Column
		column string
		key    string
	}{
		{"list inner bound", schema.List("tags", schema.Int8("").Max(500)), "tags[]", "max"},
		{"array inner regex", schema.Array("codes", schema.Int64("").Regex("a"), 2), "codes[]", "regex"},
		{"struct field bound", schema.Struct("address", schema.String("city").MinLength(3).MaxLength(1)), "address.city", "max_length"},
		{"struct in list", schema.List("items", schema.Struct("", schema.UInt8("qty").Min(-1))), "items[].qty", "min"},
		{"list inner is_in value with a NUL byte", schema.List("tags", schema.String("").IsIn("\x00")), "tags[]", "is_in"},
		{"struct field bad name", schema.Struct("address", schema.String("the city")), "address", "fields"},
		{"struct fields differing in case", schema.Struct("address", schema.String("city"), schema.String("City")), "address", "fields"},
		{"severity on an inner column", schema.List("tags", schema.String("").Severity(schema.Warn)), "tags[]", "severity"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := declErr(t, schema.New("Shop", tc.col).Validate(), tc.column, tc.key)
			if !strings.Contains(d.Error(), "column '"+tc.column+"'") {
				t.Errorf("message %q does not name the column path", d.Error())
			}
		})
	}
}

// TestValidArguments: combinations the rules allow must not be rejected.
func TestValidArguments(t *testing.T) {
	cases := []struct {
		name string
		col  *schema.Column
	}{
		{"min equal to max", schema.Int64("x").Min(3).Max(3)},
		{"min below max_exclusive", schema.Int64("x").Min(2).MaxExclusive(3)},
		{"Int8 full range", schema.Int8("x").Min(-128).Max(127)},
		{"UInt64 full range", schema.UInt64("x").Min(0).Max("18446744073709551615")},
		{"Integer Int64 range", schema.Integer("x").Min("-9223372036854775808").Max("9223372036854775807")},
		{"is_in with min_exclusive is allowed", schema.Int64("x").IsIn(1, 2).MinExclusive(0)},
		{"is_in with max_exclusive is allowed", schema.Int64("x").IsIn(1, 2).MaxExclusive(5)},
		{"empty is_in", schema.Int64("x").IsIn()},
		{"string is_in", schema.String("x").IsIn("a", "b")},
		{"Float32 max within FLOAT", schema.Float32("x").Max(3.4e38)},
		{"Float64 huge but finite", schema.Float64("x").Max(1.7976931348623157e308)},
		{"float bounds with inf/nan allowed", schema.Float("x").Min(-1.5).Max(2.5).AllowInf().AllowNaN()},
		{"decimal bound with trailing zeros", schema.Decimal("x", 10, 2).Min("1.230")},
		{"decimal bound at the precision", schema.Decimal("x", 5, 2).Max("999.99").Min("-999.99")},
		{"decimal without precision", schema.Decimal("x", 0, 3).Max("123456789012345.123")},
		{"decimal integer bound", schema.Decimal("x", 10, 2).Min(0)},
		{"date daily", schema.Date("x").Min("2020-04-01").Resolution("1d")},
		{"date weekly Monday", schema.Date("x").Min("2020-01-06").Resolution("1w")},
		{"date monthly", schema.Date("x").Min("2020-02-01").Max("2020-12-01").Resolution("1mo")},
		{"date quarterly", schema.Date("x").Min("2020-04-01").Resolution("1q")},
		{"date yearly", schema.Date("x").Min("2020-01-01").Resolution("1y")},
		{"time hourly", schema.Time("x").Min("12:00:00").Max("13:00").Resolution("1h")},
		{"time 30m", schema.Time("x").Resolution("30m")},
		{"time 23h", schema.Time("x").Resolution("23h")},
		{"datetime 1d4h is one fixed width", schema.Datetime("x", "ms", "").Resolution("4h30m")},
		{"datetime ns", schema.Datetime("x", "ns", "").Min("2020-03-01 12:00:00.000000001")},
		{"zoned datetime on the local hour", schema.Datetime("x", "us", "Europe/Berlin").Min("2020-03-01 12:00:00+01:00").Resolution("1h")},
		{"zoned datetime on the local day", schema.Datetime("x", "us", "Europe/Berlin").Min("2020-03-01 00:00:00+01:00").Resolution("1d")},
		{"zoned datetime half-hour zone", schema.Datetime("x", "us", "Asia/Kolkata").Min("2020-03-01 12:00:00+05:30").Resolution("1h")},
		{"duration bounds", schema.Duration("x").Min("1h").Max("1d4h").Resolution("30m")},
		{"regex search", schema.String("x").Regex(`^ORD-\d{4}$`)},
		{"regex with escaped ampersands", schema.String("x").Regex(`[a\&\&b]`)},
		{"regex with a class range", schema.String("x").Regex(`[a-z0-9-]+`)},
		{"regex with && outside a class", schema.String("x").Regex(`a&&b`)},
		{"regex named group RE2 style", schema.String("x").Regex(`(?P<year>\d{4})`)},
		{"regex POSIX class", schema.String("x").Regex(`^[[:alpha:]_-]+$`)},
		{"regex two POSIX classes", schema.String("x").Regex(`[[:digit:][:upper:]]`)},
		{"regex leading ] in a class", schema.String("x").Regex(`[]a]`)},
		{"regex leading ] in a negated class", schema.String("x").Regex(`[^]a]`)},
		{"regex escaped brackets", schema.String("x").Regex(`\[[\[\]]\]`)},
		{"regex literal (?< escaped", schema.String("x").Regex(`\(?<`)},
		{"regex unicode classes", schema.String("x").Regex(`^\p{L}+\p{Nd}*$`)},
		{"primary key not nullable", schema.String("x").PrimaryKey()},
		{"list lengths", schema.List("x", schema.String("").MinLength(1)).MinLength(0).MaxLength(3)},
		{"array 2D", schema.Array("x", schema.Float64("").Min(0), 3, 2)},
		{"any with a check", schema.Any("x").Check("", "_ IS NOT NULL")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { mustValid(t, schema.New("Shop", tc.col)) })
	}
}

// TestValidateReportsEveryProblem: all problems come at once, each findable with errors.As.
func TestValidateReportsEveryProblem(t *testing.T) {
	s := schema.New("Shop",
		schema.Int8("a").Max(200),
		schema.String("b").Regex("[a-"),
		schema.String("c d"),
	)
	err := s.Validate()
	ps := problems(t, err)
	if len(ps) != 3 {
		t.Fatalf("want 3 problems, got %d: %v", len(ps), err)
	}
	if !strings.HasPrefix(err.Error(), "Shop has 3 declaration errors:") {
		t.Errorf("summary = %q", err.Error())
	}
	var nameErr *schema.InvalidColumnNameError
	if !errors.As(err, &nameErr) || nameErr.Column != "c d" {
		t.Errorf("errors.As InvalidColumnNameError = %v", nameErr)
	}
	var decl *schema.DeclarationError
	if !errors.As(err, &decl) {
		t.Errorf("errors.As DeclarationError failed")
	}
}

func TestSchemaNeedsName(t *testing.T) {
	declErr(t, schema.New(" ", schema.Int64("a")).Validate(), "", "schema")
}

const misspelled = "The severity of column 'amount' in Misspelled names 'minimum', which is not a rule of column 'amount'. The rules of column 'amount' are 'nullability', 'min', 'inf', 'nan'."

func TestSeverityUnknownRuleExactMessage(t *testing.T) {
	s := schema.New("Misspelled", schema.Float64("amount").Min(0.0).SeverityOf("minimum", schema.Warn))
	errs := severityErrs(t, s.Validate())
	if len(errs) != 1 {
		t.Fatalf("want 1 severity error, got %d", len(errs))
	}
	if got := errs[0].Error(); got != misspelled {
		t.Errorf("message\n got: %s\nwant: %s", got, misspelled)
	}
	if errs[0].Schema != "Misspelled" || errs[0].Column != "amount" {
		t.Errorf("schema/column = %q/%q", errs[0].Schema, errs[0].Column)
	}
}

func TestSeverityDeclarations(t *testing.T) {
	cases := []struct {
		name string
		s    *schema.Schema
		// want is "" for a valid schema, else substrings of one InvalidSeverityError.
		want []string
	}{
		{"column one value warn", schema.New("S", schema.String("note").Nullable().MaxLength(100).Severity(schema.Warn)), nil},
		{"column mapping", schema.New("S", schema.String("order_id").PrimaryKey().Regex(`^ORD-\d{4}$`).SeverityOf("regex", schema.Warn)), nil},
		{"explicit error", schema.New("S", schema.Float64("amount").SeverityOf("nan", schema.Error)), nil},
		{"alias nullable", schema.New("S", schema.Float64("amount").SeverityOf("nullable", schema.Warn)), nil},
		{"alias allow_inf", schema.New("S", schema.Float64("amount").SeverityOf("allow_inf", schema.Warn)), nil},
		{"alias allow_nan", schema.New("S", schema.Float64("amount").SeverityOf("allow_nan", schema.Warn)), nil},
		{"alias check covers a lone check", schema.New("S", schema.String("email").Check("", "lower(_) = _").SeverityOf("check", schema.Warn)), nil},
		{"alias check covers named checks", schema.New("S", schema.String("email").Check("lower", "lower(_) = _").Check("at", "_ LIKE '%@%'").SeverityOf("check", schema.Warn)), nil},
		{"a named check by its rule name", schema.New("S", schema.String("email").Check("lower", "lower(_) = _").SeverityOf("check__lower", schema.Warn)), nil},
		{"inner_nullability on a List", schema.New("S", schema.List("tags", schema.String("")).SeverityOf("inner_nullability", schema.Warn)), nil},
		{"inner rule of a struct field", schema.New("S", schema.Struct("address", schema.String("city").MinLength(1)).SeverityOf("inner_city_min_length", schema.Warn)), nil},
		{"schema-level one value", schema.New("S", schema.Int64("id").PrimaryKey()).SeverityAll(schema.Warn), nil},
		{"schema-level primary_key", schema.New("S", schema.Int64("id").PrimaryKey()).SeverityOf("primary_key", schema.Warn), nil},
		{"schema-level custom rule", schema.New("S", schema.Float64("amount")).AddRule("amount_is_rounded", "round(amount) = amount").SeverityOf("amount_is_rounded", schema.Warn), nil},

		{"column value other than error/warn", schema.New("S", schema.Float64("amount").Severity("fatal")),
			[]string{"The severity of column 'amount' in S", `"fatal"`, `"error", "warn"`}},
		{"column mapping value other than error/warn", schema.New("S", schema.Float64("amount").SeverityOf("nan", "WARN")),
			[]string{"column 'amount'", "'nan'", `"WARN"`}},
		{"inner_nullable is not an alias", schema.New("S", schema.List("tags", schema.String("")).SeverityOf("inner_nullable", schema.Warn)),
			[]string{"names 'inner_nullable', which is not a rule of column 'tags'", "'nullability', 'inner_nullability'"}},
		{"alias of an argument the column lacks", schema.New("S", schema.Int64("n").SeverityOf("allow_nan", schema.Warn)),
			[]string{"names 'allow_nan'", "The rules of column 'n' are 'nullability'."}},
		{"check alias without checks", schema.New("S", schema.Int64("n").SeverityOf("check", schema.Warn)),
			[]string{"names 'check'"}},
		{"one value on a column with no rules", schema.New("S", schema.String("note").Nullable().Severity(schema.Warn)),
			[]string{"column 'note'", "has no rules"}},
		{"one value on an Any column", schema.New("S", schema.Any("blob").Severity(schema.Warn)),
			[]string{"column 'blob'", "has no rules"}},
		{"mapping on a column with no rules", schema.New("S", schema.String("note").Nullable().SeverityOf("nullability", schema.Warn)),
			[]string{"names 'nullability'", "none"}},
		{"schema-level one value without schema-level rules", schema.New("S", schema.Int64("id")).SeverityAll(schema.Warn),
			[]string{"schema-level severity of S", "no schema-level rules"}},
		{"schema-level value other than error/warn", schema.New("S", schema.Int64("id").PrimaryKey()).SeverityAll("warning"),
			[]string{"schema-level severity of S", `"warning"`}},
		{"column rule at schema level", schema.New("S", schema.Float64("amount").Min(0)).SeverityOf("amount|min", schema.Warn),
			[]string{"'amount|min'", "column 'amount'", "{min: warn}"}},
		{"schema-level rule that does not exist", schema.New("S", schema.Int64("id").PrimaryKey()).AddRule("r1", "id > 0").SeverityOf("r2", schema.Warn),
			[]string{"names 'r2'", "not a schema-level rule", "'r1', 'primary_key'"}},
		{"primary_key without a primary key", schema.New("S", schema.Int64("id")).SeverityOf("primary_key", schema.Warn),
			[]string{"names 'primary_key'", "none"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.s.Validate()
			if tc.want == nil {
				if err != nil {
					t.Fatalf("expected valid, got %v", err)
				}
				return
			}
			errs := severityErrs(t, err)
			var msgs []string
			for _, e := range errs {
				msgs = append(msgs, e.Error())
				ok := true
				for _, w := range tc.want {
					ok = ok && strings.Contains(e.Error(), w)
				}
				if ok {
					if e.Schema != "S" {
						t.Errorf("Schema = %q", e.Schema)
					}
					return
				}
			}
			t.Errorf("no severity error containing %q in:\n%s", tc.want, strings.Join(msgs, "\n"))
		})
	}
}

func TestColumnNames(t *testing.T) {
	bad := []string{"order id", `say "hi"`, "a;DROP TABLE t", "a|b", "é", "a-b", "a.b"}
	for _, name := range bad {
		t.Run(name, func(t *testing.T) {
			err := schema.New("S", schema.Int64(name)).Validate()
			var ne *schema.InvalidColumnNameError
			if !errors.As(err, &ne) {
				t.Fatalf("want InvalidColumnNameError, got %v", err)
			}
			if ne.Column != name || ne.Schema != "S" {
				t.Errorf("column/schema = %q/%q", ne.Column, ne.Schema)
			}
			msg := ne.Error()
			if !strings.Contains(msg, "S: ") || !strings.Contains(msg, fmt.Sprintf("%q", name)) || !strings.Contains(msg, "Rename") {
				t.Errorf("message = %q", msg)
			}
		})
	}
	for _, name := range []string{"a", "A1", "_x", "order_id", "x123_Y"} {
		mustValid(t, schema.New("S", schema.Int64(name)))
	}
}

func TestNameCollisions(t *testing.T) {
	cases := []struct {
		name   string
		s      *schema.Schema
		column string
		key    string
		msgHas string
	}{
		{"reserved dy_ column", schema.New("S", schema.Int64("dy_rule")), "dy_rule", "name", "reserved"},
		{"reserved DY_ column", schema.New("S", schema.Int64("DY_x")), "DY_x", "name", "reserved"},
		{"columns differing in case", schema.New("S", schema.Int64("amount"), schema.Int64("Amount")), "Amount", "name", "differ only in case"},
		{"column declared twice", schema.New("S", schema.Int64("amount"), schema.Float64("amount")), "amount", "name", "twice"},
		{"custom rule named primary_key", schema.New("S", schema.Int64("id")).AddRule("primary_key", "id > 0"), "", "rules", "primary_key"},
		{"custom rule named like a column", schema.New("S", schema.Int64("amount")).AddRule("amount", "amount > 0"), "", "rules", "name of a column"},
		{"custom rule named like a column in another case", schema.New("S", schema.Int64("amount")).AddRule("AMOUNT", "amount > 0"), "", "rules", "name of a column"},
		{"custom rule in dy_ namespace", schema.New("S", schema.Int64("id")).AddRule("dy_r", "id > 0"), "", "rules", "reserved"},
		{"custom rule with a bad name", schema.New("S", schema.Int64("id")).AddRule("my rule", "id > 0"), "", "rules", "letters"},
		{"two custom rules of the same name", schema.New("S", schema.Int64("id")).AddRule("r", "id > 0").AddRule("R", "id < 9"), "", "rules", "two rules"},
		{"check name after | -> __", schema.New("S", schema.Int64("a").Min(0)).AddRule("a__min", "a >= 0"), "", "rules", "dy_rule__a__min"},
		{"check name collision in another case", schema.New("S", schema.Int64("a").Min(0)).AddRule("A__MIN", "a >= 0"), "", "rules", "check"},
		{"column rule vs column rule", schema.New("S", schema.Int64("a").Check("b__min", "_ > 0"), schema.Int64("a__check__b").Min(0)), "", "rules", "a__check__b__min"},
		{"two checks of the same name", schema.New("S", schema.Int64("a").Check("x", "_ > 0").Check("X", "_ < 9")), "a", "check", "both named"},
		{"check with a bad name", schema.New("S", schema.Int64("a").Check("no way", "_ > 0")), "a", "check", "letters"},
		{"check with no SQL", schema.New("S", schema.Int64("a").Check("x", "  ")), "a", "check", "no SQL"},
		{"rule with no SQL", schema.New("S", schema.Int64("a")).AddRule("r", ""), "", "sql", "no SQL"},
		{"group_by an unknown column", schema.New("S", schema.Int64("a")).AddGroupRule("r", "count(*) > 1", "b"), "", "group_by", "'b'"},
		{"group_by primary_key without a key", schema.New("S", schema.Int64("a")).AddGroupRule("r", "count(*) > 1", "primary_key"), "", "group_by", "primary key"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := declErr(t, tc.s.Validate(), tc.column, tc.key)
			if !strings.Contains(d.Error(), tc.msgHas) || !strings.Contains(d.Error(), "S") {
				t.Errorf("message %q does not contain %q", d.Error(), tc.msgHas)
			}
		})
	}
	mustValid(t, schema.New("S", schema.Int64("a").PrimaryKey(), schema.Int64("b")).AddGroupRule("r", "count(*) > 1", "primary_key"))
	mustValid(t, schema.New("S", schema.Int64("a"), schema.Int64("b")).AddGroupRule("r", "count(*) > 1", "a", "b"))
}

func TestRuleNamesAndOrder(t *testing.T) {
	s := schema.New("Orders",
		schema.String("order_id").PrimaryKey().Regex(`^ORD-\d{4}$`),
		schema.Float64("amount").Min(0),
		schema.String("note").Nullable().MaxLength(100),
		schema.String("email").Check("lowercase", "lower(_) = _"),
		schema.Int64("qty").Unique().Check("", "_ % 2 = 0").MinExclusive(0).MaxExclusive(10).IsIn(2, 4),
		schema.Float32("ratio").Nullable().AllowNaN(),
		schema.Date("day").Resolution("1d").Min("2020-01-01"),
		schema.List("tags", schema.String("").MinLength(1)).MaxLength(5),
		schema.Struct("address", schema.String("city").MinLength(1), schema.Int64("zip").Nullable()),
		schema.Array("pairs", schema.Struct("", schema.Int64("k").PrimaryKey()), 2),
		schema.Any("extra"),
	).AddRule("amount_is_rounded", "round(amount * 100) = amount * 100")
	mustValid(t, s)
	want := []string{
		"amount_is_rounded", "primary_key",
		"order_id|nullability", "order_id|regex",
		"amount|nullability", "amount|min", "amount|inf", "amount|nan",
		"note|max_length",
		"email|nullability", "email|check__lowercase",
		"qty|nullability", "qty|unique", "qty|check", "qty|min_exclusive", "qty|max_exclusive", "qty|is_in",
		"ratio|inf",
		"day|nullability", "day|min", "day|resolution",
		"tags|nullability", "tags|max_length", "tags|inner_nullability", "tags|inner_min_length",
		"address|nullability", "address|inner_city_nullability", "address|inner_city_min_length", // zip is nullable: no rule
		"pairs|nullability", "pairs|primary_key", "pairs|inner_nullability", "pairs|inner_inner_k_nullability",
	}
	got := s.AllRuleNames()
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("rule names\n got: %v\nwant: %v", got, want)
	}
	if got := schema.CheckName("amount|min"); got != "dy_rule__amount__min" {
		t.Errorf("CheckName = %q", got)
	}
	if got := schema.CheckName("email|check__lowercase"); got != "dy_rule__email__check__lowercase" {
		t.Errorf("CheckName = %q", got)
	}
	if got := schema.CheckName("primary_key"); got != "dy_rule__primary_key" {
		t.Errorf("CheckName = %q", got)
	}
}

func TestCheckRuleNames(t *testing.T) {
	cases := []struct {
		checks []schema.Check
		want   []string
	}{
		{[]schema.Check{{SQL: "a"}}, []string{"check"}},
		{[]schema.Check{{SQL: "a"}, {SQL: "b"}}, []string{"check__0", "check__1"}},
		{[]schema.Check{{Name: "lowercase", SQL: "a"}}, []string{"check__lowercase"}},
		{[]schema.Check{{Name: "x", SQL: "a"}, {Name: "y", SQL: "b"}}, []string{"check__x", "check__y"}},
	}
	for _, tc := range cases {
		var got []string
		for i := range tc.checks {
			got = append(got, schema.CheckRuleName(tc.checks, i))
		}
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("CheckRuleName(%v) = %v, want %v", tc.checks, got, tc.want)
		}
	}
}

func TestResolveSeverityName(t *testing.T) {
	rules := []string{"nullability", "check__0", "check__1", "min", "inf", "nan"}
	cases := map[string][]string{
		"nullable":    {"nullability"},
		"nullability": {"nullability"},
		"allow_inf":   {"inf"},
		"allow_nan":   {"nan"},
		"check":       {"check__0", "check__1"},
		"check__1":    {"check__1"},
		"min":         {"min"},
		"minimum":     nil,
		"max":         nil,
	}
	for name, want := range cases {
		got := schema.ResolveSeverityName(name, rules)
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("ResolveSeverityName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestExtendsBuilder(t *testing.T) {
	parent := schema.New("Base",
		schema.String("id").PrimaryKey(),
		schema.Float64("amount").Min(0).SeverityOf("min", schema.Warn),
		schema.String("note").Nullable(),
	).AddRule("positive", "amount > 0").SeverityOf("positive", schema.Warn)
	child := schema.Extends(parent, "Child", schema.Int64("amount").Min(1), schema.Bool("paid"))
	mustValid(t, child)
	var names []string
	for _, c := range child.Columns {
		names = append(names, c.Name)
	}
	if got := strings.Join(names, ","); got != "id,amount,note,paid" {
		t.Errorf("columns = %s, want the overriding column in the parent's place", got)
	}
	if child.Column("amount").DType.Kind != schema.KindInt64 {
		t.Errorf("amount was not overridden")
	}
	if len(child.Rules) != 1 || child.Rules[0].Name != "positive" {
		t.Errorf("rules = %v", child.Rules)
	}
	if len(child.Severity.PerRule) != 1 || child.Severity.PerRule[0] != (schema.SeverityEntry{Rule: "positive", Severity: schema.Warn}) {
		t.Errorf("severity = %+v", child.Severity)
	}
	// The child's own additions do not leak into the parent.
	child.AddRule("another", "TRUE").SeverityOf("another", schema.Warn)
	if len(parent.Rules) != 1 || len(parent.Severity.PerRule) != 1 {
		t.Errorf("parent changed: %v %+v", parent.Rules, parent.Severity)
	}
}

// nestedStruct is a Struct column n levels deep: s0 holds s1 … holds the Int64 leaf s<n>.
func nestedStruct(n int) *schema.Column {
	c := schema.Int64(fmt.Sprintf("s%d", n)).Min(0)
	for i := n - 1; i >= 0; i-- {
		c = schema.Struct(fmt.Sprintf("s%d", i), c)
	}
	return c
}

// nestedList is a List column n levels deep over an Int64.
func nestedList(n int) *schema.Column {
	c := schema.Int64("").Min(0)
	for i := 0; i < n; i++ {
		name := ""
		if i == n-1 {
			name = "l"
		}
		c = schema.List(name, c)
	}
	return c
}

func TestNestingDepthLimit(t *testing.T) {
	structPath := func(n int) string {
		parts := make([]string, n+1)
		for i := range parts {
			parts[i] = fmt.Sprintf("s%d", i)
		}
		return strings.Join(parts, ".")
	}
	cases := []struct {
		name string
		col  *schema.Column
		path string // "" when valid
	}{
		{"struct at the limit", nestedStruct(schema.MaxNestingDepth), ""},
		{"struct past the limit", nestedStruct(schema.MaxNestingDepth + 1), structPath(schema.MaxNestingDepth + 1)},
		{"struct far past the limit", nestedStruct(5000), structPath(schema.MaxNestingDepth + 1)},
		{"list at the limit", nestedList(schema.MaxNestingDepth), ""},
		{"list past the limit", nestedList(schema.MaxNestingDepth + 1), "l" + strings.Repeat("[]", schema.MaxNestingDepth+1)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			err := schema.New("Deep", tc.col).Validate()
			if took := time.Since(start); took > time.Second {
				t.Errorf("Validate took %v", took)
			}
			if tc.path == "" {
				if err != nil {
					t.Fatalf("want valid, got %v", err)
				}
				return
			}
			d := declErr(t, err, tc.path, "")
			if !strings.Contains(d.Msg, fmt.Sprintf("more than %d levels", schema.MaxNestingDepth)) {
				t.Errorf("message %q does not state the limit", d.Msg)
			}
			if n := len(problems(t, err)); n != 1 {
				t.Errorf("want one problem, got %d: %v", n, err)
			}
		})
	}
}

// TestNestingDepthLimitLoaded: a file nested thousands of levels deep is refused at the column
// past the limit, with its line, in bounded time.
func TestNestingDepthLimitLoaded(t *testing.T) {
	const n = 3000
	var b strings.Builder
	b.WriteString("schema: Deep\ncolumns:\n  - ")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "{name: s%d, type: Struct, fields: [", i)
	}
	b.WriteString("{name: leaf, type: Int64}")
	b.WriteString(strings.Repeat("]}", n))
	b.WriteString("\n")
	start := time.Now()
	_, err := schema.Parse([]byte(b.String()), "deep.yaml")
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("Parse took %v", took)
	}
	var d *schema.DeclarationError
	for _, p := range problems(t, err) {
		if errors.As(p, &d) && strings.Contains(d.Msg, "levels deep") {
			break
		}
		d = nil
	}
	if d == nil {
		t.Fatalf("no depth error in %v", err)
	}
	want := fmt.Sprintf("s%d", schema.MaxNestingDepth+1)
	if !strings.HasSuffix(d.Column, "."+want) || d.Pos.File != "deep.yaml" || d.Pos.Line != 3 {
		t.Errorf("depth error at %v column %q, want deep.yaml:3 and a path ending in %s", d.Pos, d.Column, want)
	}
}
