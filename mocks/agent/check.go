package agent

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/acpconform/acpconform/mocks/peer"
	"github.com/acpconform/acpconform/mocks/script"
	"github.com/acpconform/acpconform/probe"
)

// Check returns what is wrong with a client's answer to the elicitation/create
// whose params were sent (CONTRACT CLI-1, CLI-2): -32601 from a client that
// advertised form elicitation; an action other than accept, decline or
// cancel; an accept whose content.choice is not one of the request's own
// consts; content on a decline or cancel. Other JSON-RPC errors are not
// wrong in themselves.
func Check(params json.RawMessage, answer peer.Message, formAdvertised bool) []string {
	if answer.Error != nil {
		if answer.Error.Code == -32601 && formAdvertised {
			return []string{fmt.Sprintf("CLI-1: the client advertised form elicitation but answered -32601 (%s): its elicitation/create route is not registered", answer.Error.Message)}
		}
		return nil
	}
	var result struct {
		Action  *string         `json:"action"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(answer.Result, &result); err != nil || result.Action == nil {
		return []string{fmt.Sprintf("CLI-2: the answer %s has no action", answer.Result)}
	}
	switch *result.Action {
	case "accept":
		form, err := script.ReadForm(params)
		if err != nil || len(form.Options) == 0 {
			return nil // a raw request that is no typed choice: nothing to check the content against
		}
		var content struct {
			Choice *string `json:"choice"`
		}
		if json.Unmarshal(result.Content, &content) != nil || content.Choice == nil {
			return []string{fmt.Sprintf("CLI-2: the accept's content %s has no string choice", orAbsent(result.Content))}
		}
		if !slices.Contains(form.Tokens(), *content.Choice) {
			return []string{fmt.Sprintf("CLI-2: the accepted choice %q is none of the offered consts %q", *content.Choice, form.Tokens())}
		}
	case "decline", "cancel":
		if result.Content != nil {
			return []string{fmt.Sprintf("CLI-2: a %s carries content %s", *result.Action, result.Content)}
		}
	default:
		return []string{fmt.Sprintf("CLI-2: unknown action %q", *result.Action)}
	}
	return nil
}

// expectAnswer says how an answer differs from what the step expects of
// it. A step that expects the scripted user's instruction to be followed
// wants its action and, for accept, the const of the picked option; an
// instruction that cannot be followed (an unknown action, a pick that names
// no option) is to be refused with -32602 (PROBE.md §2).
func expectAnswer(e *script.AnswerExpect, user *probe.User, params json.RawMessage, answer peer.Message) []string {
	want := *e
	refusal := "" // why the instruction must be refused
	if e.User && user != nil {
		want.Action = user.Action
		switch user.Action {
		case "accept":
			if want.Choice = pickedToken(params, user.Pick); want.Choice == "" {
				refusal = fmt.Sprintf("the scripted-user pick %s names no offered option", showChoice(user.Pick))
			}
		case "decline", "cancel":
		default:
			refusal = fmt.Sprintf("the scripted-user action %q is unknown", user.Action)
		}
		if refusal != "" {
			want.Error = -32602
		}
	}
	if want.Error != 0 {
		if answer.Error == nil || answer.Error.Code != want.Error {
			if refusal != "" {
				return []string{fmt.Sprintf("%s, so the answer must be JSON-RPC error -32602; it is %s", refusal, describe(answer))}
			}
			return []string{fmt.Sprintf("the answer is %s, want JSON-RPC error %d", describe(answer), want.Error)}
		}
		return nil
	}
	var result struct {
		Action  string `json:"action"`
		Content struct {
			Choice any `json:"choice"`
		} `json:"content"`
	}
	if answer.Error != nil || json.Unmarshal(answer.Result, &result) != nil {
		return []string{fmt.Sprintf("the answer is %s, want action %q", describe(answer), want.Action)}
	}
	var problems []string
	if want.Action != "" && result.Action != want.Action {
		problems = append(problems, fmt.Sprintf("the action is %q, want %q", result.Action, want.Action))
	}
	if want.Choice != "" && result.Content.Choice != want.Choice {
		problems = append(problems, fmt.Sprintf("the choice is %s, want %q", showChoice(result.Content.Choice), want.Choice))
	}
	return problems
}

// pickedToken is the const a scripted-user pick names.
func pickedToken(params json.RawMessage, pick any) string {
	form, err := script.ReadForm(params)
	if err != nil {
		return ""
	}
	if pick == probe.PickDefault {
		var s string
		_ = json.Unmarshal(form.Default, &s)
		return s
	}
	if i, ok := toIndex(pick); ok && i < len(form.Options) {
		return form.Options[i].Token()
	}
	return ""
}

func toIndex(v any) (int, bool) {
	switch n := v.(type) {
	case int:
		return n, n >= 0
	case float64:
		return int(n), n >= 0 && n == float64(int(n))
	}
	return 0, false
}

// showChoice writes an answer's content.choice: a string quoted, absent
// as absent, any other value as JSON.
func showChoice(v any) string {
	switch v := v.(type) {
	case nil:
		return "absent or null"
	case string:
		return strconv.Quote(v)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func describe(m peer.Message) string {
	if m.Error != nil {
		return m.Error.Error()
	}
	return string(m.Result)
}

func orAbsent(raw json.RawMessage) string {
	if raw == nil {
		return "(absent)"
	}
	return string(raw)
}
