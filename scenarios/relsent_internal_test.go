package scenarios

import (
	"strings"
	"testing"

	"github.com/acpconform/acpconform/internal/testbound"
	"github.com/acpconform/acpconform/mocks/wire"
)

// arrive has side receive frame, as its relEnd would.
func arrive(l *relLedger, side, frame string) {
	m := relMsg{Size: len(frame)}
	if err := readRelMsg([]byte(frame), &m); err != nil {
		m = relMsg{Size: len(frame), Bad: err.Error()}
	}
	l.arrived(side, m)
}

// TestLedgerAllowsWhatREL1Allows: key order, white space, string
// escapes, numbers of one value (1.0 and 1, 1e2 and 100), renumbered ids,
// a translated $/cancel_request and the relay's own error answer to a
// pending request are no message the other side did not send.
func TestLedgerAllowsWhatREL1Allows(t *testing.T) {
	l := newRelLedger()
	l.enter("client", []byte(`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s","n":[1.0,1e2,9007199254740993],"t":"café"}}`))
	arrive(l, "agent", ` {"params": {"t":"caf\u00e9","n":[1,100,9007199254740993.0],"sessionId":"s"}, "method":"session/prompt", "id":"relay-7"}`+"\r")
	l.enter("agent", []byte(`{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"Q"}}`))
	arrive(l, "client", `{"jsonrpc":"2.0","id":1001,"method":"elicitation/create","params":{"message":"Q"}}`)
	l.enter("agent", []byte(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":1}}`))
	arrive(l, "client", `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":1001}}`)
	l.enter("client", []byte(`{"jsonrpc":"2.0","id":1001,"result":{"action":"cancel"}}`))
	arrive(l, "agent", `{"jsonrpc":"2.0","id":1,"result":{"action":"cancel"}}`)
	// The relay refuses the client's request itself (REL-7).
	l.enter("client", []byte(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s"}}`))
	arrive(l, "client", `{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"too large"}}`)
	if err := l.unsentFailure(); err != nil {
		t.Fatal(err)
	}
}

// TestLedgerFindsWhatWasNotSent: an invented message, a second copy, a
// changed number, a piece of a message and a second answer each count,
// and the failure says which.
func TestLedgerFindsWhatWasNotSent(t *testing.T) {
	for _, tc := range []struct {
		name  string
		sent  []string // by the agent
		got   []string // by the client
		wants []string
	}{
		{"an invented notification", nil,
			[]string{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"none"}}`},
			[]string{`the client received 1 message the agent did not send`, `- notification "session/update": {"sessionId":"none"}`}},
		{"a second copy", []string{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s"}}`},
			[]string{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s"}}`, `{"method":"session/update","params":{"sessionId":"s"}}`},
			[]string{`notification "session/update": a second copy of what the agent sent once`}},
		{"a number beyond 2^53 as float64", []string{`{"jsonrpc":"2.0","method":"session/update","params":{"n":9007199254740993}}`},
			[]string{`{"jsonrpc":"2.0","method":"session/update","params":{"n":9007199254740992}}`},
			[]string{`the client received 1 message the agent sent, changed on the way`, `- n: 9007199254740993`, `+ n: 9007199254740992`}},
		{"a changed message and an invented one", []string{`{"jsonrpc":"2.0","method":"session/update","params":{"n":9007199254740993}}`},
			[]string{`{"jsonrpc":"2.0","method":"session/update","params":{"n":9007199254740992}}`, `{"jsonrpc":"2.0","method":"session/cancel","params":{}}`},
			[]string{`the client received 2 messages the agent did not send as it sent them: 1 changed on the way, 1 it never sent`}},
		{"a decimal shortened", []string{`{"jsonrpc":"2.0","method":"session/update","params":{"n":0.1000000000000000055511151231257827}}`},
			[]string{`{"jsonrpc":"2.0","method":"session/update","params":{"n":0.1}}`},
			[]string{`+ n: 0.1`}},
		{"a message in two pieces", []string{`{"jsonrpc":"2.0","method":"session/update","params":{"text":"abcdef"}}`},
			[]string{`{"jsonrpc":"2.0","method":"session/update","params":{"te`, `xt":"abcdef"}}`},
			[]string{`the client received 2 messages the agent did not send`, `no JSON object`}},
		{"an error answer with an id never asked", nil,
			[]string{`{"jsonrpc":"2.0","id":9,"error":{"code":-32603,"message":"x"}}`},
			[]string{`answer id 9: {"code":-32603,"message":"x"}`}},
		// Names are exact, as ACP's SDKs read them, and a member named
		// twice is judged on each reading.
		{"a capitalised envelope", []string{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s"}}`},
			[]string{`{"jsonrpc":"2.0","Method":"session/update","Params":{"sessionId":"s"}}`},
			[]string{`the client received 1 message the agent did not send`}},
		{"a capitalised member", []string{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s"}}`},
			[]string{`{"jsonrpc":"2.0","method":"session/update","params":{"SessionId":"s"}}`},
			[]string{`the client received 1 message the agent sent, changed on the way`}},
		{"a member twice, one reading changed", []string{`{"jsonrpc":"2.0","method":"session/update","params":{"n":1}}`},
			[]string{`{"jsonrpc":"2.0","method":"session/update","params":{"n":1,"n":2}}`},
			[]string{`the client received 1 message the agent sent, changed on the way`}},
		{"an envelope member twice", []string{`{"jsonrpc":"2.0","method":"session/update","params":{"n":1}}`},
			[]string{`{"jsonrpc":"2.0","method":"session/update","params":{"n":1},"params":{"n":1}}`},
			[]string{`the client received 1 message the agent did not send`, `the message names "params" twice`}},
		{"a flood", nil,
			strings.Split(strings.Repeat(`{"jsonrpc":"2.0","method":"session/update","params":{}}`+"\n", 5000), "\n")[:5000],
			[]string{`the client received 5000 messages the agent did not send`, `- and 4997 more`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newRelLedger()
			for _, s := range tc.sent {
				l.enter("agent", []byte(s))
			}
			for _, g := range tc.got {
				arrive(l, "client", g)
			}
			err := l.unsentFailure()
			if err == nil {
				t.Fatal("no failure")
			}
			for _, want := range tc.wants {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("the failure lacks %q:\n%s", want, err)
				}
			}
		})
	}
	t.Run("a second error answer to one request", func(t *testing.T) {
		l := newRelLedger()
		l.enter("client", []byte(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{}}`))
		arrive(l, "client", `{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"too large"}}`)
		arrive(l, "client", `{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"too large"}}`)
		if got := l.unsentTo("client"); got != 1 {
			t.Errorf("%d unsent, want 1 (the relay may refuse a request once)", got)
		}
	})
}

// TestRelEndFloodIsBounded: a relay that floods one end costs it at most
// the connection's budget, then the end closes the connection and says
// why; the ledger still counts what came.
func TestRelEndFloodIsBounded(t *testing.T) {
	const budget = 256 << 10
	mine, theirs := wire.Pipe(wire.Options{MaxHeld: budget})
	defer theirs.Close()
	l := newRelLedger()
	x := (*env)(nil).newRelEnd("client", mine, l)
	ctx := testbound.Context(t)
	frame := []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"none","update":{"text":"flood"}}}`)
	// 100000 messages hold a hundred times the budget: the end closes long
	// before.
	sent := 0
	for ; sent < 100000; sent++ {
		if theirs.WriteFrame(ctx, frame) != nil {
			break
		}
	}
	if sent == 100000 {
		t.Fatalf("the end took %d messages of %d bytes, and did not close its connection", sent, len(frame))
	}
	select {
	case <-x.done:
	case <-ctx.Done():
		t.Fatalf("the end did not close its connection after %d messages", sent)
	}
	if held := mine.Budget().Held(); held > budget {
		t.Errorf("the end holds %d bytes, over its budget of %d", held, budget)
	}
	if !x.flooded || !strings.Contains(x.why, "flood: the relay sent the client") {
		t.Errorf("flooded %v, why %q", x.flooded, x.why)
	}
	if n := l.unsentTo("client"); n < len(x.received()) || n == 0 {
		t.Errorf("the ledger counts %d messages not sent, the end kept %d", n, len(x.received()))
	}
}
