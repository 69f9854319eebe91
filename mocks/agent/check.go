package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/acpconform/acpconform/internal/exactjson"
	"github.com/acpconform/acpconform/mocks/peer"
	"github.com/acpconform/acpconform/mocks/script"
	"github.com/acpconform/acpconform/probe"
	"github.com/acpconform/acpconform/reference"
)

// Asked is an elicitation/create as the agent sent it, with what its answer
// is judged against.
type Asked struct {
	Params    json.RawMessage // as sent
	Caps      json.RawMessage // the clientCapabilities of initialize
	Cancelled bool            // the agent cancelled it with $/cancel_request
}

// Kind is what an elicitation/create asks: "choice" for a typed choice,
// "form" for a form of another shape, "url" for a URL elicitation, or ""
// for something else (a raw request).
func (a Asked) Kind() string {
	var p struct {
		Mode            string `json:"mode"`
		RequestedSchema struct {
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"requestedSchema"`
	}
	if json.Unmarshal(a.Params, &p) != nil {
		return ""
	}
	switch p.Mode {
	case "url":
		return "url"
	case "form":
		if form, err := script.ReadForm(a.Params); err == nil && len(form.Options) > 0 && len(p.RequestedSchema.Properties) == 1 {
			return "choice"
		}
		if p.RequestedSchema.Properties != nil {
			return "form"
		}
	}
	return ""
}

// Check returns what is wrong with a client's answer to an elicitation/create
// as any ACP client's, each problem led by its rule. The answer is read as
// ACP's SDKs read it: member names exact ("Action" is no "action"). For a
// typed choice (CONTRACT CLI-1, CLI-2): -32601 from a client that
// advertised form elicitation; an action other than accept, decline or
// cancel; an accept whose content.choice is not one of the request's own
// consts. For a form of another shape (ELI-4) or a URL elicitation (ELI-5)
// of a mode the client advertised: any JSON-RPC error (but -32800 for a
// request the agent cancelled, ELI-7), an unknown action, and for a form an
// accept whose content is no elicitation content. Content on a decline or
// cancel, and accepted content that does not satisfy the requested schema,
// are ELI-8's: a SHOULD, reported apart. Other errors are not wrong in
// themselves.
//
// An answer that names a member twice has no single meaning (RFC 8259 §4):
// it is judged on each reading (the first of each duplicate, then the last;
// see exactjson.OnEveryReading), and the duplicate itself is ELI-8's advice.
func Check(asked Asked, answer peer.Message) []string {
	kind := asked.Kind()
	rule, mode := "CLI-2", "form"
	switch kind {
	case "form":
		rule = "ELI-4"
	case "url":
		rule, mode = "ELI-5", "url"
	}
	advertised := script.Advertises(asked.Caps, mode)
	if answer.Error != nil {
		switch {
		case answer.Error.Code == -32601 && advertised:
			unregistered := rule // ELI-4 or ELI-5; for ask_choice's form, CLI-1
			if kind == "choice" {
				unregistered = "CLI-1"
			}
			return []string{fmt.Sprintf("%s: the client advertised %s elicitation but answered -32601 (%s): its elicitation/create route is not registered", unregistered, mode, answer.Error.Message)}
		case kind == "choice" || kind == "" || !advertised:
			return nil
		case asked.Cancelled && answer.Error.Code == -32800:
			return nil
		}
		return []string{fmt.Sprintf("%s: the client advertised %s elicitation but refused a request the schema allows with %s", rule, mode, answer.Error.Error())}
	}
	problems := exactjson.OnEveryReading(answer.Result, func(result []byte) []string { return checkResult(asked, kind, rule, result) })
	if _, dups := exactjson.Readings(answer.Result); len(dups) > 0 {
		problems = append(problems, fmt.Sprintf("ELI-8: the answer names %s twice, so it has no single meaning (RFC 8259 §4: names SHOULD be unique; JavaScript and Python read the last, serde refuses it): it was judged on each reading", exactjson.Say(dups)))
	}
	return problems
}

// checkResult is Check of one reading of a result: a text in which no
// object names a member twice.
func checkResult(asked Asked, kind, rule string, raw json.RawMessage) []string {
	result, problem := ReadAnswer(raw)
	if problem != "" {
		return []string{fmt.Sprintf("%s: %s", rule, problem)}
	}
	switch result.Action {
	case "accept":
		switch kind {
		case "choice":
			form, _ := script.ReadForm(asked.Params)
			choice, ok := stringMember(result.Content, "choice")
			if !ok {
				return []string{fmt.Sprintf("CLI-2: the accept's content %s has no string choice%s", orAbsent(result.Content), result.near("content", "choice"))}
			}
			if !slices.Contains(form.Tokens(), choice) {
				return []string{fmt.Sprintf("CLI-2: the accepted choice %q is none of the offered consts %q", choice, form.Tokens())}
			}
		case "form":
			if problems := reference.ContentShapeProblems(result.Content); len(problems) > 0 {
				return []string{fmt.Sprintf("ELI-4: the accepted content %s is not elicitation content: %s", orAbsent(result.Content), strings.Join(problems, "; "))}
			}
			var p struct {
				RequestedSchema json.RawMessage `json:"requestedSchema"`
			}
			_ = json.Unmarshal(asked.Params, &p)
			if problems := reference.ContentProblems(p.RequestedSchema, result.Content); len(problems) > 0 {
				return []string{fmt.Sprintf("ELI-8: the accepted content %s does not satisfy the requested schema: %s%s", orAbsent(result.Content), strings.Join(problems, "; "), result.near("content"))}
			}
		}
	case "decline", "cancel":
		if result.Content != nil && (kind == "choice" || !isNull(result.Content)) {
			return []string{fmt.Sprintf("ELI-8: a %s carries content %s, which the agent ignores", result.Action, result.Content)}
		}
	default:
		return []string{fmt.Sprintf("%s: unknown action %q", rule, result.Action)}
	}
	return nil
}

// Reply is an elicitation/create result as ACP's SDKs read it.
type Reply struct {
	Action  string
	Content json.RawMessage // nil when absent

	members map[string]json.RawMessage // the result's, by exact name
}

// ReadAnswer reads a result with member names matched exactly, as ACP's
// SDKs match them (Go's encoding/json would take "Action" for "action"),
// and says what makes it no answer: not an object, no string "action".
// A result that names a member twice is read by its last, as JavaScript
// reads it, when every reading has the same action; when the readings'
// actions differ, it is no answer. (Check judges every reading.)
func ReadAnswer(result json.RawMessage) (Reply, string) {
	readings, dups := exactjson.Readings(result)
	var r Reply
	for i, reading := range readings {
		one, problem := readAnswer(reading)
		switch {
		case problem != "" && len(readings) > 1:
			return Reply{}, fmt.Sprintf("the answer %s names %s twice, and one reading of it is no answer: %s", result, exactjson.Say(dups), problem)
		case problem != "":
			return Reply{}, problem
		case i > 0 && one.Action != r.Action:
			return Reply{}, fmt.Sprintf("the answer %s names %s twice, and its readings differ: action %q, or %q", result, exactjson.Say(dups), r.Action, one.Action)
		}
		r = one
	}
	return r, ""
}

// readAnswer is ReadAnswer of a text in which no object names a member
// twice.
func readAnswer(result json.RawMessage) (Reply, string) {
	var members map[string]json.RawMessage
	if json.Unmarshal(result, &members) != nil || members == nil {
		return Reply{}, fmt.Sprintf("the answer %s is not a JSON object", result)
	}
	action, ok := members["action"]
	if !ok {
		return Reply{}, fmt.Sprintf("the answer %s has no member \"action\"%s", result, lookalikes(members, "action"))
	}
	a := Reply{members: members}
	if json.Unmarshal(action, &a.Action) != nil || isNull(action) {
		return Reply{}, fmt.Sprintf("the answer's action is %s, not a string", action)
	}
	a.Content = members["content"]
	return a, ""
}

// near names the members of the result, and of its content, that differ
// from the members named only by case: " (member names are exact: it has
// \"Content\")", or "" when there are none. A client that writes
// "Content" has sent no content.
func (r Reply) near(content string, inContent ...string) string {
	if r.Content == nil {
		return lookalikes(r.members, content)
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(r.Content, &members) != nil {
		return ""
	}
	for _, name := range inContent {
		if _, ok := members[name]; !ok {
			return lookalikes(members, name)
		}
	}
	return ""
}

// stringMember reads the string member name of a JSON object, by its exact
// name; ok is false when raw is no object or the member is absent or no
// string.
func stringMember(raw json.RawMessage, name string) (string, bool) {
	var members map[string]json.RawMessage
	if json.Unmarshal(raw, &members) != nil {
		return "", false
	}
	var s string
	v, ok := members[name]
	return s, ok && json.Unmarshal(v, &s) == nil && !isNull(v)
}

// lookalikes names the members that differ from name only by case:
// " (member names are exact: it has \"Action\")".
func lookalikes(members map[string]json.RawMessage, name string) string {
	var near []string
	for _, k := range slices.Sorted(maps.Keys(members)) {
		if strings.EqualFold(k, name) {
			near = append(near, strconv.Quote(k))
		}
	}
	if near == nil {
		return ""
	}
	return fmt.Sprintf(" (member names are exact: it has %s)", strings.Join(near, ", "))
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// expectAnswer says how an answer differs from what the step expects of
// it. A step that expects the scripted user's instruction to be followed
// wants its action and, for accept, the const of the picked option; an
// instruction that cannot be followed (an unknown action, a pick that names
// no option) is to be refused with -32602 (PROBE.md §2).
func expectAnswer(e *script.AnswerExpect, user *probe.User, asked Asked, answer peer.Message) []string {
	want := *e
	refusal := ""      // why the instruction must be refused
	var content []byte // the content the instruction gives
	waited := false    // the user waits for the request's cancel
	if e.User && user != nil {
		want.Action = user.Action
		switch kind := asked.Kind(); {
		case user.Action == "accept" && kind == "choice":
			if want.Choice = pickedToken(asked.Params, user.Pick); want.Choice == "" {
				refusal = fmt.Sprintf("the scripted-user pick %s names no offered option", showChoice(user.Pick))
			}
		case user.Action == "accept" && kind == "form":
			if content = user.Content; content == nil {
				refusal = "the scripted-user accept of a form gives no content"
			}
		case user.Action == "accept" && kind == "url":
		case user.Action == "decline", user.Action == "cancel":
		case user.Action == "wait" && asked.Cancelled:
			want.Action, waited = "cancel", true
		default:
			refusal = fmt.Sprintf("the scripted-user action %q is unknown", user.Action)
		}
		if refusal != "" {
			want.Error = -32602
		}
	}
	if waited && answer.Error != nil && answer.Error.Code == -32800 {
		return nil // the other answer of a cancelled request
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
	if answer.Error != nil {
		return wantedAction(answer, want.Action, waited)
	}
	return exactjson.OnEveryReading(answer.Result, func(raw []byte) []string {
		return expectResult(e, user, want, content, answer, raw, waited)
	})
}

// wantedAction says that answer, an error or no answer, is not the action
// wanted.
func wantedAction(answer peer.Message, action string, waited bool) []string {
	if waited {
		return []string{fmt.Sprintf("the answer is %s, want action \"cancel\" or JSON-RPC error -32800: the scripted user waited, and the agent cancelled the request", describe(answer))}
	}
	return []string{fmt.Sprintf("the answer is %s, want action %q", describe(answer), action)}
}

// expectResult is expectAnswer of one reading of the answer's result, raw:
// how it differs from the action, choice and content wanted.
func expectResult(e *script.AnswerExpect, user *probe.User, want script.AnswerExpect, content []byte, answer peer.Message, raw json.RawMessage, waited bool) []string {
	result, problem := ReadAnswer(raw)
	if problem != "" {
		return wantedAction(answer, want.Action, waited)
	}
	var problems []string
	if want.Action != "" && result.Action != want.Action {
		problems = append(problems, fmt.Sprintf("the action is %q, want %q", result.Action, want.Action))
	}
	if want.Choice != "" {
		var c map[string]any // by exact member names
		_ = json.Unmarshal(result.Content, &c)
		if c["choice"] != want.Choice {
			problems = append(problems, fmt.Sprintf("the choice is %s, want %q%s", showChoice(c["choice"]), want.Choice, result.near("content", "choice")))
		}
	}
	// The instructed decline or cancel has no content (CLI-5 holds a client
	// in test mode to it; a free user's is ELI-8's advice).
	if e.User && user != nil && (result.Action == "decline" || result.Action == "cancel") && result.Content != nil && !isNull(result.Content) {
		problems = append(problems, fmt.Sprintf("the %s carries the content %s, want none: the scripted user gave none", result.Action, result.Content))
	}
	if content != nil && result.Action == "accept" && !probe.SameValue(result.Content, content) {
		problems = append(problems, fmt.Sprintf("the content is %s, want %s as the scripted user gave it%s", orAbsent(result.Content), content, result.near("content")))
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
