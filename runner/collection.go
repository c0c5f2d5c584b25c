package runner

import (
	"context"
	"fmt"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/outcome"
)

// CollectionAsset is what a collection's run validates and writes: the compiled collection and,
// by member name, each member's input and output (an Asset whose Plan is set from the
// collection's). An optional member may be left out, or given without an Input: it is absent.
type CollectionAsset struct {
	Plan    *compile.CollectionPlan
	Members map[string]Asset
}

// Collections is a Connector whose engine runs collections: every member in one session, the
// outputs written all or none.
type Collections interface {
	RunCollection(ctx context.Context, ca CollectionAsset, opts Options) (*outcome.CollectionReport, error)
	ExplainCollection(ctx context.Context, ca CollectionAsset, opts Options) (string, error)
}

// collections is the engine's Collections, or the refusal of an engine without.
func (e *Engine) collections() (Collections, error) {
	if c, ok := e.c.(Collections); ok {
		return c, nil
	}
	return nil, fmt.Errorf("this engine does not run collections: validate the collection with the DuckDB engine, or each member on its own")
}

// RunCollection validates every member of the collection (Collections.RunCollection).
func (e *Engine) RunCollection(ctx context.Context, ca CollectionAsset, opts Options) (*outcome.CollectionReport, error) {
	c, err := e.collections()
	if err != nil {
		return &outcome.CollectionReport{Collection: ca.Plan.Collection.Name}, err
	}
	return c.RunCollection(ctx, ca, opts)
}

// ExplainCollection returns the statements a collection's run executes
// (Collections.ExplainCollection).
func (e *Engine) ExplainCollection(ctx context.Context, ca CollectionAsset, opts Options) (string, error) {
	c, err := e.collections()
	if err != nil {
		return "", err
	}
	return c.ExplainCollection(ctx, ca, opts)
}
