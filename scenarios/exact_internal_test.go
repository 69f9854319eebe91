package scenarios

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/acpconform/acpconform/mocks/peer"
)

// TestSubjectMessagesReadByExactNames: the helpers that read what a
// subject sent (an agent's elicitation and cancel, what a relay passed on)
// read member names as ACP's SDKs do: a capitalised name is no member they
// know, and reads as absent.
func TestSubjectMessagesReadByExactNames(t *testing.T) {
	params := func(s string) relMsg { return relMsg{Params: json.RawMessage(s)} }
	for _, tc := range []struct {
		name      string
		got, want any
	}{
		{"sessionIn", sessionIn(json.RawMessage(`{"SessionId":"s1"}`)), ""},
		{"sessionIn, exact", sessionIn(json.RawMessage(`{"SessionId":"s0","sessionId":"s1"}`)), "s1"},
		{"requestIDOf", string(requestIDOf(peer.Message{Params: json.RawMessage(`{"RequestId":7}`)})), ""},
		{"requestIDOf, exact", string(requestIDOf(peer.Message{Params: json.RawMessage(`{"requestId":7}`)})), "7"},
		{"sessionOf", sessionOf(params(`{"SESSIONID":"s1"}`)), ""},
		{"messageOf", messageOf(params(`{"Message":"Question 1?"}`)), ""},
		{"chunkText", chunkText(params(`{"update":{"Content":{"text":"hi"}}}`)), ""},
		{"promptText", promptText(params(`{"Prompt":[{"text":"go"}]}`)), ""},
		{"cwdOf", cwdOf(params(`{"CWD":"/rel/a"}`)), ""},
		{"errorCode", fmtCode(errorCode(json.RawMessage(`{"Code":-32800,"message":"m"}`))), "none"},
		{"errorCode, exact", fmtCode(errorCode(json.RawMessage(`{"code":-32800,"message":"m"}`))), "-32800"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %q, want %q", tc.name, tc.got, tc.want)
		}
	}
	if err := capabilitiesRelayed(json.RawMessage(`{"ClientCapabilities":{"elicitation":{"form":{}}}}`), json.RawMessage(`{"elicitation":{"form":{}}}`)); err == nil {
		t.Error(`capabilitiesRelayed takes "ClientCapabilities" for "clientCapabilities"`)
	}
	if err := capabilitiesRelayed(json.RawMessage(`{"clientCapabilities":{"elicitation":{"form":{}}}}`), json.RawMessage(`{"elicitation":{"form":{}}}`)); err != nil {
		t.Errorf("capabilitiesRelayed refuses what was sent: %v", err)
	}
}

func fmtCode(code int, ok bool) string {
	if !ok {
		return "none"
	}
	return strconv.Itoa(code)
}
