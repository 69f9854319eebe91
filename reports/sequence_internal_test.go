package reports

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// rowsOf is every row of a diagram, folded or not, in order.
func rowsOf(d diagram) []seqRow {
	var rows []seqRow
	for _, p := range d.Parts {
		for _, b := range p.Blocks {
			rows = append(rows, b.Rows...)
		}
	}
	return rows
}

// A transcript's lines become arrows between the lanes of the check's
// role; what is no entry stays text, and events sit on their lane.
func TestReadDiagram(t *testing.T) {
	transcript := strings.Join([]string{
		`(2 earlier entries dropped)`,
		`+0.0010s -> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`,
		`+0.0020s <- {"jsonrpc":"2.0","id":1,"result":{}}`,
		`+0.0030s <- {"jsonrpc":"2.0","method":"session/update","params":{"text":"  (not a note)"}}`,
		`+0.0040s <- {"jsonrpc":"2.0","id":"a","error":{"code":-32602,"message":"x"}}`,
		`+0.0050s -> {"id":  (raw)`,
		`+0.0060s <- not json at all  (invalid character 'o' in literal null)`,
		`a continuation line </details>`,
		`+0.0070s --  (delay 1s)`,
		`+0.0080s <-  (closed: EOF)`,
	}, "\n")
	d := readDiagram(transcript, "agent", "the agent sent -32602", false)
	var got []string
	for _, r := range rowsOf(d) {
		switch {
		case r.Arrow != nil:
			a := r.Arrow
			got = append(got, fmt.Sprintf("%d>%d %s %s %s [%s] note=%q blame=%v", a.From, a.To, a.At, a.Kind, a.Label, a.ID, a.Note, a.Blame))
		case r.Event != "":
			got = append(got, fmt.Sprintf("event %d %s", r.Lane, r.Event))
		case r.Heading != "":
			got = append(got, "heading "+r.Heading)
		default:
			got = append(got, "text "+r.Text)
		}
	}
	want := []string{
		"text (2 earlier entries dropped)",
		`0>1 +0.0010s request initialize [1] note="" blame=false`,
		`1>0 +0.0020s result result of initialize [1] note="" blame=false`,
		`1>0 +0.0030s notification session/update [] note="" blame=false`,
		`1>0 +0.0040s error error -32602 ["a"] note="" blame=false`,
		`0>1 +0.0050s invalid not a JSON-RPC object [] note="raw" blame=false`,
		`1>0 +0.0060s invalid not a JSON-RPC object [] note="invalid character 'o' in literal null" blame=true`,
		"text a continuation line </details>",
		"event 0 +0.0070s delay 1s",
		"event 1 +0.0080s closed: EOF",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if strings.Join(d.Lanes, "|") != "harness: mock client|subject: agent" {
		t.Errorf("lanes %q", d.Lanes)
	}
}

// A relay's transcript has a side a connection: the client side's frames
// go between the mock client and the relay, the agent side's between the
// relay and the mock agent; the blamed frame is the one the reason names.
func TestReadDiagramOfARelay(t *testing.T) {
	transcript := "client side:\n" +
		`+0.0010s -> {"jsonrpc":"2.0","id":2,"method":"session/prompt"}` + "\n" +
		`+0.0020s <- {"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":2}}` + "\n" +
		"agent side:\n" +
		`+0.0010s <- {"jsonrpc":"2.0","id":3,"method":"session/prompt"}` + "\n" +
		`+0.0020s -> {"jsonrpc":"2.0","id":3,"result":{}}` + "\n"
	d := readDiagram(transcript, "relay", "the $/cancel_request the client received", false)
	var got []string
	for _, r := range rowsOf(d) {
		if a := r.Arrow; a != nil {
			got = append(got, fmt.Sprintf("%d>%d %s %v", a.From, a.To, a.Label, a.Blame))
		} else {
			got = append(got, r.Heading)
		}
	}
	want := "the relay's client side|0>1 session/prompt false|1>0 $/cancel_request true|the relay's agent side|1>2 session/prompt false|2>1 result of session/prompt false"
	if strings.Join(got, "|") != want {
		t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "|"), want)
	}
}

// A diagram draws the last maxSeqRows rows, and says how many it left out.
func TestReadDiagramIsBounded(t *testing.T) {
	var b strings.Builder
	for i := range maxSeqRows + 50 {
		fmt.Fprintf(&b, "+0.%04ds -> {\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"m\"}\n", i, i)
	}
	d := readDiagram(b.String(), "agent", "", false)
	rows := rowsOf(d)
	if len(rows) != maxSeqRows || d.Omitted != 50 || rows[0].Arrow.ID != "50" {
		t.Errorf("%d rows, %d omitted, first id %s; want %d, 50, 50", len(rows), d.Omitted, rows[0].Arrow.ID, maxSeqRows)
	}
}

// arrows describes the arrows of rows: "label [blame]", a line each.
func arrows(rows []seqRow) []string {
	var out []string
	for _, r := range rows {
		if a := r.Arrow; a != nil {
			s := a.Label
			if a.Blame {
				s += " [blame]"
			}
			out = append(out, s)
		}
	}
	return out
}

// A check that failed on a shared connection and passed on a fresh one
// has two parts, each its attempt; the failure is marked in the shared
// one, on the frame that carried the outcome the reason quotes (not the
// prompt's result after it), among this check's frames alone; the
// earlier checks' rows and this check's far before the mark are folded.
func TestReadDiagramOfARerun(t *testing.T) {
	outcome := func(at, session, text string) string {
		return at + ` <- {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"` + session + `","update":{"content":{"text":` + strconv.Quote(text) + `,"type":"text"},"sessionUpdate":"agent_message_chunk"}}}`
	}
	transcript := strings.Join([]string{
		"attempt 1, on a connection shared with earlier checks:",
		`+0.0001s -> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`,
		`+0.0050s <- {"jsonrpc":"2.0","id":1,"result":{}}`,
		`+0.0060s -> {"jsonrpc":"2.0","id":2,"method":"session/new","params":{}}`,
		`+0.0070s <- {"jsonrpc":"2.0","id":2,"result":{"sessionId":"probe-1"}}`,
		`+0.0080s -> {"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{}}`,
		outcome("+0.0090s", "probe-1", `{"acpconform":1,"outcome":"declined"}`),
		`+0.0091s <- {"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}`,
		`+0.0100s --  (` + NoteNewCheck + `VAL: invalid arguments are refused a label of white space)`,
		`+0.0101s -> {"jsonrpc":"2.0","id":4,"method":"session/new","params":{}}`,
		`+0.0102s <- {"jsonrpc":"2.0","id":4,"result":{"sessionId":"probe-2"}}`,
		`+0.0103s -> {"jsonrpc":"2.0","id":5,"method":"session/prompt","params":{}}`,
		`+0.0104s <- {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"probe-2","update":{"sessionUpdate":"plan","entries":[]}}}`,
		`+0.0105s <- {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"probe-2","update":{"sessionUpdate":"plan","entries":[]}}}`,
		outcome("+0.0106s", "probe-2", `{"acpconform":1,"outcome":"declined"}`),
		`+0.0107s <- {"jsonrpc":"2.0","id":5,"result":{"stopReason":"end_turn"}}`,
		`+0.0108s <-  (closed: wire: connection closed by this side)`,
		"",
		"attempt 2, on a fresh connection:",
		`+0.0001s -> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`,
		`+0.0050s <- {"jsonrpc":"2.0","id":1,"result":{}}`,
		`+0.0060s -> {"jsonrpc":"2.0","id":2,"method":"session/new","params":{}}`,
		`+0.0070s <- {"jsonrpc":"2.0","id":2,"result":{"sessionId":"probe-1"}}`,
		`+0.0080s -> {"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{}}`,
		outcome("+0.0090s", "probe-1", `{"acpconform":1,"outcome":"error","error":"invalid_argument"}`),
		`+0.0091s <- {"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}`,
	}, "\n")
	failure := "SES-1: the check failed on a connection that had served 1 earlier session, and passed on a fresh connection: the agent does not serve every session of a connection alike. On the shared connection:\n" +
		"the agent reported declined, want error invalid_argument\n-want +got:\n- outcome: \"error\"\n+ outcome: \"declined\""
	d := readDiagram(transcript, "agent", failure, true)
	if len(d.Parts) != 2 {
		t.Fatalf("%d parts, want 2", len(d.Parts))
	}
	shared, fresh := d.Parts[0], d.Parts[1]
	if shared.Kind != "shared" || !shared.Failed || shared.Heading != "attempt 1, on a connection shared with earlier checks" ||
		fresh.Kind != "fresh" || fresh.Failed || fresh.Heading != "attempt 2, on a fresh connection" {
		t.Errorf("parts: %q %s failed=%v, %q %s failed=%v", shared.Heading, shared.Kind, shared.Failed, fresh.Heading, fresh.Kind, fresh.Failed)
	}
	var folds []string
	for _, b := range shared.Blocks {
		folds = append(folds, b.Fold)
	}
	// 7 rows of the earlier check; of this check's 8, its note and
	// session/new are folded: 4 rows show before the mark.
	if want := []string{"7 rows of the earlier checks on this connection", "2 earlier rows of this check", ""}; !slices.Equal(folds, want) {
		t.Errorf("blocks %q, want %q", folds, want)
	}
	shown := shared.Blocks[len(shared.Blocks)-1].Rows
	want := []string{"result of session/new", "session/prompt", "session/update", "session/update", "session/update [blame]", "result of session/prompt"}
	if got := arrows(shown); !slices.Equal(got, want) {
		t.Errorf("shown rows of the shared attempt: %q, want %q", got, want)
	}
	if d := shown[4].Arrow.Detail; d != `{"acpconform":1,"outcome":"declined"}` {
		t.Errorf("the marked frame's detail %q, want its message's text", d)
	}
	if slices.ContainsFunc(arrows(fresh.Blocks[0].Rows), func(s string) bool { return strings.HasSuffix(s, "[blame]") }) || len(fresh.Blocks) != 1 {
		t.Errorf("the fresh attempt, which passed, is marked or folded: %q", arrows(fresh.Blocks[0].Rows))
	}

	// Failed again: each attempt is marked; without a rerun, the only part.
	d = readDiagram(transcript, "agent", failure, false)
	for i, p := range d.Parts {
		if !p.Failed || !slices.ContainsFunc(arrows(rowsOf(diagram{Parts: []seqPart{p}})), func(s string) bool { return strings.HasSuffix(s, "[blame]") }) {
			t.Errorf("failed again: attempt %d is not marked", i+1)
		}
	}
}

// The frame a failure is about, by what its reason says of it.
func TestBlame(t *testing.T) {
	transcript := strings.Join([]string{
		`+0.0010s -> {"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{}}`,
		`+0.0020s <- {"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"mode":"form","message":"Q","requestedSchema":{}}}`,
		`+0.0030s -> {"jsonrpc":"2.0","id":1,"result":{"action":"decline"}}`,
		`+0.0040s <- {"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"{\"acpconform\":1,\"outcome\":\"declined\"}"}}}}`,
		`+0.0050s <- {"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}`,
	}, "\n")
	for _, tc := range []struct{ failure, want string }{
		{"the agent sent a requestedSchema other than the typed-choice schema", "elicitation/create"},
		{"the agent sent a form that is not a well-formed typed choice", "elicitation/create"},
		{"the agent reported declined, want accepted", "session/update"},
		{"the agent's outcome does not match the outcome schema", "session/update"},
		{"the agent ended the probe's prompt turn with stopReason \"cancelled\", want \"end_turn\"", "result of session/prompt"},
		{"something no frame names, on a platform", "session/update"}, // the last that is not a result; "platform" is no "form"
	} {
		d := readDiagram(transcript, "agent", tc.failure, false)
		var got []string
		for _, s := range arrows(rowsOf(d)) {
			if label, ok := strings.CutSuffix(s, " [blame]"); ok {
				got = append(got, label)
			}
		}
		if len(got) != 1 || got[0] != tc.want {
			t.Errorf("%q marks %q, want %q", tc.failure, got, tc.want)
		}
	}
}

// TestThePromptsArrowShowsTheProbeRequest: the arrow of the harness's
// session/prompt carries the prompt's text, the probe request: what the
// check asked the agent to do.
func TestThePromptsArrowShowsTheProbeRequest(t *testing.T) {
	request := `{"acpconform":1,"askChoice":{"question":"Deploy where?","choices":[{"label":"staging"}]}}`
	prompt, _ := json.Marshal(map[string]any{"sessionId": "probe-1", "prompt": []map[string]string{{"type": "text", "text": request}}})
	transcript := `+0.0080s -> {"jsonrpc":"2.0","id":3,"method":"session/prompt","params":` + string(prompt) + `}` + "\n" +
		`+0.0091s <- {"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}`
	d := readDiagram(transcript, "agent", "the agent reported declined", false)
	rows := rowsOf(d)
	if len(rows) == 0 || rows[0].Arrow == nil || rows[0].Arrow.Label != "session/prompt" || rows[0].Arrow.Detail != request {
		t.Errorf("the prompt's arrow: %+v, want session/prompt with the probe request as its detail", rows[0].Arrow)
	}
}
