package wire

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
)

// StreamConn is a connection over a byte stream carrying newline-delimited
// JSON, as ACP does over stdio.
type StreamConn struct {
	r          io.Reader
	w          io.Writer
	transcript *Transcript
	inbox      *inbox
	closing    chan struct{}
	closeOnce  sync.Once
	writeMu    sync.Mutex
	readerDone chan struct{}
}

// NewStream reads messages from r and writes them to w. Closing the
// connection closes r and w when they are io.Closers; a reader that is not
// (os.Stdin, say) keeps its goroutine until the next line or EOF.
func NewStream(r io.Reader, w io.Writer, opts Options) *StreamConn {
	c := &StreamConn{
		r: r, w: w,
		transcript: opts.transcript(),
		inbox:      newInbox(),
		closing:    make(chan struct{}),
		readerDone: make(chan struct{}),
	}
	go c.read(opts.maxFrame())
	return c
}

func (c *StreamConn) read(max int) {
	defer close(c.readerDone)
	br := bufio.NewReaderSize(c.r, 64<<10)
	for {
		line, err := readLine(br, max)
		if errors.Is(err, ErrFrameTooLarge) {
			c.transcript.add(Received, line, err.Error())
			c.closeTransport()
			c.inbox.finish(err)
			return
		}
		if len(bytes.TrimSpace(line)) > 0 {
			c.transcript.add(Received, line, "")
			if !c.inbox.deliver(line, c.closing) {
				c.inbox.finish(ErrClosed)
				return
			}
		}
		if err != nil {
			c.transcript.note(Received, "closed: "+describeEnd(err))
			c.inbox.finish(closedErr(err))
			return
		}
	}
}

// readLine reads one line without its newline, refusing lines over max
// bytes without buffering them. A final line without a newline counts.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > max+1 { // +1: the newline is not part of the message
			return preview(append(line, chunk...)), fmt.Errorf("%w: a line of more than %d bytes", ErrFrameTooLarge, max)
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			return bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r")), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return line, err
		}
	}
}

// ReadFrame implements Conn.
func (c *StreamConn) ReadFrame(ctx context.Context) ([]byte, error) { return c.inbox.read(ctx) }

// WriteFrame implements Conn.
func (c *StreamConn) WriteFrame(ctx context.Context, msg []byte) error {
	if bytes.IndexByte(msg, '\n') >= 0 {
		return fmt.Errorf("wire: a frame must not contain a newline")
	}
	return c.write(ctx, append(msg[:len(msg):len(msg)], '\n'), msg, "")
}

// WriteRaw implements Conn.
func (c *StreamConn) WriteRaw(ctx context.Context, b []byte) error {
	return c.write(ctx, b, b, "raw")
}

func (c *StreamConn) write(ctx context.Context, b, logged []byte, note string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	c.transcript.add(Sent, logged, note)
	if _, err := c.w.Write(b); err != nil {
		c.transcript.note(Sent, "write failed: "+err.Error())
		return closedErr(err)
	}
	return nil
}

// Transcript implements Conn.
func (c *StreamConn) Transcript() *Transcript { return c.transcript }

// Done is closed when the reading side has ended.
func (c *StreamConn) Done() <-chan struct{} { return c.inbox.done }

// Close implements Conn. It closes the write side first, so the peer sees
// EOF, then the read side, and waits for the reader when the read side
// could be closed.
func (c *StreamConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closing)
		c.closeTransport()
	})
	if _, ok := c.r.(io.Closer); ok {
		<-c.readerDone
	}
	return nil
}

func (c *StreamConn) closeTransport() {
	if wc, ok := c.w.(io.Closer); ok {
		wc.Close()
	}
	if rc, ok := c.r.(io.Closer); ok {
		rc.Close()
	}
}

func describeEnd(err error) string {
	if errors.Is(err, io.EOF) {
		return "EOF"
	}
	return err.Error()
}
