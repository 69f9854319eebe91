package relay_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/acpconform/acpconform/mocks/client"
	"github.com/acpconform/acpconform/mocks/relay"
	"github.com/acpconform/acpconform/mocks/script"
	"github.com/acpconform/acpconform/mocks/wire"
	"github.com/acpconform/acpconform/probe"
)

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// dialCommand serves argv through the command relay and dials it.
func dialCommand(ctx context.Context, t *testing.T, argv ...string) *wire.WebSocketConn {
	t.Helper()
	srv, err := relay.NewServer("127.0.0.1:0", relay.Command(argv, slog.New(slog.DiscardHandler)), relay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	conn, err := wire.Dial(ctx, srv.URL, wire.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// TestCommandRelaysFramesByteForByte relays to cat, which writes back what
// it reads: each frame must come back exactly.
func TestCommandRelaysFramesByteForByte(t *testing.T) {
	ctx := ctxFor(t)
	conn := dialCommand(ctx, t, "cat")
	for _, frame := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`,
		`{"jsonrpc":"2.0" , "method" : "x","params":{"n":1.0e0,"s":"caf\u00e9 <&>","t":"✓"}}`,
		`not json at all`,
	} {
		if err := conn.WriteRaw(ctx, []byte(frame)); err != nil {
			t.Fatal(err)
		}
		got, err := conn.ReadFrame(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != frame {
			t.Errorf("relayed\n%s\nas\n%s", frame, got)
		}
	}
}

func TestCommandThatDoesNotStart(t *testing.T) {
	ctx := ctxFor(t)
	conn := dialCommand(ctx, t, "/nonexistent/agent")
	if _, err := conn.ReadFrame(ctx); err == nil {
		t.Fatal("a connection to a command that cannot start stays open")
	}
}

// mirrored runs a mirror with opts in front of the reference agent and
// returns a mock client on its stdio.
func mirrored(t *testing.T, opts relay.MirrorOptions, cfg client.Config) *client.Client {
	t.Helper()
	srv, err := relay.NewServer("127.0.0.1:0", relay.ReferenceAgent(), relay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	mine, theirs := wire.Pipe(wire.Options{})
	done := make(chan error, 1)
	go func() { done <- relay.Mirror(context.Background(), srv.URL, theirs, opts) }()
	mc := client.New(cfg)
	mc.Connect(mine)
	t.Cleanup(func() { mc.Close(); <-done })
	return mc
}

func TestMirrorSwitches(t *testing.T) {
	deploy := probe.Request{Acpconform: 1, Op: probe.OpAskChoice, Question: "Q",
		Choices:  []probe.Choice{{Value: json.RawMessage(`"a"`), Label: "A"}, {Value: json.RawMessage(`"b"`), Label: "B"}},
		Fallback: &probe.Fallback{Kind: probe.FallbackDeclined}}
	for _, tc := range []struct {
		name    string
		opts    relay.MirrorOptions
		outcome string
		errKind string
	}{
		{"off by default: -32601", relay.MirrorOptions{}, "error", "request_error"},
		{"opted in: relayed", relay.MirrorOptions{UnstableProtocol: true}, "accepted", ""},
		{"capabilities rebuilt: the unsupported path", relay.MirrorOptions{UnstableProtocol: true, RebuildCapabilities: true}, "declined", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := ctxFor(t)
			mc := mirrored(t, tc.opts, client.Config{Capabilities: client.FormElicitation})
			mc.Append(script.Elicitation{Answer: script.Accept(1)})
			if err := mc.Initialize(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := mc.NewSession(ctx); err != nil {
				t.Fatal(err)
			}
			out, _, err := mc.Probe(ctx, deploy)
			if err != nil {
				t.Fatal(err)
			}
			if out.Outcome != tc.outcome || out.Error != tc.errKind {
				t.Errorf("outcome %+v, want %s %s", out, tc.outcome, tc.errKind)
			}
			if tc.errKind == "request_error" && (out.Code == nil || *out.Code != -32601 || string(out.Data) != `{"method":"elicitation/create"}`) {
				t.Errorf("-32601 not as the SDKs send it: %+v", out)
			}
		})
	}
}

func TestMirrorWithTokenAndRefusedURL(t *testing.T) {
	ctx := ctxFor(t)
	srv, err := relay.NewServer("127.0.0.1:0", relay.ReferenceAgent(), relay.Options{Token: "t0k"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	local, _ := wire.Pipe(wire.Options{})
	if err := relay.Mirror(ctx, srv.URL, local, relay.MirrorOptions{}); err == nil {
		t.Error("the mirror reached a server that wants a token without one")
	}
	local, other := wire.Pipe(wire.Options{})
	done := make(chan error, 1)
	go func() {
		done <- relay.Mirror(ctx, srv.URL, local, relay.MirrorOptions{Header: http.Header{"Authorization": {"Bearer t0k"}}})
	}()
	mc := client.New(client.Config{})
	mc.Connect(other)
	if err := mc.Initialize(ctx); err != nil {
		t.Errorf("with the token: %v", err)
	}
	mc.Close()
	<-done
}

func TestServerEndpoints(t *testing.T) {
	srv, err := relay.NewServer("127.0.0.1:0", relay.ReferenceAgent(), relay.Options{Mount: "/custom/", Token: "x", Name: "mine"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if srv.URL[len(srv.URL)-len("/custom/ws"):] != "/custom/ws" {
		t.Errorf("URL %s", srv.URL)
	}
	resp, err := http.Get(srv.Base + "/custom")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var meta relay.Metadata
	if err := json.NewDecoder(resp.Body).Decode(&meta); err != nil || meta.Name != "mine" || meta.Auth != "bearer" || meta.WebSocket != "/custom/ws" {
		t.Errorf("metadata %+v, %v", meta, err)
	}
	resp, err = http.Get(srv.Base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "ok\n" {
		t.Errorf("healthz %d %q", resp.StatusCode, body)
	}
}

// TestCommandRelaysLongLinesWhole: a line of the command far above the
// line reader's 64 KiB buffer goes out as one message, not split (REL-7).
func TestCommandRelaysLongLinesWhole(t *testing.T) {
	ctx := ctxFor(t)
	conn := dialCommand(ctx, t, "cat")
	frame := `{"jsonrpc":"2.0","method":"x","params":{"s":"` + strings.Repeat("0123456789", 100<<10) + `"}}`
	if err := conn.WriteRaw(ctx, []byte(frame)); err != nil {
		t.Fatal(err)
	}
	got, err := conn.ReadFrame(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != frame {
		t.Errorf("relayed a line of %d bytes as a message of %d bytes", len(frame), len(got))
	}
}
