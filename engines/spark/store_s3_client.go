package spark

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// s3Attempts is how many times a request is tried when the configuration sets no maximum
// (AWS_MAX_ATTEMPTS, max_attempts): a commit copies many objects at once, and one that a busy
// store throttles past its last attempt leaves the commit to the next run.
const s3Attempts = 10

// checkAttempts bounds the probe of Check, so that a wrong endpoint or bucket is reported at once.
const checkAttempts = 3

// s3Client is the S3 calls of the store, on the AWS SDK: the SDK signs, retries (throttling,
// 5xx, connection errors, clock skew) and refreshes the credentials.
type s3Client struct {
	api *s3.Client
	// maxSingle and partSize replace maxSingleCopy and partCopy when not 0 (tests).
	maxSingle, partSize int64
}

// newS3Client is the client of o: its configuration's credentials, region (us-east-1 when none)
// and retry settings, o's endpoint and addressing. Checksums are sent only where S3 requires them
// (many S3-compatible stores refuse the newer ones), unless the configuration says otherwise.
func newS3Client(o *S3Options) *s3Client {
	cfg := o.Config.Copy()
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	if cfg.RequestChecksumCalculation == 0 {
		cfg.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
	}
	if cfg.ResponseChecksumValidation == 0 {
		cfg.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
	}
	api := s3.NewFromConfig(cfg, func(so *s3.Options) {
		if o.Endpoint != "" {
			so.BaseEndpoint = aws.String(o.Endpoint)
		}
		so.UsePathStyle = o.PathStyle
		if cfg.Retryer == nil && cfg.RetryMode != aws.RetryModeAdaptive {
			attempts := cfg.RetryMaxAttempts
			if attempts == 0 {
				attempts = s3Attempts
			}
			// No client-side retry quota: the copy workers' retries of one throttled commit
			// would use it up.
			so.Retryer = retry.NewStandard(func(r *retry.StandardOptions) {
				r.MaxAttempts = attempts
				r.RateLimiter = ratelimit.None
			})
		}
	})
	return &s3Client{api: api}
}

// checkCredentials retrieves the credentials (from the cache, else their provider), so that a
// machine without any is told where they are looked for.
func (c *s3Client) checkCredentials(ctx context.Context) error {
	err := errors.New("the configuration has no credentials provider")
	if creds := c.api.Options().Credentials; creds != nil {
		if _, err = creds.Retrieve(ctx); err == nil {
			return nil
		}
	}
	return fmt.Errorf("no AWS credentials for this process's access to S3: it looks where the AWS CLI does (AWS_ACCESS_KEY_ID "+
		"and AWS_SECRET_ACCESS_KEY; the profile AWS_PROFILE names in ~/.aws/config and ~/.aws/credentials, SSO after aws sso login; "+
		"AWS_WEB_IDENTITY_TOKEN_FILE with AWS_ROLE_ARN; container and instance credentials): %w", err)
}

// isPreconditionFailed reports whether err is a conditional request whose condition did not hold.
func isPreconditionFailed(err error) bool {
	var ae smithy.APIError
	return httpStatus(err) == http.StatusPreconditionFailed || (errors.As(err, &ae) && ae.ErrorCode() == "PreconditionFailed")
}

// isNotFound reports whether err is a request for a key that does not exist.
func isNotFound(err error) bool {
	var nk *types.NoSuchKey
	return errors.As(err, &nk) || httpStatus(err) == http.StatusNotFound
}

func httpStatus(err error) int {
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

// s3Object is a listed object.
type s3Object struct {
	Key  string
	Size int64
}

// List returns every object whose key starts with prefix, in key order.
func (c *s3Client) List(ctx context.Context, bucket, prefix string) ([]s3Object, error) {
	var out []s3Object
	pages := s3.NewListObjectsV2Paginator(c.api, &s3.ListObjectsV2Input{Bucket: aws.String(bucket), Prefix: aws.String(prefix)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, o := range page.Contents {
			out = append(out, s3Object{Key: aws.ToString(o.Key), Size: aws.ToInt64(o.Size)})
		}
	}
	return out, nil
}

// s3Info is what a GET tells besides the content.
type s3Info struct {
	ETag string
	// Modified is when the object was last written, Now when the store answered: both the
	// store's clock.
	Modified, Now time.Time
}

// Get returns an object's content.
func (c *s3Client) Get(ctx context.Context, bucket, key string) ([]byte, s3Info, error) {
	out, err := c.api.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		return nil, s3Info{}, err
	}
	defer out.Body.Close()
	data, err := io.ReadAll(out.Body)
	if err != nil {
		return nil, s3Info{}, fmt.Errorf("read s3://%s/%s: %w", bucket, key, err)
	}
	info := s3Info{ETag: aws.ToString(out.ETag), Modified: aws.ToTime(out.LastModified)}
	info.Now, _ = awsmiddleware.GetServerTime(out.ResultMetadata)
	return data, info, nil
}

// s3Cond makes a write conditional.
type s3Cond struct {
	// IfNoneMatch writes only if no object has the key (If-None-Match: *).
	IfNoneMatch bool
	// IfMatch, when not "", writes (or deletes) only if the object's ETag is this one.
	IfMatch string
}

// Put stores body at key if cond holds (a failed condition: isPreconditionFailed), and returns
// the new object's ETag.
func (c *s3Client) Put(ctx context.Context, bucket, key string, body []byte, cond s3Cond, opts ...func(*s3.Options)) (string, error) {
	in := &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(body),
		ContentLength: aws.Int64(int64(len(body))), ContentType: aws.String("application/octet-stream")}
	if cond.IfNoneMatch {
		in.IfNoneMatch = aws.String("*")
	}
	if cond.IfMatch != "" {
		in.IfMatch = aws.String(cond.IfMatch)
	}
	out, err := c.api.PutObject(ctx, in, opts...)
	if err != nil {
		return "", err
	}
	return aws.ToString(out.ETag), nil
}

// maxSingleCopy is the largest object one CopyObject copies; partCopy the size of each part of a
// larger one (at most 10,000 parts: up to 5 TB).
const (
	maxSingleCopy = 5 << 30
	partCopy      = 512 << 20
)

// Copy copies the object at from, of size bytes, to the key to, in the same bucket, on the
// server: one CopyObject up to 5 GiB, a multipart upload of copied parts (UploadPartCopy) above.
func (c *s3Client) Copy(ctx context.Context, bucket, from, to string, size int64) error {
	single := int64(maxSingleCopy)
	if c.maxSingle > 0 {
		single = c.maxSingle
	}
	if size > single {
		return c.copyParts(ctx, bucket, from, to, size)
	}
	_, err := c.api.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(bucket), Key: aws.String(to), CopySource: copySource(bucket, from)})
	return err
}

// copySource is the URL-encoded bucket/key of a copy's source.
func copySource(bucket, key string) *string {
	var b strings.Builder
	for _, c := range []byte(bucket + "/" + key) {
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-_.~/", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return aws.String(b.String())
}

// copyParts copies an object larger than one CopyObject takes: a multipart upload whose parts are
// copied ranges of the source, aborted if any fails.
func (c *s3Client) copyParts(ctx context.Context, bucket, from, to string, size int64) (err error) {
	part := int64(partCopy)
	if c.partSize > 0 {
		part = c.partSize
	}
	part = max(part, (size+9999)/10000)
	up, err := c.api.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(to)})
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
			_, _ = c.api.AbortMultipartUpload(actx, &s3.AbortMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(to), UploadId: up.UploadId})
			cancel()
		}
	}()
	var parts []types.CompletedPart
	for n, off := int32(1), int64(0); off < size; n, off = n+1, off+part {
		end := min(off+part, size) - 1
		out, err := c.api.UploadPartCopy(ctx, &s3.UploadPartCopyInput{Bucket: aws.String(bucket), Key: aws.String(to), UploadId: up.UploadId,
			PartNumber: aws.Int32(n), CopySource: copySource(bucket, from), CopySourceRange: aws.String(fmt.Sprintf("bytes=%d-%d", off, end))})
		if err != nil {
			return err
		}
		if out.CopyPartResult == nil || out.CopyPartResult.ETag == nil {
			return fmt.Errorf("S3 copy s3://%s/%s: no ETag for part %d", bucket, to, n)
		}
		parts = append(parts, types.CompletedPart{PartNumber: aws.Int32(n), ETag: out.CopyPartResult.ETag})
	}
	_, err = c.api.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(to), UploadId: up.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: parts}})
	return err
}

// DeleteIf deletes the object at key if its ETag is etag (a failed condition:
// isPreconditionFailed); a missing object is no error.
func (c *s3Client) DeleteIf(ctx context.Context, bucket, key, etag string) error {
	_, err := c.api.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), IfMatch: aws.String(etag)})
	if isNotFound(err) {
		return nil
	}
	return err
}

// Delete deletes the objects at keys (DeleteObjects, 1,000 a request); missing ones are no error.
func (c *s3Client) Delete(ctx context.Context, bucket string, keys []string) error {
	for len(keys) > 0 {
		n := min(len(keys), 1000)
		objs := make([]types.ObjectIdentifier, n)
		for i, k := range keys[:n] {
			objs[i] = types.ObjectIdentifier{Key: aws.String(k)}
		}
		out, err := c.api.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String(bucket), Delete: &types.Delete{Objects: objs, Quiet: aws.Bool(true)}})
		if err != nil {
			return err
		}
		if len(out.Errors) > 0 {
			e := out.Errors[0]
			return fmt.Errorf("S3 delete s3://%s/%s: %s: %s (and %d more keys not deleted)", bucket, aws.ToString(e.Key), aws.ToString(e.Code), aws.ToString(e.Message), len(out.Errors)-1)
		}
		keys = keys[n:]
	}
	return nil
}
