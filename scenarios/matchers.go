package scenarios

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/onsi/gomega/types"

	"github.com/acpconform/acpconform/mocks/script"
	"github.com/acpconform/acpconform/probe"
)

// BeOutcome matches a probe outcome that has every field want sets; fields
// want leaves out are not compared. Its failure says what the agent
// reported and what was wanted, then a -want +got diff of the fields that
// differ.
func BeOutcome(want probe.Outcome) types.GomegaMatcher {
	return &outcomeMatcher{want: want}
}

// BeOutcomeAfter is BeOutcome for the outcome of the answer the check's
// client sent: its failure quotes that answer (see answered) after what
// the agent reported, so that a failure of TOK-2 says which token the
// agent took.
func BeOutcomeAfter(answer script.Answer, want probe.Outcome) types.GomegaMatcher {
	return &outcomeMatcher{want: want, answered: answered(answer)}
}

type outcomeMatcher struct {
	want     probe.Outcome
	answered string // what the client answered, for the failure; "" when not said
	err      error
}

func (m *outcomeMatcher) Match(actual any) (bool, error) {
	got, ok := actual.(probe.Outcome)
	if !ok {
		return false, fmt.Errorf("BeOutcome expects a probe.Outcome, not %T", actual)
	}
	m.err = outcomeIs(got, m.want)
	return m.err == nil, nil
}

func (m *outcomeMatcher) FailureMessage(any) string {
	if m.answered == "" {
		return m.err.Error()
	}
	reported, diff, _ := strings.Cut(m.err.Error(), "\n")
	return strings.TrimSuffix(reported+"\n"+m.answered+"\n"+diff, "\n")
}

// maxAnswered bounds the answer a failure quotes: TOK-2 sends tokens of
// 5000 and 100000 digits.
const maxAnswered = 240

// answered says what a client answered an elicitation/create with, as
// it was sent: JSON with its non-ASCII characters escaped (a fullwidth
// digit looks like a digit), a huge answer cut to its start and end. It
// is "" for an answer that depends on the request (a pick or a label).
func answered(a script.Answer) string {
	result, rpcErr, err := a.Resolve(nil)
	switch {
	case err != nil:
		return ""
	case rpcErr != nil:
		text, _ := json.Marshal(map[string]any{"code": rpcErr.Code, "message": rpcErr.Message, "data": rpcErr.Data})
		return "the client answered elicitation/create with the error " + middle(asciiJSON(text), maxAnswered)
	}
	return "the client answered elicitation/create with " + middle(asciiJSON(result), maxAnswered)
}

// asciiJSON is JSON text with every character beyond ASCII written as a
// \u escape: the same JSON, in characters that cannot pass for others.
func asciiJSON(text []byte) string {
	var b strings.Builder
	for _, r := range string(text) {
		switch {
		case r < utf8.RuneSelf:
			b.WriteRune(r)
		case r > 0xffff:
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// middle keeps at most about max bytes of ASCII text s: its start and
// its end, saying how long it was.
func middle(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return fmt.Sprintf("%s … [%d bytes in all] … %s", s[:max*2/3], len(s), s[len(s)-max/3:])
}

func (m *outcomeMatcher) NegatedFailureMessage(actual any) string {
	return fmt.Sprintf("the agent reported %s, which is what was not wanted", describeOutcome(actual.(probe.Outcome)))
}

// outcomeIs returns nil when got has every field want sets, compared as
// script.Outcome.Check compares them. Otherwise its error says what the
// agent reported and what was wanted, then a -want +got diff of the
// fields want sets.
func outcomeIs(got, want probe.Outcome) error {
	if want.Outcome == probe.OutcomeError {
		if err := wantsError(); err != nil {
			return err
		}
	}
	if o := script.Outcome(want); len(o.Check(got)) == 0 {
		return nil
	}
	w, g := outcomeFields(want, want), outcomeFields(got, want)
	return fmt.Errorf("the agent reported %s, want %s\n%s", describeOutcome(got), describeOutcome(want), diff(w, g))
}

// outcomeFields are the fields of o that want sets, for a diff: JSON
// values decoded, a field o lacks shown as absent, never as the zero
// value it reads as in Go ("", 0 or null), which the outcome did not say.
func outcomeFields(o, want probe.Outcome) map[string]any {
	f := map[string]any{}
	member := func(name string, wanted, has bool, value func() any) {
		switch {
		case !wanted:
		case has:
			f[name] = value()
		default:
			f[name] = absentMember{}
		}
	}
	member("outcome", want.Outcome != "", o.Outcome != "", func() any { return o.Outcome })
	member("index", want.Index != nil, o.Index != nil, func() any { return *o.Index })
	member("value", want.Value != nil, o.Value != nil, func() any { return jsonOrText(o.Value) })
	member("content", want.Content != nil, o.Content != nil, func() any { return jsonOrText(o.Content) })
	member("error", want.Error != "", o.Error != "", func() any { return o.Error })
	member("code", want.Code != nil, o.Code != nil, func() any { return *o.Code })
	member("message", want.Message != "", o.Message != "", func() any { return o.Message })
	member("data", want.Data != nil, o.Data != nil, func() any { return jsonOrText(o.Data) })
	if want.Warnings != nil {
		f["warnings"] = append([]string{}, o.Warnings...) // none is none, nil or empty
	}
	return f
}

// absentMember is a member of an outcome that the outcome does not have, as a
// diff shows it.
type absentMember struct{}

func (absentMember) String() string { return "absent" }

// jsonOrText decodes raw JSON; what does not decode stays its text.
func jsonOrText(raw json.RawMessage) any {
	if v, err := decodeJSON(raw); err == nil {
		return v
	}
	return string(raw)
}

// describeOutcome says an outcome in words, with the fields it sets:
// accepted with choice 1 ("production"), error invalid_argument
// (message "question must not be blank"), declined with warnings
// ["plain-value-fallback"].
func describeOutcome(o probe.Outcome) string {
	var b strings.Builder
	switch o.Outcome {
	case probe.OutcomeAccepted, probe.OutcomeDeclined, probe.OutcomeCancelled:
		b.WriteString(o.Outcome)
	case probe.OutcomeError:
		b.WriteString("error")
		if o.Error != "" {
			b.WriteString(" " + o.Error)
		}
	case "":
		b.WriteString("no outcome")
	default:
		fmt.Fprintf(&b, "the outcome %q", o.Outcome)
	}
	switch {
	case o.Index != nil && o.Value != nil:
		fmt.Fprintf(&b, " with choice %d (%s)", *o.Index, show(o.Value))
	case o.Index != nil:
		fmt.Fprintf(&b, " with choice %d", *o.Index)
	case o.Value != nil:
		fmt.Fprintf(&b, " with the value %s", show(o.Value))
	case o.Content != nil:
		fmt.Fprintf(&b, " with the content %s", show(o.Content))
	}
	if o.Outcome != probe.OutcomeError && o.Error != "" {
		fmt.Fprintf(&b, ", error %q", o.Error)
	}
	var details []string
	if o.Code != nil {
		details = append(details, fmt.Sprintf("code %d", *o.Code))
	}
	if o.Message != "" {
		details = append(details, fmt.Sprintf("message %q", o.Message))
	}
	if o.Data != nil {
		details = append(details, "data "+show(o.Data))
	}
	if len(details) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(details, ", "))
	}
	switch {
	case len(o.Warnings) > 0:
		fmt.Fprintf(&b, " with warnings %q", o.Warnings)
	case o.Warnings != nil:
		b.WriteString(" with no warnings")
	}
	return b.String()
}

// Outcomes the checks expect.
func accepted(index int, value any) probe.Outcome {
	return probe.Outcome{Outcome: probe.OutcomeAccepted, Index: &index, Value: json.RawMessage(mustJSON(value))}
}

func failedWith(kind string) probe.Outcome {
	return probe.Outcome{Outcome: probe.OutcomeError, Error: kind}
}

func requestError(code int, data any) probe.Outcome {
	o := probe.Outcome{Outcome: probe.OutcomeError, Error: probe.ErrorRequest, Code: &code}
	if data != nil {
		o.Data = json.RawMessage(mustJSON(data))
	}
	return o
}

var (
	declined        = probe.Outcome{Outcome: probe.OutcomeDeclined}
	cancelled       = probe.Outcome{Outcome: probe.OutcomeCancelled}
	invalidResponse = failedWith(probe.ErrorInvalidResponse)
	invalidFallback = failedWith(probe.ErrorInvalidFallback)
	unsupported     = failedWith(probe.ErrorUnsupported)
	noWarnings      = []string{}
)
