package judge

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/acpconform/acpconform/internal/elide"

	"github.com/acpconform/acpconform/mocks/peer"
	"github.com/acpconform/acpconform/mocks/script"
	"github.com/acpconform/acpconform/reference"
	"github.com/acpconform/acpconform/trace"
)

// typedChoiceChecks are the checks of a typed-choice form's shape, by the
// rule that leads TypedChoiceProblems' problems.
var typedChoiceChecks = map[string]string{
	"SCH-1": "SCH-1/trace-form-scoped-to-session",
	"SCH-2": "SCH-2/trace-one-required-property",
	"SCH-3": "SCH-3/trace-string-choice-with-labels",
	"SCH-4": "SCH-4/trace-tokens-in-order",
	"SCH-5": "SCH-5/trace-description-metadata",
	"SCH-6": "SCH-6/trace-invents-nothing",
	"DEF-2": "DEF-2/trace-default-is-a-token",
}

// agentAsks judges an elicitation/create the agent sent.
func (w *walk) agentAsks(f Frame, r *request) {
	params := r.msg.Params
	if r.kind != "choice" {
		w.agentElicits(f, r)
		return
	}
	problem := ""
	if !script.Advertises(w.caps, "form") {
		problem = fmt.Sprintf("the agent sent a typed-choice form on a connection whose initialize advertised %s, which is no form elicitation: %s", advertised(w.caps), quote(f))
	}
	w.note("CAP-2/trace-form-only-when-advertised", problem, f)

	byRule := map[string][]string{}
	if !w.sessions[r.session] {
		byRule["SCH-1"] = append(byRule["SCH-1"], w.unknownSession(r.session))
	}
	for _, p := range TypedChoiceProblems(params, r.session) {
		rule, _, _ := strings.Cut(p, ":")
		byRule[rule] = append(byRule[rule], p)
	}
	w.blanks(f, params, byRule)
	hasDefault := member(choiceProperty(params), "default") != nil
	for _, rule := range slices.Sorted(maps.Keys(typedChoiceChecks)) {
		if rule == "DEF-2" && !hasDefault && byRule[rule] == nil {
			continue
		}
		w.note(typedChoiceChecks[rule], problems(byRule[rule], f), f)
	}
	w.standardDescriptions(f, params)
}

// blanks judges VAL-1, VAL-2 and VAL-3 on a typed-choice form: a blank
// question, no choice at all, or a blank label is an invalid argument, to be refused before anything is sent,
// so a form that carries one breaks those rules, not SCH-1's or SCH-3's
// shape, and its problem moves from byRule's SCH entry to them.
func (w *walk) blanks(f Frame, params json.RawMessage, byRule map[string][]string) {
	blank := func(raw json.RawMessage) bool {
		var s string
		return json.Unmarshal(raw, &s) == nil && string(raw) != "null" && strings.TrimSpace(s) == ""
	}
	moved := func(rule, from, to, what string) {
		kept := byRule[from][:0]
		for _, p := range byRule[from] {
			if strings.HasPrefix(p, from+": "+what) {
				byRule[to] = append(byRule[to], to+strings.TrimPrefix(p, from))
			} else {
				kept = append(kept, p)
			}
		}
		byRule[from] = kept
		w.note(rule, problems(byRule[to], f), f)
	}
	if blank(member(params, "message")) || stringAt(params, "message") != "" {
		moved("VAL-1/trace-question-not-blank", "SCH-1", "VAL-1", "message is")
	}
	var oneOf []map[string]json.RawMessage
	options := member(choiceProperty(params), "oneOf")
	_ = json.Unmarshal(options, &oneOf)
	if oneOf != nil || strings.TrimSpace(string(options)) == "[]" {
		if len(oneOf) == 0 {
			moved("VAL-2/trace-some-choice", "SCH-3", "VAL-2", "oneOf is")
		} else {
			w.note("VAL-2/trace-some-choice", "", f)
		}
	}
	for _, o := range oneOf {
		if blank(o["title"]) {
			moved("VAL-3/trace-labels-not-blank", "SCH-3", "VAL-3", "option")
			return
		}
	}
	if len(oneOf) > 0 {
		w.note("VAL-3/trace-labels-not-blank", "", f)
	}
}

// problems is a failure of the frame f, or "" when there are none.
func problems(ps []string, f Frame) string {
	if len(ps) == 0 {
		return ""
	}
	return strings.Join(ps, "; ") + ": " + quote(f)
}

// unknownSession says that session is none the client opened.
func (w *walk) unknownSession(session string) string {
	return fmt.Sprintf("the request is scoped to the session %q, which is none of this connection's (%s)", session, orNone(slices.Sorted(maps.Keys(w.sessions))))
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "it has none"
	}
	return fmt.Sprintf("%q", s)
}

// standardDescriptions judges SCH-7 on each option that carries ACP Kit's
// description.
func (w *walk) standardDescriptions(f Frame, params json.RawMessage) {
	var oneOf []map[string]json.RawMessage
	if json.Unmarshal(member(choiceProperty(params), "oneOf"), &oneOf) != nil {
		return
	}
	for i, o := range oneOf {
		described := stringAt(o["_meta"], reference.DescriptionMetaKey)
		if described == "" {
			continue
		}
		problem := ""
		if stringOf(o["description"]) != described {
			problem = fmt.Sprintf("option %d carries the description %q only under _meta, not in its standard description field, where every client shows it: %s", i, described, quote(f))
		}
		w.note("SCH-7/trace-standard-description", problem, f)
	}
}

// agentElicits judges an elicitation/create other than a typed choice.
func (w *walk) agentElicits(f Frame, r *request) {
	mode := modeOf(r.msg.Params)
	var unadvertised string
	if (mode == "form" || mode == "url") && !script.Advertises(w.caps, mode) {
		unadvertised = fmt.Sprintf("the agent sent a %s elicitation on a connection whose initialize advertised %s, which is no %s elicitation: %s", mode, advertised(w.caps), mode, quote(f))
	}
	w.note("ELI-1/trace-mode-advertised", unadvertised, f)
	w.note("ELI-2/trace-request-well-formed", problems(w.requestProblems(r), f), f)
}

// requestProblems is what makes an elicitation/create no request of the
// schema (CreateElicitationRequest, schema 1.21.0), on the wire.
func (w *walk) requestProblems(r *request) []string {
	params := r.msg.Params
	var ps []string
	var message string
	if json.Unmarshal(member(params, "message"), &message) != nil {
		ps = append(ps, fmt.Sprintf("its message is %s, want a string", show(member(params, "message"))))
	}
	switch {
	case member(params, "sessionId") != nil:
		if !w.sessions[r.session] {
			ps = append(ps, w.unknownSession(r.session))
		}
	case member(params, "requestId") == nil:
		ps = append(ps, "it is scoped to neither a session (sessionId) nor a request (requestId)")
	}
	switch mode := modeOf(params); mode {
	case "form":
		schema := member(params, "requestedSchema")
		var s map[string]json.RawMessage
		if json.Unmarshal(schema, &s) != nil || s == nil {
			ps = append(ps, fmt.Sprintf("its requestedSchema is %s, want an object", show(schema)))
			break
		}
		if t := s["type"]; t != nil && string(t) != `"object"` {
			ps = append(ps, fmt.Sprintf("its requestedSchema's type is %s, want \"object\"", show(t)))
		}
		var props map[string]map[string]json.RawMessage
		if p := s["properties"]; p != nil && json.Unmarshal(p, &props) != nil {
			ps = append(ps, fmt.Sprintf("its requestedSchema's properties are %s, want an object of property schemas", show(p)))
		}
		for _, name := range slices.Sorted(maps.Keys(props)) {
			if t := stringOf(props[name]["type"]); !slices.Contains([]string{"string", "number", "integer", "boolean", "array"}, t) {
				ps = append(ps, fmt.Sprintf("its property %q has the type %s, which is none of the schema's (string, number, integer, boolean, array)", name, show(props[name]["type"])))
			}
		}
	case "url":
		for _, name := range []string{"url", "elicitationId"} {
			if stringAt(params, name) == "" {
				ps = append(ps, fmt.Sprintf("its %s is %s, want a string", name, show(member(params, name))))
			}
		}
	default:
		ps = append(ps, fmt.Sprintf("its mode is %s, want \"form\" or \"url\"", show(member(params, "mode"))))
	}
	return ps
}

// turnCancelled takes the client's session/cancel f of session: what the
// agent owes for the elicitations pending then.
func (w *walk) turnCancelled(f Frame, session string) {
	pending := false
	for _, r := range w.pending {
		if w.full() {
			break // what is owed past maxOwed is not watched
		}
		if r.frame.From != trace.Agent || r.msg.Method != "elicitation/create" || r.answered || r.cancelled != nil {
			continue
		}
		if r.session != session {
			w.othersKept(f, session, r)
			continue
		}
		pending = true
		check := "ELI-10/trace-cancel-tells-client"
		if r.kind == "choice" {
			check = "RTE-7/trace-cancel-tells-client"
		}
		request := key(trace.Agent, r.msg.ID)
		w.owe(&obligation{check: check, cause: f,
			what: fmt.Sprintf("the agent sent no $/cancel_request for its elicitation/create %s, pending when its turn was cancelled,", r.msg.ID),
			met:  func(g seen) bool { return g.cancels == request }})
	}
	// Obligations to leave this session be end: it is cancelled now.
	for _, o := range w.owed {
		if !o.done && o.kept == session {
			o.done = true
		}
	}
	if !pending {
		return
	}
	choicePending := false
	for _, r := range w.pending {
		choicePending = choicePending || r.kind == "choice" && r.session == session && !r.answered
	}
	for _, p := range w.pending {
		if w.full() {
			break
		}
		if p.frame.From != trace.Client || p.msg.Method != "session/prompt" || p.answered || p.session != session {
			continue
		}
		prompt := key(trace.Client, p.msg.ID)
		if choicePending {
			w.owe(&obligation{check: "RTE-7/trace-cancelled-choice-ends-turn", cause: f,
				what: fmt.Sprintf("the agent did not end the turn (session/prompt %s) whose typed choice was cancelled", p.msg.ID),
				met:  func(g seen) bool { return g.answers == prompt }})
		}
		w.owe(&obligation{check: "ELI-9/trace-cancelled-turn-ends", cause: f,
			what: fmt.Sprintf("the agent did not end the cancelled turn (session/prompt %s)", p.msg.ID),
			met:  func(g seen) bool { return g.answers == prompt },
			broken: func(g seen) string {
				if g.answers != prompt || stringAt(g.msg.Result, "stopReason") == "cancelled" {
					return ""
				}
				return fmt.Sprintf("the agent ended the turn cancelled by %s with %s, want stopReason \"cancelled\": %s", describe(f), outcomeOf(g.msg), quote(g.Frame))
			}})
	}
}

// othersKept watches the elicitation r of another session than the one
// cancelled: for 2 s, or until the client answers it or cancels its own
// session, the agent must neither cancel it nor end its turn cancelled.
func (w *walk) othersKept(f Frame, cancelled string, r *request) {
	id, session := r.msg.ID, r.session
	request := key(trace.Agent, id)
	prompts := map[string]bool{}
	for _, p := range w.pending {
		if p.frame.From == trace.Client && p.msg.Method == "session/prompt" && !p.answered && p.session == session {
			prompts[key(trace.Client, p.msg.ID)] = true
		}
	}
	w.owe(&obligation{check: "SES-2/trace-cancel-leaves-other-sessions", cause: f, kept: session, keep: true,
		met: func(g seen) bool { return g.answers == request }, // the client answered it: it was left pending
		broken: func(g seen) string {
			switch {
			case g.cancels == request:
				return fmt.Sprintf("when the client cancelled the session %q, the agent cancelled the elicitation/create %s of the session %q too: %s", cancelled, id, session, quote(g.Frame))
			case prompts[g.answers] && stringAt(g.msg.Result, "stopReason") == "cancelled":
				return fmt.Sprintf("when the client cancelled the session %q, the agent ended the turn of the session %q cancelled too: %s", cancelled, session, quote(g.Frame))
			}
			return ""
		}})
}

// outcomeOf says how a response ended a turn.
func outcomeOf(n peer.Message) string {
	if n.Error != nil {
		return n.Error.Error()
	}
	return "stopReason " + show(member(n.Result, "stopReason"))
}

// malformedCapabilities judges the agent's answer m to an initialize r
// whose elicitation capability is malformed under the schema (an
// elicitation or a form that is neither an object nor null): CAP-2 allows
// a result that treats it as no form, or the -32602 of SDKs that validate,
// and nothing else.
func (w *walk) malformedCapabilities(r *request, f Frame, m peer.Message) {
	elicitation := member(member(r.msg.Params, "clientCapabilities"), "elicitation")
	malformed := ""
	for name, raw := range map[string]json.RawMessage{"elicitation": elicitation, "elicitation.form": member(elicitation, "form")} {
		if t := strings.TrimSpace(string(raw)); t != "" && t != "null" && !strings.HasPrefix(t, "{") {
			malformed = fmt.Sprintf("%s %s", name, t)
		}
	}
	if malformed == "" {
		return
	}
	problem := ""
	if m.Error != nil && m.Error.Code != -32602 {
		problem = fmt.Sprintf("the agent refused an initialize whose %s is malformed with %s, where the SDKs that validate capabilities answer -32602 (or the agent treats it as no form elicitation): %s", elide.Head(malformed, 200), m.Error.Error(), quote(f))
	}
	w.note("CAP-2/trace-malformed-capability-answered", problem, r.frame, f)
}

// sideEnded takes the end of a side, f. An agent on stdio whose client
// closed its input while a typed choice was pending ends within 2 s
// (RTE-7): a record shows both ends.
func (w *walk) sideEnded(f Frame) {
	if w.role != "agent" || f.From != trace.Client || w.clientEnded {
		return
	}
	w.clientEnded = true
	for _, r := range w.pending {
		if r.kind == "choice" && !r.answered && r.cancelled == nil {
			w.owe(&obligation{check: "RTE-7/trace-input-end-ends-agent", cause: f,
				what: fmt.Sprintf("the agent did not end after its client ended (%s) with the typed choice %s pending", strconv.Quote(elide.Head(f.Why, 200)), r.msg.ID),
				met:  func(g seen) bool { return g.Ended && g.From == trace.Agent }})
			return
		}
	}
}
