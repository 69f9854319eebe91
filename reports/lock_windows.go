//go:build windows

package reports

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// noFollow is nothing where symbolic links are not followed by open, or
// cannot be refused by it.
const noFollow = 0

// links is 1: the file's names are not counted here.
func links(os.FileInfo) uint64 { return 1 }

const removeWhileHeld = false

// lockFile locks a byte of f far past its end, so that the pid it holds
// stays readable, without waiting; false when another process holds it.
func lockFile(f *os.File) (bool, error) {
	at := &windows.Overlapped{OffsetHigh: 1} // 4 GiB in
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, at)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return false, nil
	}
	return err == nil, err
}
