package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tablegate/tablegate"
	"github.com/tablegate/tablegate/odcs"
)

// contractFlags choose how a data contract is read.
type contractFlags struct {
	path, object, lengths string
	allowLossy            bool
	references            []string
}

func (f *contractFlags) add(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&f.object, "object", "", "the contract's schema object to use (default: its only one)")
	fs.StringVar(&f.lengths, "lengths", "", "compile the contract's character lengths as chars (a check on characters) or bytes (UTF-8 bytes)")
	fs.BoolVar(&f.allowLossy, "allow-lossy", false, "import what has no exact form with a warning for each, instead of refusing the contract")
	fs.StringArrayVar(&f.references, "reference", nil, "OBJECT=INPUT: the data of an object the contract's relationships point to (repeatable)")
}

// changed reports whether a contract-only flag was given.
func (f *contractFlags) changed(cmd *cobra.Command) bool {
	if cmd == nil {
		return false
	}
	for _, name := range []string{"object", "lengths", "allow-lossy", "reference"} {
		if cmd.Flags().Changed(name) {
			return true
		}
	}
	return false
}

// load imports the contract; absolute makes the references' inputs absolute paths (a contract
// read directly resolves relative paths from the working folder, as --input does).
func (f *contractFlags) load(ctx context.Context, path string, absolute bool) (*odcs.Result, error) {
	opts := tablegate.ContractOptions{Object: f.object, Lengths: odcs.Lengths(f.lengths), AllowLossy: f.allowLossy}
	switch opts.Lengths {
	case odcs.LengthsStrict, odcs.LengthsChars, odcs.LengthsBytes:
	default:
		return nil, usagef("--lengths %q: use chars or bytes", f.lengths)
	}
	for _, r := range f.references {
		object, input, ok := strings.Cut(r, "=")
		if !ok || object == "" || input == "" {
			return nil, usagef("--reference %q: give OBJECT=INPUT (customers=customers.parquet)", r)
		}
		if absolute && !strings.Contains(input, "://") {
			file, rest, isTable := strings.Cut(input, ":")
			if abs, err := filepath.Abs(file); err == nil {
				input = abs
				if isTable {
					input += ":" + rest
				}
			}
		}
		if opts.References == nil {
			opts.References = map[string]string{}
		}
		opts.References[object] = input
	}
	return tablegate.LoadContract(ctx, path, opts)
}

// printNotices writes what an import did not enforce exactly, one line each.
func printNotices(w io.Writer, notices []odcs.Notice) {
	for _, n := range notices {
		kind := "not enforced"
		if n.Lossy {
			kind = "lossy"
		}
		fmt.Fprintf(w, "tablegate: %s: %s\n", kind, n)
	}
}

func importCmd(stdout, stderr io.Writer) *cobra.Command {
	var (
		f     contractFlags
		out   string
		force bool
	)
	cmd := &cobra.Command{
		Use:   "import --odcs CONTRACT [--object NAME] [--out schema.yaml]",
		Short: "Write a schema from an Open Data Contract Standard (v3.0–v3.2) contract, refusing what it cannot enforce exactly",
		Example: `  tablegate import --odcs orders.odcs.yaml --out orders.yaml
  tablegate import --odcs shop.odcs.yaml --object orders --lengths chars --reference customers=customers.parquet
  tablegate validate --contract orders.odcs.yaml --input orders.parquet`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.path == "" {
				return usagef("import needs --odcs CONTRACT")
			}
			if out != "" && !force {
				if _, err := os.Stat(out); err == nil {
					return usagef("--out %s exists; give --force to replace it", out)
				}
			}
			res, err := f.load(cmd.Context(), f.path, false)
			if err != nil {
				return err
			}
			printNotices(stderr, res.Notices)
			if out == "" {
				_, err = stdout.Write(res.YAML)
				return err
			}
			if err := tablegate.WriteFile(out, res.YAML, force); err != nil {
				return err
			}
			fmt.Fprintf(stderr, "wrote %s: %d columns, %d rules, %d table checks from object %s\n",
				out, len(res.Schema.Columns), len(res.Schema.Rules), len(res.Schema.TableChecks), res.Object.Name)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.path, "odcs", "", "the ODCS contract file (YAML or JSON)")
	fl.StringVar(&out, "out", "", "schema file to write (default: stdout)")
	fl.BoolVar(&force, "force", false, "replace --out when it exists")
	f.add(cmd)
	return cmd
}
