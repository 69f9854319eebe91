// Package wire moves JSON-RPC messages between ACP peers: newline-delimited
// JSON on a byte stream (stdio, pipes) and one message per text frame on a
// WebSocket. Every connection keeps a [Transcript] of what crossed it, bounds
// every read, and can write bytes no SDK would (see [Conn.WriteRaw]).
package wire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
)

// DefaultMaxFrame is the size limit of one incoming message: 1 MiB.
const DefaultMaxFrame = 1 << 20

// Errors a [Conn] reports.
var (
	// ErrClosed: the connection ended; no more frames will come.
	ErrClosed = errors.New("wire: connection closed")
	// ErrFrameTooLarge: the peer sent a message above the size limit; the
	// connection is closed, since what follows cannot be trusted.
	ErrFrameTooLarge = errors.New("wire: frame exceeds the size limit")
	// ErrBinaryFrame: the peer sent a binary WebSocket frame; ACP messages
	// are text, so the connection is closed.
	ErrBinaryFrame = errors.New("wire: binary frame refused")
)

// Conn is one end of an ACP connection, read and written a message at a
// time. It is safe for one reader and many writers at once.
type Conn interface {
	// ReadFrame returns the next message without its framing, waiting at
	// most until ctx ends. Errors: ErrClosed (wrapping the cause),
	// ErrFrameTooLarge, ErrBinaryFrame, or ctx's error (the connection stays
	// usable).
	ReadFrame(ctx context.Context) ([]byte, error)
	// WriteFrame sends one message, framed: a newline on a stream, a text
	// frame on a WebSocket. msg must not contain a newline.
	WriteFrame(ctx context.Context, msg []byte) error
	// WriteRaw sends b as it is, to say what a well-behaved peer never
	// would: malformed JSON, half a frame, two frames in one write. On a
	// WebSocket it is one text frame holding b.
	WriteRaw(ctx context.Context, b []byte) error
	// Transcript is the record of every frame in both directions.
	Transcript() *Transcript
	// Close ends the connection and waits for its reader to stop.
	Close() error
}

// Options configure a connection. The zero value is ready to use.
type Options struct {
	// MaxFrame is the size limit of one incoming message in bytes; zero
	// means DefaultMaxFrame.
	MaxFrame int
	// Transcript records the traffic; nil means a new one.
	Transcript *Transcript
}

func (o Options) maxFrame() int {
	if o.MaxFrame > 0 {
		return o.MaxFrame
	}
	return DefaultMaxFrame
}

func (o Options) transcript() *Transcript {
	if o.Transcript != nil {
		return o.Transcript
	}
	return NewTranscript()
}

// inbox hands frames from a connection's reader goroutine to ReadFrame, so
// that a read can wait on a context without cancelling the transport. Its
// small buffer is the back-pressure against a flooding peer.
type inbox struct {
	frames chan []byte
	done   chan struct{} // closed when the reader stops; err says why
	err    error
	stop   sync.Once
}

func newInbox() *inbox {
	return &inbox{frames: make(chan []byte, 16), done: make(chan struct{})}
}

// deliver hands one frame over, or reports that the connection is going away.
func (in *inbox) deliver(frame []byte, closing <-chan struct{}) bool {
	select {
	case in.frames <- frame:
		return true
	case <-closing:
		return false
	}
}

// finish records why the reader stopped.
func (in *inbox) finish(err error) {
	in.stop.Do(func() {
		in.err = err
		close(in.done)
	})
}

func (in *inbox) read(ctx context.Context) ([]byte, error) {
	select {
	case f := <-in.frames:
		return f, nil
	default:
	}
	select {
	case f := <-in.frames:
		return f, nil
	case <-in.done:
		select { // frames read before the end still count
		case f := <-in.frames:
			return f, nil
		default:
			return nil, in.err
		}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// closedErr wraps the cause of an ended connection so that it matches ErrClosed.
func closedErr(cause error) error {
	if cause == nil || errors.Is(cause, ErrClosed) {
		return ErrClosed
	}
	if errors.Is(cause, ErrFrameTooLarge) || errors.Is(cause, ErrBinaryFrame) {
		return cause
	}
	return fmt.Errorf("%w: %w", ErrClosed, cause)
}

// Pipe returns the two ends of an in-memory stream connection (io.Pipe).
func Pipe(opts Options) (*StreamConn, *StreamConn) {
	ar, bw := io.Pipe()
	br, aw := io.Pipe()
	bOpts := opts
	bOpts.Transcript = nil
	return NewStream(ar, aw, opts), NewStream(br, bw, bOpts)
}
