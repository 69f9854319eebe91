package kit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpconform/acpconform/kit"
)

// printingClient is an ACP client that prints the agent's messages.
type printingClient struct {
	acp.Client // methods a probe never calls
}

func (printingClient) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	if chunk := n.Update.AgentMessageChunk; chunk != nil && chunk.Content.Text != nil {
		fmt.Println(chunk.Content.Text.Text)
	}
	return nil
}

// An agent served on pipes, its ask_choice a stub that only knows the
// fallback, driven by an ACP client that advertises no elicitation.
func ExampleAgent_Start() {
	agent := kit.Agent{AskChoice: func(c *kit.Call) (any, error) {
		if c.Session.SupportsElicitation("form") || c.Fallback == nil {
			return nil, fmt.Errorf("this stub asks nobody")
		}
		return c.Fallback(c.Context())
	}}
	agentIn, toAgent := io.Pipe()
	fromAgent, agentOut := io.Pipe()
	agent.Start(agentOut, agentIn)
	defer toAgent.Close()

	ctx := context.Background()
	client := acp.NewClientSideConnection(printingClient{}, toAgent, fromAgent)
	if _, err := client.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber}); err != nil {
		fmt.Println(err)
		return
	}
	session, err := client.NewSession(ctx, acp.NewSessionRequest{Cwd: "/", McpServers: []acp.McpServer{}})
	if err != nil {
		fmt.Println(err)
		return
	}
	probe := `{"acpconform":1,"op":"ask_choice","question":"Deploy?","choices":[{"value":true,"label":"Yes"}],"fallback":{"kind":"declined"}}`
	resp, err := client.Prompt(ctx, acp.PromptRequest{SessionId: session.SessionId, Prompt: []acp.ContentBlock{acp.TextBlock(probe)}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.StopReason)
	// Output:
	// {"acpconform":1,"outcome":"declined"}
	// end_turn
}

// Fallback hands a call's fallback to an ask_choice whose fallbacks
// return its own result type.
func ExampleFallback() {
	type result struct {
		Status string
		Value  any
	}
	accept := func(v any) result { return result{"accepted", v} }
	decline := func() result { return result{Status: "declined"} }
	cancel := func() result { return result{Status: "cancelled"} }

	c := &kit.Call{Fallback: func(context.Context) (kit.Result, error) { return kit.Accepted("preview"), nil }}
	fallback := kit.Fallback(c, accept, decline, cancel)
	res, err := fallback(context.Background())
	fmt.Printf("%+v %v\n", res, err)
	// Output: {Status:accepted Value:preview} <nil>
}

// Each offered value is a pointer of its own, and JSON null is nil, so
// the value an ask_choice returns tells which choice it is.
func ExampleNewValue() {
	one, again := kit.NewValue(json.RawMessage(`1`)), kit.NewValue(json.RawMessage(`1`))
	fmt.Println(kit.NewValue(json.RawMessage(`null`)) == nil, one == again, one)
	// Output: true false 1
}

// MapChoices builds your ask_choice's choices from a call's.
func ExampleMapChoices() {
	type choice struct {
		Value any
		Label string
	}
	offered := []kit.Choice{{Value: kit.NewValue(json.RawMessage(`"preview"`)), Label: "Preview"}, {Value: nil, Label: "Nothing"}}
	choices := kit.MapChoices(offered, func(c kit.Choice) choice { return choice{c.Value, c.Label} })
	fmt.Println(choices[0].Label, choices[0].Value, choices[1].Value == nil)
	// Output: Preview "preview" true
}

// A client's test mode: answer as the scripted user says, or let the UI.
func ExampleScriptedAnswer() {
	var req acp.UnstableCreateElicitationRequest
	_ = json.Unmarshal([]byte(`{"sessionId":"s1","mode":"form","message":"Choose a deployment target",
		"requestedSchema":{"type":"object","required":["choice"],"properties":{"choice":{"type":"string","title":"Choice",
			"oneOf":[{"const":"choice_0","title":"Preview"},{"const":"choice_1","title":"Production"}]}}},
		"_meta":{"acpconform/user":{"action":"accept","pick":1}}}`), &req)

	resp, ok, err := kit.ScriptedAnswer(context.Background(), req)
	if !ok {
		return // no instruction: ask the person
	}
	b, _ := json.Marshal(resp)
	fmt.Println(string(b), err)
	// Output: {"action":"accept","content":{"choice":"choice_1"}} <nil>
}

// fakeClient answers every request with a decline, printing it.
type fakeClient struct{}

func (fakeClient) Request(_ context.Context, method string, params any) (json.RawMessage, error) {
	b, err := json.Marshal(params)
	fmt.Println(method, string(b), err)
	return json.RawMessage(`{"action":"decline"}`), nil
}

// A session for a test of your ask_choice, with a fake client: the
// session scopes each elicitation to itself.
func ExampleNewSession() {
	caps := acp.ClientCapabilities{Elicitation: &acp.ElicitationCapabilities{Form: &acp.ElicitationFormCapabilities{}}}
	s := kit.NewSession("s1", caps, fakeClient{})
	fmt.Println(s.SupportsElicitation("form"), s.SupportsElicitation("url"))
	raw, err := s.SendElicitation(context.Background(), map[string]any{"mode": "form", "message": "Choose",
		"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{}}})
	fmt.Println(string(raw), err)
	// Output:
	// true false
	// elicitation/create {"message":"Choose","mode":"form","requestedSchema":{"properties":{},"type":"object"},"sessionId":"s1"} <nil>
	// {"action":"decline"} <nil>
}
