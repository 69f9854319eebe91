package suite

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"

	"github.com/acpconform/acpconform/internal/proc"
	"github.com/acpconform/acpconform/kit/probeagent"
	"github.com/acpconform/acpconform/mocks/wire"
)

// Subject is what the catalogue checks: an agent or a client under test,
// reached through a fresh connection for every scenario. A scenario is
// written once against this interface and does not know which subject of
// its role it runs on.
type Subject interface {
	// Name describes the subject in reports, such as "reference (in-process)".
	Name() string
	// Role is the part the subject plays: the catalogue runs the checks of
	// that role.
	Role() Role
	// Connect opens a fresh connection to the agent under test: for a
	// command, a new process.
	Connect(ctx context.Context) (*Link, error)
	// InProcess reports whether the subject is the reference compiled into
	// this binary, so that checks of its Go API (a panicking equality, say)
	// can run; elsewhere they are skipped, and a skip is never a pass.
	InProcess() bool
	// Transport is how the subject's own connection reaches the harness,
	// told before any Connect: a check of the transport itself (a
	// WebSocket's binary frames, say) skips a subject whose transport it
	// does not hold, without using up a connection.
	Transport() Transport
}

// Transport is how a subject's connection reaches the harness.
type Transport string

// The transports of subjects.
const (
	// InProcessTransport: the subject runs in this process, on an
	// in-memory pipe.
	InProcessTransport Transport = "in-process"
	// StdioTransport: the subject is a process speaking on its stdio.
	StdioTransport Transport = "stdio"
	// WebSocketTransport: the subject's connection is a WebSocket the
	// harness holds one end of ({url}, --listen, an agent's URL).
	WebSocketTransport Transport = "websocket"
	// BridgeTransport: the subject spawned its peer, acpconform bridge,
	// and speaks to it on stdio; the bridge carries the bytes to the
	// harness over a unix socket ({agent}).
	BridgeTransport Transport = "bridge"
)

// Link is one connection to a subject.
type Link struct {
	Conn wire.Conn
	// Diagnostics returns what the subject told people so far, such as a
	// process's stderr; "" when it has no such channel.
	Diagnostics func() string
	// Upstream, for a relay, waits for the relay's connection to the agent
	// the harness serves, and returns the harness's end of it.
	Upstream func(ctx context.Context) (wire.Conn, error)
	// UpstreamURL is where a relay was told to connect: its {url}, or
	// "unix:" and the bridge's socket for a relay given {agent}.
	UpstreamURL string
	close       func() error

	upstreamWhat string  // "the agent served at URL", for diagnoses
	second       *second // the watch for a second connection, when the subject could make one

	process *proc.Process // the subject's, when it is a process
	stdin   io.Closer     // the process's stdin, when the connection is its stdio
	died    string        // set by Close: how the process ended by itself
	closed  bool
}

// NewLink is a connection to a subject made outside this package: conn,
// and close, which ends it and whatever was started for it, and waits
// (nil: conn.Close).
func NewLink(conn wire.Conn, close func() error) *Link {
	return &Link{Conn: conn, close: close}
}

// Close ends the connection and whatever was started for it, and waits.
func (l *Link) Close() error {
	if l.closed {
		return nil
	}
	l.closed = true
	if l.second != nil {
		l.second.end()
	}
	ended := false // the subject went before we stopped it
	if p := l.process; p != nil {
		select {
		case <-p.Exited():
			ended = true
		default:
			ended = endedByPeer(l.Conn) // it closed its end: its exit is under way
		}
	}
	var err error
	if l.close == nil {
		err = l.Conn.Close()
	} else {
		err = l.close()
	}
	if ended {
		l.died = wasEnded(l.process.ExitDescription())
	}
	return err
}

// wasEnded makes a process's exit description read after "it": "exited
// with status 5", "was killed by signal SIGSEGV (segmentation fault)".
func wasEnded(desc string) string {
	if strings.HasPrefix(desc, "killed") || strings.HasPrefix(desc, "stopped") {
		return "was " + desc
	}
	return desc
}

// endedByPeer reports a connection the subject ended, not this side.
func endedByPeer(c wire.Conn) bool {
	e, ok := c.(interface{ EndedByPeer() bool })
	return ok && e.EndedByPeer()
}

// Stdio reports whether the subject is a process whose stdio is this
// connection, so that CloseInput applies.
func (l *Link) Stdio() bool { return l.stdin != nil }

// CloseInput closes the subject process's stdin, the write side of the
// connection, and leaves the process running: the subject sees its input
// end, as when the editor that started it goes away, and what it writes
// can still be read. Nothing more can be sent to it. It fails for a
// subject that is not a process on stdio (see Stdio).
func (l *Link) CloseInput() error {
	if l.stdin == nil {
		return errors.New("suite: close the input: the subject is not a process on stdio")
	}
	if err := l.stdin.Close(); err != nil {
		return fmt.Errorf("suite: close the subject's stdin: %w", err)
	}
	l.Conn.Transcript().Closed(wire.Sent, "its input closed, the connection kept")
	return nil
}

// ConnectedAgain says, when the subject connected a second time to what
// the harness served it for this link (its {url}, the bridge behind its
// {agent}) before Close returned, that acpconform serves one connection
// per check: "the relay connected a second time to {url}; acpconform
// serves one connection per check". It is "" otherwise. The harness
// refuses the second connection, and ends this link's connections with
// that reason as soon as it comes.
func (l *Link) ConnectedAgain() string {
	if l.second == nil {
		return ""
	}
	return l.second.diagnosis()
}

// Died says, once Close has returned, how the subject's process ended
// when it ended its connection or exited before Close, such as "exited
// with status 5" or "was killed by signal SIGSEGV"; "" when Close stopped
// it or the subject is no process.
func (l *Link) Died() string { return l.died }

// Exited is closed when the subject's process has exited, by itself or
// because Close stopped it. It is nil, and never closed, when the subject
// is no process acpconform started (in-process, or a client that connects
// by itself): a check that watches a process's exit skips such a subject.
// It lets a check see how a process ends by itself before Close stops it.
func (l *Link) Exited() <-chan struct{} {
	if l.process == nil {
		return nil
	}
	return l.process.Exited()
}

// ExitDescription says how the subject's process exited, to read after
// "it", as Died does: "exited with status 0", "exited with status 1", "was
// killed by signal SIGSEGV (segmentation fault)"; "still running" before
// Exited is closed; "" when the subject is no process.
func (l *Link) ExitDescription() string {
	if l.process == nil {
		return ""
	}
	return wasEnded(l.process.ExitDescription())
}

// ExitedCleanly reports whether the subject's process has exited with
// status 0.
func (l *Link) ExitedCleanly() bool {
	if l.process == nil {
		return false
	}
	select {
	case <-l.process.Exited():
		return l.process.Err() == nil
	default:
		return false
	}
}

// Stderr is the end of what the subject's process wrote to its stderr,
// complete once Close has returned; "" when the subject is no process.
func (l *Link) Stderr() string {
	if l.Diagnostics == nil {
		return ""
	}
	return l.Diagnostics()
}

// Reference is the reference ask_choice in this process: its probe agent
// served on an in-memory pipe.
func Reference() Subject { return reference{} }

type reference struct{}

func (reference) Name() string         { return "reference (in-process)" }
func (reference) Role() Role           { return AgentRole }
func (reference) InProcess() bool      { return true }
func (reference) Transport() Transport { return InProcessTransport }

func (reference) Connect(context.Context) (*Link, error) {
	mine, theirs := wire.Pipe(wire.Options{})
	s := wire.NewSDKStream(theirs)
	agent := probeagent.Serve(s, s, slog.New(slog.DiscardHandler))
	return &Link{Conn: mine, close: func() error {
		mine.Close()
		theirs.Close()
		<-agent.Done()
		return nil
	}}, nil
}

// WebSocket is an agent served at a WebSocket URL; each connection is a
// fresh WebSocket. header is sent with every handshake (Authorization, say).
func WebSocket(url string, header http.Header, opts wire.Options) Subject {
	return webSocket{url: url, header: header, opts: opts}
}

type webSocket struct {
	url    string
	header http.Header
	opts   wire.Options
}

func (w webSocket) Name() string       { return "agent at " + w.url }
func (webSocket) Role() Role           { return AgentRole }
func (webSocket) InProcess() bool      { return false }
func (webSocket) Transport() Transport { return WebSocketTransport }

func (w webSocket) Connect(ctx context.Context) (*Link, error) {
	opts := w.opts
	opts.Transcript = nil // each connection its own
	conn, err := wire.Dial(ctx, w.url, wire.DialOptions{Options: opts, Header: w.header})
	if err != nil {
		return nil, fmt.Errorf("connect to the agent: %w", err)
	}
	return &Link{Conn: conn}, nil
}
