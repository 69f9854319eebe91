package mutants

import (
	"testing"

	"github.com/acpconform/acpconform/mocks/relay"
)

// TestReserialiser: the correct relay rewrites what crosses it in every
// way REL-1 allows, and no other; asFloat64 loses what float64 loses.
func TestReserialiser(t *testing.T) {
	r := &reserialiser{}
	for _, tc := range []struct {
		dir      relay.Direction
		in, want string
	}{
		{relay.ToClient, `{"jsonrpc":"2.0","id":2,"method":"elicitation/create","params":{"message":"café ✓ 😀","n":[1.0,1e2,-0.50,9007199254740993,1e400,-2.5e-400,0.1000000000000000055511151231257827]}}`,
			` {"id": "relay-0", "jsonrpc": "2.0", "method": "elicitation/create", "params": {"message": "caf\u00e9 \u2713 \ud83d\ude00", "n": [1, 100, -0.5, 9007199254740993, 1e400, -2.5e-400, 0.1000000000000000055511151231257827]}}` + "\r"},
		{relay.ToAgent, `{"jsonrpc":"2.0","id":0,"method":"session/prompt","params":{"s":"a,b:c\"d,"}}`,
			` {"id": "relay-1", "jsonrpc": "2.0", "method": "session/prompt", "params": {"s": "a,b:c\"d,"}}` + "\r"},
		{relay.ToClient, `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":2}}`,
			` {"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": "relay-0"}}` + "\r"},
		{relay.ToAgent, `{"jsonrpc":"2.0","id":"relay-0","result":{"action":"cancel"}}`,
			` {"id": 2, "jsonrpc": "2.0", "result": {"action": "cancel"}}` + "\r"},
		{relay.ToClient, `{"jsonrpc":"2.0","id":"relay-1","result":{}}`,
			` {"id": 0, "jsonrpc": "2.0", "result": {}}` + "\r"},
		{relay.ToClient, `not JSON`, `not JSON`},
	} {
		got := r.filter(tc.dir, []byte(tc.in))
		if len(got) != 1 || string(got[0]) != tc.want {
			t.Errorf("%s %s\ngot  %q\nwant %q", tc.dir, tc.in, got, tc.want)
		}
	}

	in := `{"n":[9007199254740993,-9007199254740993,123456789012345678901234567890,0.1000000000000000055511151231257827,1e400,-2.5e-400,1.0,1.5]}`
	want := `{"n":[9007199254740992,-9007199254740992,1.2345678901234568e+29,0.1,null,0,1,1.5]}`
	if got := string(asFloat64([]byte(in))); got != want {
		t.Errorf("asFloat64(%s)\ngot  %s\nwant %s", in, got, want)
	}
}
