package wire

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
)

// DefaultPath is where ACP is served over WebSocket by default.
const DefaultPath = "/acp/ws"

// Server serves WebSocket connections, each handed to a handler, like
// httptest.Server: construct it, read URL, Close it.
type Server struct {
	// URL is the WebSocket URL of the served path, ws://host:port/path.
	URL string

	listener net.Listener
	http     *http.Server
	ctx      context.Context
	cancel   context.CancelFunc
	handlers sync.WaitGroup
}

// Listen serves path on addr ("127.0.0.1:0" picks a free loopback port) and
// runs handle for each connection, closing the connection when handle
// returns. handle's ctx ends when the server closes.
func Listen(addr, path string, opts Options, handle func(ctx context.Context, c Conn)) (*Server, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("wire: listen on %s: %w", addr, err)
	}
	s := &Server{URL: "ws://" + l.Addr().String() + path, listener: l}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	mux := http.NewServeMux()
	mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
		c, err := Accept(w, r, opts)
		if err != nil {
			return // Accept has answered the request
		}
		s.handlers.Add(1)
		defer s.handlers.Done()
		defer c.Close()
		handle(s.ctx, c)
	})
	s.http = &http.Server{Handler: mux}
	go func() {
		if err := s.http.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.cancel()
		}
	}()
	return s, nil
}

// Close stops listening, ends every handler's context and waits for them.
func (s *Server) Close() error {
	s.cancel()
	err := s.http.Close() // closes the listener and hijacked connections' listeners, not the sockets
	s.handlers.Wait()
	return err
}
