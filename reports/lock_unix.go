//go:build unix && !aix

package reports

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

const removeWhileHeld = true

// lockFile takes an exclusive flock on f without waiting; false when
// another process holds it.
func lockFile(f *os.File) (bool, error) {
	err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}
