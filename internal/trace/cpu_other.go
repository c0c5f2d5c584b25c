//go:build !unix

package trace

import "time"

// processCPU is unknown here: traces show wall times only.
func processCPU() time.Duration { return -1 }
