// Package wire moves JSON-RPC messages between ACP peers: newline-delimited
// JSON on a byte stream (stdio, pipes) and one message per text frame on a
// WebSocket. Every connection keeps a [Transcript] of what crossed it, bounds
// every read, and can write bytes no SDK would (see [Conn.WriteRaw]).
package wire

import (
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"
)

// DefaultMaxFrame is the size limit of one incoming message: 1 MiB.
const DefaultMaxFrame = 1 << 20

// DefaultMaxHeld is how many bytes of a peer's messages one connection may
// hold for checks and transcripts: 64 MiB.
const DefaultMaxHeld = 64 << 20

// Errors a [Conn] reports.
var (
	// ErrClosed: the connection ended; no more frames will come.
	ErrClosed = errors.New("wire: connection closed")
	// ErrFrameTooLarge: the peer sent a message above the size limit; the
	// connection is closed, since what follows cannot be trusted. The
	// error is a *FrameTooLargeError.
	ErrFrameTooLarge = errors.New("wire: frame exceeds the size limit")
	// ErrBinaryFrame: the peer sent a binary WebSocket frame; ACP messages
	// are text, so the connection is closed. The error is a
	// *BinaryFrameError.
	ErrBinaryFrame = errors.New("wire: binary frame refused")
)

// Conn is one end of an ACP connection, read and written a message at a
// time. It is safe for one reader and many writers at once. It reads
// nothing until ReadFrame or Serve is first called, so, as over io.Pipe, a
// peer's write may wait until then.
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
	// Serve hands every frame to handle, in order, in the calling
	// goroutine, until the connection ends, and says why it ended. Called
	// before any ReadFrame, it reads the transport itself, with no
	// goroutine between the transport and handle; ReadFrame must not be
	// called after it.
	Serve(handle func(frame []byte)) error
	// Done is closed when the connection's reading has ended.
	Done() <-chan struct{}
	// Transcript is the record of every frame in both directions.
	Transcript() *Transcript
	// Budget counts what is kept of the connection for later: its
	// transcript and whatever its owner records (see Options.MaxHeld).
	Budget() *Budget
	// Close ends the connection and waits for its reader to stop.
	Close() error
}

// Options configure a connection. The zero value is ready to use.
type Options struct {
	// MaxFrame is the size limit of one incoming message in bytes; zero
	// means DefaultMaxFrame.
	MaxFrame int
	// MaxHeld is how many bytes of the peer's messages the connection's
	// owner may hold; zero means DefaultMaxHeld.
	MaxHeld int
	// Transcript records the traffic; nil means a new one.
	Transcript *Transcript
}

func (o Options) maxFrame() int {
	if o.MaxFrame > 0 {
		return o.MaxFrame
	}
	return DefaultMaxFrame
}

// held returns the connection's budget and its transcript, counted in it.
func (o Options) held() (*Budget, *Transcript) {
	b := NewBudget(o.MaxHeld)
	t := o.Transcript
	if t == nil {
		t = NewTranscript()
	}
	t.adopt(b)
	return b, t
}

// reader runs a connection's read loop in one of two modes, whichever is
// asked for first: in the background, feeding ReadFrame through a small
// buffer (the back-pressure against a flooding peer) so that each read can
// wait on its own context; or in the caller's goroutine, handing each frame
// to Serve's handler with no goroutine in between. Nothing is read before
// either is called.
type reader struct {
	loop    func(deliver func([]byte) bool) error // the transport's; returns why it stopped
	closing chan struct{}                         // closed by Close

	start    sync.Once
	serving  bool          // set once by start
	frames   chan []byte   // background mode
	done     chan struct{} // closed when the loop has stopped; err says why
	err      error
	byPeer   bool          // the loop stopped before Close was called
	lost     atomic.Bool   // a write failed before Close was called
	loopDone chan struct{} // closed when a started loop has returned
	began    chan struct{} // closed when a mode was chosen

	budget     *Budget
	transcript *Transcript
}

func newReader(loop func(deliver func([]byte) bool) error, opts Options) *reader {
	r := &reader{
		loop: loop, closing: make(chan struct{}),
		frames: make(chan []byte, 16), done: make(chan struct{}),
		loopDone: make(chan struct{}), began: make(chan struct{}),
	}
	r.budget, r.transcript = opts.held()
	return r
}

// Transcript implements Conn.
func (r *reader) Transcript() *Transcript { return r.transcript }

// Budget implements Conn.
func (r *reader) Budget() *Budget { return r.budget }

func (r *reader) finish(err error) {
	r.err = err
	select {
	case <-r.closing:
	default:
		r.byPeer = true
	}
	close(r.done)
	close(r.loopDone)
}

// ReadFrame implements Conn.ReadFrame.
func (r *reader) ReadFrame(ctx context.Context) ([]byte, error) {
	r.background()
	if r.serving {
		return nil, errors.New("wire: ReadFrame on a connection being served")
	}
	select {
	case f := <-r.frames:
		return f, nil
	default:
	}
	select {
	case f := <-r.frames:
		return f, nil
	case <-r.done:
		select { // frames read before the end still count
		case f := <-r.frames:
			return f, nil
		default:
			return nil, r.err
		}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// background starts reading in the background, unless reading has started.
func (r *reader) background() {
	r.start.Do(func() {
		close(r.began)
		deliver := func(f []byte) bool {
			select {
			case r.frames <- f:
				return true
			case <-r.closing:
				return false
			}
		}
		go func() { r.finish(r.loop(deliver)) }()
	})
}

// Serve implements Conn.Serve.
func (r *reader) Serve(handle func(frame []byte)) error {
	first := false
	r.start.Do(func() {
		first, r.serving = true, true
		close(r.began)
	})
	if !first { // ReadFrame came first: take its frames, one goroutine away
		for {
			f, err := r.ReadFrame(context.Background())
			if err != nil {
				return err
			}
			handle(f)
		}
	}
	r.finish(r.loop(func(f []byte) bool {
		handle(f)
		select {
		case <-r.closing:
			return false
		default:
			return true
		}
	}))
	return r.err
}

// Done is closed when the connection's reading has ended.
func (r *reader) Done() <-chan struct{} { return r.done }

// Err says why reading ended, once Done is closed; nil before. For a
// WebSocket, websocket.CloseStatus(Err()) is the peer's close code.
func (r *reader) Err() error {
	select {
	case <-r.done:
		return r.err
	default:
		return nil
	}
}

// EndedByPeer reports whether the connection ended before this side
// closed it: reading ended because the peer closed it, went away or broke
// the framing, or a write failed because the peer was gone.
func (r *reader) EndedByPeer() bool {
	if r.lost.Load() {
		return true
	}
	select {
	case <-r.done:
		return r.byPeer
	default:
		return false
	}
}

// writeFailed notes a failed write: before Close, the peer is gone.
func (r *reader) writeFailed() {
	select {
	case <-r.closing:
	default:
		r.lost.Store(true)
	}
}

// stop tells the loop to end, and waits for it if one was started and the
// transport could be closed under it.
func (r *reader) stop(wait bool) {
	select {
	case <-r.began:
		if wait {
			<-r.loopDone
		}
	default:
	}
}

// Pipe returns the two ends of an in-memory stream connection (io.Pipe).
// Both start reading at once, so that, as over OS pipes, a write returns
// when the other end has buffered the frame, not when it has asked for it.
func Pipe(opts Options) (*StreamConn, *StreamConn) {
	ar, bw := io.Pipe()
	br, aw := io.Pipe()
	bOpts := opts
	bOpts.Transcript = nil
	a, b := NewStream(ar, aw, opts), NewStream(br, bw, bOpts)
	a.background()
	b.background()
	return a, b
}
