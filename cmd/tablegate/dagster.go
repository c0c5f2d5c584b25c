package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tablegate/tablegate"
	"github.com/tablegate/tablegate/internal/pipes"
)

// reportToDagster sends a validate run's report over Dagster Pipes and closes the session, with
// the run's error as the closed message's exception. The exit status stays the run's: the
// Dagster side turns a non-zero one into a failure after recording the checks. A run that failed
// before it had checks (a usage or input error) sends only the report, which names the error.
func reportToDagster(sess *pipes.Session, rep *tablegate.Report, runErr error) error {
	rep = tablegate.WithError(rep, runErr)
	var key string
	var sendErr error
	if len(rep.Checks) > 0 || rep.Table.Written {
		key, sendErr = dagsterAssetKey(sess.Context().AssetKeys, rep.Asset)
	}
	if sendErr == nil {
		sendErr = sess.SendReport(key, rep)
	}
	return closeDagster(sess, runErr, sendErr)
}

// reportCollectionToDagster is reportToDagster for a collection's run: one session reports every
// member's checks and materialization under the member's asset key (the step's multi-asset), and
// the collection report as the custom message.
func reportCollectionToDagster(sess *pipes.Session, rep *tablegate.CollectionReport, runErr error) error {
	if rep == nil {
		rep = &tablegate.CollectionReport{Members: map[string]*tablegate.Report{}}
	}
	if runErr != nil && rep.Error == nil {
		rep.Error = tablegate.WithError(nil, runErr).Error
	}
	keys := map[string]string{}
	var sendErr error
	for _, name := range rep.MemberOrder {
		if rep.Members[name] == nil {
			continue
		}
		key, err := dagsterMemberKey(sess.Context().AssetKeys, name)
		if err != nil {
			sendErr = err
			break
		}
		keys[name] = key
	}
	if sendErr == nil {
		sendErr = sess.SendCollectionReport(keys, rep)
	}
	return closeDagster(sess, runErr, sendErr)
}

// dagsterMemberKey is the asset key a collection member's results go under: among the step's
// assets the one whose last part is the member's name; with none (a step that names no asset),
// the member's name.
func dagsterMemberKey(keys []string, member string) (string, error) {
	if len(keys) == 0 {
		return member, nil
	}
	for _, k := range keys {
		if k == member || lastPart(k) == member {
			return k, nil
		}
	}
	return "", errors.New("the Dagster step selects the assets " + strings.Join(keys, ", ") + " and none is named after the collection's member " + member + ": name each member's asset after the member")
}

// closeDagster closes the session with the run's error (else the sending's) as its exception, and
// returns the run's error, else the sending's.
func closeDagster(sess *pipes.Session, runErr, sendErr error) error {
	var exc *pipes.Exception
	if runErr != nil {
		exc = &pipes.Exception{Name: tablegate.ErrorType(runErr), Message: runErr.Error()}
	} else if sendErr != nil {
		exc = &pipes.Exception{Name: "PipesError", Message: sendErr.Error()}
	}
	if err := sess.Close(exc); err != nil && sendErr == nil {
		sendErr = err
	}
	switch {
	case runErr != nil:
		return runErr
	case sendErr != nil:
		return fmt.Errorf("report to Dagster: %w", sendErr)
	}
	return nil
}

// dagsterAssetKey is the key the checks and the materialization are reported under: the step's
// only asset, or among several the one whose last part is the asset's name. Keys are echoed as
// Dagster sent them (escaped user strings).
func dagsterAssetKey(keys []string, asset string) (string, error) {
	switch len(keys) {
	case 0:
		return asset, nil
	case 1:
		return keys[0], nil
	}
	for _, k := range keys {
		if k == asset || lastPart(k) == asset {
			return k, nil
		}
	}
	return "", errors.New("the Dagster step selects the assets " + strings.Join(keys, ", ") + " and none is named " + asset + ": give --name the asset's name")
}

// lastPart is an escaped asset key's last part: after its last "/" that is not "\/".
func lastPart(key string) string {
	for i := len(key) - 1; i >= 0; i-- {
		if key[i] == '/' && (i == 0 || key[i-1] != '\\') {
			return strings.ReplaceAll(key[i+1:], `\/`, "/")
		}
	}
	return strings.ReplaceAll(key, `\/`, "/")
}
