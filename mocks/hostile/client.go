//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/acpconform/acpconform/probe"
)

// The client modes speak ACP as a client in test mode (docs/probe.md §2):
// they initialize advertising form elicitation, open a session, send one
// prompt, answer each elicitation/create as its scripted-user instruction
// says, but in the words answer gives them, and exit 0 when the turn ends.

// clientCapitalised answers every elicitation/create as instructed, with
// the members capitalised as a Go client with untagged structs writes them:
// {"Action":"accept","Content":{"choice":"choice_1"}}, which no ACP SDK
// reads as an answer.
func clientCapitalised([]string) error {
	return playClient(func(a answer) any {
		out := map[string]any{"Action": a.Action}
		if a.Content != nil {
			out["Content"] = a.Content
		}
		return out
	})
}

// clientHiddenDeclineContent answers as instructed, but an instructed
// decline carries content, hidden from a kind reader: behind a null
// under a capitalised name ("capitalised", the default:
// {"action":"decline","content":{"name":"Ada"},"CONTENT":null}), which
// Go's encoding/json takes for the content, or behind a second "content"
// that is null ("duplicate"), which JavaScript and Python read last.
func clientHiddenDeclineContent(args []string) error {
	variant := "capitalised"
	if len(args) > 0 {
		variant = args[0]
	}
	hidden := map[string]string{
		"capitalised": `{"action":"decline","content":{"name":"Ada"},"CONTENT":null}`,
		"duplicate":   `{"action":"decline","content":{"name":"Ada"},"content":null}`,
	}[variant]
	if hidden == "" {
		return fmt.Errorf("client-hidden-decline-content: want capitalised or duplicate, not %q", variant)
	}
	return playClient(func(a answer) any {
		if a.Action == probe.ActionDecline {
			return json.RawMessage(hidden)
		}
		return a
	})
}

// answer is the answer an instruction asks for.
type answer struct {
	Action  string          `json:"action"`
	Content json.RawMessage `json:"content,omitempty"`
}

// playClient plays a client in test mode whose answers say writes: it
// is given the instructed answer and returns the result to send.
func playClient(say func(answer) any) error {
	p := newPeer()
	const initialize, sessionNew, prompt = 0, 1, 2
	err := p.send(map[string]any{"jsonrpc": "2.0", "id": initialize, "method": "initialize", "params": map[string]any{
		"protocolVersion": 1, "clientCapabilities": map[string]any{"elicitation": map[string]any{"form": map[string]any{}}},
		"clientInfo": map[string]string{"name": "hostile", "version": "1"},
	}})
	if err != nil {
		return err
	}
	waiting := map[string]json.RawMessage{} // the ids of requests whose user waits, by their JSON
	for {
		m, ok := p.read()
		if !ok {
			return fmt.Errorf("stdin ended before the prompt turn")
		}
		switch {
		case m.Method == "" && string(m.ID) == fmt.Sprint(initialize):
			err = p.send(map[string]any{"jsonrpc": "2.0", "id": sessionNew, "method": "session/new", "params": map[string]any{"cwd": "/", "mcpServers": []any{}}})
		case m.Method == "" && string(m.ID) == fmt.Sprint(sessionNew):
			var r struct {
				SessionID string `json:"sessionId"`
			}
			if err := json.Unmarshal(m.Result, &r); err != nil || r.SessionID == "" {
				return fmt.Errorf("session/new: no sessionId in %s", m.Result)
			}
			err = p.send(map[string]any{"jsonrpc": "2.0", "id": prompt, "method": "session/prompt", "params": map[string]any{
				"sessionId": r.SessionID, "prompt": []map[string]string{{"type": "text", "text": "go"}},
			}})
		case m.Method == "" && string(m.ID) == fmt.Sprint(prompt):
			os.Exit(0) // the turn ended: test mode exits 0
		case m.Method == "elicitation/create" && m.isRequest():
			a, wait, why := instructed(m.Params)
			switch {
			case why != "":
				err = p.send(response{JSONRPC: "2.0", ID: m.ID, Error: map[string]any{"code": -32602, "message": why}})
			case wait:
				waiting[string(m.ID)] = m.ID
			default:
				err = p.reply(m.ID, say(a))
			}
		case m.Method == "$/cancel_request":
			var c struct {
				RequestID json.RawMessage `json:"requestId"`
			}
			_ = json.Unmarshal(m.Params, &c)
			if id, ok := waiting[string(c.RequestID)]; ok {
				delete(waiting, string(c.RequestID))
				err = p.reply(id, say(answer{Action: probe.ActionCancel}))
			}
		case m.isRequest():
			err = p.send(response{JSONRPC: "2.0", ID: m.ID, Error: map[string]any{"code": -32601, "message": "Method not found"}})
		}
		if err != nil {
			return err
		}
	}
}

// instructed reads the scripted-user instruction of elicitation/create
// params: the answer it asks for, whether the user waits for a cancel,
// or why it cannot be followed.
func instructed(params json.RawMessage) (a answer, wait bool, why string) {
	var req struct {
		Mode            string `json:"mode"`
		RequestedSchema struct {
			Properties map[string]struct {
				Default json.RawMessage `json:"default"`
				OneOf   []struct {
					Const json.RawMessage `json:"const"`
				} `json:"oneOf"`
			} `json:"properties"`
		} `json:"requestedSchema"`
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if err := json.Unmarshal(params, &req); err != nil {
		return a, false, "unreadable params: " + err.Error()
	}
	var user probe.User
	if err := json.Unmarshal(req.Meta[probe.UserMetaKey], &user); err != nil {
		return a, false, "no scripted-user instruction"
	}
	a.Action = user.Action
	switch {
	case user.Action == probe.ActionWait:
		return a, true, ""
	case user.Action != probe.ActionAccept || req.Mode == "url":
		return a, false, ""
	case user.Content != nil:
		a.Content = user.Content
		return a, false, ""
	}
	choice := req.RequestedSchema.Properties["choice"]
	token := choice.Default
	if i, isIndex := user.Pick.(float64); isIndex {
		if i < 0 || int(i) >= len(choice.OneOf) || i != float64(int(i)) {
			return a, false, fmt.Sprintf("pick %v names no option", user.Pick)
		}
		token = choice.OneOf[int(i)].Const
	}
	if token == nil {
		return a, false, fmt.Sprintf("pick %v names no option", user.Pick)
	}
	a.Content = json.RawMessage(`{"choice":` + string(token) + `}`)
	return a, false, ""
}
