package kit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpconform/acpconform/probe"
)

// ScriptedAnswer is a client's test mode (docs/probe.md §2): it answers
// req as the scripted-user instruction in its _meta["acpconform/user"]
// says, for a client on the Go SDK to return from its
// UnstableCreateElicitation method:
//   - accept of a typed choice: {"choice": <the const of the picked option>},
//     the option at index pick of the choice's oneOf, or the schema's
//     default for pick "default";
//   - accept of any other form: the instruction's content, each value of
//     its JSON type (the SDK reads numbers as float64, which holds every
//     number the harness sends exactly, and CLI-5 compares them by value);
//   - accept of a URL: no content (the user consents; a client in test
//     mode opens nothing);
//   - decline, cancel: no content;
//   - wait: nothing until ctx ends, which the Go SDK does on the agent's
//     $/cancel_request, then cancel (ELI-7).
//
// ok is false when req carries no instruction: a person's to answer, so
// let your UI answer it. An instruction it cannot follow (docs/probe.md
// §2.2) fails with an *acp.RequestError -32602 (invalid params), for the
// method to return as it is. Refusing a mode the client did not advertise
// is [RefuseUnadvertised]'s job.
func ScriptedAnswer(ctx context.Context, req acp.UnstableCreateElicitationRequest) (resp acp.UnstableCreateElicitationResponse, ok bool, err error) {
	var meta map[string]any
	switch {
	case req.Form != nil:
		meta = req.Form.Meta
	case req.Url != nil:
		meta = req.Url.Meta
	default:
		return resp, true, invalidParams("the request is neither a form nor a URL elicitation")
	}
	user, ok, err := Instruction(meta)
	if !ok || err != nil {
		return resp, ok, err
	}
	if user.Action != probe.ActionAccept {
		if user.Pick != nil || user.Content != nil {
			return resp, true, invalidParams("only an accept has a pick or content")
		}
		resp, err = notAccepted(ctx, user.Action)
		return resp, true, err
	}
	var content map[string]any
	switch {
	case req.Url != nil:
		if user.Pick != nil || user.Content != nil {
			return resp, true, invalidParams("a URL elicitation's accept has no pick and no content")
		}
	case IsTypedChoice(req.Form.RequestedSchema):
		if user.Content != nil {
			return resp, true, invalidParams("the accept of a typed choice has a pick, and no content")
		}
		token, err := pick(req.Form.RequestedSchema, user.Pick)
		if err != nil {
			return resp, true, invalidParams(err.Error())
		}
		content = map[string]any{"choice": token}
	default:
		content, err = contentOf(user)
		if err != nil {
			return resp, true, invalidParams(err.Error())
		}
	}
	return acp.UnstableCreateElicitationResponse{Accept: &acp.UnstableCreateElicitationAccept{Action: "accept", Content: content}}, true, nil
}

// RefuseUnadvertised returns the -32602 error a client answers to a
// request of a mode it did not advertise in caps (CLI-4, ELI-6), or nil.
func RefuseUnadvertised(caps acp.ClientCapabilities, req acp.UnstableCreateElicitationRequest) error {
	e := caps.Elicitation
	switch {
	case req.Form != nil && (e == nil || e.Form == nil):
		return invalidParams("form elicitation was not advertised")
	case req.Url != nil && (e == nil || e.Url == nil):
		return invalidParams("url elicitation was not advertised")
	}
	return nil
}

// IsTypedChoice reports whether a form is a typed choice, ask_choice's
// form: its one property is "choice".
func IsTypedChoice(schema acp.UnstableElicitationSchema) bool {
	_, ok := schema.Properties["choice"]
	return ok && len(schema.Properties) == 1
}

// Instruction reads the scripted-user instruction from a request's _meta:
// ok when there is one, and an *acp.RequestError -32602 when it is no
// instruction object.
func Instruction(meta map[string]any) (user probe.User, ok bool, err error) {
	raw, ok := meta[probe.UserMetaKey]
	if !ok {
		return probe.User{}, false, nil
	}
	b, err := json.Marshal(raw)
	if err == nil {
		err = json.Unmarshal(b, &user)
	}
	if err != nil || user.Action == "" {
		return probe.User{}, true, invalidParams(fmt.Sprintf("%s is no scripted-user instruction: %s", probe.UserMetaKey, b))
	}
	return user, true, nil
}

// notAccepted answers as a scripted user who does not accept: decline,
// cancel, or wait until the agent cancels the request.
func notAccepted(ctx context.Context, action string) (acp.UnstableCreateElicitationResponse, error) {
	switch action {
	case probe.ActionDecline:
		return declineAnswer(), nil
	case probe.ActionCancel:
		return cancelAnswer(), nil
	case probe.ActionWait:
		// The Go SDK ends ctx on the agent's $/cancel_request.
		<-ctx.Done()
		return cancelAnswer(), nil
	}
	return acp.UnstableCreateElicitationResponse{}, invalidParams(fmt.Sprintf("unknown scripted action %q", action))
}

func declineAnswer() acp.UnstableCreateElicitationResponse {
	return acp.UnstableCreateElicitationResponse{Decline: &acp.UnstableCreateElicitationDecline{Action: "decline"}}
}

func cancelAnswer() acp.UnstableCreateElicitationResponse {
	return acp.UnstableCreateElicitationResponse{Cancel: &acp.UnstableCreateElicitationCancel{Action: "cancel"}}
}

// pick finds the const a pick names: an index into oneOf, or the default.
func pick(schema acp.UnstableElicitationSchema, p any) (string, error) {
	choice, _ := schema.Properties["choice"].(map[string]any)
	if p == probe.PickDefault {
		if d, ok := choice["default"].(string); ok {
			return d, nil
		}
		return "", fmt.Errorf("pick default: the form has no default")
	}
	i, ok := p.(float64)
	oneOf, _ := choice["oneOf"].([]any)
	if !ok || i < 0 || i != float64(int(i)) || int(i) >= len(oneOf) {
		return "", fmt.Errorf("pick %v names none of the %d options", p, len(oneOf))
	}
	opt, _ := oneOf[int(i)].(map[string]any)
	token, ok := opt["const"].(string)
	if !ok {
		return "", fmt.Errorf("option %d has no string const", int(i))
	}
	return token, nil
}

// contentOf is the content an accept of a form other than a typed choice
// answers with: the instruction's.
func contentOf(user probe.User) (map[string]any, error) {
	if user.Pick != nil || user.Content == nil {
		return nil, fmt.Errorf("the accept of a form that is no typed choice gives content, and no pick")
	}
	var content map[string]any
	dec := json.NewDecoder(bytes.NewReader(user.Content))
	dec.UseNumber()
	if err := dec.Decode(&content); err != nil || content == nil {
		return nil, fmt.Errorf("the scripted content is not a JSON object")
	}
	return content, nil
}

func invalidParams(reason string) *acp.RequestError {
	return acp.NewInvalidParams(map[string]any{"error": reason})
}
