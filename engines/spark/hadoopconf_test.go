package spark

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestHDFSNameNodes reads the NameNodes of an output's nameservice from a Hadoop configuration
// folder: every NameNode of a highly available nameservice, in its order; the NameNode's own
// HTTP address for an output on host:port; a Kerberized cluster and an unknown nameservice are
// refused, saying why.
func TestHDFSNameNodes(t *testing.T) {
	conf := func(t *testing.T, core, hdfs string) string {
		dir := t.TempDir()
		for name, props := range map[string]string{"core-site.xml": core, "hdfs-site.xml": hdfs} {
			doc := `<?xml version="1.0"?><configuration>` + props + `</configuration>`
			if err := os.WriteFile(filepath.Join(dir, name), []byte(doc), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	prop := func(k, v string) string {
		return "<property><name>" + k + "</name>\n <value> " + v + " </value></property>"
	}
	ha := prop("dfs.nameservices", "other,prod") + prop("dfs.ha.namenodes.prod", "nn1, nn2") +
		prop("dfs.namenode.http-address.prod.nn1", "nn1.example:9870") + prop("dfs.namenode.http-address.prod.nn2", "nn2.example:9870") +
		prop("dfs.namenode.http-address", "single.example:9870")
	for _, tc := range []struct {
		name, core, hdfs, out string
		want                  []string
		err                   string
	}{
		{"ha", "", ha, "hdfs://prod/out/t.parquet", []string{"nn1.example:9870", "nn2.example:9870"}, ""},
		{"host and port", "", ha, "hdfs://single.example:8020/out/t.parquet", []string{"single.example:9870"}, ""},
		{"simple", prop("hadoop.security.authentication", "simple"), ha, "hdfs://prod/t", []string{"nn1.example:9870", "nn2.example:9870"}, ""},
		{"kerberos", prop("hadoop.security.authentication", "kerberos"), ha, "hdfs://prod/t", nil, "simple authentication"},
		{"a NameNode without an address", "", prop("dfs.nameservices", "prod") + prop("dfs.ha.namenodes.prod", "nn1"), "hdfs://prod/t", nil, "dfs.namenode.http-address.prod.nn1"},
		{"unknown", "", prop("dfs.nameservices", "prod"), "hdfs://other/t", nil, "names no nameservice other"},
		{"not hdfs", "", ha, "s3a://b/t", nil, "want hdfs://"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := HDFSNameNodes(conf(t, tc.core, tc.hdfs), tc.out)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("%v, %v; want an error saying %q", got, err, tc.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("%v, %v; want %v", got, err, tc.want)
			}
		})
	}
}
