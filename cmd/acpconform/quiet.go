package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// silenceStdout sends what is written to this process's stdout (file
// descriptor 1) to the null device until restore is called. Ginkgo writes
// its own report there, which the summary replaces when not verbose.
func silenceStdout() (restore func()) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return func() {}
	}
	// Close-on-exec: a subject started meanwhile must not inherit our stdout.
	saved, err := unix.FcntlInt(1, unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		null.Close()
		return func() {}
	}
	if err := unix.Dup2(int(null.Fd()), 1); err != nil {
		unix.Close(saved)
		null.Close()
		return func() {}
	}
	return func() {
		_ = unix.Dup2(saved, 1)
		unix.Close(saved)
		null.Close()
	}
}
