package scenarios

import (
	"encoding/json"
	"fmt"
	"strings"

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

type outcomeMatcher struct {
	want probe.Outcome
	err  error
}

func (m *outcomeMatcher) Match(actual any) (bool, error) {
	got, ok := actual.(probe.Outcome)
	if !ok {
		return false, fmt.Errorf("BeOutcome expects a probe.Outcome, not %T", actual)
	}
	m.err = outcomeIs(got, m.want)
	return m.err == nil, nil
}

func (m *outcomeMatcher) FailureMessage(any) string { return m.err.Error() }

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
// values decoded, a field o lacks left out.
func outcomeFields(o, want probe.Outcome) map[string]any {
	f := map[string]any{}
	if want.Outcome != "" {
		f["outcome"] = o.Outcome
	}
	if want.Index != nil && o.Index != nil {
		f["index"] = *o.Index
	}
	if want.Value != nil && o.Value != nil {
		f["value"] = jsonOrText(o.Value)
	}
	if want.Content != nil && o.Content != nil {
		f["content"] = jsonOrText(o.Content)
	}
	if want.Error != "" {
		f["error"] = o.Error
	}
	if want.Code != nil && o.Code != nil {
		f["code"] = *o.Code
	}
	if want.Message != "" {
		f["message"] = o.Message
	}
	if want.Data != nil && o.Data != nil {
		f["data"] = jsonOrText(o.Data)
	}
	if want.Warnings != nil {
		f["warnings"] = append([]string{}, o.Warnings...) // none is none, nil or empty
	}
	return f
}

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
