package main

import (
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/tablegate/tablegate"
)

// csvFlags steer how a CSV input is read.
type csvFlags struct {
	null             []string
	delimiter        string
	header, noHeader bool
}

func (f *csvFlags) add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringArrayVar(&f.null, "csv-null", nil, `CSV text that reads as NULL, e.g. NA; repeatable (default: the empty field, which stays NULL in columns that are not String)`)
	fl.StringVar(&f.delimiter, "csv-delimiter", "", `CSV field delimiter, one character; \t or tab for a tab (default: , or a tab for .tsv)`)
	fl.BoolVar(&f.header, "csv-header", true, "the CSV's first line names the columns")
	fl.BoolVar(&f.noHeader, "no-csv-header", false, "the CSV has no header line: its columns are column0, column1, …")
}

// given reports whether a CSV flag is on the command line.
func (f *csvFlags) given(cmd *cobra.Command) bool {
	fl := cmd.Flags()
	return fl.Changed("csv-null") || fl.Changed("csv-delimiter") || fl.Changed("csv-header") || fl.Changed("no-csv-header")
}

// input parses --input and applies the CSV flags, refusing them for an input that is not a CSV.
func (f *csvFlags) input(cmd *cobra.Command, addr string) (tablegate.Input, error) {
	in, err := parseInput(addr)
	if err != nil {
		return nil, err
	}
	fl := cmd.Flags()
	c, isCSV := in.(tablegate.CSVInput)
	if !isCSV {
		if f.given(cmd) {
			return nil, usagef("--csv-null, --csv-delimiter and --csv-header apply to a CSV input (.csv, .tsv); %s is not one", addr)
		}
		return in, nil
	}
	if fl.Changed("csv-header") && fl.Changed("no-csv-header") && f.header == f.noHeader {
		return nil, usagef("--csv-header=%t and --no-csv-header=%t disagree; give one of them", f.header, f.noHeader)
	}
	c.NoHeader = f.noHeader || !f.header
	if fl.Changed("csv-null") {
		c.Null = f.null
	}
	if fl.Changed("csv-delimiter") {
		d := f.delimiter
		if d == `\t` || d == "tab" {
			d = "\t"
		}
		r, size := utf8.DecodeRuneInString(d)
		if d == "" || size != len(d) || r >= utf8.RuneSelf || r == '"' || r == '\n' || r == '\r' {
			return nil, usagef(`--csv-delimiter %q: give one ASCII character other than a quote or a line break (\t for a tab)`, f.delimiter)
		}
		c.Delimiter = r
	}
	return c, nil
}
