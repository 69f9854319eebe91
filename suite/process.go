package suite

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/acpconform/acpconform/mocks/wire"
)

// StopGrace is how long a subject process gets to exit after its stdin
// closes, and again after SIGTERM, before it is killed.
const StopGrace = 2 * time.Second

// Command is an agent or a client started as a process, one process per
// connection, each in its own process group so that stopping it stops
// everything it started. It speaks ACP on its stdio, or, when an argument
// holds the placeholder {url}, connects to a WebSocket the harness serves
// on loopback for that process.
func Command(argv []string, role Role, opts wire.Options) Subject {
	return command{argv: argv, role: role, opts: opts}
}

type command struct {
	argv []string
	role Role
	opts wire.Options
}

func (c command) Name() string  { return string(c.role) + " command " + strings.Join(c.argv, " ") }
func (c command) Role() Role    { return c.role }
func (command) InProcess() bool { return false }

func (c command) Connect(ctx context.Context) (*Link, error) {
	if slices.ContainsFunc(c.argv, func(a string) bool { return strings.Contains(a, URLPlaceholder) }) {
		return c.connectWebSocket(ctx)
	}
	p, err := Start(c.argv)
	if err != nil {
		return nil, err
	}
	opts := c.opts
	opts.Transcript = nil
	conn := wire.NewStream(p.Stdout, p.Stdin, opts)
	return &Link{Conn: conn, Diagnostics: p.Stderr.String, close: func() error {
		conn.Close()
		return p.Stop()
	}}, nil
}

// URLPlaceholder in a command's arguments is replaced by the WebSocket URL
// the harness serves for it.
const URLPlaceholder = "{url}"

// connectWebSocket serves one WebSocket, starts the process with its URL
// and waits, at most until ctx ends, for the process to connect.
func (c command) connectWebSocket(ctx context.Context) (*Link, error) {
	conns := make(chan wire.Conn, 1)
	released := make(chan struct{})
	opts := c.opts
	opts.Transcript = nil
	srv, err := wire.Listen("127.0.0.1:0", wire.DefaultPath, opts, func(hctx context.Context, conn wire.Conn) {
		select {
		case conns <- conn:
		default:
			return // one connection per process
		}
		select { // the handler owns the connection: hold it until the link ends
		case <-released:
		case <-hctx.Done():
		}
	})
	if err != nil {
		return nil, err
	}
	argv := make([]string, len(c.argv))
	for i, a := range c.argv {
		argv[i] = strings.ReplaceAll(a, URLPlaceholder, srv.URL)
	}
	p, err := Start(argv)
	if err != nil {
		srv.Close()
		return nil, err
	}
	stop := func() error {
		close(released)
		err := p.Stop()
		srv.Close()
		return err
	}
	select {
	case conn := <-conns:
		return &Link{Conn: conn, Diagnostics: p.Stderr.String, close: stop}, nil
	case <-p.Exited():
		stop()
		return nil, fmt.Errorf("%s exited before connecting to %s: %v\n%s", argv[0], srv.URL, p.Err(), p.Stderr.String())
	case <-ctx.Done():
		stop()
		return nil, fmt.Errorf("%s did not connect to %s: %w", argv[0], srv.URL, ctx.Err())
	}
}

// Process is a started subject process.
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
