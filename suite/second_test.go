//go:build unix

package suite_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/internal/testbound"
	"github.com/acpconform/acpconform/mocks/wire"
	"github.com/acpconform/acpconform/suite"
)

// expectRefusedAgain fails t unless err, a wait on one of the harness's
// ends of a link, ended because the subject connected a second time, and
// the link says so.
func expectRefusedAgain(t *testing.T, link *suite.Link, err error, want string) {
	t.Helper()
	if !errors.Is(err, wire.ErrClosedHere) || !strings.Contains(wire.DescribeEnd(err), want) {
		t.Errorf("the wait ended with %v (%s), want the harness's refusal: %s", err, wire.DescribeEnd(err), want)
	}
	if got := link.ConnectedAgain(); got != want {
		t.Errorf("ConnectedAgain() = %q, want %q", got, want)
	}
}

// A relay that dials its {url} a second time while the check uses the
// first connection: the second is refused with status 1008, and the
// check's waits on both ends of the relay end at once, saying why.
func TestRelayDialsItsURLTwice(t *testing.T) {
	ctx := testbound.Context(t)
	link, err := suite.Relay([]string{"sh", "-c", "exec sleep 100", "{url}"}, wire.Options{}).Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer link.Close()
	first, err := wire.Dial(ctx, link.UpstreamURL, wire.DialOptions{}) // the relay's connection, played here
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	up, err := link.Upstream(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if link.ConnectedAgain() != "" {
		t.Fatalf("ConnectedAgain() = %q after one connection", link.ConnectedAgain())
	}
	second, err := wire.Dial(ctx, link.UpstreamURL, wire.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	if _, err := second.ReadFrame(ctx); !strings.Contains(wire.DescribeEnd(err), "status 1008 (policy violation) and reason \"acpconform serves one connection per check\"") {
		t.Errorf("the second connection read %v (%s), want status 1008 and why", err, wire.DescribeEnd(err))
	}
	want := "the relay connected a second time to {url}; acpconform serves one connection per check"
	_, err = link.Conn.ReadFrame(ctx)
	expectRefusedAgain(t, link, err, want)
	// The relay is told too, as it reads on.
	if _, err := first.ReadFrame(ctx); !strings.Contains(wire.DescribeEnd(err), "status 1008 (policy violation) and reason \"the relay connected a second time") {
		t.Errorf("the first connection read %v (%s), want status 1008 and why", err, wire.DescribeEnd(err))
	}
	_, err = up.ReadFrame(ctx)
	expectRefusedAgain(t, link, err, want)
}

// A client that runs {agent} a second time while the first bridge is
// connected: the check's wait on the first ends at once, saying why.
func TestClientRunsItsAgentTwice(t *testing.T) {
	ctx := testbound.Context(t)
	// The first bridge stays connected; the second starts once the
	// harness has sent a line through the first.
	link, err := suite.Command([]string{"sh", "-c", "{agent} | { read line; {agent} </dev/null; sleep 100; }"}, suite.ClientRole, wire.Options{}).Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer link.Close()
	if err := link.Conn.WriteFrame(ctx, []byte(`{"jsonrpc":"2.0","method":"go"}`)); err != nil {
		t.Fatal(err)
	}
	_, err = link.Conn.ReadFrame(ctx) // testbound's deadline here would be the defect

	expectRefusedAgain(t, link, err, "the client connected a second time through {agent}; acpconform serves one connection per check")
}
