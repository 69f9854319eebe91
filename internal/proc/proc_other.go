//go:build unix && !linux

package proc

import (
	"context"
	"os"
	"os/exec"
)

// BecomeSubreaper does nothing on this platform: orphans go to init, and
// Stop reaches only the process group.
func BecomeSubreaper() error { return nil }

func (p *Process) remember() {}

func (p *Process) noteStart() {}

func (p *Process) endDescendants(context.Context) {}

// startCmd starts cmd. This platform has no parent-death signal: a
// process outlives this program unless Stop or the watchdog ends it.
func startCmd(cmd *exec.Cmd) error { return cmd.Start() }

// executable is this program's executable, for the watchdog.
func executable() (string, error) { return os.Executable() }

// endRun does nothing on this platform: the watchdog has killed the
// groups, and there is no /proc to find more by.
func endRun(context.Context, string, map[int]bool) {}

// EndOrphans does nothing on this platform, where no orphan comes to
// this program.
func EndOrphans(context.Context) {}
