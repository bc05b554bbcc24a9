//go:build unix

package bench

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes an exclusive flock on f without waiting, or returns
// errLocked when another open file holds it.
func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return errLocked
		}
		return err
	}
}
