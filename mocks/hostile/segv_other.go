//go:build unix && !linux

package main

import (
	"fmt"
	"os"
	"syscall"
)

// segv kills this process with SIGSEGV. The Go runtime ignores a SIGSEGV
// that kill sends, and only Linux has a system call here to put back the
// default action, so the process becomes a shell, with the same pid and
// stdio, that sends itself one.
func segv() {
	err := syscall.Exec("/bin/sh", []string{"sh", "-c", "kill -SEGV $$"}, os.Environ())
	fmt.Fprintf(os.Stderr, "hostile: exec /bin/sh: %v\n", err)
	os.Exit(2)
}
