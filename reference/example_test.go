package reference_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpconform/acpconform/reference"
)

// deployAgent is a minimal ACP agent whose prompt turn asks the client to
// choose a deployment target.
type deployAgent struct {
	acp.Agent // the methods this example never calls
	conn      *reference.AgentConnection
}

type deployTarget int

const (
	targetPreview deployTarget = iota
	targetProduction
)

func (a *deployAgent) Initialize(context.Context, acp.InitializeRequest) (acp.InitializeResponse, error) {
	return acp.InitializeResponse{ProtocolVersion: acp.ProtocolVersionNumber}, nil
}

func (a *deployAgent) NewSession(context.Context, acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	return acp.NewSessionResponse{SessionId: "sess-1"}, nil
}

func (a *deployAgent) Prompt(ctx context.Context, p acp.PromptRequest) (acp.PromptResponse, error) {
	res, err := reference.AskChoice(ctx, a.conn.Session(p.SessionId),
		"Choose a deployment target",
		[]reference.Choice[deployTarget]{
			{Value: targetPreview, Label: "Preview"},
			{Value: targetProduction, Label: "Production",
				Description: "Deploy to the production environment.", Default: true},
		})
	var reply string
	switch {
	case err != nil:
		reply = "Could not ask: " + err.Error()
	case res.Status() == reference.StatusAccepted:
		reply = fmt.Sprintf("Selected target %d", res.Value())
	case res.Status() == reference.StatusDeclined:
		reply = "The user declined to choose."
	case res.Status() == reference.StatusCancelled:
		reply = "The choice was cancelled."
	}
	err = a.conn.SessionUpdate(ctx, acp.SessionNotification{SessionId: p.SessionId, Update: acp.UpdateAgentMessageText(reply)})
	return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, err
}

// pickDefaultClient is an ACP client that answers every form with its
// default and prints what the agent says.
type pickDefaultClient struct {
	acp.Client // the methods this example never calls
}

func (pickDefaultClient) UnstableCreateElicitation(_ context.Context, p acp.UnstableCreateElicitationRequest) (acp.UnstableCreateElicitationResponse, error) {
	choice := p.Form.RequestedSchema.Properties["choice"].(map[string]any)
	fmt.Println("Client was asked:", p.Form.Message)
	return acp.UnstableCreateElicitationResponse{Accept: &acp.UnstableCreateElicitationAccept{
		Action: "accept", Content: map[string]any{"choice": choice["default"]},
	}}, nil
}

func (pickDefaultClient) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	if n.Update.AgentMessageChunk != nil {
		fmt.Println("Agent said:", n.Update.AgentMessageChunk.Content.Text.Text)
	}
	return nil
}

// An agent asks its client for a typed choice during a prompt turn.
func Example_agent() {
	clientToAgent, agentIn := io.Pipe()
	agentToClient, clientIn := io.Pipe()
	agent := &deployAgent{}
	agent.conn = reference.NewUnstartedAgentConnection(agent, clientIn, clientToAgent)
	agent.conn.Start() // after the agent has its connection
	client := acp.NewClientSideConnection(pickDefaultClient{}, agentIn, agentToClient)

	ctx := context.Background()
	if _, err := client.Initialize(ctx, acp.InitializeRequest{
		ProtocolVersion:    acp.ProtocolVersionNumber,
		ClientCapabilities: acp.ClientCapabilities{Elicitation: &acp.ElicitationCapabilities{Form: &acp.ElicitationFormCapabilities{}}},
	}); err != nil {
		panic(err)
	}
	sess, err := client.NewSession(ctx, acp.NewSessionRequest{Cwd: "/", McpServers: []acp.McpServer{}})
	if err != nil {
		panic(err)
	}
	if _, err := client.Prompt(ctx, acp.PromptRequest{SessionId: sess.SessionId, Prompt: []acp.ContentBlock{acp.TextBlock("deploy")}}); err != nil {
		panic(err)
	}
	// Output:
	// Client was asked: Choose a deployment target
	// Agent said: Selected target 1
}

// Without form elicitation, a fallback decides; here it declines.
func ExampleWithFallback() {
	s := &reference.Session{ID: "sess-1"} // a client that advertised nothing
	res, err := reference.AskChoice(context.Background(), s, "Continue?",
		[]reference.Choice[bool]{{Value: true, Label: "Continue"}},
		reference.WithFallback(func(context.Context) (reference.Result[bool], error) {
			return reference.Decline[bool](), nil
		}))
	fmt.Println(res.Status(), err)
	// Output: declined <nil>
}

// Without form elicitation and without a fallback, AskChoice says so and
// sends nothing.
func ExampleAskChoice_unsupported() {
	s := &reference.Session{ID: "sess-1"}
	_, err := reference.AskChoice(context.Background(), s, "Continue?",
		[]reference.Choice[bool]{{Value: true, Label: "Continue"}})
	fmt.Println(errors.Is(err, reference.ErrElicitationUnsupported))
	// Output: true
}

// Compile shows the form AskChoice sends: tokens, not values.
func ExampleCompile() {
	req, _ := reference.Compile("Pick a number", []reference.Choice[float64]{
		{Value: 3.14, Label: "Pi"},
		{Value: 2.72, Label: "e", Default: true},
	})
	b, _ := json.Marshal(req.RequestedSchema)
	fmt.Println(string(b))
	// Output: {"type":"object","properties":{"choice":{"type":"string","title":"Choice","oneOf":[{"const":"choice_0","title":"Pi"},{"const":"choice_1","title":"e"}],"default":"choice_1"}},"required":["choice"]}
}

// ContentProblems judges an accepted form's content as CreateElicitation
// does before it hands an answer back (CONTRACT ELI-3).
func ExampleContentProblems() {
	schema := json.RawMessage(`{"type":"object","required":["name","age"],"properties":{
		"name":{"type":"string","minLength":1},
		"age":{"type":"integer","minimum":0,"maximum":150},
		"plan":{"type":"string","enum":["free","pro"]}}}`)
	fmt.Println(reference.ContentProblems(schema, json.RawMessage(`{"name":"Ada","age":36,"plan":"pro"}`)))
	for _, p := range reference.ContentProblems(schema, json.RawMessage(`{"age":"36","plan":"gold"}`)) {
		fmt.Println(p)
	}
	// Output:
	// []
	// "age" is "36", want an integer
	// "plan" is "gold", none of the offered ["free" "pro"]
	// the required property "name" is missing
}
