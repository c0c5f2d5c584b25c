// Package tablegate validates tables with DuckDB. One import covers the common path: load or
// build a schema, compile it, open an engine, validate an input to an output, and read a typed
// result. The DuckDB engine is linked as a database/sql driver is, by importing it:
//
//	import _ "github.com/tablegate/tablegate/engines/duckdb"
//
//	orders, err := tablegate.LoadSchema("orders.yaml") // every declaration problem at once
//	plan, err := tablegate.Compile(ctx, orders)          // one DuckDB query, one column per rule
//	eng, err := tablegate.Open(tablegate.Config{})       // an in-memory DuckDB of its own
//	defer eng.Close()
//	res, err := eng.Validate(ctx, plan,
//		tablegate.FromParquet("landing/orders.parquet"),
//		tablegate.ToParquet("warehouse/orders.parquet"),
//		tablegate.Options{Quarantine: true})
//
// # Getting it
//
// No release is published yet, so the module path does not resolve from the Go proxy. In your
// module, with a clone of the repository at ../tablegate:
//
//	go mod edit -require=github.com/tablegate/tablegate@v0.0.0 -replace=github.com/tablegate/tablegate=../tablegate
//	go mod tidy
//
// # Schemas
//
// [LoadSchema] reads a YAML or JSON schema file and [ParseSchema] its bytes; [NewSchema] and the
// column constructors ([String], [Int64], [Datetime], [List], …) build one in Go, whose
// [Column] methods (PrimaryKey, Min, Regex, Check, SeverityOf, …) declare the rules.
// [ExtendSchema] derives a child schema. A schema with declaration problems is a
// *[SchemaErrors] listing all of them. [Compile] turns a schema into a [Plan].
//
// # Inputs and outputs
//
// Inputs: [FromParquet] (a file or glob, read in place), [FromCSV] and [FromNDJSON] (each
// declared column read as its dtype; gzip or zstd compressed too), [FromTable] (a DuckDB
// table), [FromQuery] (a SELECT), and FromArrow (build tag duckdb_arrow). Outputs: [ToParquet],
// [ToTable], or nil to validate in place without writing. The address types ([CSVInput],
// [TableInput], [QueryInput], [TableOutput], …) say the rest: a CSV's header, delimiter and NULL
// spellings, a table outside the main schema, a query in a database file.
//
// # Running
//
// [Open] starts an [Engine] on a DuckDB database of its own ([Config] sets the file, memory
// limit, temp directory and threads); [New] wraps a *sql.DB of yours; [NewOn] runs on another
// engine (the Spark engine of engines/spark). [Engine.Validate] runs a
// plan over an input; [Options] declare a quarantine (without one, an invalid row aborts the run
// and nothing is written), where to write the HTML page and the run history, and, in their
// [RunOptions], the check granularity, samples and timeout. Engine.Filter (tag duckdb_arrow) returns the valid and invalid rows as Arrow
// readers instead.
//
// # Results and errors
//
// A run that reaches an outcome returns a [Result]: the [Outcome] (all_valid, quarantined, …),
// row counts, where the table and the quarantine went, one [Check] per rule or table check with
// its severity, failed count and samples, and the [Health]. [Result.Report] is the JSON report. A
// run that fails returns a typed error for errors.As: *[ValidationAbortError], *[NoValidRowsError]
// and *[TableCheckError] (the data failed), *[ColumnSchemaError] (the input's columns or dtypes
// are not the schema's), *[CastError], *[TimeoutError] (Options.Timeout ran out), *[InputError],
// *[OutputError], *[SettingError], *[StorageVersionError]; with it,
// the Result when the run decided an outcome. A failing run never changes the previous table.
//
// # Tools around runs
//
// [Engine.InferSchema] writes a starting schema from data; [SampleQuery] and
// [CollectionSampleQueries] generate synthetic data that fits a schema or a collection, which
// [Engine.WriteQuery] writes; [Engine.CopyColumns] is the plain copy validation's cost is
// measured against. [HistoryRuns], [HistoryChecks], [HistoryCollectionRuns] and
// [LoadCollectionRun] read the run history back, and [WriteRunPage] a run's page from it.
//
// The packages underneath stay available for what this one does not cover: schema (the model and
// builder), compile (the plan and its SQL), runner (the engine-neutral run, its inputs and
// outputs), engines/duckdb and engines/spark (the engines), outcome (reports and errors), report
// and history (the HTML page and the run history).
package tablegate
