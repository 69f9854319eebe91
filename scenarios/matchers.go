package scenarios

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/onsi/gomega/gcustom"
	"github.com/onsi/gomega/types"

	"github.com/acpconform/acpconform/mocks/script"
	"github.com/acpconform/acpconform/probe"
)

// BeOutcome matches a probe outcome that has every field want sets; fields
// want leaves out are not compared. Its failure lists every mismatch.
func BeOutcome(want probe.Outcome) types.GomegaMatcher {
	return &outcomeMatcher{want: script.Outcome(want)}
}

type outcomeMatcher struct {
	want     script.Outcome
	problems []string
}

func (m *outcomeMatcher) Match(actual any) (bool, error) {
	got, ok := actual.(probe.Outcome)
	if !ok {
		return false, fmt.Errorf("BeOutcome expects a probe.Outcome, not %T", actual)
	}
	m.problems = m.want.Check(got)
	return len(m.problems) == 0, nil
}

func (m *outcomeMatcher) FailureMessage(actual any) string {
	return fmt.Sprintf("the subject reported %s, but\n  %s", mustJSON(actual), strings.Join(m.problems, "\n  "))
}

func (m *outcomeMatcher) NegatedFailureMessage(actual any) string {
	return fmt.Sprintf("the subject reported %s, matching %s", mustJSON(actual), mustJSON(probe.Outcome(m.want)))
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

// EqualJSON matches raw JSON equal, as JSON, to want.
func EqualJSON(want string) types.GomegaMatcher {
	return gcustom.MakeMatcher(func(got json.RawMessage) (bool, error) {
		return probe.SameValue(got, json.RawMessage(want)), nil
	}).WithMessage("to equal, as JSON, " + want)
}
