package proc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"syscall"
)

// errNoSubjectProcesses is why Start fails on Windows: stopping what a
// subject started needs process groups and signals, which Windows lacks.
var errNoSubjectProcesses = unsupported("starting a subject process is not supported on Windows: check a served agent with --url, or a client with --listen")

// unsupported is an error that errors.Is finds to be errors.ErrUnsupported.
type unsupported string

func (e unsupported) Error() string { return string(e) }
func (unsupported) Unwrap() error   { return errors.ErrUnsupported }

// Start starts nothing on Windows: it returns an error that wraps
// errors.ErrUnsupported and says what to check instead.
func Start(argv []string) (*Process, error) { return StartPassingStderr(argv, nil) }

// StartPassingStderr is Start's on Windows: it starts nothing.
func StartPassingStderr(argv []string, _ io.Writer) (*Process, error) {
	if len(argv) == 0 {
		return nil, errors.New("no command to start")
	}
	return nil, fmt.Errorf("start %s: %w", argv[0], errNoSubjectProcesses)
}

// BecomeSubreaper does nothing on Windows, where no subject is started.
func BecomeSubreaper() error { return nil }

// No Process exists on Windows: what follows only completes its methods.

func (p *Process) signal(syscall.Signal) {}

func (p *Process) remember() {}

func (p *Process) endDescendants(context.Context) {}

func retireWatchdog() {}

func watched(func()) {}

func tellWatchdog(byte, int) {}

func signalName(sig syscall.Signal) string { return sig.String() }

// EndOrphans does nothing on Windows, where no subject is started.
func EndOrphans(context.Context) {}
