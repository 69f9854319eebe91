package suite

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/acpconform/acpconform/internal/proc"
	"github.com/acpconform/acpconform/mocks/wire"
)

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
	p, err := proc.Start(c.argv)
	if err != nil {
		return nil, err
	}
	opts := c.opts
	opts.Transcript = nil
	conn := wire.NewStream(p.Stdout, p.Stdin, opts)
	return &Link{Conn: conn, Diagnostics: p.Stderr.String, process: p, stdin: p.Stdin, close: func() error {
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
	p, err := proc.Start(argv)
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
		return &Link{Conn: conn, Diagnostics: p.Stderr.String, process: p, close: stop}, nil
	case <-p.Exited():
		stop()
		return nil, &StartError{What: fmt.Sprintf("it %s before it connected to %s", wasEnded(p.ExitDescription()), srv.URL), Stderr: p.Stderr.String()}
	case <-ctx.Done():
		stop()
		return nil, &StartError{What: fmt.Sprintf("it did not connect to %s: %v", srv.URL, context.Cause(ctx)), Stderr: p.Stderr.String(), Err: ctx.Err()}
	}
}
