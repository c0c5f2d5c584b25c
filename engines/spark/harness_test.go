package spark_test

import (
	"fmt"
	"os"
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
	return sparktest.Start(home, dir, cfg)
}
