package spark

// RemoteFooterTypes is remoteFooterTypes for the e2e tests.
var RemoteFooterTypes = remoteFooterTypes
