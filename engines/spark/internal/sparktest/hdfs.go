package sparktest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// HDFS is a real HDFS on 127.0.0.1: Hadoop's MiniDFSCluster (a NameNode and a DataNode in one
// JVM, from Maven Central's org.apache.hadoop:hadoop-client-minicluster, started by the jar's own
// org.apache.hadoop.test.MiniDFSClusterManager), with WebHDFS on the NameNode's HTTP port.
// Permissions are checked as on a cluster: the harness's user owns the root.
type HDFS struct {
	URL     string // hdfs://127.0.0.1:PORT, the NameNode's RPC address
	WebHDFS string // http://127.0.0.1:PORT, the NameNode's HTTP address
	p       *proc
}

// StartHDFS starts a MiniDFSCluster with one DataNode, its data and log under dir, and waits
// until the NameNode is out of safe mode with the DataNode live. classPath holds the
// hadoop-client-minicluster jar and what it needs beside it (Hadoop's client API and runtime
// jars, SLF4J, Log4j: pyspark's jars folder has them all).
func StartHDFS(java string, classPath []string, dir, pidFile string, ready time.Duration) (*HDFS, error) {
	httpPort, err := freePort()
	if err != nil {
		return nil, err
	}
	rpcPort, err := freePort()
	if err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "hdfs")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return nil, err
	}
	details := filepath.Join(data, "details.json")
	p, err := startProc(dir, "hdfs", os.Environ(), pidFile, java,
		"-Xmx512m", "-Djava.io.tmpdir="+data, "-Dtest.build.data="+data,
		"-cp", strings.Join(classPath, string(os.PathListSeparator)),
		"org.apache.hadoop.test.MiniDFSClusterManager",
		"-format", "-datanodes", "1",
		"-nnport", strconv.Itoa(rpcPort), "-httpport", strconv.Itoa(httpPort),
		"-writeDetails", details,
		"-D", "hdfs.minidfs.basedir="+data,
		"-D", "dfs.replication=1",
		"-D", "dfs.namenode.rpc-bind-host=127.0.0.1",
		"-D", "dfs.namenode.http-bind-host=127.0.0.1",
		"-D", "dfs.webhdfs.enabled=true")
	if err != nil {
		return nil, err
	}
	h := &HDFS{URL: fmt.Sprintf("hdfs://127.0.0.1:%d", rpcPort), WebHDFS: fmt.Sprintf("http://127.0.0.1:%d", httpPort), p: p}
	deadline := time.Now().Add(ready)
	var last error
	for {
		// The manager writes its details once the cluster is up; the NameNode then says when it
		// is out of safe mode with the DataNode registered.
		if _, err := os.Stat(details); err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			last = h.ready(ctx)
			cancel()
			if last == nil {
				return h, nil
			}
		}
		select {
		case <-p.done:
			return nil, fmt.Errorf("the MiniDFSCluster exited (%v):\n%s", p.err, p.tail(8000))
		case <-time.After(500 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			p.stop()
			return nil, fmt.Errorf("the MiniDFSCluster was not ready within %s (last: %v):\n%s", ready, last, p.tail(8000))
		}
	}
}

// ready asks the NameNode's JMX whether it is operational (out of safe mode) with a live DataNode.
func (h *HDFS) ready(ctx context.Context) error {
	var st struct {
		Beans []struct {
			FSState          string `json:"FSState"`
			NumLiveDataNodes int    `json:"NumLiveDataNodes"`
		} `json:"beans"`
	}
	if err := getJSON(ctx, h.WebHDFS+"/jmx?qry=Hadoop:service=NameNode,name=FSNamesystemState", &st); err != nil {
		return err
	}
	if len(st.Beans) != 1 || st.Beans[0].FSState != "Operational" || st.Beans[0].NumLiveDataNodes < 1 {
		b, _ := json.Marshal(st.Beans)
		return fmt.Errorf("the NameNode is not ready: %s", b)
	}
	return nil
}

// Conf is what Spark needs to write to it: one replica of each block, there being one DataNode.
func (h *HDFS) Conf() map[string]string {
	return map[string]string{"spark.hadoop.dfs.replication": "1"}
}

// Stop stops the cluster.
func (h *HDFS) Stop() { h.p.stop() }

// MiniClusterClassPath is the class path StartHDFS needs: the hadoop-client-minicluster jar in
// jarsDir (a folder of jars, as spark-submit --packages resolves it into Ivy) and pyspark's jars
// under home (SPARK_HOME), which carry the Hadoop client, SLF4J and Log4j it needs.
func MiniClusterClassPath(jarsDir, home string) ([]string, error) {
	jars, err := filepath.Glob(filepath.Join(jarsDir, "*hadoop-client-minicluster-*.jar"))
	if err != nil || len(jars) != 1 {
		return nil, fmt.Errorf("%s: want one hadoop-client-minicluster jar there, found %q (%v)", jarsDir, jars, err)
	}
	return []string{jars[0], filepath.Join(home, "jars", "*")}, nil
}
