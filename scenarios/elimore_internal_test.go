package scenarios

import (
	"testing"

	"github.com/acpconform/acpconform/mocks/wire"
)

// TestEndedBeforeTurn: ELI-5's end before the turn's end is told from the
// order of the mock agent's transcript, whatever the exit status.
func TestEndedBeforeTurn(t *testing.T) {
	prompt := wire.Entry{Dir: wire.Received, Data: []byte(`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s","prompt":[]}}`)}
	complete := wire.Entry{Dir: wire.Sent, Data: []byte(`{"jsonrpc":"2.0","method":"elicitation/complete","params":{"elicitationId":"login-4"}}`)}
	answer := wire.Entry{Dir: wire.Received, Data: []byte(`{"jsonrpc":"2.0","id":5,"result":{"action":"accept"}}`)}
	other := wire.Entry{Dir: wire.Sent, Data: []byte(`{"jsonrpc":"2.0","id":5,"result":{"stopReason":"end_turn"}}`)} // the agent's own id 5, not the prompt's
	turnEnd := wire.Entry{Dir: wire.Sent, Data: []byte(`{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}`)}
	eof := wire.Entry{Dir: wire.Received, Note: "closed: EOF"}
	writeFailed := wire.Entry{Dir: wire.Sent, Note: "write failed: write |1: broken pipe"}
	for _, tc := range []struct {
		name    string
		entries []wire.Entry
		want    bool
	}{
		{"the end after the turn's", []wire.Entry{prompt, complete, answer, turnEnd, eof}, false},
		{"still connected", []wire.Entry{prompt, complete, answer, turnEnd}, false},
		{"the end before the turn's", []wire.Entry{prompt, complete, answer, eof, turnEnd}, true},
		{"the end, and no turn's end sent", []wire.Entry{prompt, complete, answer, eof}, true},
		{"the turn's end not written", []wire.Entry{prompt, complete, answer, turnEnd, writeFailed, eof}, true},
		{"another answer of the same id", []wire.Entry{prompt, complete, other, eof}, true},
		{"no prompt in what was kept", []wire.Entry{complete, answer, eof}, false},
	} {
		if got := endedBeforeTurn(tc.entries); got != tc.want {
			t.Errorf("%s: endedBeforeTurn = %v, want %v", tc.name, got, tc.want)
		}
	}
}
