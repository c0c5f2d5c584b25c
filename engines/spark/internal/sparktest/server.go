// Package sparktest starts and stops a local Spark Connect server for tests: the
// spark-connect jar that pip's pyspark ships, in local mode, on a free loopback port.
package sparktest

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// HomeVar names the variable that points at pip's pyspark package directory (SPARK_HOME).
const HomeVar = "TABLEGATE_SPARK_HOME"

// Server is a running Spark Connect server.
type Server struct {
	Remote string // sc://127.0.0.1:PORT
	cmd    *exec.Cmd
	log    *syncBuffer
	dir    string
}

// Start launches the server with a 2 GB driver and waits until its port accepts connections,
// at most ready. dir holds its local files and log.
func Start(home, dir string, ready time.Duration) (*Server, error) {
	submit := filepath.Join(home, "bin", "spark-submit")
	if _, err := os.Stat(submit); err != nil {
		return nil, fmt.Errorf("%s=%s: no bin/spark-submit there: %w", HomeVar, home, err)
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(submit,
		"--class", "org.apache.spark.sql.connect.service.SparkConnectServer",
		"--name", "tablegate-test",
		"--master", "local[2]", "--driver-memory", "2g",
		"--conf", "spark.connect.grpc.binding.address=127.0.0.1",
		"--conf", "spark.connect.grpc.binding.port="+strconv.Itoa(port),
		"--conf", "spark.sql.session.timeZone=UTC",
		"--conf", "spark.ui.enabled=false",
		"--conf", "spark.sql.shuffle.partitions=4",
		"--conf", "spark.driver.extraJavaOptions=-Djava.io.tmpdir="+dir,
	)
	cmd.Env = append(os.Environ(), "SPARK_HOME="+home, "SPARK_CONNECT_MODE=0", "SPARK_LOCAL_IP=127.0.0.1",
		"SPARK_LOCAL_DIRS="+filepath.Join(dir, "local"))
	log := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = log, log
	// Its own process group: stopping it stops the JVM spark-submit execs and anything it forks.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start spark-submit: %w", err)
	}
	s := &Server{Remote: fmt.Sprintf("sc://127.0.0.1:%d", port), cmd: cmd, log: log, dir: dir}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(ready)
	for {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
		if err == nil {
			c.Close()
			go func() { <-exited }()
			return s, nil
		}
		select {
		case err := <-exited:
			return nil, fmt.Errorf("the Spark Connect server exited before its port opened (%v):\n%s", err, s.Log())
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.Stop()
			return nil, fmt.Errorf("the Spark Connect server's port did not open within %s:\n%s", ready, s.Log())
		}
	}
}

// Log returns the tail of the server's output.
func (s *Server) Log() string {
	b := s.log.Bytes()
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// Stop sends SIGTERM to the server's process group (the JVM's shutdown hook removes its
// temporary directories) and SIGKILL if it is still there after 30 s.
func (s *Server) Stop() {
	pgid := -s.cmd.Process.Pid
	_ = syscall.Kill(pgid, syscall.SIGTERM)
	for i := 0; i < 300; i++ {
		if err := syscall.Kill(pgid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	_ = syscall.Kill(pgid, syscall.SIGKILL)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) Bytes() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]byte(nil), s.b.Bytes()...)
}
