// Package relay is the remote transport of the typed-choice contract, as
// reference peers: Server serves an ACP agent over WebSocket (in-process, or
// a command whose frames it relays unchanged), and Mirror connects to such
// a server and serves ACP on a stream, with the unstable-protocol opt-in of
// its client-facing side as a switch. They are the Go counterparts of ACP
// Kit's acpremote serve, serve_command and mirror (CONTRACT RTE-5, RTE-6,
// REM-1..3).
package relay

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"

	"github.com/acpconform/acpconform/kit/probeagent"
	"github.com/acpconform/acpconform/mocks/wire"
)

// DefaultMount is where a Server serves: metadata at the mount, the
// WebSocket at mount + "/ws".
const DefaultMount = "/acp"

// Agent serves one ACP connection; it returns when the connection is done.
type Agent func(ctx context.Context, conn wire.Conn)

// ReferenceAgent serves the reference probe agent (PROBE.md §1).
func ReferenceAgent() Agent {
	return func(ctx context.Context, conn wire.Conn) {
		s := wire.NewSDKStream(conn)
		agent := probeagent.Serve(s, s, slog.New(slog.DiscardHandler))
		select {
		case <-agent.Done():
		case <-ctx.Done():
		}
	}
}

// Options configure a Server. The zero value serves at DefaultMount with no
// token and the default 1 MiB frame limit.
type Options struct {
	Mount    string // "" means DefaultMount
	Token    string // when set, the WebSocket needs "Authorization: Bearer <Token>"
	MaxFrame int    // 0 means wire.DefaultMaxFrame
	Name     string // in the metadata
}

// Server serves an agent over WebSocket: the WebSocket at <mount>/ws,
// metadata JSON at <mount>, health at /healthz (REM-2).
type Server struct {
	// URL is the WebSocket URL; Base the server's http:// root.
	URL, Base string

	opts     Options
	agent    Agent
	http     *http.Server
	ctx      context.Context
	cancel   context.CancelFunc
	sessions sync.WaitGroup
}

// NewServer listens on addr ("127.0.0.1:0" for a free loopback port) and
// serves agent, one call per WebSocket connection.
func NewServer(addr string, agent Agent, opts Options) (*Server, error) {
	if opts.Mount == "" {
		opts.Mount = DefaultMount
	}
	opts.Mount = "/" + strings.Trim(opts.Mount, "/")
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("relay: listen on %s: %w", addr, err)
	}
	s := &Server{opts: opts, agent: agent, Base: "http://" + l.Addr().String()}
	s.URL = "ws://" + l.Addr().String() + opts.Mount + "/ws"
	s.ctx, s.cancel = context.WithCancel(context.Background())
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("GET "+opts.Mount, s.metadata)
	mux.HandleFunc(opts.Mount+"/ws", s.websocket)
	s.http = &http.Server{Handler: mux}
	go func() {
		if err := s.http.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.cancel()
		}
	}()
	return s, nil
}

// Metadata is what a Server says about itself at its mount.
type Metadata struct {
	Name      string `json:"name"`
	Protocol  string `json:"protocol"`  // "acp"
	Transport string `json:"transport"` // "websocket"
	WebSocket string `json:"websocket"` // the WebSocket path
	Auth      string `json:"auth"`      // "bearer" or "none"
	MaxFrame  int    `json:"maxFrame"`  // bytes
}

func (s *Server) metadata(w http.ResponseWriter, _ *http.Request) {
	auth := "none"
	if s.opts.Token != "" {
		auth = "bearer"
	}
	max := s.opts.MaxFrame
	if max <= 0 {
		max = wire.DefaultMaxFrame
	}
	name := s.opts.Name
	if name == "" {
		name = "acpconform"
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(Metadata{Name: name, Protocol: "acp", Transport: "websocket", WebSocket: s.opts.Mount + "/ws", Auth: auth, MaxFrame: max})
}

func (s *Server) websocket(w http.ResponseWriter, r *http.Request) {
	if s.opts.Token != "" && !bearer(r, s.opts.Token) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="acp"`)
		http.Error(w, "a bearer token is required", http.StatusUnauthorized)
		return
	}
	conn, err := wire.Accept(w, r, wire.Options{MaxFrame: s.opts.MaxFrame})
	if err != nil {
		return // Accept answered the request
	}
	s.sessions.Add(1)
	defer s.sessions.Done()
	defer conn.Close()
	s.agent(s.ctx, conn)
}

// bearer compares the request's bearer token in constant time.
func bearer(r *http.Request, token string) bool {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1
}

// Close stops the server: every connection ends, as a server going away.
func (s *Server) Close() error {
	s.cancel()
	err := s.http.Close()
	s.sessions.Wait()
	return err
}
