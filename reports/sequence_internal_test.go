package reports

import (
	"fmt"
	"strings"
	"testing"
)

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
	d := readDiagram(transcript, "agent", "the agent sent -32602")
	var got []string
	for _, r := range d.Rows {
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
	d := readDiagram(transcript, "relay", "the $/cancel_request the client received")
	var got []string
	for _, r := range d.Rows {
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
	d := readDiagram(b.String(), "agent", "")
	if len(d.Rows) != maxSeqRows || d.Omitted != 50 || d.Rows[0].Arrow.ID != "50" {
		t.Errorf("%d rows, %d omitted, first id %s; want %d, 50, 50", len(d.Rows), d.Omitted, d.Rows[0].Arrow.ID, maxSeqRows)
	}
}
