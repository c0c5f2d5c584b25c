// Package store is where a run's outputs are put in place, whatever holds them: a local folder
// (package internal/durable, for both engines' Parquet outputs), an object store or a
// distributed file system (the Spark engine's S3 and HDFS stores). A run writes its table and
// quarantine into temporaries of the output's Store, and only once they are finished does the
// store put them in place, so that nothing the user wrote is lost on a failure, a kill or a full
// disk.
package store

import (
	"context"
	"errors"
	"fmt"
)

// Store is where one output's table and quarantine live, and how a run's finished temporaries
// are put in place there. A store is made for one output: its table's and its quarantine's
// addresses, as the engine writes them. The run's writer drives it: Lock, Recover, the engine
// writes into Temp locations, Finished checks each, Commit puts them in place, Discard removes
// the ones not put in place.
//
// Whatever the store, nothing the user wrote is lost: a run that fails or is killed before
// Commit recorded its moves leaves the table and the quarantine as they were; once recorded, a
// commit that did not complete is completed by the next run's Recover.
type Store interface {
	// Check refuses, before the run reads anything, an output the store cannot write: a folder
	// that cannot be made or written, a name too long for it, missing credentials, a bucket that
	// does not answer.
	Check(ctx context.Context) error
	// Lock takes the output's lock until unlock: a second writer of the same output waits for
	// it (until ctx ends) or is refused, saying who holds it.
	Lock(ctx context.Context) (unlock func(), err error)
	// Recover, under the lock, completes a commit a killed run recorded but did not complete,
	// and removes the temporaries killed runs left. A recorded commit that cannot complete is
	// undone: the error is then a *RolledBackError, the previous outputs are in place, and the
	// output may be written.
	Recover(ctx context.Context) error
	// Temp is the location of run's temporary of role ("table", "quarantine"), where the engine
	// writes; the same for the same run and role.
	Temp(run int64, role string) string
	// Finished checks that the engine finished writing the temporary tmp, and makes it durable
	// (a file is flushed to disk; a directory Spark wrote has its _SUCCESS marker).
	Finished(ctx context.Context, tmp string) error
	// Commit puts the finished temporaries in place, as c says.
	Commit(ctx context.Context, c Commit) (Committed, error)
	// Discard removes temporaries that were not put in place (best effort: Recover removes what
	// it leaves).
	Discard(ctx context.Context, tmps ...string)
}

// Commit is what a run puts in place: the temporaries the engine finished, in place of the
// table and the quarantine, and what becomes of a quarantine the run does not replace.
type Commit struct {
	Run int64
	// Table and Quarantine are the temporaries to put in place of the table and of the
	// quarantine ("" the run did not write it).
	Table, Quarantine string
	// Keep, when not "", is where an existing quarantine goes (the one kept there before is
	// dropped): the run has no invalid rows, or replaces a quarantine whose rows exist nowhere
	// else, and would otherwise lose it.
	Keep string
}

// Committed is what Commit did.
type Committed struct {
	// Kept tells that an existing quarantine was moved to Commit.Keep.
	Kept bool
	// Pending tells, with an error, that the commit is recorded but not complete: its
	// temporaries stay, and the next run's Recover completes it.
	Pending bool
}

// RolledBackError is a commit that could not complete and was undone: the outputs it would have
// replaced are back under their names, and its record is gone.
type RolledBackError struct {
	Err error // why the commit could not complete
}

func (e *RolledBackError) Error() string {
	return fmt.Sprintf("%v; the swap was rolled back, the previous files are in place", e.Err)
}

func (e *RolledBackError) Unwrap() error { return e.Err }

// Recover takes the output's lock, completes what killed runs left there (Store.Recover) and
// gives the lock back. rolledBack is a recorded commit that could not complete and was undone:
// the previous outputs are in place, and the run warns of it.
func Recover(ctx context.Context, st Store) (rolledBack, err error) {
	unlock, err := st.Lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	return RolledBack(st.Recover(ctx))
}

// LockRecovered takes the output's lock for a write, and completes (Store.Recover) what runs
// killed since the run recovered the output (Recover, before it read anything) left there: a
// commit rolled back now is no outcome of this run's. On failure the lock is given back.
func LockRecovered(ctx context.Context, st Store) (unlock func(), err error) {
	if unlock, err = st.Lock(ctx); err != nil {
		return nil, err
	}
	if _, err := RolledBack(st.Recover(ctx)); err != nil {
		unlock()
		return nil, err
	}
	return unlock, nil
}

// RolledBack splits an error of Store.Recover into a rollback (a *RolledBackError, after which
// the output may be written) and a failure.
func RolledBack(err error) (rolledBack, failed error) {
	if rb := (*RolledBackError)(nil); errors.As(err, &rb) {
		return err, nil
	}
	return nil, err
}
