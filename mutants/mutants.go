// Package mutants breaks the reference on purpose, one rule at a time, to
// prove that the catalogue can fail: each mutant is a single edit of one
// file of reference/ (package reference, or a probe adapter such as the
// reference client) that violates exactly one CONTRACT rule, and must make
// at least one check of the catalogue fail. A mutant that survives is a
// check missing.
//
// The tests build acpconform once with every mutant in it (BuildTogether:
// `go build -overlay` adds each mutant's copy of the function it edits,
// and the function calls that copy when the process runs as that mutant,
// MutantEnv), run the catalogue against the built-in (now broken)
// reference with `acpconform run`, or against the mutated reference client
// with `acpconform client`, and record which checks killed it. A mutant
// whose edit is not within one function gets a build of its own (Build).
// `go test ./mutants -update` rewrites the kill matrix in docs/mutants.md.
package mutants

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/acpconform/acpconform/internal/gobuild"
	"github.com/acpconform/acpconform/suite"
)

// Mutant is one deliberate defect of the reference.
type Mutant struct {
	Name string // kebab-case
	Rule string // the CONTRACT ID it breaks
	File string // relative to reference/, slash-separated: ask.go, ../kit/call.go (the kit), ../kit/probeclient/client.go (the reference's probe adapters, built on the kit)
	From string // the text it replaces, found exactly once
	To   string
}

// All lists the mutants, at least one per area of the rules the reference
// implements; the reference client's join them from client.go.
var All = []Mutant{
	// SCH: what is sent
	{"question-trimmed", "SCH-1", "schema.go", "Message: question,", "Message: strings.TrimSpace(question),"},
	{"session-id-dropped", "SCH-1", "session.go", "req.SessionID = s.ID", "_ = s.ID"},
	{"required-dropped", "SCH-2", "schema.go", "Required:   []string{ChoiceProperty},", "Required:   nil,"},
	{"extra-property", "SCH-6", "schema.go", "Properties: map[string]any{ChoiceProperty: prop},", `Properties: map[string]any{ChoiceProperty: prop, "note": map[string]any{"type": "string"}},`},
	{"labels-trimmed", "SCH-3", "schema.go", "opt := ChoiceOption{Const: Token(i), Title: c.Label}", "opt := ChoiceOption{Const: Token(i), Title: strings.TrimSpace(c.Label)}"},
	// A label held as UCS-2: every character beyond U+FFFF becomes U+FFFD.
	{"astral-labels-replaced", "SCH-3", "schema.go", "opt := ChoiceOption{Const: Token(i), Title: c.Label}",
		"opt := ChoiceOption{Const: Token(i), Title: strings.Map(func(r rune) rune { return min(r, 0xFFFD) }, c.Label)}"},
	{"choice-title-renamed", "SCH-3", "schema.go", `prop := ChoiceSchema{Type: "string", Title: ChoiceTitle,`, `prop := ChoiceSchema{Type: "string", Title: "Pick one",`},
	{"tokens-from-one", "SCH-4", "schema.go", "func Token(i int) string { return TokenPrefix + strconv.Itoa(i) }", "func Token(i int) string { return TokenPrefix + strconv.Itoa(i+1) }"},
	{"tokens-padded", "SCH-4", "schema.go", "func Token(i int) string { return TokenPrefix + strconv.Itoa(i) }", `func Token(i int) string { _ = strconv.Itoa; return TokenPrefix + fmt.Sprintf("%02d", i) }`},
	{"description-without-namespace", "SCH-5", "schema.go", `DescriptionMetaKey = "acpkit.dev/choice-description"`, `DescriptionMetaKey = "description"`},
	{"meta-without-description", "SCH-5", "schema.go", `		if c.Description != "" {
			opt.Meta = map[string]string{DescriptionMetaKey: c.Description}
			opt.Description = c.Description
		}`, `		opt.Meta = map[string]string{DescriptionMetaKey: c.Description}
		opt.Description = c.Description`},
	// ACP Kit's own form: the description only under its _meta key.
	{"standard-description-left-out", "SCH-7", "schema.go", "\t\t\topt.Description = c.Description\n", ""},
	// Every error answered as a success, the first choice or a decline:
	// each check that expects an error must fail it (expects:error).
	{"errors-answered-as-success", "RES-1", "ask.go", `func AskChoice[T any](ctx context.Context, s *Session, question string, choices []Choice[T], opts ...Option[T]) (Result[T], error) {
`, `func AskChoice[T any](ctx context.Context, s *Session, question string, choices []Choice[T], opts ...Option[T]) (Result[T], error) {
	r, err := askChoice(ctx, s, question, choices, opts...)
	if err == nil {
		return r, nil
	}
	if len(choices) > 0 {
		return Accept(choices[0].Value), nil
	}
	return Decline[T](), nil
}

func askChoice[T any](ctx context.Context, s *Session, question string, choices []Choice[T], opts ...Option[T]) (Result[T], error) {
`},
	// VAL: invalid arguments
	{"blank-question-allowed", "VAL-1", "validate.go", "if isBlank(question) {", `if question == "" {`},
	{"no-choices-allowed", "VAL-2", "validate.go", `	if len(choices) == 0 {
		return ErrNoChoices
	}`, ""},
	{"blank-label-allowed", "VAL-3", "validate.go", "if isBlank(c.Label) {", `if c.Label == "" {`},
	{"two-defaults-allowed", "VAL-4", "validate.go", "if defaults > 1 {", "if defaults > 2 {"},
	{"validation-after-capability", "VAL-5", "ask.go", `	if err := validate(question, choices); err != nil {
		return Result[T]{}, err
	}
	var o options[T]
	for _, opt := range opts {
		opt(&o)
	}
	if !s.SupportsElicitation(ModeForm) {
		if o.fallback != nil {
			return runFallback(ctx, s, choices, &o)
		}`, `	var o options[T]
	for _, opt := range opts {
		opt(&o)
	}
	if !s.SupportsElicitation(ModeForm) {
		if o.fallback != nil {
			return runFallback(ctx, s, choices, &o)
		}
	}
	if err := validate(question, choices); err != nil {
		return Result[T]{}, err
	}
	if !s.SupportsElicitation(ModeForm) {`},
	// DEF: the default
	{"default-as-label", "DEF-2", "schema.go", "prop.Default = opt.Const", "prop.Default = c.Label"},
	{"default-repairs-accept", "DEF-3", "ask.go", `	status, i, err := readChoice(resp, len(choices))
	if err != nil {
		return Result[T]{}, err
	}`, `	status, i, err := readChoice(resp, len(choices))
	if err != nil {
		for j, c := range choices {
			if c.Default && resp.Action == "accept" {
				return Accept(choices[j].Value), nil
			}
		}
		return Result[T]{}, err
	}`},
	{"default-on-decline", "DEF-4", "ask.go", `	case StatusDeclined:
		return Decline[T](), nil`, `	case StatusDeclined:
		for _, c := range choices {
			if c.Default {
				return Accept(c.Value), nil
			}
		}
		return Decline[T](), nil`},
	// TOK: reading the answer
	{"leading-zero-accepted", "TOK-2", "answer.go", "(digits[0] == '0' && len(digits) > 1)", "false"},
	{"token-trimmed", "TOK-2", "answer.go", "i, ok := tokenIndex(token)", "i, ok := tokenIndex(strings.TrimSpace(token))"},
	{"token-case-folded", "TOK-2", "answer.go", "i, ok := tokenIndex(token)", "i, ok := tokenIndex(strings.ToLower(token))"},
	{"out-of-range-wraps", "TOK-2", "answer.go", `	if !ok || i >= n {
		return 0, fmt.Errorf("%q is not one of the %d offered tokens", elide.Head(token, maxQuoted), n)
	}`, `	if !ok {
		return 0, fmt.Errorf("%q is not one of the %d offered tokens", elide.Head(token, maxQuoted), n)
	}
	i %= n`},
	{"label-accepted", "TOK-2", "answer.go", `	i, ok := tokenIndex(token)`, `	i, ok := tokenIndex(token)
	if !ok && strings.HasPrefix(token, "Pro") {
		i, ok = 1, true
	}`},
	{"extra-keys-refused", "TOK-3", "answer.go", `	raw, ok := fields[ChoiceProperty]`, `	if len(fields) > 1 {
		return 0, fmt.Errorf("unexpected keys")
	}
	raw, ok := fields[ChoiceProperty]`},
	{"no-content-is-first-choice", "TOK-2", "answer.go", `	if len(content) == 0 {
		return 0, fmt.Errorf("accept without content")
	}`, `	if len(content) == 0 {
		return 0, nil
	}`},
	// RES: the result
	{"unknown-action-declines", "RES-2", "answer.go", `		return "", 0, &ResponseError{Reason: fmt.Sprintf("unknown action %q", resp.Action), Result: resp.Raw}`, `		return StatusDeclined, 0, nil`},
	{"missing-action-accepts", "RES-2", "answer.go", `		return "", 0, &ResponseError{Reason: "the action is missing", Result: resp.Raw}`, `		i, err := readToken(resp.Content, n)
		if err != nil {
			return "", 0, &ResponseError{Reason: err.Error(), Result: resp.Raw}
		}
		return StatusAccepted, i, nil`},
	{"content-on-decline-refused", "RES-4", "answer.go", `	case "decline":
		return StatusDeclined, 0, nil // content, if any, is ignored (RES-4)`, `	case "decline":
		if resp.Content != nil {
			return "", 0, &ResponseError{Reason: "content on a decline", Result: resp.Raw}
		}
		return StatusDeclined, 0, nil`},
	{"cancel-reads-as-decline", "RES-1", "ask.go", `	default:
		return Cancel[T](), nil`, `	default:
		return Decline[T](), nil`},
	{"zero-result-accepted", "RES-3", "fallback.go", `		return Result[T]{}, &FallbackError{Reason: "the fallback returned the zero Result, which is not an outcome"}`, `		return res, nil`},
	// CAP: capabilities
	{"empty-elicitation-is-form", "CAP-2", "session.go", `	case ModeForm:
		return e.Form != nil`, `	case ModeForm:
		return true`},
	{"url-is-form", "CAP-2", "session.go", `	case ModeForm:
		return e.Form != nil`, `	case ModeForm:
		return e.Form != nil || e.Url != nil`},
	{"unsupported-declines", "CAP-3", "ask.go", `		return Result[T]{}, fmt.Errorf("%w: no form elicitation in the client's capabilities and no fallback", ErrElicitationUnsupported)`, `		_ = fmt.Sprint
		return Decline[T](), nil`},
	{"capabilities-first-connection-wins", "CAP-4", "conn.go", "	c.caps = p.ClientCapabilities\n", "	c.caps = firstCaps(p.ClientCapabilities)\n"},
	// FB: fallbacks
	{"fallback-after-client-error", "FB-1", "ask.go", `	resp, err := s.send(ctx, compile(question, choices))
	if err != nil {
		return Result[T]{}, err
	}`, `	resp, err := s.send(ctx, compile(question, choices))
	if err != nil {
		if o.fallback != nil {
			return runFallback(ctx, s, choices, &o)
		}
		return Result[T]{}, err
	}`},
	{"fallback-after-decline", "FB-1", "ask.go", `	case StatusDeclined:
		return Decline[T](), nil`, `	case StatusDeclined:
		if o.fallback != nil {
			return runFallback(ctx, s, choices, &o)
		}
		return Decline[T](), nil`},
	{"fallback-ignores-context", "FB-2", "fallback.go", `	res, err := o.fallback(ctx, s)`, `	res, err := o.fallback(context.WithoutCancel(ctx), s)`},
	{"fallback-cancel-declines", "FB-3", "fallback.go", `	case StatusDeclined, StatusCancelled:
		return res, nil`, `	case StatusDeclined, StatusCancelled:
		return Decline[T](), nil`},
	{"fallback-not-offered-accepted", "FB-4", "fallback.go", `			return Result[T]{}, &FallbackError{Reason: "the fallback's value was not offered"}`, `			return res, nil`},
	{"fallback-copy-returned", "FB-4", "fallback.go", `		return Accept(choices[i].Value), nil`, `		_ = i
		return res, nil`},
	{"fallback-error-declines", "FB-5", "fallback.go", `	if err != nil {
		return Result[T]{}, err
	}
	switch res.Status() {`, `	if err != nil {
		return Decline[T](), nil
	}
	switch res.Status() {`},
	{"last-match-wins", "FB-6", "fallback.go", `	for i, c := range choices {
		if matches(equal, c.Value, v) {
			return i, true
		}
	}`, `	for i := len(choices) - 1; i >= 0; i-- {
		if matches(equal, choices[i].Value, v) {
			return i, true
		}
	}`},
	{"panicking-comparison-escapes", "FB-6", "fallback.go", `		if recover() != nil {
			eq = false
		}`, `		if r := recover(); r != nil {
			panic(r)
		}`},
	// DEP: the plain-value fallback
	{"plain-value-silent", "DEP-1", "fallback.go", `			s.logger().WarnContext(ctx, PlainValueWarning, slog.String("deprecated", "plain-value-fallback"))
`, "\t\t\t_ = slog.LevelWarn\n"},
	{"plain-value-warned-twice", "DEP-1", "fallback.go", `			s.logger().WarnContext(ctx, PlainValueWarning, slog.String("deprecated", "plain-value-fallback"))
`, `			s.logger().WarnContext(ctx, PlainValueWarning, slog.String("deprecated", "plain-value-fallback"))
			s.logger().WarnContext(ctx, PlainValueWarning, slog.String("deprecated", "plain-value-fallback"))
`},
	{"plain-value-matches-anything", "DEP-2", "fallback.go", "\t\t\tv, err := fn(ctx)\n", "\t\t\to.equal = func(T, T) bool { return true }\n\t\t\tv, err := fn(ctx)\n"},
	{"plain-nil-declines", "DEP-3", "fallback.go", `			if err != nil {
				return Result[T]{}, err
			}
			s.logger()`, `			if err != nil {
				return Result[T]{}, err
			}
			if any(v) == nil {
				return Decline[T](), nil
			}
			s.logger()`},
	// RTE: routes and the connection
	{"method-not-found-declines", "RTE-1", "ask.go", `	resp, err := s.send(ctx, compile(question, choices))
	if err != nil {
		return Result[T]{}, err
	}`, `	resp, err := s.send(ctx, compile(question, choices))
	if re := (*RequestError)(nil); errors.As(err, &re) && re.Code == CodeMethodNotFound {
		return Decline[T](), nil
	}
	if err != nil {
		return Result[T]{}, err
	}`},
	{"method-not-found-falls-back", "RTE-1", "ask.go", `	resp, err := s.send(ctx, compile(question, choices))
	if err != nil {
		return Result[T]{}, err
	}`, `	resp, err := s.send(ctx, compile(question, choices))
	if re := (*RequestError)(nil); errors.As(err, &re) && re.Code == CodeMethodNotFound && o.fallback != nil {
		return runFallback(ctx, s, choices, &o)
	}
	if err != nil {
		return Result[T]{}, err
	}`},
	{"error-data-dropped", "RTE-2", "conn.go", `	if re.Data != nil {
		out.Data, _ = json.Marshal(re.Data)
	}`, ""},
	{"error-code-flattened", "RTE-2", "conn.go", `	out := &RequestError{Method: method, Code: re.Code, Message: re.Message}`, `	out := &RequestError{Method: method, Code: CodeInternalError, Message: re.Message}`},
	{"close-is-a-request-error", "RTE-7", "conn.go", `	if c.output.failed.Load() || (isClosed(c.conn.Done()) && isDisconnectError(re)) {`, `	if c.output.failed.Load() {`},
	{"cancel-not-told", "RTE-7", "conn.go", `	raw, err := acp.SendRequest[json.RawMessage](c.conn, ctx, method, params)`, `	raw, err := acp.SendRequest[json.RawMessage](c.conn, context.WithoutCancel(ctx), method, params)`},

	// Agent side, contract revision 2: exact JSON equality of values,
	// capabilities that are JSON objects, Unicode White_Space, and
	// "promptly" as 2 seconds. The equality lives in the kit under the
	// probe agent (kit.Call.Equal), which gives AskChoice its rule with
	// WithEqual.
	{"true-equals-one", "FB-6", "../kit/call.go", "return errA == nil && errB == nil && probe.SameValue(a, b)", "return errA == nil && errB == nil && probe.SameValue(boolsAsNumbers(a), boolsAsNumbers(b))"},
	{"numbers-by-spelling", "FB-6", "../kit/call.go", "return errA == nil && errB == nil && probe.SameValue(a, b)", "return errA == nil && errB == nil && reflect.DeepEqual(decodeSpelt(a), decodeSpelt(b))"},
	{"numbers-as-float64", "FB-6", "../kit/call.go", "return errA == nil && errB == nil && probe.SameValue(a, b)", "return errA == nil && errB == nil && reflect.DeepEqual(decodeFloats(a), decodeFloats(b))"},
	{"any-form-value-advertises", "CAP-2", "session.go", "				delete(e, mode) // advertises nothing", `				e[mode] = json.RawMessage("{}") // read as support`},
	{"blank-like-js-trim", "VAL-1", "validate.go", `func isBlank(s string) bool { return strings.TrimSpace(s) == "" }`, `func isBlank(s string) bool { return strings.Trim(s, jsTrimmed) == "" }`},
	{"cancelled-turn-ends-late", "RTE-7", "../kit/agent.go", `	if ctx.Err() != nil {
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil`, `	if ctx.Err() != nil {
		time.Sleep(3 * time.Second) // the client was told at once; the turn ends late
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil`},
	{"close-ends-late", "RTE-7", "conn.go", `		return fmt.Errorf("%s: %w before the client answered", method, ErrConnectionClosed)`, `		time.Sleep(3 * time.Second)
		return fmt.Errorf("%s: %w before the client answered", method, ErrConnectionClosed)`},
	{"warnings-kept-per-process", "DEP-1", "../kit/call.go", `func (w *warnings) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.list...)
}`, `var processWarnings struct {
	sync.Mutex
	all []string
}

func (w *warnings) all() []string { // every warning of the process so far, not this call's
	w.mu.Lock()
	defer w.mu.Unlock()
	processWarnings.Lock()
	defer processWarnings.Unlock()
	processWarnings.all = append(processWarnings.all, w.list...)
	return append([]string(nil), processWarnings.all...)
}`},
	// ELI: the low-level create_elicitation.
	{"url-to-form-only", "ELI-1", "session.go", "\tif !s.SupportsElicitation(req.Mode) {\n", "\tif !s.SupportsElicitation(req.Mode) && !s.SupportsElicitation(ModeForm) {\n"},
	// A permission request in place of the elicitation, as agents whose
	// elicitation failed were seen to send.
	{"permission-in-place", "ELI-1", "session.go", `		return ElicitationResponse{}, fmt.Errorf("%w: mode %q was not advertised", ErrElicitationUnsupported, req.Mode)`,
		`		_, _ = s.Client.Request(ctx, acp.ClientMethodSessionRequestPermission, map[string]any{"sessionId": s.ID, "toolCall": map[string]any{"toolCallId": "elicitation"}, "options": []any{}})
		return ElicitationResponse{}, fmt.Errorf("%w: mode %q was not advertised", ErrElicitationUnsupported, req.Mode)`},
	// An empty answer invented for a client without the mode.
	{"answer-invented", "ELI-1", "session.go", `		return ElicitationResponse{}, fmt.Errorf("%w: mode %q was not advertised", ErrElicitationUnsupported, req.Mode)`,
		`		return ElicitationResponse{Action: "accept", Content: json.RawMessage("{}")}, nil`},
	{"integer-type-dropped", "ELI-2", "../kit/probeagent/agent.go", "\t\tif err := dec.Decode(&er.RequestedSchema); err != nil {\n",
		"\t\tif err := json.Unmarshal(bytes.ReplaceAll(c.RequestedSchema, []byte(`\"integer\"`), []byte(`\"number\"`)), &er.RequestedSchema); err != nil {\n"},
	{"message-trimmed", "ELI-2", "../kit/probeagent/agent.go", "Message: c.Message,", "Message: strings.TrimSpace(c.Message),"},
	// Every error of create_elicitation answered as a success, as
	// errors-answered-as-success does for ask_choice: each ELI check that
	// expects an error must fail it (killsEvery).
	{"elicitation-errors-answered-as-success", "ELI-1", "../kit/outcome.go", "\tif err != nil {\n\t\treturn e.errorOutcome(err)\n\t}\n\taction, err := stringMember(res, \"Action\")\n",
		"\tif err != nil {\n\t\treturn probe.Outcome{Acpconform: probe.Version, Outcome: probe.OutcomeAccepted}\n\t}\n\taction, err := stringMember(res, \"Action\")\n"},
	{"content-unvalidated", "ELI-3", "session.go", "\t\tif problems := ContentProblems(schema, resp.Content); len(problems) > 0 {\n",
		"\t\tif problems := ContentProblems(schema, resp.Content); len(problems) > 0 && false {\n"},
	{"decline-content-reported", "ELI-3", "session.go", "\tcase resp.Action == \"accept\", resp.Action == \"decline\", resp.Action == \"cancel\":\n\t\tresp.Content = nil\n",
		"\tcase resp.Action == \"accept\", resp.Action == \"cancel\":\n\t\tresp.Content = nil\n"},
	{"bounds-unchecked", "ELI-3", "content.go", `		if max, ok := number(json.RawMessage(p.Maximum)); ok && n.Cmp(max) > 0 {`, `		if max, ok := number(json.RawMessage(p.Maximum)); ok && n.Cmp(max) > 0 && false {`},
	// SES: many sessions on one connection, as editors use agents.
	{"later-sessions-replay", "SES-1", "../kit/agent.go", "\tout := s.run(ctx, session, req)\n", "\tout := replayLater(s.run(ctx, session, req))\n"},
	{"broken-after-ten-prompts", "SES-1", "../kit/agent.go", "\tout := s.run(ctx, session, req)\n", "\tout := s.run(ctx, session, req)\n\tout = brokenAfterTen(out)\n"},
	// Past the 12 sessions SES-1 held before revision 4, within its 50.
	{"broken-after-forty-prompts", "SES-1", "../kit/agent.go", "\tout := s.run(ctx, session, req)\n", "\tout := s.run(ctx, session, req)\n\tout = brokenAfterForty(out)\n"},
	{"cancel-ends-every-turn", "SES-2", "conn.go", `	if turn := c.prompts[p.SessionId]; turn != nil {
		turn.cancel()
	}`, `	for _, turn := range c.prompts {
		turn.cancel()
	}`},
	{"prompt-cancels-others", "SES-2", "conn.go", `	if prev := c.prompts[p.SessionId]; prev != nil {
		prev.cancel()
	}`, `	for _, prev := range c.prompts {
		prev.cancel()
	}`},
	// Room for two turns at once, as a pool of two would have: a third
	// session's prompt ends the others.
	{"two-turns-at-most", "SES-2", "conn.go", `	if prev := c.prompts[p.SessionId]; prev != nil {
		prev.cancel()
	}`, `	if prev := c.prompts[p.SessionId]; prev != nil {
		prev.cancel()
	}
	if len(c.prompts) >= 2 {
		for _, other := range c.prompts {
			other.cancel()
		}
	}`},
	{"stdin-end-ignored", "RTE-7", "../kit/probeagent/run.go", `	select {
	case <-conn.Done():
	case <-ctx.Done():
	}`, `	<-ctx.Done() // serves until a signal, whatever its stdin does
	_ = conn`},

	// Agent side, contract revision 3: an agent may refuse capabilities
	// malformed under the ACP schema with -32602 (see Variants), but with
	// no other error and without dying; a token past any integer parser's
	// limit is an invalid response, never an error of its own.
	{"malformed-caps-wrong-code", "CAP-2", "conn.go", "		return call(ctx, asAdvertised(params), c.initialize)", `		if string(asAdvertised(params)) != string(params) { // refused, but as an Invalid Request
			return nil, acp.NewInvalidRequest(map[string]any{"error": "clientCapabilities do not match the ACP schema"})
		}
		return call(ctx, params, c.initialize)`},
	{"malformed-caps-crash", "CAP-2", "conn.go", "		return call(ctx, asAdvertised(params), c.initialize)", `		if string(asAdvertised(params)) != string(params) { // an exception nobody catches
			panic("clientCapabilities do not match the ACP schema")
		}
		return call(ctx, params, c.initialize)`},
	{"int-limit-escapes", "TOK-2", "answer.go", `	case "accept":
		i, err := readToken(resp.Content, n)`, `	case "accept":
		if err := pythonInt(resp.Content); err != nil {
			return "", 0, err // a bare error, not an invalid response
		}
		i, err := readToken(resp.Content, n)`},
}

// Variants are correct variants of the reference: each edit takes
// another path the contract allows, and the whole catalogue must pass it
// (TestVariantsAreConformant). A check that fails one is wrong.
var Variants = []Mutant{
	// The Go SDK's typed decoding of initialize, without the reference's
	// leniency: capabilities malformed under the ACP schema ("form": false,
	// "url": false, "elicitation": "form") are refused with -32602, as the
	// TypeScript SDK's zod schemas and the Python SDK's pydantic models
	// refuse them (CAP-2).
	// The names still read exactly, as every strict SDK reads them.
	{"malformed-caps-refused", "CAP-2", "session.go", `	case !isObject(raw):
		delete(caps, "elicitation") // advertises nothing
		capsChanged = true
	default:
		_ = json.Unmarshal(raw, &e)
		modesChanged := dropLookalikes(e, "form", "url")
		for _, mode := range []string{"form", "url"} {
			if v, ok := e[mode]; ok && !isObject(v) && !isNull(v) {
				delete(e, mode) // advertises nothing
				modesChanged = true
			}
		}
`, `	case !isObject(raw): // the SDK's typed decoding refuses it
	default:
		_ = json.Unmarshal(raw, &e)
		modesChanged := dropLookalikes(e, "form", "url") // a malformed mode: the SDK's typed decoding refuses it
`},
	// A validator that refuses a property the form does not declare, as one
	// that reads the requested schema with additionalProperties false does:
	// JSON Schema allows the property, so passing it on (the reference) and
	// refusing it are both conformant (ELI-3, revision 5).
	{"undeclared-property-refused", "ELI-3", "content.go", `			if !isContentValue(values[name]) {
				problems = append(problems, fmt.Sprintf("%q, a property the form does not declare, holds %s, no elicitation content value", elide.Head(name, maxQuoted), elide.Head(string(values[name]), maxQuoted)))
			}
			continue`, `			problems = append(problems, fmt.Sprintf("%q is not a property of the form", elide.Head(name, maxQuoted)))
			continue`},
}

// overStdio are the mutants that only an agent process on stdio shows:
// each runs `acpconform agent -- <mutant>/acpconform-reference-agent` with the
// checks of the rules given, not the whole catalogue in-process. (A
// process that outlives its stdin costs every check of a full run the
// stop grace.)
var overStdio = map[string][]string{
	"stdin-end-ignored":         {"RTE-7"},
	"malformed-caps-crash":      {"CAP-1", "CAP-2"}, // it ends the process: over stdio, one a connection
	"warnings-kept-per-process": {"DEP-1"},
	// Run with checks of TOK and RES alone, which share connections: only the
	// rerun of a check that failed on a shared one can find it.
	"later-sessions-replay":      {"TOK-1", "TOK-2", "RES-1"},
	"broken-after-ten-prompts":   {"SES-1"},
	"broken-after-forty-prompts": {"SES-1"},
	"cancel-ends-every-turn":     {"SES-2"},
	"prompt-cancels-others":      {"SES-2"},
	"two-turns-at-most":          {"SES-2"},
}

// Role is the role the mutated reference plays: a mutant of the reference
// client (a File under ../kit/probeclient/, or the kit's client.go under it) is
// checked as a client, with
// `acpconform client -- <mutant>/acpconform-reference-client`; every other mutant with
// `acpconform run`, whose reference agent is built in.
func (m Mutant) Role() suite.Role {
	if strings.HasPrefix(m.File, "../kit/probeclient/") || m.File == "../kit/client.go" {
		return suite.ClientRole
	}
	return suite.AgentRole
}

// FreeUser reports whether the mutant, a client's, is judged as a free
// user (acpconform client --no-scripted-user): one that breaks a SHOULD
// rule which test mode makes CLI-5's, a MUST, so that its run fails only
// the checks of its rule (ELI-7's ignored cancel, ELI-8's content).
func (m Mutant) FreeUser() bool {
	return m.Role() == suite.ClientRole && (m.Rule == "ELI-7" || m.Rule == "ELI-8")
}

// NoForm reports whether m, a mutant of the reference client, runs as a
// client that advertises no form elicitation (reference-client --no-form):
// one that breaks CLI-4, the rule of such a client alone. Such a run
// checks CLI-4 and ELI-6, both SHOULD rules, and so is nothing checked
// (exit 4) whatever it finds.
func (m Mutant) NoForm() bool { return m.Role() == suite.ClientRole && m.Rule == "CLI-4" }

// Apply writes the mutated copy of the mutant's file into dir and an
// overlay file for `go build -overlay`, and returns the overlay's path.
// root is the repository's root.
func (m Mutant) Apply(root, dir string) (string, error) {
	orig := filepath.Join(root, "reference", filepath.FromSlash(m.File))
	src, err := os.ReadFile(orig)
	if err != nil {
		return "", err
	}
	mutated, err := m.mutate(src)
	if err != nil {
		return "", err
	}
	copyPath := filepath.Join(dir, m.Name+"-"+strings.ReplaceAll(m.File, "/", "-")) // File may be in a subpackage
	if err := os.WriteFile(copyPath, mutated, 0o644); err != nil {
		return "", err
	}
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": {orig: copyPath}})
	if err != nil {
		return "", err
	}
	overlayPath := filepath.Join(dir, m.Name+".overlay.json")
	return overlayPath, os.WriteFile(overlayPath, overlay, 0o644)
}

// Build builds acpconform with the mutant applied, into dir, and returns
// the binary's path. root is the repository's root.
//
// Our packages are compiled without inlining, the binary is linked
// without symbol tables or DWARF, and the tools collect garbage less
// often: a mutant's build (the mutated package and those that import it,
// then the link) costs about 2.5 CPU-seconds instead of 4, and how the
// binary behaves does not change. The build is -trimpath, as releases
// are: what it compiles does not depend on where the checkout is, so the
// build cache serves a mutant compiled once in any clone (a fresh clone's
// build is then the link alone, about 1 CPU-second).
func (m Mutant) Build(root, dir string) (string, error) {
	overlay, err := m.Apply(root, dir)
	if err != nil {
		return "", err
	}
	bin, err := build(root, overlay, filepath.Join(dir, "acpconform"))
	if err != nil {
		return "", fmt.Errorf("mutant %s does not build: %w", m.Name, err)
	}
	return bin, nil
}

// build builds acpconform from root with overlay into bin, and beside it
// the reference agent and client alone (acpconform-reference-agent and
// acpconform-reference-client), which a catalogue over stdio starts once
// per check.
func build(root, overlay, bin string) (string, error) {
	dir := filepath.Dir(bin) + string(filepath.Separator)
	cmd := gobuild.Command(root, append(append([]string{"-overlay", overlay}, buildFlags...), "-o", dir,
		"./cmd/acpconform", "./cmd/acpconform-reference-agent", "./cmd/acpconform-reference-client")...)
	cmd.Env = append(cmd.Env, buildGOGC)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%v\n%s", err, out)
	}
	return bin, nil
}

// Slim are the reference agent and client alone that a build makes beside
// the acpconform at bin (go build -o DIR/ names each after its folder).
func Slim(bin string) (agent, client string) {
	dir := filepath.Dir(bin)
	return filepath.Join(dir, "acpconform-reference-agent"), filepath.Join(dir, "acpconform-reference-client")
}

// buildFlags are Build's flags besides the overlay and gobuild's: no
// inlining in our packages, no symbol table or DWARF.
var buildFlags = []string{"-gcflags=github.com/acpconform/acpconform/...=-l", "-ldflags=-s -w"}

// buildGOGC lets the compiler and linker of a mutant's build collect
// garbage a quarter as often: a fifth less CPU time, in the 280 MB the
// link takes anyway.
const buildGOGC = "GOGC=400"

// helpers are the extra declarations a mutant needs.
var helpers = map[string]string{
	"later-sessions-replay": `
// replayed is the process's previous outcome: from its second prompt on,
// each prompt reports the one before's, as an agent that keeps a turn's
// state on the process rather than the session does.
var replayed struct {
	sync.Mutex
	last *probe.Outcome
}

func replayLater(out probe.Outcome) probe.Outcome {
	replayed.Lock()
	defer replayed.Unlock()
	prev := replayed.last
	replayed.last = &out
	if prev != nil {
		return *prev
	}
	return out
}
`,
	"broken-after-forty-prompts": `
var prompts atomic.Int64 // of the process

// brokenAfterForty reports a decline for every prompt after the fortieth
// of the process: a leak that a few sessions, or 12, do not show.
func brokenAfterForty(out probe.Outcome) probe.Outcome {
	if prompts.Add(1) > 40 {
		return probe.Outcome{Acpconform: probe.Version, Outcome: "declined"}
	}
	return out
}
`,
	"broken-after-ten-prompts": `
var prompts atomic.Int64 // of the process

// brokenAfterTen reports a decline for every prompt after the tenth of the
// process, as an agent that runs out of something it never gives back.
func brokenAfterTen(out probe.Outcome) probe.Outcome {
	if prompts.Add(1) > 10 {
		return probe.Outcome{Acpconform: probe.Version, Outcome: "declined"}
	}
	return out
}
`,
	"int-limit-escapes": `
// pythonInt fails as Python's int() does on a string of more than 4300
// digits, with a bare ValueError that escapes the parser of an accept's
// token (ACP Kit's, before revision 3 of the contract).
func pythonInt(content json.RawMessage) error {
	var c struct {
		Choice string ` + "`json:\"choice\"`" + `
	}
	_ = json.Unmarshal(content, &c)
	digits, ok := strings.CutPrefix(c.Choice, TokenPrefix)
	if ok && len(digits) > 4300 && strings.Trim(digits, "0123456789") == "" {
		return fmt.Errorf("Exceeds the limit (4300 digits) for integer string conversion: value has %d digits; use sys.set_int_max_str_digits() to increase the limit", len(digits))
	}
	return nil
}
`,
	"true-equals-one": `
// boolsAsNumbers reads true as 1 and false as 0, as a language whose
// booleans are numbers does.
func boolsAsNumbers(raw json.RawMessage) json.RawMessage {
	switch string(raw) {
	case "true":
		return json.RawMessage("1")
	case "false":
		return json.RawMessage("0")
	}
	return raw
}
`,
	"numbers-by-spelling": `
// decodeSpelt decodes JSON with numbers as their text.
func decodeSpelt(raw json.RawMessage) any {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	var v any
	_ = dec.Decode(&v)
	return v
}
`,
	"numbers-as-float64": `
// decodeFloats decodes JSON as encoding/json does by default: numbers
// as float64.
func decodeFloats(raw json.RawMessage) any {
	var v any
	_ = json.Unmarshal(raw, &v)
	return v
}
`,
	"blank-like-js-trim": `
// jsTrimmed is what JavaScript's String.prototype.trim removes: U+FEFF
// but not U+0085.
const jsTrimmed = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
`,
	"capabilities-first-connection-wins": `
var firstSeen struct {
	sync.Mutex
	caps *acp.ClientCapabilities
}

// firstCaps keeps the capabilities of the first connection for all.
func firstCaps(c acp.ClientCapabilities) acp.ClientCapabilities {
	firstSeen.Lock()
	defer firstSeen.Unlock()
	if firstSeen.caps == nil {
		firstSeen.caps = &c
	}
	return *firstSeen.caps
}
`,
}

// withImports adds the imports a mutant's text uses and its file lacks.
func withImports(src, to string) string {
	for pkg, use := range map[string]string{"strings": "strings.", "fmt": "fmt.", "errors": "errors.", "context": "context.", "reflect": "reflect.", "time": "time.", "sync": "sync."} {
		if strings.Contains(to, use) && !strings.Contains(src, `"`+pkg+`"`) {
			src = strings.Replace(src, "import (", "import (\n\t\""+pkg+"\"", 1)
		}
	}
	return src
}
