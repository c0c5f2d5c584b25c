package s3

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestSignAWSExamples signs the examples of AWS's S3 Signature Version 4 documentation
// ("Authenticating Requests: Using the Authorization Header") and compares the signatures.
func TestSignAWSExamples(t *testing.T) {
	creds := Credentials{AccessKeyID: "AKIAIOSFODNN7EXAMPLE", SecretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}
	at := time.Date(2013, 5, 24, 0, 0, 0, 0, time.UTC)
	const empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	for _, tc := range []struct {
		name, url string
		header    map[string]string
		signed    string
		want      string
	}{
		{"get object", "https://examplebucket.s3.amazonaws.com/test.txt", map[string]string{"Range": "bytes=0-9"},
			"host;range;x-amz-content-sha256;x-amz-date", "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"},
		{"list objects", "https://examplebucket.s3.amazonaws.com/?max-keys=2&prefix=J", nil,
			"host;x-amz-content-sha256;x-amz-date", "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7"},
		{"get lifecycle", "https://examplebucket.s3.amazonaws.com/?lifecycle", nil,
			"host;x-amz-content-sha256;x-amz-date", "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543"},
	} {
		req, err := http.NewRequest(http.MethodGet, tc.url, nil)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range tc.header {
			req.Header.Set(k, v)
		}
		req.Header.Set("X-Amz-Content-Sha256", empty)
		sign(req, creds, "us-east-1", at)
		want := "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=" + tc.signed + ", Signature=" + tc.want
		if got := req.Header.Get("Authorization"); got != want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, want)
		}
	}
}

// TestEscape: keys are encoded once, every byte but the unreserved ones, as SigV4 and S3 want.
func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"out/day=1/a file é.parquet": "out/day%3D1/a%20file%20%C3%A9.parquet",
		"a+b~c_d-e.f":                "a%2Bb~c_d-e.f",
	} {
		if got := escape(in, true); got != want {
			t.Errorf("escape(%q) = %q, want %q", in, got, want)
		}
	}
	if got := escape("a/b", false); !strings.Contains(got, "%2F") {
		t.Errorf("a query value keeps its slash: %q", got)
	}
}
