package judge_test

import (
	"fmt"
	"strings"

	"github.com/acpconform/acpconform/judge"
	"github.com/acpconform/acpconform/trace"
)

// A recorded session whose agent sends a typed-choice form to a client
// that advertised no form elicitation fails CAP-2, quoting the frame.
func ExampleJudge() {
	tr, err := trace.Read(strings.NewReader(`{"acpconformTrace":1,"recorder":"acpconform record","command":["my-agent"],"began":"2026-12-05T00:00:00Z","secrets":[]}
{"t":0.01,"kind":"message","from":"client","frame":"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":1,\"clientCapabilities\":{}}}"}
{"t":0.02,"kind":"message","from":"client","frame":"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session/new\",\"params\":{\"cwd\":\"/\",\"mcpServers\":[]}}"}
{"t":0.03,"kind":"message","from":"agent","frame":"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"sessionId\":\"s\"}}"}
{"t":0.04,"kind":"message","from":"agent","frame":"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"elicitation/create\",\"params\":{\"sessionId\":\"s\",\"mode\":\"form\",\"message\":\"Deploy?\",\"requestedSchema\":{\"type\":\"object\",\"required\":[\"choice\"],\"properties\":{\"choice\":{\"type\":\"string\",\"title\":\"Choice\",\"oneOf\":[{\"const\":\"choice_0\",\"title\":\"Yes\"}]}}}}}"}
`))
	if err != nil {
		panic(err)
	}
	for _, r := range judge.Judge(judge.Options{Role: "agent"}, judge.FromTrace("session.jsonl", tr)) {
		if r.State == judge.Failed {
			fmt.Println(r.ID, r.State)
			fmt.Println(r.Why[0][:120])
		}
	}
	// Output:
	// CAP-2/trace-form-only-when-advertised failed
	// session.jsonl:5: the agent sent a typed-choice form on a connection whose initialize advertised clientCapabilities {}, w
}
