package runner

import (
	"time"

	"github.com/tablegate/tablegate/outcome"
)

// Begin starts the report of a run of a as Run starts its own: the asset's and the schema's
// names, the versions, the run's id and start time; done sets the run's duration. Another
// engine's run (Spark) starts its report with it.
func (o Options) Begin(a Asset) (rep *outcome.Report, done func()) {
	rep = NewReport(assetName(a), a.Plan.Name)
	start := o.Clock()
	rep.RunID, rep.StartedAt = o.RunIDAt(start), start.UTC().Format(time.RFC3339Nano)
	return rep, func() { rep.DurationS = o.Clock().Sub(start).Seconds() }
}

// Samples is how many failing rows each check shows: MaxFailureSamples, 0 meaning 5.
func (o Options) Samples() int { return o.samples() }

// Warn adds a warning to the report and writes it to o.Warnings.
func (o Options) Warn(rep *outcome.Report, msg string) { warn(rep, o, msg) }

// QuarantineAddress is where the quarantine of a, named asset, goes beside its output.
func (a Asset) QuarantineAddress(asset string) string {
	return a.Output.QuarantineAddress(QuarantineNameOf(a, asset))
}

// AssetName is the asset's name as its report gives it: Name, or the output's base name, or the
// schema's name when validating in place.
func AssetName(a Asset) string { return assetName(a) }
