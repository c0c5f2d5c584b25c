package runner

import (
	"crypto/rand"
	"encoding/hex"
	"time"
)

// Clock is the time now, on o.Now.
func (o Options) Clock() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// RunIDAt is o.RunID, or a new id that sorts by start time and is unique across concurrent runs:
// 20261201T232903Z-9f1c2b7a0d3e4f51.
func (o Options) RunIDAt(start time.Time) string {
	if o.RunID != "" {
		return o.RunID
	}
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read does not fail on the platforms Go supports
	return start.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}
