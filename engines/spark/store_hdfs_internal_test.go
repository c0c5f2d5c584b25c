package spark

import (
	"strings"
	"testing"
)

// TestHDFSAddresses checks the hdfs:// outputs the store takes, how it names what it keeps
// beside the table, and what it refuses before any I/O.
func TestHDFSAddresses(t *testing.T) {
	for in, want := range map[string]string{
		"hdfs://nn:8020/out/t.parquet":  "hdfs://nn:8020/out/t.parquet",
		"hdfs://nn:8020/out/t.parquet/": "hdfs://nn:8020/out/t.parquet",
		"hdfs:///out/t.parquet":         "hdfs:///out/t.parquet",
	} {
		if got, err := normalizeOutput(in); err != nil || got != want {
			t.Errorf("%s: %q %v, want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"hdfs://nn:8020/", "hdfs://nn:8020", "hdfs://nn/a/../t.parquet", "hdfs://nn/a//t.parquet", "hdfs://u@nn/t.parquet", "hdfs://nn/t.parquet?x=1"} {
		if got, err := normalizeOutput(in); err == nil {
			t.Errorf("%s: taken as %q", in, got)
		}
	}
	e := NewWith(nil, WithHDFS(HDFSOptions{NameNodes: []string{"http://nn:9870"}, User: "etl"}))
	st, err := e.newStore("hdfs://nn:8020/out/t.parquet", "hdfs://nn:8020/out/t_quarantine.parquet")
	if err != nil {
		t.Fatal(err)
	}
	s := st.(*hdfsStore)
	if tmp := s.Temp(3, "table"); !strings.HasPrefix(tmp, "hdfs://nn:8020/out/.t.parquet.tablegate-") || !strings.HasSuffix(tmp, "-3-table.tmp") || !isTemp("t.parquet", tmp[len("hdfs://nn:8020/out/"):]) {
		t.Errorf("temporary %s", tmp)
	}
	if s.lockPath() != "/out/.t.parquet.tablegate.lock" || s.journalPath() != "/out/.t.parquet.tablegate-journal" || s.lease != defaultLease {
		t.Errorf("lock %s, journal %s, lease %s", s.lockPath(), s.journalPath(), s.lease)
	}
	if _, err := NewWith(nil).newStore("hdfs://nn:8020/out/t.parquet", ""); err == nil || !strings.Contains(err.Error(), "WebHDFS address") {
		t.Errorf("no WebHDFS address: %v", err)
	}
	if _, err := e.newStore("hdfs://nn:8020/out/t.parquet", "hdfs://other:8020/out/t_quarantine.parquet"); err == nil || !strings.Contains(err.Error(), "not beside") {
		t.Errorf("a quarantine on another NameNode: %v", err)
	}
	if _, err := NewWith(nil, WithHDFS(HDFSOptions{NameNodes: []string{"hdfs://nn:8020"}})).newStore("hdfs://nn:8020/out/t.parquet", ""); err == nil || !strings.Contains(err.Error(), "HTTP address") {
		t.Errorf("an hdfs:// WebHDFS address: %v", err)
	}
}
