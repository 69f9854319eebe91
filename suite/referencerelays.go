package suite

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	mockrelay "github.com/acpconform/acpconform/mocks/relay"
	"github.com/acpconform/acpconform/mocks/wire"
)

// RelayHarnessMaxFrame is the size limit of the harness's own ends of the
// in-process relays: above the contract's 1 MiB, so that a relay passing
// a larger message on whole can be seen to (REL-7).
const RelayHarnessMaxFrame = 4 << 20

// ReferenceMirror is our mirror (mockrelay.Mirror, opted into the unstable
// elicitation route) in this process: the harness plays the client on an
// in-memory pipe and serves the agent on a loopback WebSocket.
func ReferenceMirror() Subject { return TamperedMirror("reference mirror (in-process)", nil) }

// TamperedMirror is ReferenceMirror made wrong on purpose, named name:
// each connection is tampered with by what tamper returns, fresh, so that
// no state crosses from one check to the next. A nil tamper is the
// reference's (package mutants).
func TamperedMirror(name string, tamper func() *mockrelay.Tamper) Subject {
	return inProcessMirror{name: name, tamper: tamper}
}

type inProcessMirror struct {
	name   string
	tamper func() *mockrelay.Tamper
}

func (m inProcessMirror) Name() string  { return m.name }
func (inProcessMirror) Role() Role      { return RelayRole }
func (inProcessMirror) InProcess() bool { return true }

// Transport is the mirror's client side: an in-memory pipe.
func (inProcessMirror) Transport() Transport { return InProcessTransport }

func (m inProcessMirror) Connect(context.Context) (*Link, error) {
	srv, err := serveOneWebSocket(wire.Options{MaxFrame: RelayHarnessMaxFrame})
	if err != nil {
		return nil, fmt.Errorf("suite: serve the mirror's agent: %w", err)
	}
	// The mirror's end keeps the default limit, as on its stdio; the
	// harness's may read more.
	fromRelay, relayOut := io.Pipe()
	relayIn, toRelay := io.Pipe()
	mine := wire.NewStream(fromRelay, toRelay, wire.Options{MaxFrame: RelayHarnessMaxFrame})
	tamper := fresh(m.tamper)
	limit := 0 // the default
	if tamper != nil {
		limit = tamper.MaxFrame
	}
	theirs := wire.NewStream(relayIn, relayOut, wire.Options{MaxFrame: limit})
	ctx, cancel := context.WithCancel(context.Background())
	mirrored := make(chan error, 1)
	go func() {
		mirrored <- mockrelay.Mirror(ctx, srv.URL, theirs, mockrelay.MirrorOptions{UnstableProtocol: true, Tamper: tamper, MaxFrame: limit})
	}()
	second := watchSecond(connectedAgain(RelayRole, URLPlaceholder), srv.again, mine)
	return &Link{
		Conn:        mine,
		second:      second,
		UpstreamURL: srv.URL,
		Upstream: func(ctx context.Context) (wire.Conn, error) {
			select {
			case c := <-srv.conn:
				return second.add(c), nil
			case err := <-mirrored:
				mirrored <- err
				return nil, fmt.Errorf("the mirror ended without connecting to %s: %w", srv.URL, err)
			case <-ctx.Done():
				return nil, fmt.Errorf("the mirror did not connect to %s: %w", srv.URL, ctx.Err())
			}
		},
		close: func() error {
			mine.Close()
			srv.release()
			cancel()
			<-mirrored
			return srv.Close()
		},
	}, nil
}

// ReferenceCommandRelay is our command relay (relay.RelayTo behind a
// relay.Server) in this process: the harness dials the relay's loopback
// WebSocket as the client, and plays the command on an in-memory stdio.
func ReferenceCommandRelay() Subject {
	return TamperedCommandRelay("reference command relay (in-process)", nil)
}

// TamperedCommandRelay is ReferenceCommandRelay made wrong on purpose,
// named name, as TamperedMirror is.
func TamperedCommandRelay(name string, tamper func() *mockrelay.Tamper) Subject {
	return inProcessCommandRelay{name: name, tamper: tamper}
}

type inProcessCommandRelay struct {
	name   string
	tamper func() *mockrelay.Tamper
}

// fresh returns a tamper for one connection; nil relays faithfully.
func fresh(tamper func() *mockrelay.Tamper) *mockrelay.Tamper {
	if tamper == nil {
		return nil
	}
	return tamper()
}

func (c inProcessCommandRelay) Name() string  { return c.name }
func (inProcessCommandRelay) Role() Role      { return RelayRole }
func (inProcessCommandRelay) InProcess() bool { return true }

// Transport is the command relay's client side: a loopback WebSocket.
func (inProcessCommandRelay) Transport() Transport { return WebSocketTransport }

func (c inProcessCommandRelay) Connect(ctx context.Context) (*Link, error) {
	upstream := make(chan wire.Conn, 1)
	start := func() (mockrelay.Stdio, error) {
		cmd := newPipeCommand()
		select {
		case upstream <- cmd.agent:
			return cmd, nil
		default:
			cmd.Stop()
			return nil, errors.New("suite: the command relay started a second command for one connection")
		}
	}
	srv, err := mockrelay.NewServer("127.0.0.1:0", mockrelay.TamperedRelayTo(start, fresh(c.tamper), slog.New(slog.DiscardHandler)), mockrelay.Options{})
	if err != nil {
		return nil, fmt.Errorf("suite: serve the command relay: %w", err)
	}
	conn, err := wire.Dial(ctx, srv.URL, wire.DialOptions{Options: wire.Options{MaxFrame: RelayHarnessMaxFrame}})
	if err != nil {
		srv.Close()
		return nil, fmt.Errorf("suite: connect to the command relay: %w", err)
	}
	return &Link{
		Conn:        conn,
		UpstreamURL: srv.URL,
		Upstream: func(ctx context.Context) (wire.Conn, error) {
			select {
			case agent := <-upstream:
				return agent, nil
			case <-ctx.Done():
				return nil, fmt.Errorf("the command relay did not start its command: %w", ctx.Err())
			}
		},
		close: func() error { // the server's end stops the command, and so its pipes
			conn.Close()
			return srv.Close()
		},
	}, nil
}

// pipeCommand is a command on in-memory pipes: the relay writes its stdin
// and reads its stdout, the harness plays it on agent.
type pipeCommand struct {
	stdin  *io.PipeWriter
	stdout *io.PipeReader
	agent  wire.Conn
}

func newPipeCommand() *pipeCommand {
	agentIn, stdin := io.Pipe()
	stdout, agentOut := io.Pipe()
	return &pipeCommand{stdin: stdin, stdout: stdout, agent: wire.NewStream(agentIn, agentOut, wire.Options{MaxFrame: RelayHarnessMaxFrame})}
}

func (p *pipeCommand) Stdin() io.WriteCloser { return p.stdin }
func (p *pipeCommand) Stdout() io.Reader     { return p.stdout }

// Stop ends the command as a process's exit would: its input ends and its
// output is read no more.
func (p *pipeCommand) Stop() error {
	p.stdin.Close()
	p.stdout.Close()
	return nil
}
