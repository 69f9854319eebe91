// Package proc starts the processes under test with pipes on their stdio,
// keeps what they write until it is read, and stops them politely, then
// firmly, taking whatever they started with them.
//
// How far "whatever they started" reaches depends on the platform. On
// Linux, Stop kills the process group, every process of ours that carries
// the process's environment marker (the variable MarkerEnv, which
// descendants inherit), and every descendant found by walking parent links
// in /proc; BecomeSubreaper makes orphaned descendants children of this
// process, so that Stop also reaps them. On other Unix systems only the
// process group is stopped. On Windows, Start returns an error wrapping
// errors.ErrUnsupported and the rest does nothing: there acpconform checks
// only subjects it connects to, never ones it starts.
//
// A program killed by SIGKILL stops nothing, so Start also provides for
// its death. On Linux every process started gets SIGKILL as its
// parent-death signal. On every Unix system a watchdog (watchdog.go), a
// copy of this program started with the first process, kills the
// processes' groups when this program dies without stopping them, and on
// Linux also every process that carries a marker of the run.
//
// A program that starts processes here calls BecomeSubreaper once at its
// start, and StopAll on every way out: at its end, on an interrupt or a
// timeout; KillAll answers a second interrupt.
package proc

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// StopGrace is how long a subject process gets to exit after its stdin
// closes, and again after SIGTERM, before it is killed. Stop also gives
// what it killed at most this long to be gone and to close stderr.
const StopGrace = 2 * time.Second

// StderrLimit is how much of a subject's stderr is kept: the end.
const StderrLimit = 64 << 10

// MarkerEnv is the environment variable Start gives each process: a
// space-separated list of markers, the process's own last, after those it
// inherited from an enclosing acpconform. Descendants inherit it, so Stop
// can find them after they leave the process group or lose their parent.
const MarkerEnv = "ACPCONFORM_SUBJECT"

// Process is a started process. Its Stdout is a pipe of its own: what the
// process wrote before it exited stays readable to EOF until Stop.
type Process struct {
	Stdin  io.WriteCloser
	Stdout io.ReadCloser
	Stderr *TailBuffer // the last StderrLimit bytes it wrote

	name       string
	marker     string // this process's token in MarkerEnv
	cmd        *exec.Cmd
	stdout     *os.File // read end of Stdout
	stderr     *os.File // read end of stderr, closed by the copier
	stderrDone chan struct{}
	exited     chan struct{}
	err        error // how it exited, once exited is closed

	mu    sync.Mutex
	sent  sent     // the strongest ending we asked for
	known []member // descendants seen while it ran (Linux)

	startTicks uint64 // when it started, in clock ticks after boot (Linux)

	polite   sync.Once
	finished sync.Once
}

// member is a process found to belong to a subject; its start time tells
// it from a later process given the same pid.
type member struct {
	pid   int
	start uint64
}

// sent records which signal we sent the process, so that its end can be
// told apart from a crash.
type sent int

const (
	sentNothing    sent = iota
	sentTerm            // Stop's SIGTERM after the stdin grace
	sentKillLate        // Stop's SIGKILL after the SIGTERM grace
	sentKillAtOnce      // Kill's SIGKILL
)

// Pid is the process's id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

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
// then sends SIGKILL. Then it kills what the process started (see the
// package doc), waits at most StopGrace for that to be gone and for stderr
// to close, and closes Stdout. It returns how the process exited, nil for
// status 0. Stop may be called more than once and concurrently with Kill,
// StopAll and KillAll.
func (p *Process) Stop() error {
	p.polite.Do(p.stopPolitely)
	p.finish()
	return p.err
}

// Kill is Stop without the politeness: it sends SIGKILL to the process,
// its group and what it started at once, then finishes as Stop does.
func (p *Process) Kill() error {
	p.remember()
	p.setSent(sentKillAtOnce)
	p.signal(syscall.SIGKILL)
	<-p.exited
	p.finish()
	return p.err
}

func (p *Process) stopPolitely() {
	p.remember()
	p.Stdin.Close()
	if p.await(p.exited, StopGrace) {
		return
	}
	p.setSent(sentTerm)
	p.signal(syscall.SIGTERM)
	if p.await(p.exited, StopGrace) {
		return
	}
	p.remember() // what it started since
	p.setSent(sentKillLate)
	p.signal(syscall.SIGKILL)
	<-p.exited
}

// finish ends what the process left behind, once it has exited.
func (p *Process) finish() {
	p.finished.Do(func() {
		// What the process started lives on in its group after it exits.
		p.signal(syscall.SIGKILL)
		ctx, cancel := context.WithTimeout(context.Background(), StopGrace)
		defer cancel()
		p.endDescendants(ctx)
		select {
		case <-p.stderrDone:
		case <-ctx.Done():
			p.stderr.Close() // held open out of our reach: end the copier
		}
		p.stdout.Close()
		watched(func() { tellWatchdog('-', p.cmd.Process.Pid) })
		unregister(p)
	})
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

func (p *Process) setSent(s sent) {
	select {
	case <-p.exited: // too late to be how it ended
		return
	default:
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sent != sentKillAtOnce {
		p.sent = s
	}
}

// ExitDescription says how the process ended, for people: "exited with
// status 5", "killed by signal SIGSEGV (segmentation fault)" when it died
// of a signal no one here sent, "stopped by SIGTERM ..." or "killed by
// SIGKILL after ignoring SIGTERM" when Stop had to go that far, "killed at
// once by SIGKILL" after Kill, and "still running" before it exits.
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
	case sig == syscall.SIGKILL && sent == sentKillAtOnce:
		return "killed at once by SIGKILL"
	default:
		d := fmt.Sprintf("killed by signal %s (%s)", signalName(sig), sig)
		if status.CoreDump() {
			d += ", core dumped"
		}
		return d
	}
}

// live holds every process started and not yet stopped.
var live struct {
	sync.Mutex
	procs map[*Process]struct{}
}

func register(p *Process) {
	live.Lock()
	defer live.Unlock()
	if live.procs == nil {
		live.procs = make(map[*Process]struct{})
	}
	live.procs[p] = struct{}{}
}

func unregister(p *Process) {
	live.Lock()
	defer live.Unlock()
	delete(live.procs, p)
}

func started() []*Process {
	live.Lock()
	defer live.Unlock()
	ps := make([]*Process, 0, len(live.procs))
	for p := range live.procs {
		ps = append(ps, p)
	}
	return ps
}

// StopAll stops every process started and not yet stopped, all at once,
// and returns when they are stopped. Call it on every way out of the
// program; it is safe to call more than once and concurrently with Stop.
func StopAll() { endAll((*Process).Stop) }

// KillAll kills every process started and not yet stopped, and what they
// started, without waiting out any grace: the answer to a second
// interrupt. It is safe to call more than once and while StopAll runs,
// which it cuts short.
func KillAll() { endAll((*Process).Kill) }

func endAll(end func(*Process) error) {
	var wg sync.WaitGroup
	for _, p := range started() {
		wg.Go(func() { _ = end(p) })
	}
	wg.Wait()
	retireWatchdog()
}

var (
	runID = sync.OnceValue(func() string {
		b := make([]byte, 8)
		_, _ = rand.Read(b) // it never returns an error
		return hex.EncodeToString(b)
	})
	serial atomic.Uint64
)

// newMarker returns a token no other process has: an id for this run of
// the program and a serial number.
func newMarker() string { return fmt.Sprintf("%s-%d", runID(), serial.Add(1)) }

// SubjectEnviron is env without what lets a process write to the CI job
// that runs it: GitHub's file commands (GITHUB_ENV, GITHUB_OUTPUT,
// GITHUB_PATH, GITHUB_STATE, GITHUB_STEP_SUMMARY), through which a subject
// could set the variables of the job's later steps (BASH_ENV among them),
// its outputs, its PATH and its summary, and the runner's tokens and
// service addresses (ACTIONS_*). A subject is data to acpconform, never a
// step of the job; a user who wants one of these passed writes it into the
// subject's command line (env NAME="$NAME" ./agent).
func SubjectEnviron(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(name, "ACTIONS_"):
		case name == "GITHUB_ENV", name == "GITHUB_OUTPUT", name == "GITHUB_PATH", name == "GITHUB_STATE", name == "GITHUB_STEP_SUMMARY":
		default:
			out = append(out, kv)
		}
	}
	return out
}

// withMarker returns env with marker appended to MarkerEnv, keeping the
// markers of an enclosing acpconform so that it still finds the process.
func withMarker(env []string, marker string) []string {
	out := make([]string, 0, len(env)+1)
	value := marker
	for _, kv := range env {
		if old, ok := strings.CutPrefix(kv, MarkerEnv+"="); ok {
			if old != "" {
				value = old + " " + marker
			}
			continue
		}
		out = append(out, kv)
	}
	return append(out, MarkerEnv+"="+value)
}

// passing keeps what is written and passes it on, whatever the passing
// does: a stderr of ours that is closed must not stop the draining of a
// process's, which would block the process.
type passing struct{ keep, pass io.Writer }

func (p passing) Write(b []byte) (int, error) {
	_, _ = p.pass.Write(b)
	return p.keep.Write(b)
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
