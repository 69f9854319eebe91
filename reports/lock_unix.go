//go:build unix && !aix

package reports

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

const removeWhileHeld = true

// noFollow opens a lock file only when it is no symbolic link.
const noFollow = unix.O_NOFOLLOW

// links is how many names the file has.
func links(st os.FileInfo) uint64 {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(sys.Nlink)
	}
	return 1
}

// lockFile takes an exclusive flock on f without waiting; false when
// another process holds it.
func lockFile(f *os.File) (bool, error) {
	err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}
