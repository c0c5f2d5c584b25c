package tablegate

import "github.com/tablegate/tablegate/report"

// Verdict is a run's one word, the same in the CLI's text output and on the HTML page: FAIL when
// the run failed (or ended before an outcome), WARN when it succeeded with failing checks (an
// all-valid run whose warn rules failed included), else PASS.
func Verdict(rep *Report) string { return report.Verdict(rep) }
