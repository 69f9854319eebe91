// Package proc starts the processes under test: each in its own process
// group, with pipes on its stdio, and stops them politely, then firmly,
// taking whatever they started with them.
package proc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// StopGrace is how long a subject process gets to exit after its stdin
// closes, and again after SIGTERM, before it is killed.
const StopGrace = 2 * time.Second

// Process is a started process. Its Stdout is a pipe of its own: what the
// process wrote before it exited stays readable to EOF until Stop.
type Process struct {
	Stdin      io.WriteCloser
	Stdout     io.ReadCloser
	Stderr     *TailBuffer // the last StderrLimit bytes it wrote
	name       string
	cmd        *exec.Cmd
	stdout     *os.File // read end of Stdout
	stderr     *os.File // read end of stderr, closed by the copier
	stderrDone chan struct{}
	exited     chan struct{}
	err        error // how it exited, once exited is closed
	stop       sync.Once

	mu   sync.Mutex
	sent sent // the strongest ending we asked for
}

// sent records which signal we sent the process, so that its end can be
// told apart from a crash.
type sent int

const (
	sentNothing  sent = iota
	sentTerm          // Stop's SIGTERM after the stdin grace
	sentKillLate      // Stop's SIGKILL after the SIGTERM grace
)

// StderrLimit is how much of a subject's stderr is kept: the end.
const StderrLimit = 64 << 10

// Start starts argv in its own process group with pipes on its stdio.
func Start(argv []string) (*Process, error) {
	if len(argv) == 0 {
		return nil, errors.New("no command to start")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p := &Process{
		name:       argv[0],
		cmd:        cmd,
		Stderr:     &TailBuffer{Limit: StderrLimit},
		stderrDone: make(chan struct{}),
		exited:     make(chan struct{}),
	}
	// Stderr is read from a pipe of our own, not through exec's copying:
	// a child the process leaves behind may hold it open, and the exit
	// must count at once all the same. Stop ends the child with the group.
	errRead, errWrite, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr, p.stderr = errWrite, errRead
	go func() {
		_, _ = io.Copy(p.Stderr, errRead)
		errRead.Close()
		close(p.stderrDone)
	}()
	defer errWrite.Close() // the child has its own copy
	// Stdout too, for another reason: exec's StdoutPipe is closed by Wait
	// as soon as the process exits, losing what is still in the pipe.
	outRead, outWrite, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = outWrite
	p.Stdout, p.stdout = outRead, outRead
	defer outWrite.Close()
	if p.Stdin, err = cmd.StdinPipe(); err != nil {
		outRead.Close()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		outRead.Close()
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// Exited is closed when the process has exited.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Err is how the process exited; call it after Exited is closed.
func (p *Process) Err() error { return p.err }

// Wait waits until the process has exited and all it wrote to stderr is
// in Stderr, or until ctx ends. It returns nil when both have happened,
// otherwise ctx's error: a process it started may hold stderr open, until
// Stop ends it. How the process exited is Err and ExitDescription.
func (p *Process) Wait(ctx context.Context) error {
	for _, done := range []<-chan struct{}{p.exited, p.stderrDone} {
		select {
		case <-done:
		case <-ctx.Done():
			return fmt.Errorf("wait for %s to exit and close stderr: %w", p.name, context.Cause(ctx))
		}
	}
	return nil
}

// Stop ends the process politely, then firmly: it closes stdin and waits
// StopGrace, sends SIGTERM to the process group and waits StopGrace again,
// then sends SIGKILL. It kills the rest of the group, waits at most
// StopGrace for stderr to close, closes Stdout and returns how the process
// exited, nil for status 0.
func (p *Process) Stop() error {
	p.stop.Do(func() {
		p.Stdin.Close()
		if p.await(p.exited, StopGrace) {
			return
		}
		p.setSent(sentTerm)
		p.signal(syscall.SIGTERM)
		if p.await(p.exited, StopGrace) {
			return
		}
		p.setSent(sentKillLate)
		p.signal(syscall.SIGKILL)
		<-p.exited
	})
	// What the process started lives on in its group after it exits; end it.
	p.signal(syscall.SIGKILL)
	if !p.await(p.stderrDone, StopGrace) {
		p.stderr.Close() // held open out of our reach: end the copier
	}
	p.stdout.Close()
	return p.err
}

func (p *Process) await(done <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}

func (p *Process) signal(sig syscall.Signal) {
	_ = syscall.Kill(-p.cmd.Process.Pid, sig) // the whole group
}

func (p *Process) setSent(s sent) {
	select {
	case <-p.exited: // too late to be how it ended
		return
	default:
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sent = s
}

// ExitDescription says how the process ended, for people: "exited with
// status 5", "killed by signal SIGSEGV (segmentation fault)" when it died
// of a signal no one here sent, "stopped by SIGTERM ..." or "killed by
// SIGKILL after ignoring SIGTERM" when Stop had to go that far, and "still
// running" before it exits.
func (p *Process) ExitDescription() string {
	select {
	case <-p.exited:
	default:
		return "still running"
	}
	p.mu.Lock()
	sent := p.sent
	p.mu.Unlock()
	if p.cmd.ProcessState == nil { // the wait itself failed
		return fmt.Sprintf("ended, but waiting for it failed: %v", p.err)
	}
	status, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus)
	switch {
	case !ok:
		return p.cmd.ProcessState.String()
	case status.Exited() && (sent == sentTerm || sent == sentKillLate):
		return fmt.Sprintf("exited with status %d after SIGTERM", status.ExitStatus())
	case status.Exited():
		return fmt.Sprintf("exited with status %d", status.ExitStatus())
	case !status.Signaled():
		return p.cmd.ProcessState.String()
	}
	switch sig := status.Signal(); {
	case sig == syscall.SIGTERM && sent == sentTerm:
		return fmt.Sprintf("stopped by SIGTERM, still running %s after its stdin closed", StopGrace)
	case sig == syscall.SIGKILL && sent == sentKillLate:
		return "killed by SIGKILL after ignoring SIGTERM"
	default:
		d := fmt.Sprintf("killed by signal %s (%s)", unix.SignalName(sig), sig)
		if status.CoreDump() {
			d += ", core dumped"
		}
		return d
	}
}

// TailBuffer keeps the last Limit bytes written to it; safe for concurrent use.
type TailBuffer struct {
	Limit int

	mu      sync.Mutex
	buf     []byte
	dropped int
}

func (t *TailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.Limit; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.dropped += over
	}
	return len(p), nil
}

// String returns what is kept, saying how much came before it.
func (t *TailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dropped > 0 {
		return fmt.Sprintf("[%d earlier bytes dropped]\n%s", t.dropped, t.buf)
	}
	return string(t.buf)
}
