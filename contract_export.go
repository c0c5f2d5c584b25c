package tablegate

import (
	"context"
	"fmt"

	"github.com/tablegate/tablegate/odcs"
)

// ContractExportOptions fill an exported contract's own keys (odcs.ExportOptions: its id,
// version and status, and the folder it is written to, which relative reference inputs are
// rewritten against).
type ContractExportOptions = odcs.ExportOptions

// ExportContract writes the schema as an Open Data Contract Standard v3.2 contract (YAML):
// ODCS's own keys wherever they mean what tablegate means, a quality entry of type custom with
// engine tablegate for every other rule, so that LoadContract reads back a schema that compiles
// to the same plan. A schema that does not compile is not exported.
func ExportContract(ctx context.Context, s *Schema, opts ContractExportOptions) ([]byte, error) {
	c, err := odcs.Export(ctx, s, opts)
	if err != nil {
		return nil, err
	}
	data, err := odcs.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("write the contract of %s: %w", s.Name, err)
	}
	return data, nil
}
