package suite

import (
	"context"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/acpconform/acpconform/internal/bridge"
	"github.com/acpconform/acpconform/internal/proc"
	"github.com/acpconform/acpconform/mocks/wire"
)

// Command is an agent or a client started as a process, one process per
// connection, each in its own process group so that stopping it stops
// everything it started. It speaks ACP on its stdio; or, when an argument
// holds the placeholder {url}, it connects to a WebSocket the harness
// serves on loopback for that process; or, when an argument holds
// {agent}, it spawns that command line as its agent, and the agent it
// reaches is the harness, through acpconform bridge (see BridgeCommand).
// An argument may not hold both.
//
// An agent on stdio is started ahead of need: while one process serves a
// check, the next ones load (see Spares). Release stops those left over.
func Command(argv []string, role Role, opts wire.Options) Subject {
	c := &command{argv: argv, role: role, opts: opts}
	if role == AgentRole && c.Transport() == StdioTransport {
		c.spares = &spares{argv: argv, want: Spares}
	}
	return c
}

// Spares is how many processes of an agent on stdio are started ahead of
// need. A process that starts slowly (a Node agent with its SDK: about
// 250 ms) loads while the check before it runs. Measured on two cores, the
// TypeScript agent's catalogue took 6.8 s with none, 4.4 s with one and
// 4.8 s with two: more only compete for the cores.
const Spares = 1

type command struct {
	argv   []string
	role   Role
	opts   wire.Options
	spares *spares // nil: each process started when needed
}

func (c *command) Name() string  { return string(c.role) + " command " + strings.Join(c.argv, " ") }
func (c *command) Role() Role    { return c.role }
func (*command) InProcess() bool { return false }

// Release stops the processes started ahead of need and not used.
func (c *command) Release() {
	if c.spares != nil {
		c.spares.release()
	}
}

func (c *command) Transport() Transport {
	switch {
	case holds(c.argv, URLPlaceholder):
		return WebSocketTransport
	case holds(c.argv, AgentPlaceholder):
		return BridgeTransport
	}
	return StdioTransport
}

func (c *command) Connect(ctx context.Context) (*Link, error) {
	if holds(c.argv, URLPlaceholder) && holds(c.argv, AgentPlaceholder) {
		return nil, fmt.Errorf("the command holds both %s and %s: give it one of them", URLPlaceholder, AgentPlaceholder)
	}
	switch c.Transport() {
	case WebSocketTransport:
		return c.connectWebSocket(ctx)
	case BridgeTransport:
		return c.connectBridge(ctx)
	}
	start := proc.Start
	if c.spares != nil {
		start = c.spares.take
	}
	p, err := start(c.argv)
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

// AgentPlaceholder in a command's arguments is replaced, alone or inside
// an argument, by a shell-quoted command line that runs acpconform bridge
// with a socket of this connection: a client or a relay that spawns it as
// its agent, through a shell or by splitting words, reaches the harness.
const AgentPlaceholder = "{agent}"

// BridgeCommand is the program {agent} runs, without its arguments
// "bridge SOCKET"; nil means this executable (os.Executable), which is
// acpconform. A program that embeds the suite and is not acpconform (a
// test binary, say) sets it once, before any check runs.
var BridgeCommand []string

// holds reports whether an argument holds placeholder.
func holds(argv []string, placeholder string) bool {
	return slices.ContainsFunc(argv, func(a string) bool { return strings.Contains(a, placeholder) })
}

// replaced is argv with placeholder replaced by value in every argument.
func replaced(argv []string, placeholder, value string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = strings.ReplaceAll(a, placeholder, value)
	}
	return out
}

// oneWebSocket is a WebSocket the harness serves on loopback for one
// peer: its first connection arrives on conn, and the server holds it
// until release; every later one is refused, with status 1008 and the
// reason oneConnection, and again closes at the first of them.
type oneWebSocket struct {
	*wire.Server
	conn     chan wire.Conn
	again    chan struct{}
	released chan struct{}
	taken    atomic.Bool
	refused  sync.Once
}

func serveOneWebSocket(opts wire.Options) (*oneWebSocket, error) {
	o := &oneWebSocket{conn: make(chan wire.Conn, 1), again: make(chan struct{}), released: make(chan struct{})}
	srv, err := wire.Listen("127.0.0.1:0", wire.DefaultPath, opts, func(hctx context.Context, conn wire.Conn) {
		if !o.taken.CompareAndSwap(false, true) {
			refuse(conn, oneConnection)
			o.refused.Do(func() { close(o.again) })
			return
		}
		o.conn <- conn
		select { // the handler owns the connection: hold it until the link ends
		case <-o.released:
		case <-hctx.Done():
		}
	})
	if err != nil {
		return nil, err
	}
	o.Server = srv
	return o, nil
}

// release lets the connection go; call it once.
func (o *oneWebSocket) release() { close(o.released) }

// connectWebSocket serves one WebSocket, starts the process with its URL
// and waits, at most until ctx ends, for the process to connect.
func (c *command) connectWebSocket(ctx context.Context) (*Link, error) {
	opts := c.opts
	opts.Transcript = nil
	srv, err := serveOneWebSocket(opts)
	if err != nil {
		return nil, err
	}
	p, err := proc.Start(replaced(c.argv, URLPlaceholder, srv.URL))
	if err != nil {
		srv.Close()
		return nil, err
	}
	stop := func() error {
		srv.release()
		err := p.Stop()
		srv.Close()
		return err
	}
	select {
	case conn := <-srv.conn:
		return &Link{Conn: conn, Diagnostics: p.Stderr.String, process: p, close: stop,
			second: watchSecond(connectedAgain(c.role, URLPlaceholder), srv.again, conn)}, nil
	case <-p.Exited():
		stop()
		return nil, &StartError{What: fmt.Sprintf("it %s before it connected to %s", wasEnded(p.ExitDescription()), srv.URL), Stderr: p.Stderr.String()}
	case <-ctx.Done():
		stop()
		return nil, &StartError{What: fmt.Sprintf("it did not connect to %s: %v", srv.URL, context.Cause(ctx)), Stderr: p.Stderr.String(), Err: ctx.Err()}
	}
}

// connectBridge starts a client whose agent is {agent}, and waits, at most
// until ctx ends or the client exits, for that agent, the bridge, to
// connect: the harness plays the agent on the bridge's socket.
func (c *command) connectBridge(ctx context.Context) (*Link, error) {
	p, l, err := startBridged(c.argv)
	if err != nil {
		return nil, err
	}
	uc, serr := awaitBridge(ctx, p, l)
	if serr != nil {
		p.Stop()
		l.Close()
		serr.Stderr = p.Stderr.String()
		return nil, serr
	}
	opts := c.opts
	opts.Transcript = nil
	conn := wire.NewStream(uc, uc, opts)
	return &Link{Conn: conn, Diagnostics: p.Stderr.String, process: p, close: func() error {
		conn.Close()
		err := p.Stop()
		l.Close()
		return err
	}, second: watchSecond(connectedAgain(c.role, AgentPlaceholder), l.Again(), conn)}, nil
}

// startBridged listens for a bridge and starts argv with {agent} replaced
// by the command line of a bridge to that socket.
func startBridged(argv []string) (*proc.Process, *bridge.Listener, error) {
	// What fails before the process starts is the harness's, not the
	// subject's: the error says so.
	harness := func(err error) error {
		return &StartError{What: fmt.Sprintf("acpconform could not prepare %s, a fault of acpconform's environment, not of the subject: %v", AgentPlaceholder, err), Err: err}
	}
	program := BridgeCommand
	if len(program) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return nil, nil, harness(fmt.Errorf("find acpconform's executable: %w", err))
		}
		program = []string{exe}
	}
	l, err := bridge.Listen()
	if err != nil {
		return nil, nil, harness(err)
	}
	line := bridge.CommandLine(append(slices.Clip(program), "bridge", l.Path))
	p, err := proc.Start(replaced(argv, AgentPlaceholder, line))
	if err != nil {
		l.Close()
		return nil, nil, err
	}
	return p, l, nil
}

// awaitBridge waits for the bridge that p was given as {agent} to connect
// to l, at most until ctx ends or p exits. The error says which, for a
// process that did not start its agent, or not in time.
func awaitBridge(ctx context.Context, p *proc.Process, l *bridge.Listener) (*net.UnixConn, *StartError) {
	given := fmt.Sprintf("the agent it was given as %s (acpconform bridge %s)", AgentPlaceholder, l.Path)
	select {
	case <-l.Ready():
	case <-p.Exited():
		select {
		case <-l.Ready(): // it connected, then the process went: the check sees the rest
		default:
			return nil, &StartError{What: fmt.Sprintf("it %s before %s connected: did it start its agent?", wasEnded(p.ExitDescription()), given)}
		}
	case <-ctx.Done():
		return nil, &StartError{What: fmt.Sprintf("it did not start %s: nothing connected (%v)", given, context.Cause(ctx)), Err: ctx.Err()}
	}
	uc, err := l.Accept(ctx)
	if err != nil {
		return nil, &StartError{What: fmt.Sprintf("%s did not connect: %v", given, err), Err: err}
	}
	return uc, nil
}

// spares are processes of one command line started before they are
// needed, oldest first.
type spares struct {
	argv []string
	want int

	mu       sync.Mutex
	ready    []*proc.Process
	released bool
}

// take returns the oldest spare, or a process started now when there is
// none, and starts spares up to want: a fork and exec each, the loading
// is the processes' own.
func (s *spares) take(argv []string) (*proc.Process, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var p *proc.Process
	if len(s.ready) > 0 {
		p, s.ready = s.ready[0], s.ready[1:]
	} else {
		var err error
		if p, err = proc.Start(argv); err != nil {
			return nil, err
		}
	}
	for !s.released && len(s.ready) < s.want {
		spare, err := proc.Start(argv)
		if err != nil {
			break // the next take says why
		}
		s.ready = append(s.ready, spare)
	}
	return p, nil
}

// release stops the spares and starts no more.
func (s *spares) release() {
	s.mu.Lock()
	ready := s.ready
	s.ready, s.released = nil, true
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range ready { // each may take its grace period to exit: at once
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = p.Stop()
		}()
	}
	wg.Wait()
}
