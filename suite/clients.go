package suite

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/acpconform/acpconform/kit/probeclient"
	"github.com/acpconform/acpconform/mocks/wire"
)

// ReferenceClient is the reference client (PROBE.md §2) in this process,
// or one of its broken variants.
func ReferenceClient(o probeclient.Options) Subject { return referenceClient{o} }

type referenceClient struct{ o probeclient.Options }

func (r referenceClient) Name() string {
	if r.o.Broken != "" {
		return "reference client, broken: " + r.o.Broken + " (in-process)"
	}
	if r.o.NoForm {
		return "reference client without form elicitation (in-process)"
	}
	if r.o.NoURL {
		return "reference client without URL elicitation (in-process)"
	}
	return "reference client (in-process)"
}
func (referenceClient) Role() Role           { return ClientRole }
func (referenceClient) InProcess() bool      { return true }
func (referenceClient) Transport() Transport { return InProcessTransport }

func (r referenceClient) Connect(ctx context.Context) (*Link, error) {
	mine, theirs := wire.Pipe(wire.Options{})
	s := wire.NewSDKStream(theirs)
	done := make(chan struct{})
	playCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	go func() {
		defer close(done)
		_ = probeclient.Play(playCtx, s, s, r.o, slog.New(slog.DiscardHandler))
	}()
	return &Link{Conn: mine, close: func() error {
		cancel()
		mine.Close()
		theirs.Close()
		<-done
		return nil
	}}, nil
}

// ListeningForClients serves a WebSocket at addr for a client under test
// that connects by itself, once per check; each Connect takes the next
// connection. URL says where to point the client.
func ListeningForClients(addr string, opts wire.Options) (*Listener, error) {
	l := &Listener{conns: make(chan accepted)}
	srv, err := wire.Listen(addr, wire.DefaultPath, opts, func(ctx context.Context, conn wire.Conn) {
		done := make(chan struct{})
		select {
		case l.conns <- accepted{conn, done}:
		case <-ctx.Done():
			return
		}
		select { // the handler owns the connection until the check closes it
		case <-done:
		case <-ctx.Done():
		}
	})
	if err != nil {
		return nil, err
	}
	l.srv, l.URL = srv, srv.URL
	return l, nil
}

// Listener is a client subject that waits for connections.
type Listener struct {
	URL   string
	srv   *wire.Server
	conns chan accepted
}

// accepted is a connection and how to tell its server handler that the
// check is done with it.
type accepted struct {
	conn wire.Conn
	done chan struct{}
}

func (l *Listener) Name() string       { return "client connecting to " + l.URL }
func (*Listener) Role() Role           { return ClientRole }
func (*Listener) InProcess() bool      { return false }
func (*Listener) Transport() Transport { return WebSocketTransport }

// Connect waits for the client's next connection. The link's Conn is the
// WebSocket itself, so that checks of the transport (REM-1) reach it.
func (l *Listener) Connect(ctx context.Context) (*Link, error) {
	select {
	case a := <-l.conns:
		return &Link{Conn: a.conn, close: func() error {
			err := a.conn.Close()
			close(a.done)
			return err
		}}, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("no client connected to %s: %w", l.URL, ctx.Err())
	}
}

// Close stops serving.
func (l *Listener) Close() error { return l.srv.Close() }
