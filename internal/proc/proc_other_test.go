//go:build unix && !linux

package proc

import (
	"syscall"
	"testing"
)

// requireGone fails t unless every pid is gone; kill(pid, 0) also finds a
// zombie no one has reaped.
func requireGone(t *testing.T, pids ...int) {
	t.Helper()
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); err != syscall.ESRCH {
			t.Errorf("process %d is left behind (kill 0: %v)", pid, err)
		}
	}
}

// requireGroupsGone fails t unless no process is in any of the groups.
func requireGroupsGone(t *testing.T, pgids ...int) {
	t.Helper()
	for _, g := range pgids {
		if err := syscall.Kill(-g, 0); err != syscall.ESRCH {
			t.Errorf("process group %d is left behind (kill 0: %v)", g, err)
		}
	}
}
