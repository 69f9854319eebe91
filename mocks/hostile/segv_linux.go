package main

import (
	"fmt"
	"os"
	"syscall"
	"time"
	"unsafe"
)

// segv kills this process with SIGSEGV. The Go runtime turns a SIGSEGV
// into an exit with status 2, so the default action is put back first
// with rt_sigaction: a zero struct sigaction is SIG_DFL.
func segv() {
	var dfl [4]uint64 // handler, flags, restorer, mask
	if _, _, errno := syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(syscall.SIGSEGV), uintptr(unsafe.Pointer(&dfl)), 0, 8, 0, 0); errno != 0 {
		fmt.Fprintf(os.Stderr, "hostile: rt_sigaction: %v\n", errno)
		os.Exit(2)
	}
	_ = syscall.Kill(os.Getpid(), syscall.SIGSEGV)
	time.Sleep(forever) // the signal is on its way
}
