package spark

import (
	"context"

	dialect "github.com/tablegate/tablegate/compile/spark"
	"github.com/tablegate/tablegate/internal/store"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/schema"
)

// Store and Commit are the outputs' store and what it commits, for the e2e tests.
type (
	Store  = store.Store
	Commit = store.Commit
)

// RemoteFooterTypes opens input on s as a run opens an input this process cannot read
// (dialect.Source, its footer checked against cols), for the e2e tests.
func RemoteFooterTypes(ctx context.Context, s Session, input string, cols []*schema.Column) error {
	src := &dialect.Source{URL: input, Footer: func(file string, size int64, tail []byte) error {
		return remoteFooterTypes(file, size, tail, cols)
	}}
	_, err := runner.OpenSource(ctx, &backend{s: s}, src)
	return err
}

// NewHDFSStore is the store of an hdfs:// output, for the e2e tests.
func NewHDFSStore(o HDFSOptions, table, quarantine string) (Store, error) {
	return newHDFSStore(&o, table, quarantine)
}

// S3Client is the store's S3 client, for the e2e tests to read the emulator back.
type S3Client = s3Client

// NewS3Client is the store's S3 client of o.
func NewS3Client(o S3Options) *S3Client { return newS3Client(&o) }
