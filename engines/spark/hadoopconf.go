package spark

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// HDFSNameNodes reads the Hadoop configuration folder dir (what HADOOP_CONF_DIR names: its
// core-site.xml and hdfs-site.xml) for the WebHDFS addresses of the NameNodes of the hdfs://
// output's authority: every NameNode of a highly available nameservice (dfs.nameservices,
// dfs.ha.namenodes.NS, dfs.namenode.http-address.NS.NN), else the NameNode's own
// dfs.namenode.http-address. A cluster secured with Kerberos (hadoop.security.authentication) is
// refused: the outputs' WebHDFS calls speak simple authentication only.
func HDFSNameNodes(dir, output string) ([]string, error) {
	u, err := url.Parse(output)
	if err != nil || u.Scheme != "hdfs" || u.Host == "" {
		return nil, fmt.Errorf("the output %s: want hdfs://NAMESERVICE/PATH or hdfs://NAMENODE:PORT/PATH", output)
	}
	conf := map[string]string{}
	for _, name := range []string{"core-site.xml", "hdfs-site.xml"} {
		if err := readHadoopConf(filepath.Join(dir, name), conf); err != nil {
			return nil, err
		}
	}
	if auth := conf["hadoop.security.authentication"]; auth != "" && !strings.EqualFold(auth, "simple") {
		return nil, fmt.Errorf("the cluster of %s uses %s authentication (hadoop.security.authentication in %s): hdfs:// outputs need a cluster with simple authentication, "+
			"as this process puts Spark's writes in place over WebHDFS without Kerberos (SPNEGO); write to s3a://, a table format or a local folder instead",
			output, auth, filepath.Join(dir, "core-site.xml"))
	}
	ns := u.Host
	for _, s := range splitList(conf["dfs.nameservices"]) {
		if s != ns {
			continue
		}
		var addrs []string
		for _, nn := range splitList(conf["dfs.ha.namenodes."+ns]) {
			addr := conf["dfs.namenode.http-address."+ns+"."+nn]
			if addr == "" {
				return nil, fmt.Errorf("%s: the nameservice %s's NameNode %s has no dfs.namenode.http-address.%s.%s", dir, ns, nn, ns, nn)
			}
			addrs = append(addrs, addr)
		}
		if len(addrs) == 0 {
			if addr := conf["dfs.namenode.http-address."+ns]; addr != "" {
				return []string{addr}, nil
			}
			return nil, fmt.Errorf("%s: the nameservice %s has no NameNodes (dfs.ha.namenodes.%s)", dir, ns, ns)
		}
		return addrs, nil
	}
	if addr := conf["dfs.namenode.http-address"]; addr != "" && !strings.HasPrefix(addr, "0.0.0.0:") {
		return []string{addr}, nil
	}
	return nil, fmt.Errorf("%s names no nameservice %s (dfs.nameservices) nor a NameNode's HTTP address (dfs.namenode.http-address): give the WebHDFS address", dir, ns)
}

// readHadoopConf adds the properties of a Hadoop configuration file to conf; a missing file adds
// none.
func readHadoopConf(file string, conf map[string]string) error {
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var doc struct {
		Properties []struct {
			Name  string `xml:"name"`
			Value string `xml:"value"`
		} `xml:"property"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("read the Hadoop configuration %s: %w", file, err)
	}
	for _, p := range doc.Properties {
		conf[strings.TrimSpace(p.Name)] = strings.TrimSpace(p.Value)
	}
	return nil
}

func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
