// Package webhdfs is a small client of HDFS's REST API (WebHDFS, served by the NameNode's HTTP
// port): the file operations the Spark engine needs on an hdfs:// output besides what Spark
// writes — status, listing, folders, atomic renames, deletes, and small files written whole (a
// journal, a lock) and read back.
//
// It takes the NameNodes of a highly available nameservice and fails over from a standby
// (StandbyException) or an unreachable one to the next; it retries with exponential backoff what
// was surely not done (no connection, a standby, RetriableException) and, for the operations that
// may be repeated, a lost answer or a server error. It speaks simple authentication (the user.name
// parameter); a cluster secured with Kerberos (SPNEGO) is refused, saying so.
package webhdfs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/cenkalti/backoff/v4"
)

// Client talks to the WebHDFS of one nameservice's NameNodes.
type Client struct {
	bases []*url.URL // http://HOST:PORT, in the order given
	user  string
	hc    *http.Client

	mu     sync.Mutex
	active int // the NameNode that last answered as the active one
}

// maxRetryTime is how long an operation is retried, failing over between the NameNodes, before
// its last error is returned: a NameNode failover takes tens of seconds.
const maxRetryTime = 2 * time.Minute

// New returns a client of the NameNodes whose HTTP addresses are addrs (http://HOST:PORT, or
// HOST:PORT; more than one for a highly available nameservice), acting as user ("" sends no user
// name: the cluster's anonymous user).
func New(addrs []string, user string) (*Client, error) {
	if len(addrs) == 0 {
		return nil, errors.New("no WebHDFS address: give the NameNode's HTTP address (dfs.namenode.http-address)")
	}
	c := &Client{user: user, hc: &http.Client{
		// Writes and reads are redirected to a DataNode: the client follows by hand, so that a
		// write's body goes to the DataNode alone.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		// The files are small (a lock, a journal) and the other calls metadata: an answer this
		// late is a hung server, retried as a lost answer.
		Timeout: time.Minute,
	}}
	for _, addr := range addrs {
		if !strings.Contains(addr, "://") {
			addr = "http://" + addr
		}
		u, err := url.Parse(addr)
		if err != nil {
			return nil, fmt.Errorf("the WebHDFS address %q: %w", addr, err)
		}
		if (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
			return nil, fmt.Errorf("the WebHDFS address %q: want http://HOST:PORT, the NameNode's HTTP address (dfs.namenode.http-address)", addr)
		}
		u.Path = ""
		c.bases = append(c.bases, u)
	}
	return c, nil
}

// Addr is the HTTP address of the NameNode the client talks to (the one last seen active).
func (c *Client) Addr() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bases[c.active].String()
}

// FileStatus is what HDFS says of a file or a directory.
type FileStatus struct {
	PathSuffix       string `json:"pathSuffix"` // the name, in a listing
	Type             string `json:"type"`       // FILE, DIRECTORY or SYMLINK
	Length           int64  `json:"length"`
	ModificationTime int64  `json:"modificationTime"` // milliseconds since the epoch
	Owner            string `json:"owner"`
	// Now is the NameNode's clock when it answered (its Date header; this machine's clock if it
	// sent none), to compare ModificationTime with.
	Now time.Time `json:"-"`
}

// IsDir tells a directory.
func (s FileStatus) IsDir() bool { return s.Type == "DIRECTORY" }

// RemoteError is an operation HDFS refused, with the Java exception it reported. A missing path
// is fs.ErrNotExist and a path in the way fs.ErrExist (errors.Is).
type RemoteError struct {
	Op, Path  string
	Status    int    // the HTTP status
	Exception string // FileNotFoundException, FileAlreadyExistsException, AccessControlException, …
	Message   string
}

func (e *RemoteError) Error() string {
	msg := e.Message
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i] // the first line; the rest is a server-side stack
	}
	return fmt.Sprintf("WebHDFS %s %s: %s: %s", e.Op, e.Path, e.Exception, msg)
}

// Is makes a missing path fs.ErrNotExist and a path in the way fs.ErrExist.
func (e *RemoteError) Is(target error) bool {
	switch target {
	case fs.ErrNotExist:
		return e.Exception == "FileNotFoundException"
	case fs.ErrExist:
		// AlreadyBeingCreatedException: another writer is creating the file.
		return e.Exception == "FileAlreadyExistsException" || e.Exception == "AlreadyBeingCreatedException"
	case fs.ErrPermission:
		return e.Exception == "AccessControlException"
	}
	return false
}

// Status returns the status of p (an absolute path); a missing p is fs.ErrNotExist.
func (c *Client) Status(ctx context.Context, p string) (FileStatus, error) {
	var out struct {
		FileStatus FileStatus `json:"FileStatus"`
	}
	var now time.Time
	err := c.retry(ctx, true, func(base *url.URL) error {
		resp, err := c.send(ctx, base, http.MethodGet, "GETFILESTATUS", p, nil)
		if err != nil {
			return err
		}
		if now, err = http.ParseTime(resp.Header.Get("Date")); err != nil {
			now = time.Now()
		}
		return c.finish("GETFILESTATUS", p, resp, func(r io.Reader) error { return json.NewDecoder(r).Decode(&out) })
	})
	out.FileStatus.Now = now
	return out.FileStatus, err
}

// Exists tells whether p is there.
func (c *Client) Exists(ctx context.Context, p string) (bool, error) {
	_, err := c.Status(ctx, p)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// List returns the entries of the directory p, in name order.
func (c *Client) List(ctx context.Context, p string) ([]FileStatus, error) {
	var out struct {
		FileStatuses struct {
			FileStatus []FileStatus `json:"FileStatus"`
		} `json:"FileStatuses"`
	}
	err := c.call(ctx, true, http.MethodGet, "LISTSTATUS", p, nil, &out)
	return out.FileStatuses.FileStatus, err
}

// Mkdirs makes the directory p and its parents; an existing directory is no error.
func (c *Client) Mkdirs(ctx context.Context, p string) error {
	var out struct{ Boolean bool }
	if err := c.call(ctx, true, http.MethodPut, "MKDIRS", p, nil, &out); err != nil {
		return err
	}
	if !out.Boolean {
		return &RemoteError{Op: "MKDIRS", Path: p, Exception: "IOException", Message: "the directory was not made"}
	}
	return nil
}

// Rename renames from to to, atomically (HDFS's rename with no options): it fails if to exists
// (fs.ErrExist), if from is missing (fs.ErrNotExist) or if to's parent is missing. A rename whose
// answer was lost is not sent again: its error is returned.
func (c *Client) Rename(ctx context.Context, from, to string) error {
	return c.call(ctx, false, http.MethodPut, "RENAME", from, url.Values{"destination": {to}, "renameoptions": {"NONE"}}, nil)
}

// Delete removes p (with what it holds, if recursive); a missing p is no error. A delete whose
// answer was lost is not sent again: the path may have been made anew meanwhile (a lock given
// back, then taken by another run).
func (c *Client) Delete(ctx context.Context, p string, recursive bool) error {
	return c.call(ctx, false, http.MethodDelete, "DELETE", p, url.Values{"recursive": {fmt.Sprint(recursive)}}, nil)
}

// Create writes data as the file p, its parents made; unless overwrite, a file already there
// fails the write with fs.ErrExist (HDFS decides atomically: two writers, one wins). A write
// whose answer was lost is not sent again: another run may have written p meanwhile.
func (c *Client) Create(ctx context.Context, p string, data []byte, overwrite bool) error {
	return c.retry(ctx, false, func(base *url.URL) error {
		resp, err := c.send(ctx, base, http.MethodPut, "CREATE", p, url.Values{"overwrite": {fmt.Sprint(overwrite)}})
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusTemporaryRedirect {
			if err := c.finish("CREATE", p, resp, nil); err != nil {
				return err
			}
			return fmt.Errorf("WebHDFS CREATE %s: %s, want a redirect to a DataNode", p, resp.Status)
		}
		resp.Body.Close()
		req, err := http.NewRequestWithContext(ctx, http.MethodPut, resp.Header.Get("Location"), bytes.NewReader(data))
		if err != nil {
			return fmt.Errorf("WebHDFS CREATE %s: %w", p, err)
		}
		req.Header.Set("Content-Type", "application/octet-stream")
		if resp, err = c.hc.Do(req); err != nil {
			return fmt.Errorf("WebHDFS CREATE %s on the DataNode: %w", p, err)
		}
		return c.finish("CREATE", p, resp, nil)
	})
}

// maxRead bounds what ReadFile reads: it is for small files.
const maxRead = 16 << 20

// ReadFile returns the content of the file p (at most 16 MiB); a missing p is fs.ErrNotExist.
func (c *Client) ReadFile(ctx context.Context, p string) ([]byte, error) {
	var data []byte
	err := c.retry(ctx, true, func(base *url.URL) error {
		resp, err := c.send(ctx, base, http.MethodGet, "OPEN", p, nil)
		if err != nil {
			return err
		}
		if resp.StatusCode == http.StatusTemporaryRedirect {
			resp.Body.Close()
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, resp.Header.Get("Location"), nil)
			if err != nil {
				return fmt.Errorf("WebHDFS OPEN %s: %w", p, err)
			}
			if resp, err = c.hc.Do(req); err != nil {
				return fmt.Errorf("WebHDFS OPEN %s on the DataNode: %w", p, err)
			}
		}
		return c.finish("OPEN", p, resp, func(r io.Reader) error {
			data, err = io.ReadAll(io.LimitReader(r, maxRead+1))
			if err == nil && len(data) > maxRead {
				err = fmt.Errorf("longer than %d bytes", maxRead)
			}
			return err
		})
	})
	return data, err
}

// call runs op on p and decodes its JSON answer into out (if not nil); idempotent says whether
// it may be sent again after its answer was lost.
func (c *Client) call(ctx context.Context, idempotent bool, method, op, p string, q url.Values, out any) error {
	return c.retry(ctx, idempotent, func(base *url.URL) error {
		resp, err := c.send(ctx, base, method, op, p, q)
		if err != nil {
			return err
		}
		var read func(io.Reader) error
		if out != nil {
			read = func(r io.Reader) error { return json.NewDecoder(r).Decode(out) }
		}
		return c.finish(op, p, resp, read)
	})
}

// retry runs attempt on the NameNodes, the active one first, failing over to the next while
// they are standbys or unreachable; when none answered as the active one, or the answer says to
// retry, it tries again after an exponential backoff (with jitter), for up to maxRetryTime.
func (c *Client) retry(ctx context.Context, idempotent bool, attempt func(base *url.URL) error) error {
	b := backoff.NewExponentialBackOff()
	b.InitialInterval, b.MaxInterval, b.MaxElapsedTime = 200*time.Millisecond, 10*time.Second, maxRetryTime
	var last error
	err := backoff.Retry(func() error {
		c.mu.Lock()
		first := c.active
		c.mu.Unlock()
		var err error
		for i := range c.bases {
			n := (first + i) % len(c.bases)
			err = attempt(c.bases[n])
			last = err
			failover, again := classify(err, idempotent)
			if !failover {
				c.mu.Lock()
				c.active = n // it answered as the active one
				c.mu.Unlock()
				if err != nil && !again {
					return backoff.Permanent(err)
				}
				return err
			}
		}
		return err // every NameNode is a standby or unreachable: wait for a failover
	}, backoff.WithContext(b, ctx))
	if err != nil && last != nil && !errors.Is(last, err) {
		return fmt.Errorf("%w; the last answer: %w", err, last) // the context ended the retries
	}
	return err
}

// classify tells whether err calls for the next NameNode (a standby's refusal, no connection)
// and whether the operation may be tried again: what was surely not done (no connection, a
// standby, a RetriableException), or, when it is idempotent, a lost answer or a server error.
func classify(err error, idempotent bool) (failover, again bool) {
	if err == nil {
		return false, false
	}
	var re *RemoteError
	if errors.As(err, &re) {
		switch {
		case re.Exception == "StandbyException":
			return true, true
		case re.Exception == "RetriableException":
			return false, true
		}
		return false, idempotent && re.Status >= 500
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true, true
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false, false
	}
	var ue *url.Error
	return false, idempotent && errors.As(err, &ue)
}

func (c *Client) send(ctx context.Context, base *url.URL, method, op, p string, q url.Values) (*http.Response, error) {
	if !path.IsAbs(p) {
		return nil, fmt.Errorf("WebHDFS %s %q: not an absolute path", op, p)
	}
	v := url.Values{}
	for k, vs := range q {
		v[k] = vs
	}
	v.Set("op", op)
	if c.user != "" {
		v.Set("user.name", c.user)
	}
	u := *base
	u.Path = "/webhdfs/v1" + p
	u.RawQuery = v.Encode()
	req, err := http.NewRequestWithContext(ctx, method, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("WebHDFS %s %s: %w", op, p, err)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("WebHDFS %s %s: %w", op, p, err)
	}
	return resp, nil
}

// finish closes resp after handing a 2xx body to read (if not nil); any other status is a
// *RemoteError, from the RemoteException HDFS sent.
func (c *Client) finish(op, p string, resp *http.Response, read func(io.Reader) error) error {
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusUnauthorized && strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Negotiate") {
		return &RemoteError{Op: op, Path: p, Status: resp.StatusCode, Exception: "AuthenticationException",
			Message: "the NameNode asks for Kerberos (SPNEGO), which tablegate does not speak: hdfs:// outputs need a cluster with simple authentication " +
				"(hadoop.security.authentication=simple); on a Kerberized cluster write to s3a://, a table format or a local folder"}
	}
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		var rx struct {
			RemoteException struct {
				Exception string `json:"exception"`
				Message   string `json:"message"`
			} `json:"RemoteException"`
		}
		e := &RemoteError{Op: op, Path: p, Status: resp.StatusCode}
		if json.Unmarshal(b, &rx) == nil && rx.RemoteException.Exception != "" {
			e.Exception, e.Message = rx.RemoteException.Exception, rx.RemoteException.Message
		} else {
			e.Exception, e.Message = resp.Status, strings.TrimSpace(string(b))
		}
		return e
	}
	if read == nil {
		return nil
	}
	if err := read(resp.Body); err != nil {
		return fmt.Errorf("WebHDFS %s %s: %w", op, p, err)
	}
	return nil
}
