package wire

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
)

// StreamConn is a connection over a byte stream carrying newline-delimited
// JSON, as ACP does over stdio.
type StreamConn struct {
	*reader
	r         io.Reader
	w         io.Writer
	max       int
	closeOnce sync.Once
	writeMu   sync.Mutex
	shut      atomic.Pointer[closedHereError] // why this side closed the transport, when it did
}

// NewStream reads messages from r and writes them to w. Closing the
// connection closes r and w when they are io.Closers; a reader that is not
// (os.Stdin, say) keeps its goroutine until the next line or EOF.
func NewStream(r io.Reader, w io.Writer, opts Options) *StreamConn {
	c := &StreamConn{r: r, w: w, max: opts.maxFrame()}
	c.reader = newReader(c.loop, opts)
	return c
}

// loop reads lines until the stream ends.
func (c *StreamConn) loop(deliver func([]byte) bool) error {
	br := bufio.NewReaderSize(c.r, 64<<10)
	for {
		line, err := readLine(br, c.max)
		if err != nil && errors.Is(err, ErrFrameTooLarge) {
			c.transcript.add(Received, line, err.Error())
			c.closeTransport()
			return err
		}
		if !blank(line) {
			c.transcript.keep(Received, line, "") // line is a fresh slice no one changes
			if !deliver(line) {
				return shutErr(&c.shut)
			}
		}
		if err != nil {
			if here := c.shut.Load(); here != nil { // the read failed because this side closed
				err = here
			}
			err = closedErr(err)
			c.transcript.note(Received, "closed: "+describeEnd(err))
			return err
		}
	}
}

// blank reports whether line holds only white space, as a line between
// messages may.
func blank(line []byte) bool {
	if len(line) > 0 && line[0] == '{' { // a message, as almost every line is
		return false
	}
	return len(bytes.TrimSpace(line)) == 0
}

// readLine reads one line without its newline, refusing lines over max
// bytes without buffering them. A final line without a newline counts.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > max+1 { // +1: the newline is not part of the message
			line = append(line, chunk...)
			return preview(line), &FrameTooLargeError{Limit: max, Unit: "line", Head: head(line)}
		}
		if err == nil && line == nil { // the whole line at once, as almost every one comes
			return bytes.Clone(trimNewline(chunk)), nil
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			line = trimNewline(line)
			if cap(line)-len(line) > len(line)/8 { // grown by appends: what is kept is counted by its capacity
				line = append(make([]byte, 0, len(line)), line...)
			}
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return line, err
		}
	}
}

// trimNewline drops the newline that ends line, and a carriage return
// before it.
func trimNewline(line []byte) []byte {
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
	}
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line
}

// WriteFrame implements Conn.
func (c *StreamConn) WriteFrame(ctx context.Context, msg []byte) error {
	if bytes.IndexByte(msg, '\n') >= 0 {
		return fmt.Errorf("wire: a frame must not contain a newline")
	}
	framed := make([]byte, len(msg)+1)
	copy(framed, msg)
	framed[len(msg)] = '\n'
	return c.write(ctx, framed, framed[:len(msg)], "")
}

// WriteRaw implements Conn.
func (c *StreamConn) WriteRaw(ctx context.Context, b []byte) error {
	return c.write(ctx, b, preview(b), "raw")
}

// write sends b and records logged, which the transcript keeps as it is.
// A write that outlasts ctx, to a peer that does not read, closes the
// connection: a stream cannot take half a frame back.
func (c *StreamConn) write(ctx context.Context, b, logged []byte, note string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	c.transcript.keep(Sent, logged, note)
	if ctx.Done() == nil { // nothing can end this write: skip the watch
		_, err := c.w.Write(b)
		return c.wrote(err)
	}
	var mu sync.Mutex
	written, abandoned := false, false
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if written { // the write finished as ctx ended: nothing to abandon
			return
		}
		abandoned = true
		c.transcript.note(Sent, "write abandoned: "+context.Cause(ctx).Error())
		c.shut.CompareAndSwap(nil, &closedHereError{"a write to the subject did not finish by its deadline (" + context.Cause(ctx).Error() + ")"})
		c.closeTransport()
	})
	_, err := c.w.Write(b)
	mu.Lock()
	written = true
	mu.Unlock()
	stop()
	if abandoned {
		return fmt.Errorf("%w (the connection is closed)", ctx.Err())
	}
	return c.wrote(err)
}

// wrote records a failed write.
func (c *StreamConn) wrote(err error) error {
	if err != nil {
		c.transcript.note(Sent, "write failed: "+err.Error())
		c.writeFailed()
		return closedErr(err)
	}
	return nil
}

// Close implements Conn. It closes the write side first, so the peer sees
// EOF, then the read side, and waits for the reader when the read side
// could be closed.
func (c *StreamConn) Close() error {
	c.closeOnce.Do(func() {
		c.shut.CompareAndSwap(nil, &closedHereError{})
		close(c.closing)
		c.closeTransport()
	})
	_, closable := c.r.(io.Closer)
	c.stop(closable)
	return nil
}

// Refuse closes the connection as Close does, for reason: every wait on
// it ends with an error that says so (DescribeEnd: "acpconform closed it:
// reason"), and so does its transcript. A stream has no way to tell the
// peer why; the peer reads the end of the stream.
func (c *StreamConn) Refuse(reason string) {
	c.shut.CompareAndSwap(nil, &closedHereError{reason})
	c.Close()
}

func (c *StreamConn) closeTransport() {
	if wc, ok := c.w.(io.Closer); ok {
		wc.Close()
	}
	if rc, ok := c.r.(io.Closer); ok {
		rc.Close()
	}
}
