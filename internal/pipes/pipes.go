// Package pipes is the external-process side of the Dagster Pipes protocol (version 0.1): it
// decodes the bootstrap parameters Dagster passes in the environment, loads the context, and
// writes the messages (opened, report_asset_check, report_asset_materialization,
// report_custom_message, log, closed) as JSON lines to the channel Dagster reads.
//
// There is no Go Pipes library to depend on, and the protocol is small: every message is
// {"__dagster_pipes_version": "0.1", "method": ..., "params": ...} on a line of its own, and
// Dagster calls its handler with params as keyword arguments, so each method's key set must be
// exact.
package pipes

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
)

// The environment variables Dagster sets on the process it launches.
const (
	ContextVar  = "DAGSTER_PIPES_CONTEXT"
	MessagesVar = "DAGSTER_PIPES_MESSAGES"
)

// Version is the protocol version this package speaks.
const Version = "0.1"

// Context is what Dagster tells the process about the step it runs in. Fields Dagster may add
// later are ignored.
type Context struct {
	// AssetKeys are the step's selected assets as escaped user strings (a/b, with a literal /
	// inside a part written \/); echo them back as received.
	AssetKeys    []string       `json:"asset_keys"`
	RunID        string         `json:"run_id"`
	JobName      *string        `json:"job_name"`
	RetryNumber  int            `json:"retry_number"`
	PartitionKey *string        `json:"partition_key"`
	Extras       map[string]any `json:"extras"`
}

// Session is an open Pipes connection: its context and its message channel.
type Session struct {
	ctx Context

	mu     sync.Mutex
	out    io.Writer
	file   *os.File      // the messages file, when the channel is a file
	buffer *bytes.Buffer // buffered_stdio: messages wait for Close
	flush  io.Writer     // where the buffer goes at Close
	closed bool
	err    error // the first write error; later messages are not attempted
}

// Open connects to Dagster when lookup (os.LookupEnv in a CLI) has DAGSTER_PIPES_CONTEXT, and
// sends "opened". It returns nil and no error when the variable is absent: the process was not
// launched by Dagster. stdout and stderr are the process's streams, for the stdio channels.
func Open(lookup func(string) (string, bool), stdout, stderr io.Writer) (*Session, error) {
	ctxParam, ok := lookup(ContextVar)
	if !ok {
		return nil, nil
	}
	var cp struct {
		Path *string         `json:"path"`
		Data json.RawMessage `json:"data"`
	}
	if err := decodeParam(ContextVar, ctxParam, &cp); err != nil {
		return nil, err
	}
	var raw []byte
	switch {
	case cp.Path != nil:
		data, err := os.ReadFile(*cp.Path)
		if err != nil {
			return nil, fmt.Errorf("dagster pipes: read the context file: %w", err)
		}
		raw = data
	case len(cp.Data) > 0 && string(cp.Data) != "null":
		raw = cp.Data
	default:
		return nil, fmt.Errorf("dagster pipes: %s has neither \"path\" nor \"data\"; only the temp-file and env context injectors are supported", ContextVar)
	}
	s := &Session{}
	if err := json.Unmarshal(raw, &s.ctx); err != nil {
		return nil, fmt.Errorf("dagster pipes: the context is not the JSON Dagster writes: %w", err)
	}

	msgParam, ok := lookup(MessagesVar)
	if !ok {
		return nil, fmt.Errorf("dagster pipes: %s is set but %s is not; launch the process with a Pipes client", ContextVar, MessagesVar)
	}
	var mp struct {
		Path          *string `json:"path"`
		Stdio         *string `json:"stdio"`
		BufferedStdio *string `json:"buffered_stdio"`
	}
	if err := decodeParam(MessagesVar, msgParam, &mp); err != nil {
		return nil, err
	}
	stream := func(name string) (io.Writer, error) {
		switch name {
		case "stdout":
			return stdout, nil
		case "stderr":
			return stderr, nil
		}
		return nil, fmt.Errorf("dagster pipes: unknown stdio stream %q (want stdout or stderr)", name)
	}
	switch {
	case mp.Path != nil:
		// One handle in append mode: what Dagster's own writer does by reopening per message.
		f, err := os.OpenFile(*mp.Path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return nil, fmt.Errorf("dagster pipes: open the messages file: %w", err)
		}
		s.file, s.out = f, f
	case mp.Stdio != nil:
		w, err := stream(*mp.Stdio)
		if err != nil {
			return nil, err
		}
		s.out = w
	case mp.BufferedStdio != nil:
		w, err := stream(*mp.BufferedStdio)
		if err != nil {
			return nil, err
		}
		s.buffer, s.flush = &bytes.Buffer{}, w
		s.out = s.buffer
	default:
		return nil, fmt.Errorf("dagster pipes: %s has none of \"path\", \"stdio\", \"buffered_stdio\"; only file and stdio message readers are supported", MessagesVar)
	}
	if err := s.send("opened", map[string]any{"extras": map[string]any{}}); err != nil {
		s.release()
		return nil, err
	}
	return s, nil
}

// decodeParam decodes a bootstrap parameter: base64, then zlib, then JSON.
func decodeParam(name, value string, into any) error {
	compressed, err := base64.StdEncoding.DecodeString(strings.TrimSpace(value))
	if err != nil {
		return fmt.Errorf("dagster pipes: %s is not base64: %w", name, err)
	}
	zr, err := zlib.NewReader(bytes.NewReader(compressed))
	if err != nil {
		return fmt.Errorf("dagster pipes: %s is not zlib-compressed: %w", name, err)
	}
	defer zr.Close()
	data, err := io.ReadAll(io.LimitReader(zr, 16<<20))
	if err != nil {
		return fmt.Errorf("dagster pipes: decompress %s: %w", name, err)
	}
	if err := json.Unmarshal(data, into); err != nil {
		return fmt.Errorf("dagster pipes: %s is not a JSON object: %w", name, err)
	}
	return nil
}

// EncodeParam encodes a bootstrap parameter as Dagster does (JSON, zlib, base64): for tests and
// for launching a process by hand.
func EncodeParam(v any) (string, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	zw := zlib.NewWriter(&b)
	if _, err := zw.Write(data); err != nil {
		return "", err
	}
	if err := zw.Close(); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(b.Bytes()), nil
}

// Context is the step's context as Dagster sent it.
func (s *Session) Context() Context { return s.ctx }

// Severity is a check's severity on the wire.
type Severity string

// The two severities Dagster accepts.
const (
	SeverityError Severity = "ERROR"
	SeverityWarn  Severity = "WARN"
)

// ReportAssetCheck sends one check result.
func (s *Session) ReportAssetCheck(assetKey, checkName string, passed bool, severity Severity, metadata Metadata) error {
	if severity != SeverityError && severity != SeverityWarn {
		return fmt.Errorf("dagster pipes: severity %q: use ERROR or WARN", severity)
	}
	return s.send("report_asset_check", map[string]any{
		"asset_key": assetKey, "check_name": checkName, "passed": passed, "severity": severity, "metadata": metadata.wire(),
	})
}

// ReportAssetMaterialization sends the asset's materialization; Dagster accepts one per asset
// and step. dataVersion may be "" (none).
func (s *Session) ReportAssetMaterialization(assetKey string, metadata Metadata, dataVersion string) error {
	var dv any
	if dataVersion != "" {
		dv = dataVersion
	}
	return s.send("report_asset_materialization", map[string]any{"asset_key": assetKey, "data_version": dv, "metadata": metadata.wire()})
}

// ReportCustomMessage sends any JSON value, which the orchestrator reads with
// get_custom_messages().
func (s *Session) ReportCustomMessage(payload any) error {
	return s.send("report_custom_message", map[string]any{"payload": payload})
}

// Exception is the error a closed message carries. Name is the error's type (ValidationAbortError).
type Exception struct {
	Name, Message string
}

// Close sends "closed", with exc when the process failed, and releases the channel. It is safe
// to call more than once; only the first call sends.
func (s *Session) Close(exc *Exception) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return s.err
	}
	s.mu.Unlock()
	params := map[string]any{}
	if exc != nil {
		params["exception"] = map[string]any{"name": exc.Name, "message": exc.Message, "stack": []string{}, "cause": nil, "context": nil}
	}
	err := s.send("closed", params)
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	if rerr := s.release(); err == nil {
		err = rerr
	}
	return err
}

func (s *Session) release() error {
	var err error
	if s.buffer != nil {
		_, err = s.flush.Write(s.buffer.Bytes())
		s.buffer = nil
	}
	if s.file != nil {
		if cerr := s.file.Close(); err == nil {
			err = cerr
		}
		s.file = nil
	}
	return err
}

// send writes one message as one line, in one write, so a reader tailing the file never sees
// half of it.
func (s *Session) send(method string, params map[string]any) error {
	line, err := json.Marshal(map[string]any{"__dagster_pipes_version": Version, "method": method, "params": params})
	if err != nil {
		return fmt.Errorf("dagster pipes: encode %s: %w", method, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("dagster pipes: %s after closed", method)
	}
	if s.err != nil {
		return s.err
	}
	if _, err := s.out.Write(append(line, '\n')); err != nil {
		s.err = fmt.Errorf("dagster pipes: write %s: %w", method, err)
		return s.err
	}
	if s.file != nil {
		// Dagster deletes the file's folder once the process exits; what was written must be
		// in the file by then, not in a buffer.
		_ = s.file.Sync()
	}
	return nil
}

// ReadMessages parses a messages stream back into (method, params) pairs: for tests and tools
// that check what a process sent. Lines that are not Pipes messages are skipped, as Dagster's
// stdio reader skips them.
func ReadMessages(r io.Reader) ([]Message, error) {
	var out []Message
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var m Message
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.Version == "" {
			continue
		}
		out = append(out, m)
	}
	return out, sc.Err()
}

// Message is one message as read back.
type Message struct {
	Version string                     `json:"__dagster_pipes_version"`
	Method  string                     `json:"method"`
	Params  map[string]json.RawMessage `json:"params"`
}

// ParamKeys are a message's parameter names, sorted.
func (m Message) ParamKeys() []string {
	keys := make([]string, 0, len(m.Params))
	for k := range m.Params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
