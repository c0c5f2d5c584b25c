package tablegate

import (
	"context"

	"github.com/tablegate/tablegate/sample"
)

// SampleSpec sizes a synthetic sample (SampleQuery): its rows, the share of them made to break
// one rule (0 to 1), and the seed that makes the same data again.
type SampleSpec = sample.Spec

// CollectionSampleSpec sizes a collection's sample: Rows common keys, and MemberRows the rows of
// the members that do not share the key (or a multiple of Rows for those whose key extends it).
type CollectionSampleSpec = sample.CollectionSpec

// MemberSampleQuery is the query that generates one member of a collection's sample, with what
// it breaks on purpose and what it does not control.
type MemberSampleQuery = sample.MemberQuery

// SampleQuery is a SELECT of deterministic synthetic rows that fit the schema, a share of which
// break one of its rules (named in rules, the ones the generator breaks on purpose); write it
// with Engine.WriteQuery.
func SampleQuery(s *Schema, spec SampleSpec) (query string, rules []string, err error) {
	return sample.Query(s, spec)
}

// CollectionSampleQueries are the queries that generate every member of a collection's sample,
// consistent with each other: the same keys in every member, references drawn from their
// targets.
func CollectionSampleQueries(c *Collection, spec CollectionSampleSpec) ([]MemberSampleQuery, error) {
	return sample.CollectionQueries(c, spec)
}

// WriteQuery writes the rows of a SQL query, run in the engine's database, to out atomically, as
// a run writes a table: a sample of SampleQuery, say.
func (e *Engine) WriteQuery(ctx context.Context, query string, out Output) error {
	return e.e.WriteQuery(ctx, query, out)
}
