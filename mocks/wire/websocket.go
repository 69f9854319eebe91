package wire

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/coder/websocket"
)

// WebSocketConn is a connection over a WebSocket: one JSON-RPC message per
// text frame, no newline required.
type WebSocketConn struct {
	*reader
	ws     *websocket.Conn
	max    int
	ctx    context.Context // the loop's: cancelling a websocket read closes the connection
	cancel context.CancelFunc

	decideOnce  sync.Once // the close status: the first decided wins
	status      websocket.StatusCode
	reason      string
	shut        atomic.Pointer[closedHereError] // why this side closed it, when it did
	closingOnce sync.Once                       // closes reader.closing: this side ends it
	closeOnce   sync.Once                       // the closing handshake, with the decided status
}

// NewWebSocket wraps an open WebSocket. Messages above the size limit close
// it with status 1009 (message too big), binary messages with 1003
// (unsupported data).
func NewWebSocket(ws *websocket.Conn, opts Options) *WebSocketConn {
	c := &WebSocketConn{ws: ws, max: opts.maxFrame()}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	c.reader = newReader(c.loop, opts)
	ws.SetReadLimit(int64(c.max))
	return c
}

// loop reads messages until the WebSocket closes.
func (c *WebSocketConn) loop(deliver func([]byte) bool) error {
	for {
		typ, msg, err := c.ws.Read(c.ctx)
		if err != nil {
			if errors.Is(err, websocket.ErrMessageTooBig) {
				// The library has sent its 1009 already; a later Close must not
				// try another status.
				c.decide(websocket.StatusMessageTooBig, "message too big", nil)
				err := &FrameTooLargeError{Limit: c.max, Unit: "message"}
				c.transcript.note(Received, err.Error())
				return err
			}
			if here := c.shut.Load(); here != nil { // the read failed because this side closed
				err = here
			}
			err = closedErr(err)
			c.transcript.note(Received, "closed: "+describeEnd(err))
			return err
		}
		if typ != websocket.MessageText {
			c.transcript.add(Received, msg, "binary frame refused")
			// The status is decided here, before the owner can see reading
			// end and Close; the handshake runs elsewhere, since it may wait
			// on the peer.
			c.decide(websocket.StatusUnsupportedData, "ACP messages are text frames", nil)
			go c.closeDecided()
			return &BinaryFrameError{Size: len(msg), Head: head(msg)}
		}
		c.transcript.keep(Received, msg, "") // msg is a fresh slice no one changes
		if !deliver(msg) {
			return shutErr(&c.shut)
		}
	}
}

// WriteFrame implements Conn.
func (c *WebSocketConn) WriteFrame(ctx context.Context, msg []byte) error {
	return c.write(ctx, websocket.MessageText, msg, "")
}

// WriteRaw implements Conn: one text frame holding b, whatever b is.
func (c *WebSocketConn) WriteRaw(ctx context.Context, b []byte) error {
	return c.write(ctx, websocket.MessageText, b, "raw")
}

// WriteBinary sends b as a binary frame, which ACP peers must refuse.
func (c *WebSocketConn) WriteBinary(ctx context.Context, b []byte) error {
	return c.write(ctx, websocket.MessageBinary, b, "binary")
}

func (c *WebSocketConn) write(ctx context.Context, typ websocket.MessageType, b []byte, note string) error {
	c.transcript.add(Sent, b, note)
	if err := c.ws.Write(ctx, typ, b); err != nil {
		c.transcript.note(Sent, "write failed: "+err.Error())
		c.writeFailed()
		return closedErr(err)
	}
	return nil
}

// Close implements Conn with a normal closure, unless the connection is
// already closing for a reason of its own, such as a refused frame.
func (c *WebSocketConn) Close() error {
	c.decide(websocket.StatusNormalClosure, "", &closedHereError{})
	c.closingOnce.Do(func() { close(c.closing) })
	c.closeDecided()
	c.stop(true)
	return nil
}

// Refuse closes the connection with status 1008 (policy violation) and
// reason (at most 123 bytes), as a peer that will take no more does; a
// later Close keeps that status. It does not wait for the closing
// handshake.
func (c *WebSocketConn) Refuse(reason string) {
	c.decide(websocket.StatusPolicyViolation, reason, &closedHereError{reason})
	c.closingOnce.Do(func() { close(c.closing) })
	go c.closeDecided()
}

// decide fixes the status the connection closes with, and why when this
// side closes it: the first decided wins, whoever runs the handshake. A
// refused frame decides without closing reader.closing: the peer ended the
// connection, not this side.
func (c *WebSocketConn) decide(status websocket.StatusCode, reason string, here *closedHereError) {
	c.decideOnce.Do(func() {
		c.status, c.reason = status, reason
		if here != nil {
			c.shut.Store(here)
		}
	})
}

// closeDecided runs the closing handshake once, with the decided status.
func (c *WebSocketConn) closeDecided() {
	c.closeOnce.Do(func() {
		c.ws.Close(c.status, c.reason)
		c.cancel()
	})
}

// DialOptions configure Dial.
type DialOptions struct {
	Options
	Header http.Header // extra request headers, such as Authorization
}

// Dial opens a WebSocket connection to url (ws:// or wss://).
func Dial(ctx context.Context, url string, opts DialOptions) (*WebSocketConn, error) {
	ws, resp, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: opts.Header})
	if err != nil {
		if resp != nil {
			return nil, fmt.Errorf("wire: dial %s: %s: %w", url, resp.Status, err)
		}
		return nil, fmt.Errorf("wire: dial %s: %w", url, err)
	}
	return NewWebSocket(ws, opts.Options), nil
}

// Accept upgrades an HTTP request to a WebSocket connection.
func Accept(w http.ResponseWriter, r *http.Request, opts Options) (*WebSocketConn, error) {
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		return nil, err
	}
	return NewWebSocket(ws, opts), nil
}
