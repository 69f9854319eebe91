// Package bridge connects a process that spawns its ACP peer on stdio (an
// editor starting its agent, a proxy starting the next hop) back to the
// harness that checks it. The harness listens on a unix socket in a
// private directory (Listen); the process under test runs the command line
// of the bridge (acpconform bridge SOCKET, Run) as its peer, and the bridge
// copies bytes both ways between its stdio and the socket, unchanged.
//
// Only this user can connect: the socket's directory is made afresh for
// each listener with mode 0700 and removed when the listener closes.
// Nothing listens on TCP. The directory is made in $TMPDIR, or in /tmp
// when $TMPDIR is missing or too long for a unix socket's path (MaxPath).
// A listener takes one connection, its check's agent; a later one is
// refused, and said (Again), so that a process that starts its agent
// twice is told apart from one whose agent ended.
package bridge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
)

// Listener takes one connection on a unix socket in a private directory,
// and refuses every later one until it closes.
type Listener struct {
	// Path is the socket's path, for the bridge's command line.
	Path string

	dir       string
	ln        *net.UnixListener
	once      sync.Once
	ready     chan struct{} // closed once the first connection has arrived, or the listener has closed
	again     chan struct{} // closed once a second connection has arrived
	accepting chan struct{} // closed once accept has returned
	conn      *net.UnixConn // the first connection, until Accept hands it over
	err       error         // why accept took nothing
	mu        sync.Mutex    // guards conn once ready is closed
}

// MaxPath is the longest path a unix socket may have on this platform:
// sun_path less its terminating NUL, 107 bytes on Linux and 103 on macOS.
const MaxPath = len(syscall.RawSockaddrUnix{}.Path) - 1

// ErrNoSocketDir is Listen's error when no directory it tries can hold
// the socket: a fault of the harness's environment, not of the process
// under test.
var ErrNoSocketDir = errors.New("no directory can hold the bridge's unix socket")

// Listen makes a private directory and listens on a unix socket in it. It
// accepts one connection, in the background; Accept returns it. Every
// later connection is closed at once: the peer reads the end of its
// input. The directory is made in os.TempDir ($TMPDIR), or else in /tmp:
// the first where the socket's path is at most MaxPath bytes and
// listening works. When neither does, the error wraps ErrNoSocketDir and
// says why each failed.
func Listen() (*Listener, error) {
	places := []place{{os.TempDir(), os.TempDir()}}
	if os.Getenv("TMPDIR") != "" {
		places[0].name = "$TMPDIR"
	}
	if os.TempDir() != "/tmp" {
		places = append(places, place{"/tmp", "/tmp"})
	}
	return listenIn(places)
}

// place is a directory Listen may make the socket's directory in, with
// the name an error gives it.
type place struct{ name, dir string }

func listenIn(places []place) (*Listener, error) {
	var why []string
	for _, p := range places {
		l, err := listenUnder(p.dir)
		if err == nil {
			return l, nil
		}
		name := p.name
		if name != p.dir {
			name += " (" + p.dir + ")"
		}
		why = append(why, fmt.Sprintf("%s: %v", name, err))
	}
	return nil, fmt.Errorf("%w: %s; set TMPDIR to an existing directory with a short path", ErrNoSocketDir, strings.Join(why, "; "))
}

// listenUnder makes a private directory under parent and listens on a
// unix socket in it.
func listenUnder(parent string) (*Listener, error) {
	dir, err := os.MkdirTemp(parent, "acpconform-bridge-") // mode 0700
	if err != nil {
		return nil, fmt.Errorf("make the socket's directory: %w", err)
	}
	path := filepath.Join(dir, "agent.sock")
	if len(path) > MaxPath {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("the socket's path would be %d bytes, over the %d a unix socket's path may have", len(path), MaxPath)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	l := &Listener{Path: path, dir: dir, ln: ln, ready: make(chan struct{}), again: make(chan struct{}), accepting: make(chan struct{})}
	go l.accept()
	return l, nil
}

func (l *Listener) accept() {
	defer close(l.accepting)
	l.conn, l.err = l.ln.AcceptUnix()
	close(l.ready)
	if l.err != nil {
		return
	}
	for again := l.again; ; again = nil {
		c, err := l.ln.AcceptUnix()
		if err != nil {
			return // closed
		}
		c.Close() // one connection a listener
		if again != nil {
			close(again)
		}
	}
}

// Ready is closed once the first connection has arrived, or the listener
// has closed without one: Accept then returns at once.
func (l *Listener) Ready() <-chan struct{} { return l.ready }

// Again is closed once a second connection has arrived, which the
// listener refused, as it refuses every later one.
func (l *Listener) Again() <-chan struct{} { return l.again }

// Accept waits for the connection, at most until ctx ends, and hands it
// over: the caller closes it.
func (l *Listener) Accept(ctx context.Context) (*net.UnixConn, error) {
	select {
	case <-l.ready:
	case <-ctx.Done():
		return nil, fmt.Errorf("bridge: nothing connected to %s: %w", l.Path, context.Cause(ctx))
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.conn
	l.conn = nil
	if c == nil {
		if l.err == nil {
			return nil, fmt.Errorf("bridge: accept on %s: the connection was handed over already", l.Path)
		}
		return nil, fmt.Errorf("bridge: accept on %s: %w", l.Path, l.err)
	}
	return c, nil
}

// Close stops listening and removes the socket and its directory. It
// closes a connection that arrived but that Accept has not handed over.
func (l *Listener) Close() error {
	err := l.stop()
	<-l.accepting // the listener is closed: accept ends
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn != nil {
		l.conn.Close()
		l.conn = nil
	}
	return err
}

func (l *Listener) stop() error {
	var err error
	l.once.Do(func() {
		err = l.ln.Close()
		if rerr := os.RemoveAll(l.dir); rerr != nil && err == nil {
			err = fmt.Errorf("bridge: remove %s: %w", l.dir, rerr)
		}
	})
	return err
}

// ErrUnreachable is Run's error when it cannot connect to the socket.
var ErrUnreachable = errors.New("bridge: cannot connect")

// Run connects to the unix socket at path and copies bytes both ways
// between it and stdin/stdout, unchanged, until either side ends, as an
// agent on stdio does until its input ends. At the end of stdin it closes
// the socket's write side first, so the harness reads EOF; at the end of
// the harness's side it closes stdout (when it is an io.Closer), so the
// process that spawned the bridge reads EOF. A stdout that can no longer
// be written ends it too. It returns nil, or, when it cannot connect, an
// error wrapping ErrUnreachable.
func Run(path string, stdin io.Reader, stdout io.Writer) error {
	c, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return fmt.Errorf("%w to %s: %w", ErrUnreachable, path, err)
	}
	defer c.Close()
	ended := make(chan struct{}, 2)
	go func() {
		_, _ = io.Copy(c, stdin)
		_ = c.CloseWrite() // EOF for the harness, before the socket closes
		ended <- struct{}{}
	}()
	go func() {
		_, _ = io.Copy(stdout, c) // the harness's EOF, or stdout gone
		if wc, ok := stdout.(io.Closer); ok {
			wc.Close()
		}
		ended <- struct{}{}
	}()
	<-ended
	return nil
}

// CommandLine is argv as one line a shell reads back as argv, and that
// splitting on spaces reads back too when no word needs quoting: words of
// safe characters stay bare, others are single-quoted.
func CommandLine(argv []string) string {
	out := make([]string, len(argv))
	for i, w := range argv {
		if w != "" && safeWord.MatchString(w) {
			out[i] = w
		} else {
			out[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}

var safeWord = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)
