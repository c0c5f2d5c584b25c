package tablegate

import (
	"context"
	"errors"

	"github.com/tablegate/tablegate/collection"
	"github.com/tablegate/tablegate/odcs"
	"github.com/tablegate/tablegate/schema"
)

// ContractOptions change how a data contract is read as a schema (odcs.ImportOptions: the
// object, how character lengths compile, lossy imports, the data of related objects).
type ContractOptions = odcs.ImportOptions

// ContractSchema is a schema made of one object of an Open Data Contract Standard (v3.0–v3.2)
// contract, with what the import reported.
type ContractSchema = odcs.Result

// LoadContract reads an ODCS contract file (YAML or JSON) and makes a schema of one of its
// objects. A contract that breaks the standard's JSON schema of its apiVersion is refused
// (*odcs.SchemaError, every violation with its contract path and line); so is every part of the
// contract without an exact tablegate form (*odcs.ImportError), unless AllowLossy turns it into
// a Notice.
func LoadContract(ctx context.Context, path string, opts ContractOptions) (*ContractSchema, error) {
	c, err := odcs.LoadFile(path)
	if err != nil {
		return nil, err
	}
	return odcs.Import(ctx, c, opts)
}

// loadMemberContract makes a collection member's schema of its data contract; the parts the
// contract cannot enforce exactly are declaration errors of the collection, each at its line of
// the contract.
func loadMemberContract(ctx context.Context, member string, c *collection.Contract) (*schema.Schema, error) {
	res, err := LoadContract(ctx, c.Path, ContractOptions{Object: c.Object, Lengths: odcs.Lengths(c.Lengths), AllowLossy: c.AllowLossy, References: c.References})
	var ie *odcs.ImportError
	var se *odcs.SchemaError
	var problems []odcs.Notice
	what := "member " + member + " (contract " + c.File
	switch {
	case errors.As(err, &ie):
		problems = ie.Problems
		if ie.Object != "" {
			what += ", object " + ie.Object
		}
	case errors.As(err, &se):
		problems = se.Problems
		what += ", not valid ODCS " + se.APIVersion
	}
	if problems != nil {
		errs := &schema.Errors{Schema: "member " + member}
		for _, p := range problems {
			errs.Problems = append(errs.Problems, &schema.DeclarationError{Schema: what + ")", Pos: schema.Pos{File: p.Pos.File, Line: p.Pos.Line}, Key: p.Pos.Path, Msg: p.Msg})
		}
		return nil, errs
	}
	if err != nil {
		return nil, err
	}
	for _, n := range res.Notices {
		kind := "not enforced"
		if n.Lossy {
			kind = "lossy"
		}
		c.Notices = append(c.Notices, kind+": "+n.String())
	}
	return res.Schema, nil
}
