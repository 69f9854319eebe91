// Command client is the Go kit's example client: an ACP client on the Go
// SDK whose test mode is kit.ScriptedAnswer. It advertises form and URL
// elicitation, opens a session, sends one prompt, answers every
// elicitation/create as its scripted user says (or, with no instruction,
// as a person closing the dialog), and exits 0 when the turn ends.
//
//	go build -o example-client ./kit/example/client
//	acpconform client -- ./example-client
package main

import (
	"context"
	"fmt"
	"os"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpconform/acpconform/kit"
)

var capabilities = acp.ClientCapabilities{Elicitation: &acp.ElicitationCapabilities{
	Form: &acp.ElicitationFormCapabilities{}, Url: &acp.ElicitationUrlCapabilities{}}}

// client is the part of an ACP client the probe uses; a real client has
// the rest of acp.Client too.
type client struct{ acp.Client }

// UnstableCreateElicitation is the test mode: the kit's answer, or your
// UI's when the request carries no instruction.
func (client) UnstableCreateElicitation(ctx context.Context, p acp.UnstableCreateElicitationRequest) (acp.UnstableCreateElicitationResponse, error) {
	if err := kit.RefuseUnadvertised(capabilities, p); err != nil {
		return acp.UnstableCreateElicitationResponse{}, err
	}
	if resp, ok, err := kit.ScriptedAnswer(ctx, p); ok || err != nil {
		return resp, err
	}
	return acp.UnstableCreateElicitationResponse{Cancel: &acp.UnstableCreateElicitationCancel{Action: "cancel"}}, nil // the UI's answer
}

// UnstableCompleteElicitation takes elicitation/complete: a client in test
// mode opened no URL.
func (client) UnstableCompleteElicitation(context.Context, acp.UnstableCompleteElicitationNotification) error {
	return nil
}

func (client) SessionUpdate(context.Context, acp.SessionNotification) error { return nil }

func main() {
	ctx := context.Background()
	conn := acp.NewClientSideConnection(client{}, os.Stdout, os.Stdin)
	_, err := conn.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber, ClientCapabilities: capabilities})
	var session acp.NewSessionResponse
	if err == nil {
		session, err = conn.NewSession(ctx, acp.NewSessionRequest{Cwd: "/", McpServers: []acp.McpServer{}})
	}
	if err == nil {
		_, err = conn.Prompt(ctx, acp.PromptRequest{SessionId: session.SessionId, Prompt: []acp.ContentBlock{acp.TextBlock("Ask me to choose.")}})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "example-client:", err)
		os.Exit(1)
	}
}
