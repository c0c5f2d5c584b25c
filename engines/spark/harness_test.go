package spark_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/tablegate/tablegate/engines/spark/internal/sparktest"
)

const (
	// workersVar asks for a standalone cluster of that many workers instead of a local-mode server.
	workersVar = "TABLEGATE_SPARK_WORKERS"
	// pidFileVar names a file that gets the process groups started (CI's trap stops them).
	pidFileVar = "TABLEGATE_SPARK_PIDFILE"
	// s3JarsVar names a folder of the s3a connector's jars (hadoop-aws and the AWS SDK bundle, as
	// .ci/run resolves them from Maven Central): with it, an S3 emulator (moto) is started and
	// the object-store tests run.
	s3JarsVar = "TABLEGATE_SPARK_S3_JARS"
	// motoVar names moto's server binary (default: moto_server on PATH).
	motoVar = "TABLEGATE_MOTO_SERVER"
	// hdfsJarsVar names a folder holding Hadoop's hadoop-client-minicluster jar (as .ci/run
	// resolves it from Maven Central): with it, a MiniDFSCluster is started and the HDFS tests run.
	hdfsJarsVar = "TABLEGATE_HDFS_JARS"
)

// startSpark starts the Spark the slow tests share: a local-mode Spark Connect server, or with
// TABLEGATE_SPARK_WORKERS=N a standalone cluster of N workers with the server attached.
func startSpark(home, dir string) (*sparktest.Server, error) {
	// Generous: a loaded 2-core machine took 118 s to open the server's port.
	cfg := sparktest.Config{Ready: 10 * time.Minute, PIDFile: os.Getenv(pidFileVar)}
	if v := os.Getenv(workersVar); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%s=%q: want a number of workers", workersVar, v)
		}
		cfg.Workers = n
	}
	if jars := os.Getenv(s3JarsVar); jars != "" {
		cfg.ClassPath = append(cfg.ClassPath, filepath.Join(jars, "*"))
		cfg.S3Emulator = os.Getenv(motoVar)
		if cfg.S3Emulator == "" {
			cfg.S3Emulator = "moto_server"
		}
	}
	if jars := os.Getenv(hdfsJarsVar); jars != "" {
		cp, err := sparktest.MiniClusterClassPath(jars, home)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", hdfsJarsVar, err)
		}
		if cfg.Java, err = exec.LookPath("java"); err != nil {
			return nil, fmt.Errorf("%s: the MiniDFSCluster needs java on PATH: %w", hdfsJarsVar, err)
		}
		cfg.HDFSClassPath = cp
	}
	return sparktest.Start(home, dir, cfg)
}
