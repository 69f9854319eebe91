//go:build unix

package suite_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpconform/acpconform/internal/bridge"
	"github.com/acpconform/acpconform/internal/testcost/budget"
	"github.com/acpconform/acpconform/mocks/wire"
	"github.com/acpconform/acpconform/suite"
)

// This test binary is its own bridge: {agent} runs os.Executable(), the
// suite's default, with "bridge SOCKET", and TestMain plays acpconform
// bridge then.
func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == "bridge" {
		if err := bridge.Run(os.Args[2], os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		os.Exit(0)
	}
	os.Exit(budget.Main(m))
}

func testContext(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

var socketDir = regexp.MustCompile(`/[^ ']*acpconform-bridge-[0-9]+`)

// requireRemoved fails t unless the socket directory named in s is gone.
func requireRemoved(t *testing.T, s string) {
	t.Helper()
	dir := socketDir.FindString(s)
	if dir == "" {
		t.Fatalf("no socket directory named in %q", s)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the socket directory %s is left behind (%v)", dir, err)
	}
}

// The client's end of its agent's stdin reaches the harness as EOF, and
// concurrent connections of one subject each get their own socket.
func TestBridgeCarriesFramesAndTheEndOfStdin(t *testing.T) {
	ctx := testContext(t, 30*time.Second)
	client := suite.Command([]string{"sh", "-c", `echo "agent: {agent}" >&2; echo "[\"$$\"]" | {agent}; echo "bridge exited $?" >&2`}, suite.ClientRole, wire.Options{})
	if client.Transport() != suite.BridgeTransport {
		t.Fatalf("Transport() = %s, want %s", client.Transport(), suite.BridgeTransport)
	}
	var wg sync.WaitGroup
	frames := make([]string, 3)
	stderrs := make([]string, 3)
	for i := range frames {
		wg.Add(1)
		go func() {
			defer wg.Done()
			link, err := client.Connect(ctx)
			if err != nil {
				t.Error(err)
				return
			}
			frame, err := link.Conn.ReadFrame(ctx)
			if err != nil {
				t.Errorf("read the client's frame: %v", err)
			}
			frames[i] = string(frame)
			if _, err := link.Conn.ReadFrame(ctx); !errors.Is(err, wire.ErrClosed) {
				t.Errorf("after the client closed its agent's stdin, read %v, want the end of the connection", err)
			}
			select {
			case <-link.Exited():
			case <-ctx.Done():
				t.Error("the client did not exit once its agent had")
			}
			link.Close()
			stderrs[i] = link.Stderr()
		}()
	}
	wg.Wait()
	dirs := map[string]bool{}
	for i, frame := range frames {
		pid := strings.Trim(frame, `["]`)
		if pid == "" || !strings.Contains(stderrs[i], "bridge exited 0") {
			t.Errorf("connection %d read %q; the client's stderr:\n%s", i, frame, stderrs[i])
		}
		dir := socketDir.FindString(stderrs[i])
		if dirs[dir] {
			t.Errorf("two connections shared the socket directory %s", dir)
		}
		dirs[dir] = true
		requireRemoved(t, stderrs[i])
	}
	if frames[0] == frames[1] || frames[1] == frames[2] || frames[0] == frames[2] {
		t.Errorf("the connections read %q: each must reach its own client", frames)
	}
}

// When the harness ends the connection, the bridge's stdout ends and it
// exits 0; what the harness wrote before reaches the client unchanged.
func TestBridgeEndsWhenTheHarnessCloses(t *testing.T) {
	ctx := testContext(t, 30*time.Second)
	out := filepath.Join(t.TempDir(), "out")
	link, err := suite.Command([]string{"sh", "-c", `{agent} >"$0"; echo "bridge exited $?" >&2`, out}, suite.ClientRole, wire.Options{}).Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer link.Close()
	want := `{"jsonrpc":"2.0","method":"x","params":{"s":"é \u2028"}}`
	if err := link.Conn.WriteFrame(ctx, []byte(want)); err != nil {
		t.Fatal(err)
	}
	link.Conn.Close()
	select {
	case <-link.Exited():
	case <-ctx.Done():
		t.Fatal("the bridge did not end when the harness closed the connection")
	}
	link.Close()
	if !strings.Contains(link.Stderr(), "bridge exited 0") {
		t.Errorf("the client's stderr:\n%s\nwant the bridge to exit 0", link.Stderr())
	}
	if got, _ := os.ReadFile(out); string(got) != want+"\n" {
		t.Errorf("the bridge wrote %q, want %q", got, want+"\n")
	}
}

// A client that never starts its agent is a start error naming {agent},
// bounded by the context, and its socket is removed.
func TestBridgeNeverConnects(t *testing.T) {
	ctx := testContext(t, time.Second)
	_, err := suite.Command([]string{"sh", "-c", "sleep 100", "{agent}"}, suite.ClientRole, wire.Options{}).Connect(ctx)
	var se *suite.StartError
	if !errors.As(err, &se) || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(se.What, "{agent}") {
		t.Fatalf("Connect = %v, want a start error naming {agent} at the deadline", err)
	}
	requireRemoved(t, se.What)
}

// A client that exits before its agent connects is said at once, with its
// stderr, not when the deadline passes.
func TestBridgeClientExitsFirst(t *testing.T) {
	ctx := testContext(t, time.Minute)
	_, err := suite.Command([]string{"sh", "-c", "echo no agent for me >&2; exit 4", "{agent}"}, suite.ClientRole, wire.Options{}).Connect(ctx)
	var se *suite.StartError
	if !errors.As(err, &se) || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Connect = %v, want a start error before the deadline", err)
	}
	if !strings.Contains(se.What, "exited with status 4 before the agent it was given as {agent}") || !strings.Contains(se.Stderr, "no agent for me") {
		t.Errorf("start error %q, stderr %q", se.What, se.Stderr)
	}
	requireRemoved(t, se.What)
}

// A relay that spawns {agent}: Link.Upstream is the agent side, and frames
// cross both ways.
func TestRelaySpawningItsAgent(t *testing.T) {
	ctx := testContext(t, 30*time.Second)
	link, err := suite.Relay([]string{"sh", "-c", "exec {agent}"}, wire.Options{}).Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer link.Close()
	up, err := link.Upstream(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, hop := range []struct {
		name     string
		from, to wire.Conn
	}{{"client to agent", link.Conn, up}, {"agent to client", up, link.Conn}} {
		frame := `{"jsonrpc":"2.0","id":1,"method":"` + hop.name + `"}`
		if err := hop.from.WriteFrame(ctx, []byte(frame)); err != nil {
			t.Fatal(err)
		}
		if got, err := hop.to.ReadFrame(ctx); err != nil || string(got) != frame {
			t.Errorf("%s: read %q, %v; want %q", hop.name, got, err, frame)
		}
	}
	if !strings.HasPrefix(link.UpstreamURL, "unix:") {
		t.Errorf("UpstreamURL = %q, want the bridge's socket", link.UpstreamURL)
	}
}

// A relay's command holds exactly one of {url} and {agent}.
func TestRelayNeedsOnePlaceholder(t *testing.T) {
	ctx := testContext(t, 10*time.Second)
	for _, argv := range [][]string{{"sh", "-c", "exec {agent}", "{url}"}, {"cat"}} {
		if _, err := suite.Relay(argv, wire.Options{}).Connect(ctx); err == nil || !strings.Contains(err.Error(), "{url}") || !strings.Contains(err.Error(), "{agent}") {
			t.Errorf("Relay(%q).Connect = %v, want an error naming {url} and {agent}", argv, err)
		}
	}
}

// A client listened for hands its WebSocket itself to a check, so that
// REM-1 can send it a binary frame.
func TestListenerLinkIsTheWebSocket(t *testing.T) {
	ctx := testContext(t, 10*time.Second)
	l, err := suite.ListeningForClients("127.0.0.1:0", wire.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if l.Transport() != suite.WebSocketTransport {
		t.Errorf("Transport() = %s", l.Transport())
	}
	dialed := make(chan error, 1)
	go func() {
		c, err := wire.Dial(ctx, l.URL, wire.DialOptions{})
		if err == nil {
			_, _ = c.ReadFrame(ctx) // until the harness closes
			c.Close()
		}
		dialed <- err
	}()
	link, err := l.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := link.Conn.(*wire.WebSocketConn); !ok {
		t.Errorf("the link's Conn is a %T, want the *wire.WebSocketConn", link.Conn)
	}
	link.Close()
	if err := <-dialed; err != nil {
		t.Fatal(err)
	}
}
