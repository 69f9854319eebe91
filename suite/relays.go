package suite

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/acpconform/acpconform/internal/proc"
	"github.com/acpconform/acpconform/mocks/wire"
)

// Relay is a relay under test (PROBE.md §3): a command that serves ACP to
// the client on its stdio and reaches its agent one of two ways, told by
// the placeholder its arguments hold: {url}, a WebSocket the harness serves
// there (a mirror); or {agent}, a command line it spawns as its agent on
// stdio (a stdio proxy, a proxy chain), which reaches the harness through
// acpconform bridge. The harness plays both ends; Link.Upstream is its
// agent side either way. The command holds exactly one of the two.
func Relay(argv []string, opts wire.Options) Subject { return relay{argv: argv, opts: opts} }

type relay struct {
	argv []string
	opts wire.Options
}

func (r relay) Name() string       { return "relay " + strings.Join(r.argv, " ") }
func (relay) Role() Role           { return RelayRole }
func (relay) InProcess() bool      { return false }
func (relay) Transport() Transport { return StdioTransport } // its client side

func (r relay) Connect(ctx context.Context) (*Link, error) {
	byURL, byAgent := holds(r.argv, URLPlaceholder), holds(r.argv, AgentPlaceholder)
	if byURL == byAgent {
		return nil, fmt.Errorf("a relay's command holds exactly one of %s (it dials the agent's WebSocket) or %s (it spawns the agent): it holds %s", URLPlaceholder, AgentPlaceholder, map[bool]string{true: "both", false: "neither"}[byURL])
	}
	if byAgent {
		return r.connectBridge()
	}
	return r.connectWebSocket()
}

// connectWebSocket serves a mock agent's WebSocket at {url} and starts the
// relay with its URL.
func (r relay) connectWebSocket() (*Link, error) {
	opts := r.opts
	opts.Transcript = nil
	srv, err := serveOneWebSocket(opts)
	if err != nil {
		return nil, err
	}
	p, err := proc.Start(replaced(r.argv, URLPlaceholder, srv.URL))
	if err != nil {
		srv.Close()
		return nil, err
	}
	conn := wire.NewStream(p.Stdout, p.Stdin, opts)
	second := watchSecond(connectedAgain(RelayRole, URLPlaceholder), srv.again, conn)
	return &Link{
		Conn:         conn,
		Diagnostics:  p.Stderr.String,
		process:      p,
		second:       second,
		UpstreamURL:  srv.URL,
		upstreamWhat: "the agent served at " + srv.URL,
		Upstream: func(ctx context.Context) (wire.Conn, error) {
			select {
			case c := <-srv.conn:
				return second.add(c), nil
			case <-p.Exited():
				return nil, fmt.Errorf("the relay %s without connecting to %s", wasEnded(p.ExitDescription()), srv.URL)
			case <-ctx.Done():
				return nil, fmt.Errorf("the relay did not connect to %s: %w", srv.URL, ctx.Err())
			}
		},
		close: func() error {
			conn.Close()
			srv.release()
			err := p.Stop()
			srv.Close()
			return err
		},
	}, nil
}

// connectBridge starts the relay with {agent} replaced by a bridge's
// command line: the agent it spawns is the harness's mock agent, on the
// bridge's socket.
func (r relay) connectBridge() (*Link, error) {
	p, l, err := startBridged(r.argv)
	if err != nil {
		return nil, err
	}
	opts := r.opts
	opts.Transcript = nil
	conn := wire.NewStream(p.Stdout, p.Stdin, opts)
	var mu sync.Mutex
	var up *wire.StreamConn // the agent side, once the bridge connected
	second := watchSecond(connectedAgain(RelayRole, AgentPlaceholder), l.Again(), conn)
	return &Link{
		Conn:         conn,
		Diagnostics:  p.Stderr.String,
		process:      p,
		second:       second,
		UpstreamURL:  "unix:" + l.Path,
		upstreamWhat: fmt.Sprintf("the agent it was given as %s (acpconform bridge %s)", AgentPlaceholder, l.Path),
		Upstream: func(ctx context.Context) (wire.Conn, error) {
			uc, serr := awaitBridge(ctx, p, l)
			if serr != nil {
				return nil, serr // "it exited ... before the agent it was given as {agent} connected"
			}
			mu.Lock()
			defer mu.Unlock()
			up = wire.NewStream(uc, uc, opts)
			return second.add(up), nil
		},
		close: func() error {
			conn.Close()
			mu.Lock()
			if up != nil {
				up.Close()
			}
			mu.Unlock()
			err := p.Stop()
			l.Close()
			return err
		},
	}, nil
}
