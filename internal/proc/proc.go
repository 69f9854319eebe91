// Package proc starts the processes under test: each in its own process
// group, with pipes on its stdio, and stops them politely, then firmly,
// taking whatever they started with them.
package proc

import (
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

// Process is a started process.
type Process struct {
	Stdin  io.WriteCloser
	Stdout io.ReadCloser
	Stderr *TailBuffer // the last StderrLimit bytes it wrote
	cmd    *exec.Cmd
	exited chan struct{}
	err    error // how it exited, once exited is closed
	stop   sync.Once
}

// StderrLimit is how much of a subject's stderr is kept: the end.
const StderrLimit = 64 << 10

// Start starts argv in its own process group with pipes on its stdio.
func Start(argv []string) (*Process, error) {
	if len(argv) == 0 {
		return nil, errors.New("no command to start")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p := &Process{cmd: cmd, Stderr: &TailBuffer{Limit: StderrLimit}, exited: make(chan struct{})}
	// Stderr is read from a pipe of our own, not through exec's copying:
	// a child the process leaves behind may hold it open, and the exit
	// must count at once all the same. Stop ends the child with the group.
	errRead, errWrite, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = errWrite
	go func() {
		_, _ = io.Copy(p.Stderr, errRead)
		errRead.Close()
	}()
	defer errWrite.Close() // the child has its own copy
	if p.Stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if p.Stdout, err = cmd.StdoutPipe(); err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	live.Store(p, struct{}{})
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

// Stop ends the process politely, then firmly: it closes stdin and waits
// StopGrace, sends SIGTERM to the process group and waits StopGrace again,
// then sends SIGKILL. It returns how the process exited, nil for status 0.
func (p *Process) Stop() error {
	p.stop.Do(func() {
		p.Stdin.Close()
		if p.wait(StopGrace) {
			return
		}
		p.signal(syscall.SIGTERM)
		if p.wait(StopGrace) {
			return
		}
		p.signal(syscall.SIGKILL)
		<-p.exited
	})
	// What the process started lives on in its group after it exits; end it.
	p.signal(syscall.SIGKILL)
	live.Delete(p)
	return p.err
}

func (p *Process) wait(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return true
	case <-t.C:
		return false
	}
}

func (p *Process) signal(sig syscall.Signal) {
	_ = syscall.Kill(-p.cmd.Process.Pid, sig) // the whole group
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

// ExitDescription says how the process ended, for people: "exited with
// status 5", "was killed by signal SIGSEGV"; "" while it runs.
func (p *Process) ExitDescription() string {
	select {
	case <-p.exited:
	default:
		return ""
	}
	var exit *exec.ExitError
	if !errors.As(p.err, &exit) {
		if p.err != nil {
			return "ended: " + p.err.Error()
		}
		return "exited with status 0"
	}
	if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return fmt.Sprintf("was killed by signal %s", unix.SignalName(ws.Signal()))
	}
	return fmt.Sprintf("exited with status %d", exit.ExitCode())
}

// live is every process started and not yet stopped.
var live sync.Map // *Process -> struct{}

// StopAll stops every process started and not yet stopped, at once, each
// as Stop does.
func StopAll() {
	var wg sync.WaitGroup
	live.Range(func(k, _ any) bool {
		wg.Add(1)
		go func() { defer wg.Done(); k.(*Process).Stop() }()
		return true
	})
	wg.Wait()
}

// KillAll kills every process started and not yet stopped, and what they
// started, at once.
func KillAll() {
	live.Range(func(k, _ any) bool {
		k.(*Process).signal(syscall.SIGKILL)
		return true
	})
}
