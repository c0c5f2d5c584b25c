package spark

import (
	"fmt"
	"time"
)

// lockRecord is the content of a remote output's lock file.
type lockRecord struct {
	Owner   string `json:"owner"`
	Host    string `json:"host"`
	PID     int    `json:"pid"`
	Started string `json:"started"`
	// LeaseSeconds is how long the lock lasts after its file was last written (the store's
	// clock): its holder rewrites it every third of that.
	LeaseSeconds float64 `json:"lease_seconds"`
}

// LockedError is an output another run holds the lock of, when the wait for it ended.
type LockedError struct {
	Output, Lock string
	Holder       string // host and process of the holder, when it started
	Until        time.Time
	Err          error // why the wait ended
}

func (e *LockedError) Error() string {
	return fmt.Sprintf("another run writing the same output holds %s (%s; its lease ends %s unless renewed): %v; "+
		"wait for it, or, if that run is gone, for its lease to end", e.Output, e.Holder, e.Until.UTC().Format(time.RFC3339), e.Err)
}

func (e *LockedError) Unwrap() error { return e.Err }
