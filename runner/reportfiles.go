package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/tablegate/tablegate/internal/durable"
	"github.com/tablegate/tablegate/internal/filekind"
)

// A ReportFile is a file the caller writes a run's report to: its HTML page, its JSON report,
// the history it is appended to. Role names it in messages ("--html", "Options.HTML").
type ReportFile struct {
	Role, Path string
}

// ReportFileError is a report file a run refuses before it reads or writes anything: it is a
// named pipe, a device or a socket, or it is the same file as the run's data (its input, a database file, the
// table, the quarantine) or as another report file, which writing it would overwrite. The caller
// writes none of the run's report files.
type ReportFileError struct {
	ReportFile
	// Other is what the path is the same file as ("the table out.parquet"); "" when the file is
	// of a kind tablegate does not write (Err says which).
	Other string
	Err   error
}

func (e *ReportFileError) Error() string {
	if e.Other != "" {
		return fmt.Sprintf("%s %s is the same file as %s: writing it would overwrite that; give another path (nothing was read or written)", e.Role, e.Path, e.Other)
	}
	return fmt.Sprintf("%s %s: %v (nothing was read or written)", e.Role, e.Path, e.Err)
}

func (e *ReportFileError) Unwrap() error { return e.Err }

// TypeName names the error in the JSON report.
func (e *ReportFileError) TypeName() string { return "ReportFileError" }

// A DataFile is a file a run reads besides its data, which no report file may overwrite: its
// schema file, data contract or collection file. What names it in messages ("the schema file").
type DataFile struct {
	What, Path string
}

// CheckReportFiles refuses, as a *ReportFileError, a report file that is a named pipe, a device
// or a socket, or that names the same file as the asset's input (every file of a glob), its
// database files, its foreign-key rules' reference data, its schema file or data contract, its
// table or quarantine (and the kept previous quarantine), or another report file: after
// resolving symbolic links, also for paths that do not exist yet, and for hard links. Run does it
// first when Options.ReportFiles is set.
func CheckReportFiles(a Asset, files ...ReportFile) error {
	return CheckReportFilesWith(a, nil, files...)
}

// CheckReportFilesWith is CheckReportFiles that also refuses a report file that is one of also
// (a collection file, or declarations named on a command line that failed before its run).
func CheckReportFilesWith(a Asset, also []DataFile, files ...ReportFile) error {
	data := slices.Clone(also)
	add := func(what, path string) {
		if path != "" {
			data = append(data, DataFile{what, path})
		}
	}
	switch in := a.Input.(type) {
	case ParquetInput:
		matches, _ := filepath.Glob(in.Path)
		for _, m := range matches {
			add("the input file", m)
		}
	case CSVInput:
		add("the input", in.Path)
	case NDJSONInput:
		add("the input", in.Path)
	case TableInput:
		add("the input's database", in.File)
	case QueryInput:
		add("the query's database", in.File)
	}
	if a.Plan != nil {
		if s := a.Plan.Schema(); s != nil {
			if s.Contract != nil {
				add("the data contract", s.File)
			} else {
				add("the schema file", s.File)
			}
		}
		for _, ref := range a.Plan.References() {
			if ref.File != "" {
				add("the reference database of rule "+ref.Rule, ref.File)
				continue
			}
			matches, _ := filepath.Glob(ref.Input)
			for _, m := range matches {
				add("the reference data of rule "+ref.Rule, m)
			}
		}
	}
	switch out := a.Output.(type) {
	case ParquetOutput:
		q := out.QuarantineAddress(QuarantineNameOf(a, assetName(a)))
		add("the table", out.Path)
		add("the quarantine", q)
		add("the kept previous quarantine", durable.PrevPath(q))
	case TableOutput:
		add("the output's database", out.File)
	}
	for i, f := range files {
		if f.Path == "" {
			continue
		}
		// A folder fails (or, for a history, warns) where the file is written; a
		// special file would block that write, so it is refused here.
		if err := filekind.NotSpecial(f.Path); err != nil {
			return &ReportFileError{ReportFile: f, Err: err}
		}
		for _, d := range data {
			if d.Path != "" && samePath(f.Path, d.Path) {
				return &ReportFileError{ReportFile: f, Other: d.What + " " + d.Path}
			}
		}
		for _, g := range files[:i] {
			if g.Path != "" && samePath(f.Path, g.Path) {
				return &ReportFileError{ReportFile: f, Other: g.Role + " " + g.Path}
			}
		}
	}
	return nil
}

// samePath reports whether two paths name the same file: the same existing file (also through
// symbolic or hard links), or the same place once the links of their existing folders are
// resolved.
func samePath(a, b string) bool {
	sa, aerr := os.Stat(a)
	sb, berr := os.Stat(b)
	if aerr == nil && berr == nil {
		return os.SameFile(sa, sb)
	}
	ra, rb := ResolvePath(a, 0), ResolvePath(b, 0)
	return ra != "" && ra == rb
}

// ResolvePath is the absolute path with the symbolic links of its longest existing prefix resolved
// (a dangling link is followed to its target, as writing through it would; at most 40 of them,
// as Linux allows); "" when it cannot be made absolute.
func ResolvePath(path string, hops int) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	rest := ""
	for dir := abs; ; {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		}
		if target, err := os.Readlink(dir); err == nil && hops < 40 { // a dangling link
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(dir), target)
			}
			return ResolvePath(filepath.Join(target, rest), hops+1)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return abs
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}
