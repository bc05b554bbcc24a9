//go:build !unix

package bench

import "os"

// lockFile does not lock where flock is unavailable: runs on one
// directory must not overlap there.
func lockFile(f *os.File) error { return nil }
