package tablegate

import (
	"context"

	"github.com/tablegate/tablegate/odcs"
)

// ContractOptions change how a data contract is read as a schema (odcs.ImportOptions: the
// object, how character lengths compile, lossy imports, the data of related objects).
type ContractOptions = odcs.ImportOptions

// ContractSchema is a schema made of one object of an Open Data Contract Standard (v3.0–v3.2)
// contract, with what the import reported.
type ContractSchema = odcs.Result

// LoadContract reads an ODCS contract file and makes a schema of one of its objects. Every part
// of the contract without an exact tablegate form is refused at once (*odcs.ImportError, each
// with its contract path and line), unless AllowLossy turns it into a Notice.
func LoadContract(ctx context.Context, path string, opts ContractOptions) (*ContractSchema, error) {
	c, err := odcs.LoadFile(path)
	if err != nil {
		return nil, err
	}
	return odcs.Import(ctx, c, opts)
}
