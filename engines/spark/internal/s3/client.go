// Package s3 is a small client of the S3 API, on the standard library only: the requests the
// Spark engine's object-store outputs need (list, get, put with conditions, server-side copy,
// delete), signed with AWS Signature Version 4. It works against AWS S3 and the stores that speak
// its API (moto, MinIO…).
package s3

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Config is where the store is and who signs the requests.
type Config struct {
	// Endpoint is the store's base URL (http://127.0.0.1:9000); "" is AWS S3 in Region.
	Endpoint string
	// Region signs the requests (us-east-1 when "").
	Region string
	Credentials
	// PathStyle addresses buckets as the endpoint's first path element, not as a host name.
	PathStyle bool
	// HTTP sends the requests (http.DefaultClient when nil).
	HTTP *http.Client
}

// Client sends signed S3 requests.
type Client struct {
	base   *url.URL
	cfg    Config
	region string
	now    func() time.Time
	// maxSingle and partSize replace maxSingleCopy and partCopy when not 0, and pageSize the
	// store's page size of listings (tests).
	maxSingle, partSize int64
	pageSize            int
}

// New checks the configuration and returns its client.
func New(cfg Config) (*Client, error) {
	region := cfg.Region
	if region == "" {
		region = "us-east-1"
	}
	endpoint := cfg.Endpoint
	if endpoint == "" {
		endpoint = "https://s3." + region + ".amazonaws.com"
	}
	base, err := url.Parse(endpoint)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("S3 endpoint %q: want http(s)://HOST[:PORT]", endpoint)
	}
	if cfg.AccessKeyID == "" || cfg.SecretAccessKey == "" {
		return nil, errors.New("no S3 credentials: give an access key id and a secret access key")
	}
	return &Client{base: base, cfg: cfg, region: region, now: time.Now}, nil
}

// Error is a request the store refused or could not answer.
type Error struct {
	Op, Bucket, Key string
	Status          int    // the HTTP status (0: no answer)
	Code, Message   string // S3's error code (NoSuchKey, PreconditionFailed…) and message
	Err             error  // a transport error
}

func (e *Error) Error() string {
	what := fmt.Sprintf("S3 %s s3://%s/%s", e.Op, e.Bucket, e.Key)
	if e.Err != nil {
		return fmt.Sprintf("%s: %v", what, e.Err)
	}
	if e.Code == "" {
		return fmt.Sprintf("%s: HTTP %d", what, e.Status)
	}
	return fmt.Sprintf("%s: %s (HTTP %d): %s", what, e.Code, e.Status, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// IsPreconditionFailed reports whether err is a conditional request whose condition did not hold.
func IsPreconditionFailed(err error) bool {
	var e *Error
	return errors.As(err, &e) && (e.Status == http.StatusPreconditionFailed || e.Code == "PreconditionFailed")
}

// IsNotFound reports whether err is a request for a key or bucket that does not exist.
func IsNotFound(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Status == http.StatusNotFound
}

// request is one S3 call.
type request struct {
	op, method, bucket, key string
	query                   [][2]string // unescaped, in any order
	header                  map[string]string
	body                    []byte
}

// do sends r, retrying what a busy or restarting store answers (5xx, a connection error) a few
// times, and returns the response's status, headers and body for a 2xx answer.
func (c *Client) do(ctx context.Context, r request) (http.Header, []byte, error) {
	var last error
	for attempt := range 4 {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return nil, nil, &Error{Op: r.op, Bucket: r.bucket, Key: r.key, Err: ctx.Err()}
			case <-time.After(time.Duration(attempt*attempt) * 200 * time.Millisecond):
			}
		}
		h, body, err := c.once(ctx, r)
		if err == nil {
			return h, body, nil
		}
		last = err
		var e *Error
		if !errors.As(err, &e) || (e.Err == nil && e.Status < 500) || ctx.Err() != nil {
			break
		}
	}
	return nil, nil, last
}

func (c *Client) once(ctx context.Context, r request) (http.Header, []byte, error) {
	fail := func(status int, err error) *Error {
		return &Error{Op: r.op, Bucket: r.bucket, Key: r.key, Status: status, Err: err}
	}
	u := *c.base
	path := strings.TrimSuffix(u.Path, "/")
	if c.cfg.PathStyle {
		path += "/" + r.bucket
	} else {
		u.Host = r.bucket + "." + u.Host
	}
	if r.key != "" || !c.cfg.PathStyle {
		path += "/" + r.key
	}
	u.Path = path
	u.RawPath = escape(path, true)
	var q []string
	for _, kv := range r.query {
		q = append(q, escape(kv[0], false)+"="+escape(kv[1], false))
	}
	u.RawQuery = strings.Join(q, "&")
	req, err := http.NewRequestWithContext(ctx, r.method, u.String(), bytes.NewReader(r.body))
	if err != nil {
		return nil, nil, fail(0, err)
	}
	req.ContentLength = int64(len(r.body))
	for k, v := range r.header {
		req.Header.Set(k, v)
	}
	req.Header.Set("X-Amz-Content-Sha256", hexSHA256(r.body))
	sign(req, c.cfg.Credentials, c.region, c.now())
	hc := c.cfg.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, nil, fail(0, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, nil, fail(resp.StatusCode, err)
	}
	if resp.StatusCode/100 != 2 {
		e := fail(resp.StatusCode, nil)
		var x struct {
			Code    string `xml:"Code"`
			Message string `xml:"Message"`
		}
		if xml.Unmarshal(body, &x) == nil {
			e.Code, e.Message = x.Code, x.Message
		}
		return nil, nil, e
	}
	return resp.Header, body, nil
}

// Object is a listed object.
type Object struct {
	Key  string
	Size int64
	ETag string
}

// List returns every object whose key starts with prefix, in key order (ListObjectsV2, page by
// page).
func (c *Client) List(ctx context.Context, bucket, prefix string) ([]Object, error) {
	var out []Object
	token := ""
	for {
		q := [][2]string{{"list-type", "2"}, {"prefix", prefix}}
		if token != "" {
			q = append(q, [2]string{"continuation-token", token})
		}
		if c.pageSize > 0 {
			q = append(q, [2]string{"max-keys", fmt.Sprint(c.pageSize)})
		}
		_, body, err := c.do(ctx, request{op: "list", method: http.MethodGet, bucket: bucket, key: "", query: q})
		if err != nil {
			return nil, err
		}
		var res struct {
			Contents []struct {
				Key  string `xml:"Key"`
				Size int64  `xml:"Size"`
				ETag string `xml:"ETag"`
			} `xml:"Contents"`
			IsTruncated           bool   `xml:"IsTruncated"`
			NextContinuationToken string `xml:"NextContinuationToken"`
		}
		if err := xml.Unmarshal(body, &res); err != nil {
			return nil, &Error{Op: "list", Bucket: bucket, Key: prefix, Status: 200, Err: fmt.Errorf("read the listing: %w", err)}
		}
		for _, o := range res.Contents {
			out = append(out, Object{Key: o.Key, Size: o.Size, ETag: o.ETag})
		}
		if !res.IsTruncated || res.NextContinuationToken == "" {
			return out, nil
		}
		token = res.NextContinuationToken
	}
}

// Info is what a GET tells besides the content.
type Info struct {
	ETag string
	// Modified is when the object was last written, Now when the store answered: both the
	// store's clock.
	Modified, Now time.Time
}

// Get returns an object's content.
func (c *Client) Get(ctx context.Context, bucket, key string) ([]byte, Info, error) {
	h, body, err := c.do(ctx, request{op: "get", method: http.MethodGet, bucket: bucket, key: key})
	if err != nil {
		return nil, Info{}, err
	}
	info := Info{ETag: h.Get("ETag")}
	info.Modified, _ = http.ParseTime(h.Get("Last-Modified"))
	info.Now, _ = http.ParseTime(h.Get("Date"))
	return body, info, nil
}

// Cond makes a write conditional.
type Cond struct {
	// IfNoneMatch writes only if no object has the key (If-None-Match: *).
	IfNoneMatch bool
	// IfMatch, when not "", writes (or deletes) only if the object's ETag is this one.
	IfMatch string
}

func (c Cond) header(h map[string]string) map[string]string {
	if h == nil {
		h = map[string]string{}
	}
	if c.IfNoneMatch {
		h["If-None-Match"] = "*"
	}
	if c.IfMatch != "" {
		h["If-Match"] = c.IfMatch
	}
	return h
}

// Put stores body at key if cond holds (a failed condition: IsPreconditionFailed), and returns
// the new object's ETag.
func (c *Client) Put(ctx context.Context, bucket, key string, body []byte, cond Cond) (string, error) {
	h, _, err := c.do(ctx, request{op: "put", method: http.MethodPut, bucket: bucket, key: key, body: body,
		header: cond.header(map[string]string{"Content-Type": "application/octet-stream"})})
	if err != nil {
		return "", err
	}
	return h.Get("ETag"), nil
}

// Copy copies the object at from, of size bytes, to the key to, in the same bucket, on the
// server: one CopyObject up to 5 GiB, a multipart upload of copied parts (UploadPartCopy) above.
func (c *Client) Copy(ctx context.Context, bucket, from, to string, size int64) error {
	if size > c.single() {
		return c.copyParts(ctx, bucket, from, to, size)
	}
	_, body, err := c.do(ctx, request{op: "copy", method: http.MethodPut, bucket: bucket, key: to,
		header: map[string]string{"X-Amz-Copy-Source": c.source(bucket, from)}})
	if err != nil {
		return err
	}
	return bodyError(body, "copy", bucket, to)
}

// maxSingleCopy is the largest object one CopyObject copies; partCopy the size of each part of a
// larger one (at most 10,000 parts: up to 5 TB).
const (
	maxSingleCopy = 5 << 30
	partCopy      = 512 << 20
)

func (c *Client) single() int64 {
	if c.maxSingle > 0 {
		return c.maxSingle
	}
	return maxSingleCopy
}

func (c *Client) source(bucket, key string) string { return escape("/"+bucket+"/"+key, true) }

// bodyError is the error a 200 answer's body holds: S3 can fail a copy or the completion of a
// multipart upload after it answered 200.
func bodyError(body []byte, op, bucket, key string) error {
	var x struct {
		XMLName xml.Name
		Code    string `xml:"Code"`
		Message string `xml:"Message"`
	}
	if xml.Unmarshal(body, &x) == nil && x.XMLName.Local == "Error" {
		return &Error{Op: op, Bucket: bucket, Key: key, Status: 200, Code: x.Code, Message: x.Message}
	}
	return nil
}

// copyParts copies an object larger than one CopyObject takes: a multipart upload whose parts are
// copied ranges of the source, aborted if any fails.
func (c *Client) copyParts(ctx context.Context, bucket, from, to string, size int64) (err error) {
	part := int64(partCopy)
	if c.partSize > 0 {
		part = c.partSize
	}
	part = max(part, (size+9999)/10000)
	_, body, err := c.do(ctx, request{op: "copy", method: http.MethodPost, bucket: bucket, key: to, query: [][2]string{{"uploads", ""}}})
	if err != nil {
		return err
	}
	var start struct {
		UploadID string `xml:"UploadId"`
	}
	if err := xml.Unmarshal(body, &start); err != nil || start.UploadID == "" {
		return &Error{Op: "copy", Bucket: bucket, Key: to, Status: 200, Err: fmt.Errorf("no upload id in %q", body)}
	}
	defer func() {
		if err != nil {
			actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
			_, _, _ = c.do(actx, request{op: "copy", method: http.MethodDelete, bucket: bucket, key: to, query: [][2]string{{"uploadId", start.UploadID}}})
			cancel()
		}
	}()
	type done struct {
		Number int    `xml:"PartNumber"`
		ETag   string `xml:"ETag"`
	}
	var parts []done
	for n, off := 1, int64(0); off < size; n, off = n+1, off+part {
		end := min(off+part, size) - 1
		_, body, err := c.do(ctx, request{op: "copy", method: http.MethodPut, bucket: bucket, key: to,
			query:  [][2]string{{"partNumber", fmt.Sprint(n)}, {"uploadId", start.UploadID}},
			header: map[string]string{"X-Amz-Copy-Source": c.source(bucket, from), "X-Amz-Copy-Source-Range": fmt.Sprintf("bytes=%d-%d", off, end)}})
		if err != nil {
			return err
		}
		if err := bodyError(body, "copy", bucket, to); err != nil {
			return err
		}
		var res struct {
			ETag string `xml:"ETag"`
		}
		if err := xml.Unmarshal(body, &res); err != nil || res.ETag == "" {
			return &Error{Op: "copy", Bucket: bucket, Key: to, Status: 200, Err: fmt.Errorf("no ETag for part %d in %q", n, body)}
		}
		parts = append(parts, done{n, res.ETag})
	}
	doc, err := xml.Marshal(struct {
		XMLName xml.Name `xml:"CompleteMultipartUpload"`
		Parts   []done   `xml:"Part"`
	}{Parts: parts})
	if err != nil {
		return err
	}
	_, body, err = c.do(ctx, request{op: "copy", method: http.MethodPost, bucket: bucket, key: to, query: [][2]string{{"uploadId", start.UploadID}},
		body: doc, header: map[string]string{"Content-Type": "application/xml"}})
	if err != nil {
		return err
	}
	return bodyError(body, "copy", bucket, to)
}

// DeleteIf deletes the object at key if its ETag is etag (a failed condition:
// IsPreconditionFailed); a missing object is no error.
func (c *Client) DeleteIf(ctx context.Context, bucket, key, etag string) error {
	_, _, err := c.do(ctx, request{op: "delete", method: http.MethodDelete, bucket: bucket, key: key, header: Cond{IfMatch: etag}.header(nil)})
	if IsNotFound(err) {
		return nil
	}
	return err
}

// Delete deletes the objects at keys (DeleteObjects, 1,000 a request); missing ones are no error.
func (c *Client) Delete(ctx context.Context, bucket string, keys []string) error {
	for len(keys) > 0 {
		n := min(len(keys), 1000)
		if err := c.deleteBatch(ctx, bucket, keys[:n]); err != nil {
			return err
		}
		keys = keys[n:]
	}
	return nil
}

func (c *Client) deleteBatch(ctx context.Context, bucket string, keys []string) error {
	type object struct {
		Key string `xml:"Key"`
	}
	doc := struct {
		XMLName xml.Name `xml:"Delete"`
		Quiet   bool     `xml:"Quiet"`
		Objects []object `xml:"Object"`
	}{Quiet: true}
	for _, k := range keys {
		doc.Objects = append(doc.Objects, object{k})
	}
	body, err := xml.Marshal(doc)
	if err != nil {
		return err
	}
	sum := md5.Sum(body)
	_, resp, err := c.do(ctx, request{op: "delete", method: http.MethodPost, bucket: bucket, query: [][2]string{{"delete", ""}}, body: body,
		header: map[string]string{"Content-MD5": base64.StdEncoding.EncodeToString(sum[:]), "Content-Type": "application/xml"}})
	if err != nil {
		return err
	}
	var res struct {
		Errors []struct {
			Key     string `xml:"Key"`
			Code    string `xml:"Code"`
			Message string `xml:"Message"`
		} `xml:"Error"`
	}
	if err := xml.Unmarshal(resp, &res); err != nil {
		return &Error{Op: "delete", Bucket: bucket, Status: 200, Err: fmt.Errorf("read the answer: %w", err)}
	}
	if len(res.Errors) > 0 {
		e := res.Errors[0]
		return &Error{Op: "delete", Bucket: bucket, Key: e.Key, Status: 200, Code: e.Code,
			Message: fmt.Sprintf("%s (and %d more keys not deleted)", e.Message, len(res.Errors)-1)}
	}
	return nil
}
