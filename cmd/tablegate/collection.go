package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tablegate/tablegate"
	"github.com/tablegate/tablegate/internal/pipes"
)

// collectionFlags name a collection file and its members' inputs and outputs.
type collectionFlags struct {
	path             string
	inputDir, outDir string
}

func (f *collectionFlags) add(cmd *cobra.Command, withIO bool) {
	fs := cmd.Flags()
	fs.StringVar(&f.path, "collection", "", "collection file (YAML or JSON): several related tables validated together (docs/collections.md)")
	if withIO {
		fs.StringVar(&f.inputDir, "input-dir", "", "with --collection: read each member not given by --input from DIR/<member>.parquet")
		fs.StringVar(&f.outDir, "out-dir", "", "with --collection: write each member not given by --out to DIR/<member>.parquet, or to the table <member> of DIR when DIR is a DuckDB file (.duckdb, .ddb, .db)")
	}
}

// loadCollection loads and compiles the collection file: every declaration problem at once.
// What its members' data contracts do not enforce exactly goes to stderr, a line each.
func loadCollection(cmd *cobra.Command, path string) (*tablegate.CollectionPlan, error) {
	for _, n := range []string{"contract", "object", "lengths", "allow-lossy", "reference"} {
		if cmd.Flags().Changed(n) {
			return nil, usagef("--%s is a single table's flag; with --collection, name a member's data contract in the collection file ({contract: FILE, object: NAME, lengths: chars, allow_lossy: true, references: {OBJECT: FILE}})", n)
		}
	}
	c, err := tablegate.LoadCollection(cmd.Context(), path)
	if c == nil {
		return nil, err
	}
	printMemberNotices(cmd.ErrOrStderr(), c)
	return tablegate.CompileCollection(cmd.Context(), c)
}

// printMemberNotices writes what the members' data contracts do not enforce exactly, one line
// each.
func printMemberNotices(w io.Writer, c *tablegate.Collection) {
	for _, m := range c.Members {
		if m.Contract != nil {
			for _, n := range m.Contract.Notices {
				fmt.Fprintf(w, "tablegate: member %s: %s\n", m.Name, n)
			}
		}
	}
}

var memberName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// memberArgs splits --input/--out values of the form member=ADDRESS.
func memberArgs(flag string, values []string, cp *tablegate.CollectionPlan) (map[string]string, error) {
	out := map[string]string{}
	for _, v := range values {
		name, addr, ok := strings.Cut(v, "=")
		if !ok || !memberName.MatchString(name) || addr == "" {
			return nil, usagef("--%s %q: with --collection, give member=ADDRESS (--%s orders=in/orders.parquet)", flag, v, flag)
		}
		if cp.Member(name) == nil {
			return nil, usagef("--%s %s=…: collection %s has no member %s; its members are %s", flag, name, cp.Collection.Name, name, members(cp))
		}
		if _, dup := out[name]; dup {
			return nil, usagef("--%s %s=… is given twice; give each member once", flag, name)
		}
		out[name] = addr
	}
	return out, nil
}

func members(cp *tablegate.CollectionPlan) string {
	names := make([]string, len(cp.Members))
	for i, m := range cp.Members {
		names[i] = m.Name
	}
	return strings.Join(names, ", ")
}

// memberIO is every member's input and output from --input/--out and --input-dir/--out-dir. A
// required member without an input is a usage error that says how to give one; an optional one
// is left out.
func (f *collectionFlags) memberIO(cmd *cobra.Command, cp *tablegate.CollectionPlan, inputs, outs []string, csv *csvFlags) (map[string]tablegate.MemberIO, error) {
	ins, err := memberArgs("input", inputs, cp)
	if err != nil {
		return nil, err
	}
	tos, err := memberArgs("out", outs, cp)
	if err != nil {
		return nil, err
	}
	out := map[string]tablegate.MemberIO{}
	var missing []string
	for _, m := range cp.Members {
		addr, given := ins[m.Name]
		if !given && f.inputDir != "" {
			addr = filepath.Join(f.inputDir, m.Name+".parquet")
			if _, err := os.Stat(addr); err != nil && m.Optional {
				addr = "" // an optional member's file may be absent
			}
		}
		var mio tablegate.MemberIO
		if addr != "" {
			if mio.Input, err = csv.input(cmd, addr); err != nil {
				return nil, fmt.Errorf("member %s: %w", m.Name, err)
			}
		} else if !m.Optional {
			missing = append(missing, m.Name)
		}
		to, given := tos[m.Name]
		if !given && f.outDir != "" {
			to = memberOutput(f.outDir, m.Name)
		}
		if to != "" {
			if mio.Output, err = parseOutput(to); err != nil {
				return nil, fmt.Errorf("member %s: %w", m.Name, err)
			}
		}
		out[m.Name] = mio
	}
	if len(missing) > 0 {
		return nil, usagef("no input for member %s of collection %s: give --input %s=FILE, or --input-dir DIR holding %s.parquet",
			strings.Join(missing, ", "), cp.Collection.Name, missing[0], missing[0])
	}
	return out, nil
}

// memberOutput is the output --out-dir gives a member: the table named after it when dir names a
// DuckDB database file (.duckdb, .ddb, .db, and not a folder), else dir/<member>.parquet.
func memberOutput(dir, member string) string {
	if _, _, _, ok := splitTable(dir + ":" + member); ok {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return dir + ":" + member
		}
	}
	return filepath.Join(dir, member+".parquet")
}

// collectionDirs are the folders the members' inputs and outputs are in, for the engine's
// sandbox.
func collectionDirs(cp *tablegate.CollectionPlan, mio map[string]tablegate.MemberIO, extra []string) []string {
	dirs := extra
	for _, m := range cp.Members {
		dirs = append(dirs, referenceDirs(m.Plan)...)
		dirs = append(dirs, allowedDirs(mio[m.Name].Input, mio[m.Name].Output, nil)...)
	}
	return dirs
}

// refuseSingleTable refuses the single-table flags given with --collection.
func refuseSingleTable(cmd *cobra.Command, names ...string) error {
	for _, n := range names {
		if cmd.Flags().Changed(n) {
			return usagef("--%s is a single table's flag; with --collection, give each member's input and output as --input member=… and --out member=…", n)
		}
	}
	return nil
}

// validateCollection runs `validate --collection`: it prints the report (JSON or text) and sets
// the exit code as a single table's run does.
func validateCollection(cmd *cobra.Command, f *validateFlags, sess *pipes.Session, con console, stdout, stderr io.Writer, code *int, timeout *tablegate.TimeoutError) (runErr error) {
	crep, err := runCollectionCmd(cmd, f, sess, stderr)
	if err != nil && timeout != nil && errors.Is(context.Cause(cmd.Context()), timeout) {
		// Whatever the interrupted statement said, the run ended because its time was up.
		err = timeout
		if crep != nil {
			crep.Error = nil
		}
	}
	if sess != nil {
		defer func() {
			if runErr = reportCollectionToDagster(sess, crep, runErr); runErr != nil && *code == exitOK {
				*code = exitUsage // the run succeeded, Dagster did not hear of it
			}
		}()
	}
	// Also when the run failed before it started (which refuses them first): a report written
	// then would overwrite the data or the collection file all the same.
	if refused := (*tablegate.ReportFileError)(nil); err != nil && !errors.As(err, &refused) {
		if rerr := checkReportFiles(f.paths(cmd)); rerr != nil {
			err = errors.Join(err, rerr)
		}
	}
	if refused := (*tablegate.ReportFileError)(nil); errors.As(err, &refused) {
		f.report = "" // it would overwrite data
	}
	if werr := writeCollectionReport(f.format, f.report, stdout, crep, err); werr != nil {
		return werr
	}
	if f.format != "json" && crep != nil && crep.Outcome != nil {
		printCollectionText(stdout, crep, textStyle{colour: con.colour(), samples: f.textSamples})
	}
	if err != nil {
		*code = exitCode(err)
	}
	return err
}

// writeCollectionReport writes a collection's JSON report (with err as its error when it has
// none, and an empty one when the run never began) to stdout (format json) and the report file
// (when given).
func writeCollectionReport(format, report string, stdout io.Writer, crep *tablegate.CollectionReport, err error) error {
	if format != "json" && report == "" {
		return nil
	}
	if crep == nil {
		crep = &tablegate.CollectionReport{Collection: "", Members: map[string]*tablegate.Report{}}
	}
	if err != nil && crep.Error == nil {
		crep.Error = tablegate.WithError(nil, err).Error
	}
	data, jerr := indentJSON(crep)
	if jerr != nil {
		return jerr
	}
	if report != "" {
		if werr := tablegate.WriteReportFile(report, data); werr != nil {
			return werr
		}
	}
	if format == "json" {
		fmt.Fprintln(stdout, string(data))
	}
	return nil
}

func runCollectionCmd(cmd *cobra.Command, f *validateFlags, sess *pipes.Session, stderr io.Writer) (*tablegate.CollectionReport, error) {
	ctx := cmd.Context()
	if f.format != "text" && f.format != "json" {
		return nil, usagef("--format %q: use text or json", f.format)
	}
	if err := refuseSingleTable(cmd, "schema", "schema-root", "query", "db", "name", "quarantine-name"); err != nil {
		return nil, err
	}
	if err := checkProgress(f.progress); err != nil {
		return nil, err
	}
	if f.timeout < 0 {
		return nil, usagef("--timeout %s: give a positive duration, such as 10m", f.timeout)
	}
	cp, err := loadCollection(cmd, f.collection.path)
	if err != nil {
		return nil, err
	}
	if sess != nil {
		// Refused before anything is written: Dagster could not record a member it has no asset for.
		for _, m := range cp.Members {
			if _, err := dagsterMemberKey(sess.Context().AssetKeys, m.Name); err != nil {
				return nil, usagef("%v", err)
			}
		}
	}
	mio, err := f.collection.memberIO(cmd, cp, f.inputs, f.outs, &f.csv)
	if err != nil {
		return nil, err
	}
	if f.quarantine {
		for name, m := range mio {
			if m.Output == nil && m.Input != nil {
				return nil, usagef("--quarantine needs an output for every member: give --out %s=FILE or --out-dir DIR", name)
			}
		}
	}
	settings, err := resolveSettings(cmd, f)
	if err != nil {
		return nil, err
	}
	if f.threads < 0 {
		return nil, usagef("--threads %d: give a number of threads, or 0 for every core", f.threads)
	}
	cfg := tablegate.Config{MemoryLimit: f.memoryLimit, TempDirectory: f.tempDir, Threads: f.threads, StorageVersion: f.storageVersion,
		Confined: true, AllowedDirectories: collectionDirs(cp, mio, f.allowDirs)}
	traced(&cfg, stderr)
	eng, err := tablegate.Open(cfg)
	if err != nil {
		return nil, engineFlagError(err, f.memoryLimit, f.storageVersion)
	}
	defer eng.Close()
	prog := newCollectionProgress(stderr, f.progress, f.stderrTTY, mio)
	defer prog.finish()
	opts := settings
	opts.Quarantine, opts.Cast, opts.SkipMissing, opts.Warnings = f.quarantine, f.cast, f.skipMissing, stderr
	opts.Progress = prog.update
	opts.HTML, opts.History = f.html, historyFile(cmd, f.history)
	p := f.paths(cmd)
	opts.ReportFiles = p.reportFiles()
	crep, err := eng.ValidateCollection(ctx, cp, mio, opts)
	return crep, confinedHint(err)
}

// printCollectionText prints the collection's outcome, a section per member (the single-table
// text) and what each filter did.
func printCollectionText(w io.Writer, crep *tablegate.CollectionReport, st textStyle) {
	word := strings.ToUpper(string(*crep.Outcome))
	if st.colour {
		colour := ansiGreen
		if !crep.Succeeded() {
			colour = ansiRed
		}
		word = colour + word + ansiReset
	}
	written := "nothing written"
	if crep.Written {
		written = "every member written"
	}
	fmt.Fprintf(w, "collection %s: %s (%s)", crep.Collection, word, written)
	if len(crep.CommonPrimaryKey) > 0 {
		fmt.Fprintf(w, ", common primary key %s", strings.Join(crep.CommonPrimaryKey, ", "))
	}
	fmt.Fprintln(w)
	for _, name := range crep.MemberOrder {
		rep := crep.Members[name]
		fmt.Fprintf(w, "\n== member %s ==\n", name)
		if rep.Outcome == nil {
			msg := "not run"
			if rep.Error != nil {
				msg = rep.Error.Message
			}
			fmt.Fprintln(w, msg)
			continue
		}
		printText(w, rep, st)
	}
	if len(crep.Filters) == 0 {
		return
	}
	fmt.Fprintln(w, "\n== filters ==")
	for _, fr := range crep.Filters {
		if fr.Skipped != "" {
			fmt.Fprintf(w, "  %s (%s): skipped, %s\n", fr.Name, fr.Kind, fr.Skipped)
			continue
		}
		names := make([]string, 0, len(fr.Failed))
		for m := range fr.Failed {
			names = append(names, m)
		}
		sort.Strings(names)
		var parts []string
		for _, m := range names {
			parts = append(parts, fmt.Sprintf("%s %d", m, fr.Failed[m]))
		}
		fmt.Fprintf(w, "  %s (%s): %s; rows failing: %s\n", fr.Name, fr.Kind, fr.Description, strings.Join(parts, ", "))
	}
}
