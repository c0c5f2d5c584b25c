package sparktest

import (
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// S3 is a local S3 emulator (moto's server, from PyPI's moto[server]) on 127.0.0.1. It takes
// unsigned requests, so tests put and list objects with plain HTTP.
type S3 struct {
	Endpoint string // http://127.0.0.1:PORT
	p        *proc
}

// StartS3 starts moto_server (bin) on a free port, its log under dir, and waits until it answers.
func StartS3(bin, dir, pidFile string, ready time.Duration) (*S3, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	p, err := startProc(dir, "s3", os.Environ(), pidFile, bin, "-H", "127.0.0.1", "-p", strconv.Itoa(port))
	if err != nil {
		return nil, err
	}
	s := &S3{Endpoint: fmt.Sprintf("http://127.0.0.1:%d", port), p: p}
	deadline := time.Now().Add(ready)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		err := s.do(ctx, http.MethodGet, "/", nil, nil)
		cancel()
		if err == nil {
			return s, nil
		}
		select {
		case <-p.done:
			return nil, fmt.Errorf("the S3 emulator exited (%v):\n%s", p.err, p.tail(4000))
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			p.stop()
			return nil, fmt.Errorf("the S3 emulator did not answer within %s (%v):\n%s", ready, err, p.tail(4000))
		}
	}
}

// Conf is what points Spark's s3a connector at the emulator, with its fixed test credentials.
func (s *S3) Conf() map[string]string {
	return map[string]string{
		"spark.hadoop.fs.s3a.endpoint":                 s.Endpoint,
		"spark.hadoop.fs.s3a.endpoint.region":          "us-east-1",
		"spark.hadoop.fs.s3a.path.style.access":        "true",
		"spark.hadoop.fs.s3a.connection.ssl.enabled":   "false",
		"spark.hadoop.fs.s3a.access.key":               "testing",
		"spark.hadoop.fs.s3a.secret.key":               "testing",
		"spark.hadoop.fs.s3a.aws.credentials.provider": "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider",
	}
}

// CreateBucket makes a bucket.
func (s *S3) CreateBucket(ctx context.Context, bucket string) error {
	return s.do(ctx, http.MethodPut, "/"+url.PathEscape(bucket), nil, nil)
}

// Put stores an object.
func (s *S3) Put(ctx context.Context, bucket, key string, body io.Reader) error {
	segs := strings.Split(key, "/")
	for i, seg := range segs {
		segs[i] = url.PathEscape(seg)
	}
	return s.do(ctx, http.MethodPut, "/"+url.PathEscape(bucket)+"/"+strings.Join(segs, "/"), body, nil)
}

// List returns the keys under prefix, in key order (at most 1000).
func (s *S3) List(ctx context.Context, bucket, prefix string) ([]string, error) {
	var res struct {
		Contents []struct {
			Key string `xml:"Key"`
		} `xml:"Contents"`
	}
	q := url.Values{"list-type": {"2"}, "prefix": {prefix}}
	if err := s.do(ctx, http.MethodGet, "/"+url.PathEscape(bucket)+"?"+q.Encode(), nil, &res); err != nil {
		return nil, err
	}
	keys := make([]string, len(res.Contents))
	for i, c := range res.Contents {
		keys[i] = c.Key
	}
	return keys, nil
}

// Stop stops the emulator.
func (s *S3) Stop() { s.p.stop() }

func (s *S3) do(ctx context.Context, method, path string, body io.Reader, out any) error {
	var read func(io.Reader) error
	if out != nil {
		read = func(r io.Reader) error { return xml.NewDecoder(r).Decode(out) }
	}
	return request(ctx, method, s.Endpoint+path, body, read)
}
