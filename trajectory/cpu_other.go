//go:build !unix

package trajectory

import "time"

// ProcessCPU returns 0: the process CPU time is read on Unix systems only.
func ProcessCPU() time.Duration { return 0 }
