package odcs

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/runner"
)

// datacontractContract is a contract with every library metric datacontract-cli runs, on data
// where duplicateValues' two readings disagree: code a,a,a,b,b,c,Z9,NULL,d,d has 3 values that
// repeat (datacontract-cli's count) and 4 rows that repeat an earlier one.
const datacontractContract = `apiVersion: v3.2.0
kind: DataContract
id: urn:datacontract:sensors:iot_sensor_data
name: sensors
version: 2.1.0
status: active
schema:
  - name: data
    physicalType: table
    properties:
      - {name: id, physicalType: BIGINT, logicalType: integer, required: true, unique: true}
      - name: code
        physicalType: VARCHAR
        logicalType: string
        quality:
          - {id: code_dups, metric: duplicateValues, mustBeLessThan: 4}
          - {id: code_nulls, metric: nullValues, mustBeLessOrEqualTo: 1}
      - {name: label, physicalType: VARCHAR, logicalType: string, logicalTypeOptions: {maxLength: 5}}
      - name: v
        physicalType: DOUBLE
        logicalType: number
        quality:
          - {id: v_nulls, metric: nullValues, mustBeLessOrEqualTo: 20, unit: percent}
    quality:
      - {id: enough_rows, metric: rowCount, mustBeBetween: [5, 1000000]}
      - {id: no_dup_keys, metric: duplicateValues, arguments: {properties: [id, code]}, mustBe: 0}
`

// TestSlowDatacontractCLI: datacontract-cli (pip install 'datacontract-cli[duckdb]==1.2.8') runs
// the contract and the contract tablegate exports of its import (character lengths as checks on
// characters), and both give the same checks
// with the same results; tablegate's duplicateValues agrees with datacontract-cli's.
func TestSlowDatacontractCLI(t *testing.T) {
	if os.Getenv("TABLEGATE_SLOW") == "" {
		t.Skip("slow: set TABLEGATE_SLOW=1")
	}
	bin := os.Getenv("TABLEGATE_DATACONTRACT")
	if bin == "" {
		var err error
		if bin, err = exec.LookPath("datacontract"); err != nil {
			t.Skip("datacontract-cli is not installed: pip install 'datacontract-cli[duckdb]==1.2.8', or set TABLEGATE_DATACONTRACT to its datacontract program")
		}
	}
	ctx := context.Background()
	dir := t.TempDir()
	eng, err := duckdb.Open(duckdb.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	data := filepath.Join(dir, "data.parquet")
	// Zürch has 5 characters in 6 bytes.
	if err := eng.WriteQuery(ctx, `SELECT * FROM (VALUES (1::BIGINT, 'a', 'Zürch', 1.5::DOUBLE), (2, 'a', 'ab', NULL), (3, 'a', NULL, 2.0), (4, 'b', 'x', 3.0),
		(5, 'b', 'x', NULL), (6, 'c', 'x', 1.0), (7, 'Z9', 'x', 2.0), (8, NULL, 'x', 1.0), (9, 'd', 'x', 4.0), (10, 'd', 'x', 5.0)) t(id, code, label, v)`,
		runner.ParquetOutput{Path: data}); err != nil {
		t.Fatal(err)
	}
	servers := "servers:\n  - {server: local, type: local, format: parquet, path: " + data + "}\n"

	c, err := Parse([]byte(datacontractContract), "sensors.odcs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Import(ctx, c, ImportOptions{Lengths: LengthsChars})
	if err != nil {
		t.Fatal(err)
	}
	exported, err := Export(ctx, res.Schema, ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	text, err := Marshal(exported)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"id: urn:datacontract:sensors:iot_sensor_data", "version: 2.1.0", "id: code_dups", "metric: duplicateValues", "metric: rowCount", "- 1000000\n", "maxLength: 5"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("the export has no %q:\n%s", want, text)
		}
	}
	if strings.Contains(string(text), "engine: tablegate") {
		t.Errorf("the export has tablegate's own entries, which other tools skip:\n%s", text)
	}

	run := func(name, contract string) []string {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(contract+servers), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, name+".json")
		cmd := exec.Command(bin, "test", path, "--output-format", "json", "--output", out)
		cmd.Dir = dir
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("datacontract test %s: %v\n%s", name, err, msg)
		}
		raw, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			Checks []struct{ Type, Result, Field string } `json:"checks"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatal(err)
		}
		var checks []string
		for _, ch := range r.Checks {
			checks = append(checks, ch.Type+" "+ch.Field+" "+ch.Result)
		}
		slices.Sort(checks)
		return checks
	}
	original := run("original.odcs.yaml", datacontractContract)
	again := run("exported.odcs.yaml", string(text))
	t.Logf("datacontract-cli runs %d checks of the original, %d of the export", len(original), len(again))
	if strings.Join(original, "\n") != strings.Join(again, "\n") {
		t.Errorf("datacontract-cli's checks differ:\noriginal:\n%s\nexport:\n%s", strings.Join(original, "\n"), strings.Join(again, "\n"))
	}
	if !strings.Contains(strings.Join(original, "\n"), "field_duplicate_values code passed") {
		t.Errorf("datacontract-cli fails code's duplicateValues < 4: %v", original)
	}

	// tablegate on the same data: code's duplicateValues is 3, as datacontract-cli counts.
	rep, err := eng.Run(ctx, runner.Asset{Name: "data", Plan: mustCompile(t, res), Input: runner.ParquetInput{Path: data}}, runner.Options{})
	if err != nil {
		t.Fatalf("tablegate fails the contract datacontract-cli passes: %v", err)
	}
	for _, ch := range rep.Checks {
		if ch.Name == "dy_table__code_dups" && (ch.Table == nil || !ch.Passed) {
			t.Errorf("code_dups: %+v", ch)
		}
	}
}

func mustCompile(t *testing.T, res *Result) *compile.Plan {
	t.Helper()
	plan, err := compile.CompileContext(context.Background(), res.Schema)
	if err != nil {
		t.Fatal(err)
	}
	return plan
}
