package duckdbparser

import "testing"

// TestParserSandbox: the DuckDB that parses custom SQL runs with extensions off, no external
// access, one thread and its configuration locked.
func TestParserSandbox(t *testing.T) {
	p, err := Open()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	db := p.db
	for setting, want := range map[string]string{
		"autoinstall_known_extensions": "false",
		"autoload_known_extensions":    "false",
		"allow_community_extensions":   "false",
		"enable_external_access":       "false",
		"lock_configuration":           "true",
		"threads":                      "1",
	} {
		var got string
		if err := db.QueryRow("SELECT CAST(current_setting(?) AS VARCHAR)", setting).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s = %s, want %s", setting, got, want)
		}
	}
	if _, err := db.Exec("SET enable_external_access = true"); err == nil {
		t.Error("the parser's configuration can be changed")
	}
	if _, err := db.Exec("SELECT * FROM read_text('/etc/hostname')"); err == nil {
		t.Error("the parser reads files")
	}
}
