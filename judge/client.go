package judge

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/acpconform/acpconform/internal/elide"
	"github.com/acpconform/acpconform/trace"

	"github.com/acpconform/acpconform/mocks/agent"
	"github.com/acpconform/acpconform/mocks/peer"
	"github.com/acpconform/acpconform/mocks/script"
)

// answerChecks are the checks of a client's answer, by the rule that
// leads agent.Check's problems.
var answerChecks = map[string]string{
	"CLI-1": "CLI-1/trace-advertised-form-handled",
	"CLI-2": "CLI-2/trace-offered-choice-once",
	"ELI-4": "ELI-4/trace-form-answer-valid",
	"ELI-5": "ELI-5/trace-url-answer-valid",
	"ELI-8": "ELI-8/trace-content-conforms",
}

// clientAnswers judges the client's answer f to the elicitation/create r,
// with agent.Check, the live checks' own reading of an answer.
func (w *walk) clientAnswers(r *request, f Frame, m peer.Message, second bool) {
	if second {
		w.note("CLI-2/trace-offered-choice-once", fmt.Sprintf("the client answered the elicitation/create %s a second time: %s", r.msg.ID, quote(f)), r.frame, f)
		return
	}
	mode := modeOf(r.msg.Params)
	if (mode == "form" || mode == "url") && !script.Advertises(r.asked.Caps, mode) {
		check := "CLI-4/trace-unadvertised-form-refused"
		if mode == "url" {
			check = "ELI-6/trace-unadvertised-url-refused"
		}
		problem := ""
		if m.Error == nil || m.Error.Code != -32602 {
			problem = fmt.Sprintf("the client, whose initialize advertised %s, answered a %s request with %s, where the schema says -32602: %s", advertised(r.asked.Caps), mode, answerOf(m), quote(f))
		}
		w.note(check, problem, r.frame, f)
	}
	byRule := map[string][]string{}
	for _, p := range agent.Check(r.asked, m) {
		rule, _, _ := strings.Cut(p, ":")
		byRule[rule] = append(byRule[rule], p)
	}
	var exercised []string
	switch r.kind {
	case "choice":
		exercised = []string{"CLI-1", "CLI-2", "ELI-8"}
	case "form":
		exercised = []string{"ELI-4", "ELI-8"}
	case "url":
		exercised = []string{"ELI-5", "ELI-8"}
	}
	for rule, ps := range byRule { // a problem of a rule the kind does not exercise still counts
		if len(ps) > 0 && !slices.Contains(exercised, rule) {
			exercised = append(exercised, rule)
		}
	}
	for _, rule := range exercised {
		if check, ok := answerChecks[rule]; ok {
			w.note(check, problems(byRule[rule], f), r.frame, f)
		}
	}
}

// answerOf says what an answer is.
func answerOf(m peer.Message) string {
	if m.Error != nil {
		return m.Error.Error()
	}
	return "the result " + show(m.Result)
}

// untilTheRecordEnds is the window of what is owed with no time bound:
// what the record ends before is not exercised.
const untilTheRecordEnds = 24 * time.Hour

// completed takes the agent's elicitation/complete f: a client takes it
// and goes on (ELI-5), so its side must not end before the turns pending
// now end.
func (w *walk) completed(f Frame) {
	for _, p := range w.pending {
		if w.full() {
			break
		}
		if p.frame.From != trace.Client || p.msg.Method != "session/prompt" || p.answered {
			continue
		}
		prompt := key(trace.Client, p.msg.ID)
		w.owe(&obligation{check: "ELI-5/trace-complete-taken", cause: f, within: untilTheRecordEnds,
			met: func(g seen) bool { return g.answers == prompt },
			broken: func(g seen) string {
				if !g.Ended || g.From != trace.Client {
					return ""
				}
				return fmt.Sprintf("the client's side ended (%s) after %s, before its turn (session/prompt %s) ended: a client takes elicitation/complete, known or not, and goes on", strconv.Quote(elide.Head(g.Why, 200)), describe(f), p.msg.ID)
			}})
	}
}
