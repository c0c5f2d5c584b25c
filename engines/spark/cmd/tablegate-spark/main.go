// Command tablegate-spark is `tablegate validate` and `tablegate explain` on Apache Spark through
// Spark Connect. The tablegate CLI runs it for `--engine spark`; it takes the flags that apply on
// Spark, runs through the root package's engine (tablegate.NewOn(spark.New(remote))): the same
// report, JSON, HTML page, history and exit statuses (tablegate.ExitStatus) as tablegate.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"os/user"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/spf13/cobra"

	"github.com/tablegate/tablegate"
	"github.com/tablegate/tablegate/engines/spark"
	"github.com/tablegate/tablegate/schema"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}

// flags are the command line's; settings are the report settings given as flags, by name.
type flags struct {
	schema, schemaRoot, input, out, name, quarantineName string
	engine, remote, report, format, html, history        string
	s3Endpoint, s3Region, webhdfs, hdfsUser              string
	quarantine, skipMissing, s3PathStyle                 bool
	settings                                             map[string]*string
}

// settingFlags are the report settings a command line may give (tablegate.Setting*), by flag.
var settingFlags = []struct{ flag, setting, usage string }{
	{"granularity", tablegate.SettingCheckGranularity, "checks per rule, column or schema (default rule)"},
	{"schema-rules", tablegate.SettingSchemaRules, "at column granularity: collapsed or per_rule (default collapsed)"},
	{"samples", tablegate.SettingMaxFailureSamples, "failing rows per check in the report, 0 for none (default 5)"},
	{"row-sample", tablegate.SettingRowSample, "valid and invalid rows shown in the report"},
}

type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// TypeName names the error in the JSON report, as tablegate's.
func (e *usageError) TypeName() string { return "UsageError" }

func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	code := tablegate.ExitOK
	f := flags{settings: map[string]*string{}}
	root := &cobra.Command{Use: "tablegate-spark", SilenceUsage: true, SilenceErrors: true}
	validate := &cobra.Command{
		Use:   "validate --engine spark --spark-remote sc://HOST:PORT --schema S --input IN [--out OUT] [flags]",
		Short: "Validate a Parquet input on Spark, write the valid rows and the quarantine",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rep, err := f.validate(cmd, getenv, stderr)
			if pageErr := (*tablegate.PageError)(nil); errors.As(err, &pageErr) {
				return pageErr
			}
			if f.format == "json" || f.report != "" {
				rep = tablegate.WithError(rep, err)
				var w io.Writer
				if f.format == "json" {
					w = stdout
				}
				if werr := tablegate.WriteReport(rep, nil, f.report, w); werr != nil {
					return werr
				}
			}
			if f.format != "json" && rep != nil && rep.Outcome != nil {
				printText(stdout, rep)
			}
			code = tablegate.ExitStatus(err)
			return err
		},
	}
	explain := &cobra.Command{
		Use:   "explain --engine spark --spark-remote sc://HOST:PORT --schema S --input IN [--out OUT [--quarantine]]",
		Short: "Check the input's column types on Spark and print every statement a run executes",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			text, err := f.explain(cmd, getenv)
			if err == nil {
				fmt.Fprint(stdout, text)
			}
			return err
		},
	}
	type flag struct {
		value       *string
		name, usage string
	}
	both := []flag{
		{&f.schema, "schema", "schema file (YAML or JSON)"},
		{&f.schemaRoot, "schema-root", "folder the schema's extends may read from"},
		{&f.input, "input", "a Parquet file or a directory of Parquet files, on a filesystem the Spark driver sees"},
		{&f.out, "out", "the table: a directory Spark writes Parquet part files into (a path both see, s3a://BUCKET/PATH or hdfs://NAMENODE:PORT/PATH)"},
		{&f.remote, "spark-remote", "the Spark Connect server, sc://HOST:PORT (default: env SPARK_REMOTE)"},
		{&f.s3Endpoint, "s3-endpoint", "the S3 store of s3a:// outputs, as this process reaches it (default: env AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, the profile's endpoint_url; none: AWS S3); credentials come from the AWS credential chain (env, AWS_PROFILE, SSO, web identity, container, instance)"},
		{&f.s3Region, "s3-region", "the S3 region of this process's requests (default: env AWS_REGION, the profile's region, else us-east-1)"},
		{&f.webhdfs, "webhdfs", "the NameNode's HTTP address for hdfs:// outputs, http://NAMENODE:9870 (comma-separated: every NameNode of a highly available nameservice), where this process puts Spark's writes in place (default: env TABLEGATE_WEBHDFS, else HADOOP_CONF_DIR's NameNodes of the output's nameservice)"},
		{&f.hdfsUser, "hdfs-user", "the HDFS user this process acts as on hdfs:// outputs, the one Spark writes as (default: env HADOOP_USER_NAME, else your user name)"},
	}
	for _, s := range settingFlags {
		f.settings[s.flag] = new(string)
		both = append(both, flag{f.settings[s.flag], s.flag, s.usage + " (env TABLEGATE_" + strings.ToUpper(s.setting) + ")"})
	}
	for _, c := range []*cobra.Command{validate, explain} {
		for _, fl := range both {
			c.Flags().StringVar(fl.value, fl.name, "", fl.usage)
		}
		c.Flags().StringVar(&f.engine, "engine", "spark", "spark (the only engine of this binary)")
		c.Flags().BoolVar(&f.quarantine, "quarantine", false, "write invalid rows to the quarantine and the valid rows to the table")
		c.Flags().BoolVar(&f.s3PathStyle, "s3-path-style", false, "address S3 buckets as the endpoint's first path element (default: with an endpoint given)")
	}
	for _, fl := range []flag{
		{&f.name, "name", "asset name (default: OUT's base name); the quarantine is <name>_quarantine.parquet"},
		{&f.quarantineName, "quarantine-name", "the quarantine's name beside the table (default <name>_quarantine)"},
		{&f.report, "report", "write the JSON report to this file"},
		{&f.html, "html", "write the report as one self-contained HTML page to this file"},
		{&f.history, "history", "append the run to the run history in this DuckDB file"},
	} {
		validate.Flags().StringVar(fl.value, fl.name, "", fl.usage)
	}
	validate.Flags().StringVar(&f.format, "format", "text", "output: text or json")
	validate.Flags().BoolVar(&f.skipMissing, "skip-missing", false, "an input that matches no file is the skipped outcome, not an error")
	root.AddCommand(validate, explain)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	if err := root.ExecuteContext(ctx); err != nil {
		if code == tablegate.ExitOK {
			code = tablegate.ExitUsage
			earlyReport(args, stdout, err) // a bad flag or argument: still one JSON report
		}
		fmt.Fprintln(stderr, "tablegate: "+err.Error())
	}
	return code
}

// earlyReport writes the report of a validate command line that failed before it ran (a flag
// that does not parse), when it asks for --format json or --report.
func earlyReport(args []string, stdout io.Writer, err error) {
	if len(args) == 0 || args[0] != "validate" {
		return
	}
	value := func(name string) string {
		for i, a := range args {
			if v, ok := strings.CutPrefix(a, name+"="); ok {
				return v
			}
			if a == name && i+1 < len(args) {
				return args[i+1]
			}
		}
		return ""
	}
	var w io.Writer
	if value("--format") == "json" {
		w = stdout
	}
	if report := value("--report"); w != nil || report != "" {
		_ = tablegate.WriteReport(nil, &usageError{err.Error()}, report, w)
	}
}

// connect is the root package's engine on the Spark Connect server the flags name.
func (f *flags) connect(cmd *cobra.Command, getenv func(string) string) (*tablegate.Engine, error) {
	if f.engine != "spark" {
		return nil, &usageError{fmt.Sprintf("--engine %q: this is the Spark engine's binary; run tablegate for DuckDB", f.engine)}
	}
	remote := f.remote
	if remote == "" {
		remote = getenv("SPARK_REMOTE")
	}
	if remote == "" {
		return nil, &usageError{"--engine spark needs --spark-remote sc://HOST:PORT (or env SPARK_REMOTE)"}
	}
	opts := []spark.Option{spark.WithLockDir(lockDir())}
	s3, ok, err := f.s3(cmd, getenv)
	if err != nil {
		return nil, err
	}
	if ok {
		opts = append(opts, spark.WithS3(s3))
	}
	nameNodes, err := f.nameNodes(getenv)
	if err != nil {
		return nil, err
	}
	if len(nameNodes) > 0 {
		hdfsUser := first(f.hdfsUser, getenv("HADOOP_USER_NAME"))
		if hdfsUser == "" {
			u, err := user.Current()
			if err != nil {
				return nil, fmt.Errorf("the HDFS user: %w; give --hdfs-user", err)
			}
			hdfsUser = u.Username
		}
		opts = append(opts, spark.WithHDFS(spark.HDFSOptions{NameNodes: nameNodes, User: hdfsUser}))
	}
	return tablegate.NewOn(spark.New(remote, opts...)), nil
}

// nameNodes are the WebHDFS addresses of an hdfs:// output's NameNodes: --webhdfs, else
// TABLEGATE_WEBHDFS (comma-separated, for a highly available nameservice), else those
// HADOOP_CONF_DIR's configuration gives the output's nameservice.
func (f *flags) nameNodes(getenv func(string) string) ([]string, error) {
	if addrs := first(f.webhdfs, getenv("TABLEGATE_WEBHDFS")); addrs != "" {
		var out []string
		for _, a := range strings.Split(addrs, ",") {
			if a = strings.TrimSpace(a); a != "" {
				out = append(out, a)
			}
		}
		return out, nil
	}
	if dir := getenv("HADOOP_CONF_DIR"); dir != "" && strings.HasPrefix(strings.ToLower(f.out), "hdfs://") {
		return spark.HDFSNameNodes(dir, f.out)
	}
	return nil, nil
}

// lockDir is this user's folder of the catalog tables' locks: in the user's cache folder, else
// in the temporary folder under a name of the user's own (another user's folder there is not
// writable).
func lockDir() string {
	if dir, err := os.UserCacheDir(); err == nil {
		return filepath.Join(dir, "tablegate", "spark-locks")
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("tablegate-spark-locks-%d", os.Getuid()))
}

// s3 is this process's access to the S3 store of s3a:// outputs, loaded (only for such an
// output) as the AWS CLI loads its own: credentials from the default chain (the environment,
// AWS_PROFILE's entry in the shared config and credentials files, SSO, web identity, container
// and instance credentials; never flags, which other users of the machine can read), refreshed
// five minutes before they expire; the region from --s3-region, else the configuration; the
// endpoint from --s3-endpoint, else AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL or the profile's
// endpoint_url. Buckets are addressed path-style when an endpoint is given.
func (f *flags) s3(cmd *cobra.Command, getenv func(string) string) (o spark.S3Options, ok bool, err error) {
	if out := strings.ToLower(f.out); !strings.HasPrefix(out, "s3a://") && !strings.HasPrefix(out, "s3://") {
		return o, false, nil
	}
	load := []func(*config.LoadOptions) error{
		config.WithCredentialsCacheOptions(func(c *aws.CredentialsCacheOptions) { c.ExpiryWindow = 5 * time.Minute }),
	}
	if f.s3Region != "" {
		load = append(load, config.WithRegion(f.s3Region))
	}
	o.Config, err = config.LoadDefaultConfig(cmd.Context(), load...)
	if err != nil {
		return o, false, fmt.Errorf("the AWS configuration of %s: %w", f.out, err)
	}
	o.Endpoint = f.s3Endpoint
	o.PathStyle = f.s3PathStyle
	if !cmd.Flags().Changed("s3-path-style") {
		o.PathStyle = first(f.s3Endpoint, getenv("AWS_ENDPOINT_URL_S3"), getenv("AWS_ENDPOINT_URL"), aws.ToString(o.Config.BaseEndpoint)) != ""
	}
	return o, true, nil
}

// first is the first of values that is not "".
func first(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

// plan loads and compiles the schema.
func (f *flags) plan(ctx context.Context) (*tablegate.Plan, error) {
	if f.schema == "" {
		return nil, &usageError{"--schema is required"}
	}
	var opts []schema.LoadOption
	if f.schemaRoot != "" {
		opts = append(opts, schema.WithRoot(f.schemaRoot))
	}
	s, err := schema.LoadFileContext(ctx, f.schema, opts...)
	if err != nil {
		return nil, err
	}
	return spark.Compile(ctx, s)
}

// options are the run's options: the report settings from the flags, else the TABLEGATE_*
// environment variables.
func (f *flags) options(cmd *cobra.Command, getenv func(string) string) (tablegate.Options, error) {
	var opts tablegate.Options
	for _, s := range settingFlags {
		value, source := *f.settings[s.flag], "flag --"+s.flag
		if !cmd.Flags().Changed(s.flag) {
			env := "TABLEGATE_" + strings.ToUpper(s.setting)
			value, source = getenv(env), "environment variable "+env
		}
		if value == "" {
			continue
		}
		if err := opts.ApplySetting(s.setting, value, source); err != nil {
			return opts, err
		}
	}
	opts.Quarantine = f.quarantine
	return opts, nil
}

// asset is the input and output the flags name.
func (f *flags) asset() (tablegate.Input, tablegate.Output, error) {
	if f.input == "" {
		return nil, nil, &usageError{"--input is required: a Parquet file or a directory of Parquet files"}
	}
	var out tablegate.Output
	if f.out != "" {
		cat, ok, err := tablegate.ParseCatalogOutput(f.out)
		switch {
		case err != nil:
			return nil, nil, &usageError{"--out " + err.Error()}
		case ok:
			out = cat
		default:
			out = tablegate.ParquetOutput{Path: f.out}
		}
	} else if f.quarantine {
		return nil, nil, &usageError{"--quarantine needs --out: the quarantine goes beside the table"}
	}
	return tablegate.ParquetInput{Path: f.input}, out, nil
}

func (f *flags) validate(cmd *cobra.Command, getenv func(string) string, stderr io.Writer) (*tablegate.Report, error) {
	ctx := cmd.Context()
	if f.format != "text" && f.format != "json" {
		return nil, &usageError{fmt.Sprintf("--format %q: use text or json", f.format)}
	}
	eng, err := f.connect(cmd, getenv)
	if err != nil {
		return nil, err
	}
	in, out, err := f.asset()
	if err != nil {
		return nil, err
	}
	opts, err := f.options(cmd, getenv)
	if err != nil {
		return nil, err
	}
	p, err := f.plan(ctx)
	if err != nil {
		return nil, err
	}
	opts.Name, opts.QuarantineName, opts.SkipMissing, opts.Warnings = f.name, f.quarantineName, f.skipMissing, stderr
	if f.history != "" {
		if err := tablegate.HistoryAvailable(); err != nil {
			return nil, fmt.Errorf("--history: %w", err)
		}
	}
	opts.HTML, opts.History = f.html, f.history
	opts.ReportFiles = []tablegate.ReportFile{{Role: "--html", Path: f.html}, {Role: "--report", Path: f.report}, {Role: "--history", Path: f.history}}
	res, err := eng.Validate(ctx, p, in, out, opts)
	if res == nil {
		return nil, err
	}
	return res.Report, err
}

func (f *flags) explain(cmd *cobra.Command, getenv func(string) string) (string, error) {
	eng, err := f.connect(cmd, getenv)
	if err != nil {
		return "", err
	}
	in, out, err := f.asset()
	if err != nil {
		return "", err
	}
	opts, err := f.options(cmd, getenv)
	if err != nil {
		return "", err
	}
	p, err := f.plan(cmd.Context())
	if err != nil {
		return "", err
	}
	return eng.Explain(cmd.Context(), p, in, out, opts)
}

// printText prints the outcome, the row counts and the failing checks.
func printText(w io.Writer, rep *tablegate.Report) {
	fmt.Fprintf(w, "%s on Spark: %s (%d rows, %d valid, %d invalid)\n", rep.Asset, *rep.Outcome, rep.Rows.Input, rep.Rows.Valid, rep.Rows.Invalid)
	for _, c := range rep.Checks {
		if c.Passed {
			continue
		}
		n := any(c.Failed)
		if c.Failed == 0 {
			n = "-"
		}
		fmt.Fprintf(w, "  FAILED %-5s %s: %v rows (%s)\n", c.Severity, c.Name, n, c.Description)
	}
	if rep.Table.Written {
		fmt.Fprintf(w, "table: %s\n", rep.Table.Address)
	}
	if rep.Quarantine.Written {
		fmt.Fprintf(w, "quarantine: %s (%d rows)\n", rep.Quarantine.Address, rep.Quarantine.Rows)
	}
}
