package s3

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"sort"
	"strings"
	"time"
)

// Credentials sign requests (AWS Signature Version 4).
type Credentials struct {
	AccessKeyID, SecretAccessKey string
	SessionToken                 string // temporary credentials' token ("" none)
}

const (
	amzDate   = "20060102T150405Z"
	shortDate = "20060102"
)

// sign adds the SigV4 Authorization header to req for service s3 in region, at t. The request's
// x-amz-content-sha256 header must hold the payload's hash; every header set on req besides
// Authorization, User-Agent and Content-Length is signed, and Host.
func sign(req *http.Request, c Credentials, region string, t time.Time) {
	t = t.UTC()
	req.Header.Set("X-Amz-Date", t.Format(amzDate))
	if c.SessionToken != "" {
		req.Header.Set("X-Amz-Security-Token", c.SessionToken)
	}
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	headers := map[string]string{"host": host}
	for k, v := range req.Header {
		switch lk := strings.ToLower(k); lk {
		case "authorization", "user-agent", "content-length":
		default:
			headers[lk] = strings.Join(trimAll(v), ",")
		}
	}
	names := make([]string, 0, len(headers))
	for k := range headers {
		names = append(names, k)
	}
	sort.Strings(names)
	var canon strings.Builder
	for _, k := range names {
		canon.WriteString(k + ":" + headers[k] + "\n")
	}
	signed := strings.Join(names, ";")
	path := req.URL.EscapedPath()
	if path == "" {
		path = "/"
	}
	creq := strings.Join([]string{req.Method, path, canonicalQuery(req.URL.RawQuery), canon.String(), signed,
		req.Header.Get("X-Amz-Content-Sha256")}, "\n")
	scope := t.Format(shortDate) + "/" + region + "/s3/aws4_request"
	toSign := "AWS4-HMAC-SHA256\n" + t.Format(amzDate) + "\n" + scope + "\n" + hexSHA256([]byte(creq))
	key := hmacSHA256([]byte("AWS4"+c.SecretAccessKey), t.Format(shortDate))
	for _, part := range []string{region, "s3", "aws4_request"} {
		key = hmacSHA256(key, part)
	}
	sig := hex.EncodeToString(hmacSHA256(key, toSign))
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential="+c.AccessKeyID+"/"+scope+", SignedHeaders="+signed+", Signature="+sig)
}

// canonicalQuery sorts the query's parameters (already escaped as escape does) by name, then
// value; a parameter without "=" gets an empty value.
func canonicalQuery(raw string) string {
	if raw == "" {
		return ""
	}
	params := strings.Split(raw, "&")
	for i, p := range params {
		if !strings.Contains(p, "=") {
			params[i] = p + "="
		}
	}
	sort.Strings(params)
	return strings.Join(params, "&")
}

func trimAll(vs []string) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = strings.Join(strings.Fields(v), " ")
	}
	return out
}

func hmacSHA256(key []byte, data string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(data))
	return h.Sum(nil)
}

func hexSHA256(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// escape URI-encodes s as SigV4 wants: every byte but A-Z a-z 0-9 - . _ ~ as %XX (upper case),
// and "/" too unless keepSlash.
func escape(s string, keepSlash bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '-', c == '.', c == '_', c == '~':
			b.WriteByte(c)
		case c == '/' && keepSlash:
			b.WriteByte(c)
		default:
			b.WriteString("%" + strings.ToUpper(hex.EncodeToString([]byte{c})))
		}
	}
	return b.String()
}
