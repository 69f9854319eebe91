//go:build unix && !linux

package proc

import "context"

// BecomeSubreaper does nothing on this platform: orphans go to init, and
// Stop reaches only the process group.
func BecomeSubreaper() error { return nil }

func (p *Process) remember() {}

func (p *Process) noteStart() {}

func (p *Process) endDescendants(context.Context) {}
