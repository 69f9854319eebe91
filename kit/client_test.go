package kit_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpconform/acpconform/internal/testbound"
	"github.com/acpconform/acpconform/kit"
)

// request decodes elicitation/create params as the Go SDK hands them to a
// client.
func request(t *testing.T, params string) acp.UnstableCreateElicitationRequest {
	t.Helper()
	var req acp.UnstableCreateElicitationRequest
	if err := json.Unmarshal([]byte(params), &req); err != nil {
		t.Fatalf("%s: %v", params, err)
	}
	return req
}

const typedChoice = `{"sessionId":"s1","mode":"form","message":"Choose","requestedSchema":{"type":"object","required":["choice"],
	"properties":{"choice":{"type":"string","title":"Choice","default":"choice_1","oneOf":[
	{"const":"choice_0","title":"A"},{"const":"choice_1","title":"B","_meta":{"acpkit.dev/choice-description":"b"}}]}}},
	"_meta":{"other/key":1,"acpconform/user":`

const otherForm = `{"sessionId":"s1","mode":"form","message":"About you","requestedSchema":{"type":"object",
	"properties":{"name":{"type":"string"},"age":{"type":"integer"}}},"_meta":{"acpconform/user":`

const urlRequest = `{"sessionId":"s1","mode":"url","message":"Log in","url":"https://x.example","elicitationId":"e1","_meta":{"acpconform/user":`

func TestScriptedAnswerAnswersAsTheInstructionSays(t *testing.T) {
	for _, tc := range []struct {
		name, params, want string
	}{
		{"a pick by index", typedChoice + `{"action":"accept","pick":0}}}`, `{"action":"accept","content":{"choice":"choice_0"}}`},
		{"the default", typedChoice + `{"action":"accept","pick":"default"}}}`, `{"action":"accept","content":{"choice":"choice_1"}}`},
		{"content for another form", otherForm + `{"action":"accept","content":{"name":"Ada","age":36.0,"langs":["go"]}}}}`, `{"action":"accept","content":{"age":36,"langs":["go"],"name":"Ada"}}`},
		{"a URL accepted", urlRequest + `{"action":"accept"}}}`, `{"action":"accept"}`},
		{"a decline", typedChoice + `{"action":"decline"}}}`, `{"action":"decline"}`},
		{"a cancel", urlRequest + `{"action":"cancel","note":"unknown members are ignored"}}}`, `{"action":"cancel"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, ok, err := kit.ScriptedAnswer(testbound.Context(t), request(t, tc.params))
			if !ok || err != nil {
				t.Fatalf("ok %v, error %v", ok, err)
			}
			got, err := json.Marshal(resp)
			if err != nil || string(got) != tc.want {
				t.Errorf("answered %s (%v), want %s", got, err, tc.want)
			}
		})
	}
}

func TestScriptedAnswerRefusesWhatItCannotFollow(t *testing.T) {
	for _, tc := range []struct {
		name, params string
	}{
		{"a pick out of range", typedChoice + `{"action":"accept","pick":2}}}`},
		{"a pick of no integer", typedChoice + `{"action":"accept","pick":0.5}}}`},
		{"an unknown action", typedChoice + `{"action":"maybe"}}}`},
		{"a pick with a decline", typedChoice + `{"action":"decline","pick":0}}}`},
		{"content for a typed choice", typedChoice + `{"action":"accept","content":{"choice":"choice_0"}}}}`},
		{"a pick for another form", otherForm + `{"action":"accept","pick":0}}}`},
		{"content for a URL", urlRequest + `{"action":"accept","content":{}}}}`},
		{"no instruction object", typedChoice + `"accept"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, ok, err := kit.ScriptedAnswer(testbound.Context(t), request(t, tc.params))
			var re *acp.RequestError
			if !ok || !errors.As(err, &re) || re.Code != -32602 {
				t.Errorf("ok %v, error %v: want -32602", ok, err)
			}
		})
	}
}

func TestScriptedAnswerLeavesARequestWithoutInstructionToTheUI(t *testing.T) {
	_, ok, err := kit.ScriptedAnswer(testbound.Context(t), request(t, `{"sessionId":"s1","mode":"url","message":"m","url":"https://x","elicitationId":"e"}`))
	if ok || err != nil {
		t.Errorf("ok %v, error %v: want no instruction", ok, err)
	}
}

func TestScriptedAnswerWaitsUntilTheRequestIsCancelled(t *testing.T) {
	bound := testbound.Context(t)
	ctx, cancel := context.WithCancel(bound)
	req := request(t, otherForm+`{"action":"wait"}}}`)
	answered := make(chan string, 1)
	go func() {
		resp, _, _ := kit.ScriptedAnswer(ctx, req)
		b, _ := json.Marshal(resp)
		answered <- string(b)
	}()
	cancel() // as the SDK does on the agent's $/cancel_request
	select {
	case got := <-answered:
		if got != `{"action":"cancel"}` {
			t.Errorf("answered %s, want a cancel", got)
		}
	case <-bound.Done():
		t.Fatal(testbound.Err(bound, errors.New("no answer once the request was cancelled")))
	}
}

func TestRefuseUnadvertised(t *testing.T) {
	form := acp.ClientCapabilities{Elicitation: &acp.ElicitationCapabilities{Form: &acp.ElicitationFormCapabilities{}}}
	if err := kit.RefuseUnadvertised(form, request(t, typedChoice+`{"action":"decline"}}}`)); err != nil {
		t.Errorf("an advertised form refused: %v", err)
	}
	var re *acp.RequestError
	if err := kit.RefuseUnadvertised(form, request(t, urlRequest+`{"action":"decline"}}}`)); !errors.As(err, &re) || re.Code != -32602 {
		t.Errorf("an unadvertised URL: %v, want -32602", err)
	}
	if err := kit.RefuseUnadvertised(acp.ClientCapabilities{}, request(t, typedChoice+`{"action":"decline"}}}`)); !errors.As(err, &re) || re.Code != -32602 {
		t.Errorf("an unadvertised form: %v, want -32602", err)
	}
}
