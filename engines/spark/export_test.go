package spark

import "github.com/tablegate/tablegate/internal/store"

// Store and Commit are the outputs' store and what it commits, for the e2e tests.
type (
	Store  = store.Store
	Commit = store.Commit
)

// RemoteFooterTypes is remoteFooterTypes for the e2e tests.
var RemoteFooterTypes = remoteFooterTypes

// NewHDFSStore is the store of an hdfs:// output, for the e2e tests.
func NewHDFSStore(o HDFSOptions, table, quarantine string) (Store, error) {
	return newHDFSStore(&o, table, quarantine)
}

// S3Client is the store's S3 client, for the e2e tests to read the emulator back.
type S3Client = s3Client

// NewS3Client is the store's S3 client of o.
func NewS3Client(o S3Options) *S3Client { return newS3Client(&o) }
