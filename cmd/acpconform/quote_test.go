package main

import (
	"strings"
	"testing"
)

// TestTOK2FailureQuotesTheToken: an agent that takes choice_01 for
// choice_1 fails TOK-2/leading-zero with a reason that says the token
// the client sent, and a diff with no member the agent's outcome lacked
// shown as a zero value.
func TestTOK2FailureQuotesTheToken(t *testing.T) {
	t.Parallel()
	_, mut := binaries(t)
	r := acpconform(t, nil, "agent", "--check", "TOK-2/leading-zero", "--", mut, "reference-agent")
	expectCode(t, r, 1)
	for _, c := range r.report.Checks {
		if c.ID != "TOK-2/leading-zero" {
			continue
		}
		if want := `the client answered elicitation/create with {"action":"accept","content":{"choice":"choice_01"}}`; !strings.Contains(c.Failure, want) {
			t.Errorf("the failure of TOK-2/leading-zero does not quote the token sent (%s):\n%s", want, c.Failure)
		}
		if strings.Contains(c.Failure, `error: ""`) || !strings.Contains(c.Failure, "+ error: absent") {
			t.Errorf("the failure's diff shows the error the outcome lacked as other than absent:\n%s", c.Failure)
		}
		if !strings.Contains(r.stdout, "choice_01") {
			t.Errorf("the terminal does not quote the token:\n%s", r.stdout)
		}
		return
	}
	t.Errorf("no TOK-2/leading-zero in the report: %+v", r.report.Checks)
}
