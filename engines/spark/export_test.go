package spark

// RemoteFooterTypes is remoteFooterTypes for the e2e tests.
var RemoteFooterTypes = remoteFooterTypes

// NewHDFSStore is the store of an hdfs:// output, for the e2e tests.
func NewHDFSStore(o HDFSOptions, table, quarantine string) (Store, error) {
	return newHDFSStore(&o, table, quarantine)
}
