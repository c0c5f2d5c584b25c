package compile

import "slices"

// tune adds the run's DuckDB settings to the program: the perfect-hash threshold for the rows
// counted, first, and the threads of the key aggregates around them.
func (b *builder) tune(f Facts) {
	t := DuckDBTuning
	var head []Step
	if f.SessionPerfectHash > 0 && f.PerfectHashBits > 0 && f.PerfectHashBits != f.SessionPerfectHash {
		// The threshold set when the run opened pays for a large input; fewer rows need a smaller
		// one, and a collection's member after a smaller one on the same connection a larger one.
		head = append(head, Step{Op: Exec, What: "fit the perfect hash to the rows", SQL: t.SetPerfectHash(f.PerfectHashBits)})
	}
	steps := b.prog.steps
	first := slices.IndexFunc(steps, func(s Step) bool { return s.Op == KeyAggregate })
	if first >= 0 && f.KeyThreads > f.Threads {
		last := first
		for i, s := range steps {
			if s.Op == KeyAggregate {
				last = i
			}
		}
		what := "give the key aggregates their threads"
		raise := []Step{{Op: ReadThreads, What: what, SQL: t.ReadThreads()}, {Op: RaiseThreads, What: what, SQL: t.SetThreads(f.KeyThreads)}}
		what = "give the threads back"
		restore := []Step{{Op: ReadThreads, What: what, SQL: t.ReadThreads()}, {Op: RestoreThreads, What: what, SQL: t.RestoreThreads()}}
		steps = slices.Concat(steps[:first], raise, steps[first:last+1], restore, steps[last+1:])
	}
	b.prog.steps = slices.Concat(head, steps)
}
