package outcome

import (
	"fmt"
	"time"
)

// TimeoutError means the run took longer than its timeout and was stopped.
type TimeoutError struct {
	Limit time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("the run took longer than its timeout of %s and was stopped; give it more time, or check the rules that build large values", e.Limit)
}
