package wire

import (
	"bytes"
	"context"
	"io"
	"sync"
)

// SDKStream presents a Conn as the one newline-delimited byte stream the ACP
// SDKs read and write: each message read comes out followed by a newline,
// and what is written is cut at newlines into messages. It is the per-frame
// adapter that lets an acp-go-sdk connection run over a WebSocket, whose
// messages carry no newline (SDK-NOTES.md):
//
//	s := wire.NewSDKStream(conn)
//	acp.NewConnection(handler, s, s)
type SDKStream struct {
	c      Conn
	unread []byte

	wmu     sync.Mutex
	partial []byte
}

var _ io.ReadWriteCloser = (*SDKStream)(nil)

// NewSDKStream adapts c.
func NewSDKStream(c Conn) *SDKStream { return &SDKStream{c: c} }

// Read implements io.Reader; it returns io.EOF when the connection ends.
func (s *SDKStream) Read(p []byte) (int, error) {
	if len(s.unread) == 0 {
		msg, err := s.c.ReadFrame(context.Background())
		if err != nil {
			return 0, io.EOF
		}
		s.unread = append(msg, '\n')
	}
	n := copy(p, s.unread)
	s.unread = s.unread[n:]
	return n, nil
}

// Write implements io.Writer: every complete line is sent as one message;
// an unfinished line waits for the rest.
func (s *SDKStream) Write(p []byte) (int, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.partial = append(s.partial, p...)
	for {
		i := bytes.IndexByte(s.partial, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := s.partial[:i]
		if len(bytes.TrimSpace(line)) > 0 {
			if err := s.c.WriteFrame(context.Background(), line); err != nil {
				return 0, err
			}
		}
		s.partial = s.partial[i+1:]
	}
}

// Close closes the connection.
func (s *SDKStream) Close() error { return s.c.Close() }
