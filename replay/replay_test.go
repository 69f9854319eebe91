package replay_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/acpconform/acpconform/replay"
	"github.com/acpconform/acpconform/suite"
	"github.com/acpconform/acpconform/trace"
)

// golden is a session recorded between the reference client and the
// reference agent (acpconform record), kept in judge/testdata.
const golden = "../judge/testdata/reference-ask-choice.jsonl"

func readGolden(t *testing.T, edit func(string) string) trace.Trace {
	t.Helper()
	data, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Read(strings.NewReader(edit(string(data))))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// play replays tr's client side to a fresh in-process reference agent.
func play(t *testing.T, tr trace.Trace) replay.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	link, err := suite.Reference().Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer link.Close()
	r, err := replay.Play(ctx, link.Conn, tr, trace.Agent, 5*time.Second, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func keep(s string) string { return s }

// The session replayed to the agent it was recorded from matches, message
// for message.
func TestReplayOfTheAgentItCameFrom(t *testing.T) {
	r := play(t, readGolden(t, keep))
	if r.Difference != nil || r.Compared != 5 || r.Sent != 4 {
		t.Fatalf("replay: %+v %v, want 4 sent, 5 compared, no difference", r, r.Difference)
	}
}

// What may differ between runs does not count: spacing and key order, the
// ids of the agent's requests, and the ids of the sessions it opens.
func TestReplayAllowsWhatMayDiffer(t *testing.T) {
	tr := readGolden(t, func(s string) string {
		s = strings.ReplaceAll(s, "probe-1", "a-session-of-another-run")
		s = strings.ReplaceAll(s, `{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"elicitation/create\"`, `{\"id\": 99, \"jsonrpc\":\"2.0\",\"method\":\"elicitation/create\"`)
		return strings.ReplaceAll(s, `{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"action\":\"cancel\"}}`, `{\"jsonrpc\":\"2.0\",\"id\":99,\"result\":{\"action\":\"cancel\"}}`)
	})
	if r := play(t, tr); r.Difference != nil {
		t.Fatalf("replay: %v", r.Difference)
	}
}

// A recorded message the agent now sends otherwise is the first
// difference, named by the path of the member that differs.
func TestReplayNamesTheFirstDifference(t *testing.T) {
	tr := readGolden(t, func(s string) string { return strings.Replace(s, `\"title\":\"Choice\"`, `\"title\":\"Pick one\"`, 1) })
	r := play(t, tr)
	d := r.Difference
	if d == nil || d.Message != 3 || d.Line != 7 || !strings.Contains(d.Why, `params.requestedSchema.properties.choice.title: recorded "Pick one", now "Choice"`) {
		t.Fatalf("replay: %+v, want message 3 (line 7) to differ at its title", d)
	}
}
