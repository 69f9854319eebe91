package suite

import (
	"context"
	"fmt"
	"strings"

	"github.com/acpconform/acpconform/internal/proc"
	"github.com/acpconform/acpconform/mocks/wire"
)

// Relay is a relay under test (PROBE.md §3): a command with the placeholder
// {url} that connects to the agent the harness serves there and serves ACP
// on its stdio, as a mirror does. The harness plays both ends.
func Relay(argv []string, opts wire.Options) Subject { return relay{argv: argv, opts: opts} }

type relay struct {
	argv []string
	opts wire.Options
}

func (r relay) Name() string  { return "relay " + strings.Join(r.argv, " ") }
func (relay) Role() Role      { return RelayRole }
func (relay) InProcess() bool { return false }

func (r relay) Connect(ctx context.Context) (*Link, error) {
	upstream := make(chan wire.Conn, 1)
	released := make(chan struct{})
	opts := r.opts
	opts.Transcript = nil
	srv, err := wire.Listen("127.0.0.1:0", wire.DefaultPath, opts, func(hctx context.Context, conn wire.Conn) {
		select {
		case upstream <- conn:
		default:
			return
		}
		select {
		case <-released:
		case <-hctx.Done():
		}
	})
	if err != nil {
		return nil, err
	}
	argv := make([]string, len(r.argv))
	for i, a := range r.argv {
		argv[i] = strings.ReplaceAll(a, URLPlaceholder, srv.URL)
	}
	p, err := proc.Start(argv)
	if err != nil {
		srv.Close()
		return nil, err
	}
	local := opts
	local.Transcript = nil
	conn := wire.NewStream(p.Stdout, p.Stdin, local)
	return &Link{
		Conn:        conn,
		Diagnostics: p.Stderr.String,
		process:     p,
		UpstreamURL: srv.URL,
		Upstream: func(ctx context.Context) (wire.Conn, error) {
			select {
			case c := <-upstream:
				return c, nil
			case <-p.Exited():
				return nil, fmt.Errorf("the relay %s without connecting to %s", wasEnded(p.ExitDescription()), srv.URL)
			case <-ctx.Done():
				return nil, fmt.Errorf("the relay did not connect to %s: %w", srv.URL, ctx.Err())
			}
		},
		close: func() error {
			conn.Close()
			close(released)
			err := p.Stop()
			srv.Close()
			return err
		},
	}, nil
}
