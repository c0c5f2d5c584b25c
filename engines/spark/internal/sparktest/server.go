// Package sparktest starts and stops Spark for tests, from pip's pyspark (Java 17 from the
// machine): a Spark Connect server in local mode, or a standalone cluster on 127.0.0.1 (a master,
// workers in their own JVMs, and a Spark Connect server whose driver is attached to the master).
// Every process runs in its own process group, so that stopping or killing one stops what it
// forked (a worker's executors).
package sparktest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// HomeVar names the variable that points at pip's pyspark package directory (SPARK_HOME).
const HomeVar = "TABLEGATE_SPARK_HOME"

// Config says what to start.
type Config struct {
	// Workers is the number of standalone workers; 0 runs the server in local mode (local[2]).
	Workers int
	// Ready bounds each wait for a process to be ready (a loaded 2-core machine took 118 s to
	// open the server's port).
	Ready time.Duration
	// Conf holds extra Spark properties for the Connect server (and through it, its executors).
	Conf map[string]string
	// Packages are Maven coordinates for spark.jars.packages, resolved into Ivy (a folder that
	// persists between runs, so that only the first one downloads).
	Packages []string
	Ivy      string
	// Excludes are group:artifact pairs left out of the packages' dependencies (spark.jars.excludes).
	Excludes []string
	// ClassPath holds jars (or dir/* wildcards) for the driver's and the executors' class path:
	// connectors installed on every node, as a platform team does, rather than shipped per run.
	ClassPath []string
	// S3Emulator, if set, is moto's server binary: an S3 emulator is started first and Spark's
	// s3a connector pointed at it (the connector's jars go in ClassPath).
	S3Emulator string
	// HDFSClassPath, if set, is the class path of a MiniDFSCluster (MiniClusterClassPath): an
	// HDFS is started first (with Java, the java binary) for hdfs:// inputs and outputs.
	HDFSClassPath []string
	Java          string
	// PIDFile, if set, gets a line "PGID NAME" for each process group started, so that a CI
	// script's trap can stop what a test binary killed by its timeout could not.
	PIDFile string
}

// Server is a running Spark Connect server, and in cluster mode its master and workers.
type Server struct {
	Remote string // sc://127.0.0.1:PORT
	// UI is the driver's web UI (its REST API under /api/v1); "" in local mode.
	UI string
	// MasterUI is the standalone master's web UI; "" in local mode.
	MasterUI string
	// S3 is the S3 emulator, if Config.S3Emulator asked for one.
	S3 *S3
	// HDFS is the MiniDFSCluster, if Config.HDFSClassPath asked for one.
	HDFS *HDFS

	home, dir string
	cfg       Config
	env       []string
	port      int // the Connect server's, kept across restarts
	uiPort    int
	master    string // spark://127.0.0.1:PORT
	masterP   *proc
	workers   []*proc
	connect   *proc
}

// Start starts what cfg describes, with its files (logs, work and local dirs) under dir, and
// waits until it is ready: in cluster mode, until every worker registered with the master and
// the server's application holds an executor on each worker.
func Start(home, dir string, cfg Config) (*Server, error) {
	if _, err := os.Stat(filepath.Join(home, "bin", "spark-submit")); err != nil {
		return nil, fmt.Errorf("%s=%s: no bin/spark-submit there: %w", HomeVar, home, err)
	}
	if cfg.Ready == 0 {
		cfg.Ready = 10 * time.Minute
	}
	s := &Server{home: home, dir: dir, cfg: cfg}
	s.env = append(os.Environ(), "SPARK_HOME="+home, "SPARK_CONNECT_MODE=0", "SPARK_LOCAL_IP=127.0.0.1",
		"SPARK_LOCAL_DIRS="+filepath.Join(dir, "local"), "SPARK_DAEMON_JAVA_OPTS=-Djava.io.tmpdir="+dir)
	var err error
	if s.port, err = freePort(); err != nil {
		return nil, err
	}
	s.Remote = fmt.Sprintf("sc://127.0.0.1:%d", s.port)
	if cfg.S3Emulator != "" {
		if s.S3, err = StartS3(cfg.S3Emulator, dir, cfg.PIDFile, cfg.Ready); err != nil {
			return nil, err
		}
	}
	if len(cfg.HDFSClassPath) > 0 {
		if s.HDFS, err = StartHDFS(cfg.Java, cfg.HDFSClassPath, dir, cfg.PIDFile, cfg.Ready); err != nil {
			s.Stop()
			return nil, err
		}
	}
	if cfg.Workers > 0 {
		if err := s.startCluster(); err != nil {
			s.Stop()
			return nil, err
		}
	}
	if err := s.StartConnect(); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

func (s *Server) startCluster() error {
	port, err := freePort()
	if err != nil {
		return err
	}
	ui, err := freePort()
	if err != nil {
		return err
	}
	s.master = fmt.Sprintf("spark://127.0.0.1:%d", port)
	s.MasterUI = fmt.Sprintf("http://127.0.0.1:%d", ui)
	s.masterP, err = s.start("master", daemon, filepath.Join(s.home, "bin", "spark-class"), "org.apache.spark.deploy.master.Master",
		"--host", "127.0.0.1", "--port", strconv.Itoa(port), "--webui-port", strconv.Itoa(ui))
	if err != nil {
		return err
	}
	s.workers = make([]*proc, s.cfg.Workers)
	for i := range s.workers {
		if err := s.startWorker(i); err != nil {
			return err
		}
	}
	return s.waitFor("the master with every worker registered", s.masterP, func(ctx context.Context) (bool, error) {
		return s.workersAlive(ctx, s.cfg.Workers)
	})
}

func (s *Server) startWorker(i int) error {
	work := filepath.Join(s.dir, fmt.Sprintf("worker%d", i))
	var err error
	s.workers[i], err = s.start(fmt.Sprintf("worker%d", i), daemon, filepath.Join(s.home, "bin", "spark-class"), "org.apache.spark.deploy.worker.Worker",
		"--host", "127.0.0.1", "--webui-port", "0", "--cores", "1", "--memory", "1500m", "--work-dir", work, s.master)
	return err
}

// StartConnect starts the Spark Connect server (again, after KillConnect) on its port and waits
// until it accepts connections and, in cluster mode, holds an executor on every worker.
func (s *Server) StartConnect() error {
	args := []string{
		"--class", "org.apache.spark.sql.connect.service.SparkConnectServer",
		"--name", "tablegate-test",
		"--conf", "spark.connect.grpc.binding.address=127.0.0.1",
		"--conf", "spark.connect.grpc.binding.port=" + strconv.Itoa(s.port),
		"--conf", "spark.sql.session.timeZone=UTC",
		"--conf", "spark.sql.shuffle.partitions=4",
		"--conf", "spark.driver.extraJavaOptions=-Djava.io.tmpdir=" + s.dir,
	}
	if s.cfg.Workers > 0 {
		if s.uiPort == 0 {
			p, err := freePort()
			if err != nil {
				return err
			}
			s.uiPort = p
			s.UI = fmt.Sprintf("http://127.0.0.1:%d", p)
		}
		args = append(args, "--master", s.master, "--driver-memory", "1g",
			"--conf", "spark.executor.memory=1g",
			"--conf", "spark.executor.cores=1",
			"--conf", "spark.cores.max="+strconv.Itoa(s.cfg.Workers),
			"--conf", "spark.executor.extraJavaOptions=-Djava.io.tmpdir="+s.dir,
			"--conf", "spark.ui.port="+strconv.Itoa(s.uiPort),
			// The REST API reports every job of a run, not the newest 1000.
			"--conf", "spark.ui.retainedJobs=100000",
			"--conf", "spark.ui.retainedStages=100000")
	} else {
		args = append(args, "--master", "local[2]", "--driver-memory", "2g", "--conf", "spark.ui.enabled=false")
	}
	if len(s.cfg.Packages) > 0 {
		args = append(args, "--conf", "spark.jars.packages="+strings.Join(s.cfg.Packages, ","))
		if s.cfg.Ivy != "" {
			args = append(args, "--conf", "spark.jars.ivy="+s.cfg.Ivy)
		}
		if len(s.cfg.Excludes) > 0 {
			args = append(args, "--conf", "spark.jars.excludes="+strings.Join(s.cfg.Excludes, ","))
		}
	}
	if len(s.cfg.ClassPath) > 0 {
		cp := strings.Join(s.cfg.ClassPath, string(os.PathListSeparator))
		args = append(args, "--conf", "spark.driver.extraClassPath="+cp, "--conf", "spark.executor.extraClassPath="+cp)
	}
	conf := map[string]string{}
	if s.S3 != nil {
		conf = s.S3.Conf()
	}
	if s.HDFS != nil {
		for k, v := range s.HDFS.Conf() {
			conf[k] = v
		}
	}
	for k, v := range s.cfg.Conf {
		conf[k] = v
	}
	for k, v := range conf {
		args = append(args, "--conf", k+"="+v)
	}
	var err error
	s.connect, err = s.start("connect", nil, filepath.Join(s.home, "bin", "spark-submit"), args...)
	if err != nil {
		return err
	}
	if err := s.waitFor("the Spark Connect server's port", s.connect, func(context.Context) (bool, error) {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", s.port), time.Second)
		if err == nil {
			c.Close()
		}
		return err == nil, nil
	}); err != nil {
		return err
	}
	if s.cfg.Workers == 0 {
		return nil
	}
	return s.waitFor("an executor of the server's application on every worker", s.connect, func(ctx context.Context) (bool, error) {
		n, err := s.executors(ctx)
		return n >= s.cfg.Workers, err
	})
}

// KillWorker kills worker i and its executors with SIGKILL, as a lost machine would.
func (s *Server) KillWorker(i int) { s.workers[i].kill() }

// RestartWorker starts worker i again after KillWorker and waits until the master has every
// worker and the server's application an executor on each.
func (s *Server) RestartWorker(i int) error {
	if err := s.startWorker(i); err != nil {
		return err
	}
	if err := s.waitFor("the restarted worker", s.workers[i], func(ctx context.Context) (bool, error) {
		return s.workersAlive(ctx, len(s.workers))
	}); err != nil {
		return err
	}
	return s.waitFor("an executor on the restarted worker", s.connect, func(ctx context.Context) (bool, error) {
		n, err := s.executors(ctx)
		return n >= len(s.workers), err
	})
}

// KillConnect kills the Spark Connect server (its driver) with SIGKILL; StartConnect brings it back.
func (s *Server) KillConnect() { s.connect.kill() }

// Stop stops everything it started, the server first (its shutdown hook removes its temporary
// directories), then the workers and the master.
func (s *Server) Stop() {
	if s.connect != nil {
		s.connect.stop()
	}
	for _, w := range s.workers {
		if w != nil {
			w.stop()
		}
	}
	if s.masterP != nil {
		s.masterP.stop()
	}
	if s.S3 != nil {
		s.S3.Stop()
	}
	if s.HDFS != nil {
		s.HDFS.Stop()
	}
}

// Log returns the tail of each process's output.
func (s *Server) Log() string {
	var b strings.Builder
	procs := append(append([]*proc{s.masterP}, s.workers...), s.connect)
	if s.S3 != nil {
		procs = append(procs, s.S3.p)
	}
	if s.HDFS != nil {
		procs = append(procs, s.HDFS.p)
	}
	for _, p := range procs {
		if p != nil {
			fmt.Fprintf(&b, "--- %s (%s):\n%s\n", p.name, p.logPath, p.tail(4000))
		}
	}
	return b.String()
}

// waitFor polls ready every 200 ms until it says yes, p exits (an error with p's output) or
// cfg.Ready passes (an error with every process's output).
func (s *Server) waitFor(what string, p *proc, ready func(context.Context) (bool, error)) error {
	deadline := time.Now().Add(s.cfg.Ready)
	var last error
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		ok, err := ready(ctx)
		cancel()
		if ok {
			return nil
		}
		if err != nil {
			last = err
		}
		select {
		case <-p.done:
			return fmt.Errorf("%s exited (%v) while waiting for %s:\n%s", p.name, p.err, what, p.tail(8000))
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: not ready within %s (last: %v):\n%s", what, s.cfg.Ready, last, s.Log())
		}
	}
}

func (s *Server) workersAlive(ctx context.Context, n int) (bool, error) {
	var st struct {
		Status  string `json:"status"`
		Workers []struct {
			State string `json:"state"`
		} `json:"workers"`
	}
	if err := getJSON(ctx, s.MasterUI+"/json/", &st); err != nil {
		return false, err
	}
	alive := 0
	for _, w := range st.Workers {
		if w.State == "ALIVE" {
			alive++
		}
	}
	return st.Status == "ALIVE" && alive >= n, nil
}

// Executor is an executor of the server's application as the REST API reports it.
type Executor struct {
	ID          string `json:"id"`
	IsActive    bool   `json:"isActive"`
	ActiveTasks int    `json:"activeTasks"`
}

// Executors lists the live executors of the server's application, the driver aside.
func (s *Server) Executors(ctx context.Context) ([]Executor, error) {
	app, err := s.App(ctx)
	if err != nil {
		return nil, err
	}
	var ex []Executor
	if err := getJSON(ctx, s.UI+"/api/v1/applications/"+app+"/executors", &ex); err != nil {
		return nil, err
	}
	live := ex[:0]
	for _, e := range ex {
		if e.ID != "driver" && e.IsActive {
			live = append(live, e)
		}
	}
	return live, nil
}

func (s *Server) executors(ctx context.Context) (int, error) {
	ex, err := s.Executors(ctx)
	return len(ex), err
}

// App returns the id of the server's application, from its REST API (cluster mode).
func (s *Server) App(ctx context.Context) (string, error) {
	if s.UI == "" {
		return "", errors.New("the Spark UI is off in local mode: start a cluster")
	}
	var apps []struct {
		ID string `json:"id"`
	}
	if err := getJSON(ctx, s.UI+"/api/v1/applications", &apps); err != nil {
		return "", err
	}
	if len(apps) != 1 {
		return "", fmt.Errorf("the server's REST API lists %d applications", len(apps))
	}
	return apps[0].ID, nil
}

// Job is a Spark job as the REST API reports it.
type Job struct {
	ID          int    `json:"jobId"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Status      string `json:"status"` // RUNNING, SUCCEEDED, FAILED, UNKNOWN
	StageIDs    []int  `json:"stageIds"`
}

// Stage is one attempt of a Spark stage as the REST API reports it.
type Stage struct {
	ID           int   `json:"stageId"`
	Attempt      int   `json:"attemptId"`
	InputRecords int64 `json:"inputRecords"`
	InputBytes   int64 `json:"inputBytes"`
	ShuffleWrite int64 `json:"shuffleWriteRecords"`
}

// Jobs lists the application's jobs, newest first.
func (s *Server) Jobs(ctx context.Context) ([]Job, error) {
	app, err := s.App(ctx)
	if err != nil {
		return nil, err
	}
	var jobs []Job
	err = getJSON(ctx, s.UI+"/api/v1/applications/"+app+"/jobs", &jobs)
	return jobs, err
}

// Stages lists every attempt of every stage of the application.
func (s *Server) Stages(ctx context.Context) ([]Stage, error) {
	app, err := s.App(ctx)
	if err != nil {
		return nil, err
	}
	var st []Stage
	err = getJSON(ctx, s.UI+"/api/v1/applications/"+app+"/stages", &st)
	return st, err
}

func getJSON(ctx context.Context, url string, v any) error {
	return request(ctx, http.MethodGet, url, nil, func(r io.Reader) error { return json.NewDecoder(r).Decode(v) })
}

// request sends an HTTP request and hands a 2xx response's body to read (if not nil); any other
// status is an error with the start of the body.
func request(ctx context.Context, method, url string, body io.Reader, read func(io.Reader) error) error {
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 500))
		return fmt.Errorf("%s %s: %s %s", method, url, resp.Status, b)
	}
	if read == nil {
		return nil
	}
	return read(resp.Body)
}

// proc is a process of the cluster, in its own process group, its output in a log file.
type proc struct {
	name, logPath string
	cmd           *exec.Cmd
	done          chan struct{} // closed when it exited
	err           error
}

// daemon is the environment of the master and the workers: they need little memory. (The
// launcher gives SPARK_DAEMON_MEMORY to the Connect server's driver too, hence not for all.)
var daemon = []string{"SPARK_DAEMON_MEMORY=256m"}

func (s *Server) start(name string, env []string, bin string, args ...string) (*proc, error) {
	return startProc(s.dir, name, append(append([]string(nil), s.env...), env...), s.cfg.PIDFile, bin, args...)
}

// startProc starts bin in its own process group, its output in dir/NAME.log, and records its
// process group in pidFile if that is set.
func startProc(dir, name string, env []string, pidFile, bin string, args ...string) (*proc, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	logPath := filepath.Join(dir, name+".log")
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{name: name, logPath: logPath, cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	if pidFile != "" {
		if err := appendLine(pidFile, fmt.Sprintf("%d %s", cmd.Process.Pid, name)); err != nil {
			p.kill()
			return nil, err
		}
	}
	return p, nil
}

func appendLine(path, line string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintln(f, line); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// kill sends SIGKILL to the process group and waits for the process itself to be gone.
func (p *proc) kill() {
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.done
}

// stop sends SIGTERM to the process group, and SIGKILL if any of it is still there after 30 s.
func (p *proc) stop() {
	pgid := -p.cmd.Process.Pid
	_ = syscall.Kill(pgid, syscall.SIGTERM)
	for i := 0; i < 300; i++ {
		if err := syscall.Kill(pgid, 0); errors.Is(err, syscall.ESRCH) {
			<-p.done
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	_ = syscall.Kill(pgid, syscall.SIGKILL)
	<-p.done
}

func (p *proc) tail(n int64) string {
	f, err := os.Open(p.logPath)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > n {
		_, _ = f.Seek(st.Size()-n, io.SeekStart)
	}
	b, _ := io.ReadAll(f)
	return string(b)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
