// Package webhdfs is a small client of HDFS's REST API (WebHDFS, served by the NameNode's HTTP
// port): the file operations the Spark engine needs on an hdfs:// output besides what Spark
// writes — status, listing, folders, atomic renames, deletes, and small files written whole (a
// journal, a lock) and read back.
//
// It speaks simple authentication (the user.name parameter); a cluster secured with Kerberos
// (SPNEGO) is not supported.
package webhdfs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"
)

// Client talks to one NameNode's WebHDFS.
type Client struct {
	base *url.URL // http://HOST:PORT
	user string
	hc   *http.Client
}

// New returns a client of the NameNode whose HTTP address is addr (http://HOST:PORT, or
// HOST:PORT), acting as user ("" sends no user name: the cluster's anonymous user).
func New(addr, user string) (*Client, error) {
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
	return &Client{base: u, user: user, hc: &http.Client{
		// Writes and reads are redirected to a DataNode: the client follows by hand, so that a
		// write's body goes to the DataNode alone.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}, nil
}

// Addr is the NameNode's HTTP address the client talks to.
func (c *Client) Addr() string { return c.base.String() }

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
	resp, err := c.send(ctx, http.MethodGet, "GETFILESTATUS", p, nil, nil)
	if err != nil {
		return FileStatus{}, err
	}
	now, derr := http.ParseTime(resp.Header.Get("Date"))
	if derr != nil {
		now = time.Now()
	}
	err = c.finish("GETFILESTATUS", p, resp, func(r io.Reader) error { return json.NewDecoder(r).Decode(&out) })
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
	err := c.call(ctx, http.MethodGet, "LISTSTATUS", p, nil, &out)
	return out.FileStatuses.FileStatus, err
}

// Mkdirs makes the directory p and its parents; an existing directory is no error.
func (c *Client) Mkdirs(ctx context.Context, p string) error {
	var out struct{ Boolean bool }
	if err := c.call(ctx, http.MethodPut, "MKDIRS", p, nil, &out); err != nil {
		return err
	}
	if !out.Boolean {
		return &RemoteError{Op: "MKDIRS", Path: p, Exception: "IOException", Message: "the directory was not made"}
	}
	return nil
}

// Rename renames from to to, atomically (HDFS's rename with no options): it fails if to exists
// (fs.ErrExist), if from is missing (fs.ErrNotExist) or if to's parent is missing.
func (c *Client) Rename(ctx context.Context, from, to string) error {
	return c.call(ctx, http.MethodPut, "RENAME", from, url.Values{"destination": {to}, "renameoptions": {"NONE"}}, nil)
}

// Delete removes p (with what it holds, if recursive); a missing p is no error.
func (c *Client) Delete(ctx context.Context, p string, recursive bool) error {
	return c.call(ctx, http.MethodDelete, "DELETE", p, url.Values{"recursive": {fmt.Sprint(recursive)}}, nil)
}

// Create writes data as the file p, its parents made; unless overwrite, a file already there
// fails the write with fs.ErrExist (HDFS decides atomically: two writers, one wins).
func (c *Client) Create(ctx context.Context, p string, data []byte, overwrite bool) error {
	resp, err := c.send(ctx, http.MethodPut, "CREATE", p, url.Values{"overwrite": {fmt.Sprint(overwrite)}}, nil)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTemporaryRedirect {
		return fmt.Errorf("WebHDFS CREATE %s: %s, want a redirect to a DataNode", p, resp.Status)
	}
	loc := resp.Header.Get("Location")
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, loc, bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("WebHDFS CREATE %s: %w", p, err)
	}
	req.Header.Set("Content-Type", "application/octet-stream")
	resp, err = c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("WebHDFS CREATE %s: %w", p, err)
	}
	return c.finish("CREATE", p, resp, nil)
}

// maxRead bounds what ReadFile reads: it is for small files.
const maxRead = 16 << 20

// ReadFile returns the content of the file p (at most 16 MiB); a missing p is fs.ErrNotExist.
func (c *Client) ReadFile(ctx context.Context, p string) ([]byte, error) {
	resp, err := c.send(ctx, http.MethodGet, "OPEN", p, nil, nil)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusTemporaryRedirect {
		resp.Body.Close()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, resp.Header.Get("Location"), nil)
		if err != nil {
			return nil, fmt.Errorf("WebHDFS OPEN %s: %w", p, err)
		}
		if resp, err = c.hc.Do(req); err != nil {
			return nil, fmt.Errorf("WebHDFS OPEN %s: %w", p, err)
		}
	}
	var data []byte
	err = c.finish("OPEN", p, resp, func(r io.Reader) error {
		data, err = io.ReadAll(io.LimitReader(r, maxRead+1))
		if err == nil && len(data) > maxRead {
			err = fmt.Errorf("longer than %d bytes", maxRead)
		}
		return err
	})
	return data, err
}

// call runs op on p and decodes its JSON answer into out (if not nil).
func (c *Client) call(ctx context.Context, method, op, p string, q url.Values, out any) error {
	resp, err := c.send(ctx, method, op, p, q, nil)
	if err != nil {
		return err
	}
	var read func(io.Reader) error
	if out != nil {
		read = func(r io.Reader) error { return json.NewDecoder(r).Decode(out) }
	}
	return c.finish(op, p, resp, read)
}

func (c *Client) send(ctx context.Context, method, op, p string, q url.Values, body io.Reader) (*http.Response, error) {
	if !path.IsAbs(p) {
		return nil, fmt.Errorf("WebHDFS %s %q: not an absolute path", op, p)
	}
	if q == nil {
		q = url.Values{}
	}
	q.Set("op", op)
	if c.user != "" {
		q.Set("user.name", c.user)
	}
	u := *c.base
	u.Path = "/webhdfs/v1" + p
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
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
