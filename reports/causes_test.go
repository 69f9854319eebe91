package reports_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/reports"
)

// traceback is the last words of an agent that crashes on every prompt.
const traceback = `Traceback (most recent call last):
  File "/srv/agent/main.py", line 88, in handle_prompt
    result = model.complete(prompt)
  File "/srv/agent/model.py", line 12, in complete
    raise RuntimeError("model backend unavailable")
RuntimeError: model backend unavailable`

// crashRun is a run of n checks against an agent that crashes on every
// prompt, as FromGinkgo reads it: each check's process exits with status
// 1 and the same traceback, and each reason says, in the words of what
// the check was waiting for, that the connection ended.
func crashRun(n int) reports.Run {
	areas := []string{"SCH", "VAL", "TOK", "CAP", "FB"}
	waits := []string{
		"the agent reported no outcome for the probe request",
		"session/prompt failed",
		"waiting for the elicitation/create failed: waiting for elicitation/create #1",
		"the prompt turn cancelled while its fallback waited an hour failed",
	}
	r := reports.Run{Subject: "agent command ./crashy", Seconds: 5}
	for i := range n {
		area := areas[i%len(areas)]
		rule := fmt.Sprintf("%s-%d", area, 1+i%6)
		failure := waits[i%len(waits)] + ": the connection ended before the answer: the subject closed it (end of file)"
		if i%len(waits) == 0 {
			failure += fmt.Sprintf("\nthe probe request: {\"acpconform\":1,\"op\":\"ask_choice\",\"question\":\"Question %d?\",\"choices\":[%s]}",
				i, strings.Repeat(`{"value":"v","label":"L"},`, 1+i%4))
		}
		r.Checks = append(r.Checks, reports.Check{
			ID: fmt.Sprintf("%s/check-%03d", rule, i), Name: fmt.Sprintf("%s: a check number %d", area, i), Area: area,
			Rules: []string{rule}, Level: "MUST", Role: "agent", State: reports.StateFailed,
			Failure: failure, Process: "exited with status 1 during the check",
			Diagnostics: fmt.Sprintf("agent pid %d: started, serving session sess_%x\n", 4000+i, 0xabc00+i) + traceback + "\n",
			Transcript:  fmt.Sprintf("+0.0001s -> {\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"session/prompt\",\"params\":{}}\n+0.0249s <-  (closed: EOF)", 3+i%2),
		})
	}
	reports.Decide(&r, nil, "", false)
	return r
}

// TestCrashOnEveryPromptIsOneCause: 160 checks that an agent's crash on
// every prompt failed are one cause, whose traceback summary.md shows
// once, listing the 160; report.json and junit.xml keep a check each,
// with its own failure, and report.json names their one cause.
func TestCrashOnEveryPromptIsOneCause(t *testing.T) {
	r := crashRun(160)
	causes := reports.Causes(r.Checks)
	if len(causes) != 1 || len(causes[0].Checks) != 160 {
		sizes := []int{}
		for _, c := range causes {
			sizes = append(sizes, len(c.Checks))
		}
		t.Fatalf("%d causes of %v checks, want 1 of 160", len(causes), sizes)
	}
	if causes[0].Note() != "" {
		t.Errorf("a crash, no timeout, has the note %q", causes[0].Note())
	}

	var md bytes.Buffer
	if err := reports.WriteMarkdown(&md, r, nil); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(md.String(), "RuntimeError: model backend unavailable"); n != 1 {
		t.Errorf("summary.md has the traceback %d times, want once:\n%.3000s", n, md.String())
	}
	if n := strings.Count(md.String(), "**FAILED**"); n != 1 {
		t.Errorf("summary.md has %d FAILED blocks, want 1", n)
	}
	if !strings.Contains(md.String(), "The same cause failed 160 checks") {
		t.Errorf("summary.md does not say how many checks the cause failed:\n%.3000s", md.String())
	}
	for _, c := range r.Checks {
		if want := "- " + c.Label("`") + "\n"; strings.Count(md.String(), want) != 1 {
			t.Errorf("summary.md lists %q %d times, want once", want, strings.Count(md.String(), want))
		}
	}
	if lines := strings.Count(md.String(), "\n"); lines > 250 {
		t.Errorf("summary.md has %d lines for one cause of 160 checks", lines)
	}

	var js bytes.Buffer
	if err := reports.WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Checks []struct {
			ID, Failure, Cause, Follows string
		} `json:"checks"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Checks) != 160 {
		t.Fatalf("report.json has %d checks, want 160", len(doc.Checks))
	}
	for i, c := range doc.Checks {
		if c.Cause != r.Checks[0].ID || c.Failure != r.Checks[i].Failure || c.Follows != "" {
			t.Errorf("report.json check %s: cause %q, follows %q, failure %q; want cause %s and its own failure", c.ID, c.Cause, c.Follows, c.Failure, r.Checks[0].ID)
		}
	}
	if back, err := reports.ReadJSON(bytes.NewReader(js.Bytes())); err != nil || len(back.Checks) != 160 {
		t.Errorf("ReadJSON of a report with causes: %d checks, %v", len(back.Checks), err)
	}

	var x bytes.Buffer
	if err := reports.WriteJUnit(&x, r); err != nil {
		t.Fatal(err)
	}
	var suites struct {
		Cases []struct {
			Name    string `xml:"name,attr"`
			Failure struct {
				Body string `xml:",chardata"`
			} `xml:"failure"`
		} `xml:"testsuite>testcase"`
	}
	if err := xml.Unmarshal(x.Bytes(), &suites); err != nil {
		t.Fatal(err)
	}
	if len(suites.Cases) != 160 {
		t.Fatalf("junit.xml has %d testcases, want 160", len(suites.Cases))
	}
	for i, c := range suites.Cases {
		if !strings.HasPrefix(c.Name, r.Checks[i].ID+": ") || !strings.Contains(c.Failure.Body, r.Checks[i].Failure) {
			t.Errorf("junit.xml testcase %q lacks its own failure %q", c.Name, r.Checks[i].Failure)
		}
	}
}

// failing is a failed check of rule, with the failure given.
func failing(id, failure string) reports.Check {
	rule, _, _ := strings.Cut(id, "/")
	area, _, _ := strings.Cut(rule, "-")
	return reports.Check{ID: id, Name: area + ": " + id, Area: area, Rules: []string{rule}, Level: "MUST", Role: "agent", State: reports.StateFailed, Failure: failure}
}

// causeIDs is the IDs of each cause's checks.
func causeIDs(causes []reports.Cause) [][]string {
	var out [][]string
	for _, c := range causes {
		var ids []string
		for _, ch := range c.Checks {
			ids = append(ids, ch.Key())
		}
		out = append(out, ids)
	}
	return out
}

// TestDifferentCausesAreBlocksOfTheirOwn: failures that read the same but
// for ids, values and durations are one cause; different words, error
// codes, kinds (known or new), subjects or last words are not.
func TestDifferentCausesAreBlocksOfTheirOwn(t *testing.T) {
	cli := func(subject, id, failure string) reports.Check {
		c := failing(id, failure)
		c.Role, c.Name = "client", subject+" "+c.Name
		return c
	}
	died := func(c reports.Check, how, stderr string) reports.Check {
		c.Process, c.Diagnostics = how+" during the check", stderr
		return c
	}
	checks := []reports.Check{
		failing("TOK-2/leading-zero", `the agent reported accepted choice 1 ("production"), want an invalid_response error`),
		failing("RTE-1/method-not-found", "the agent reported error request_error (code -32601, message \"Method not found\"), want unsupported"),
		failing("TOK-2/two-zeros", `the agent reported accepted choice 0 ("preview"), want an invalid_response error`),
		failing("RTE-2/code-32602", "the agent reported error request_error (code -32602, message \"Invalid params\"), want unsupported"),
		failing("FB-4/value-not-offered", `the agent reported accepted choice 0 ("preview"), want error invalid_fallback`),
		failing("CAP-3/declines", `the agent reported accepted choice 1 ("production"), want an invalid_response error`),
		cli("reference client (in-process)", "CLI-1/refuses", "the client answered -32601, want -32602"),
		cli("reference client without form elicitation (in-process)", "CLI-1/refuses", "the client answered -32601, want -32602"),
		died(failing("SES-1/a", "session/prompt failed: the connection ended before the answer: the subject closed it (end of file)"), "exited with status 1", traceback),
		died(failing("SES-1/b", "session/new failed: the connection ended before the answer: the subject closed it (end of file)"), "exited with status 1", traceback),
		died(failing("SES-1/c", "session/new failed: the connection ended before the answer: the subject closed it (end of file)"), "was killed by signal SIGSEGV (segmentation fault)", ""),
		died(failing("SES-1/d", "session/new failed: the connection ended before the answer: the subject closed it (end of file)"), "exited with status 1", "panic: index out of range"),
		// an agent that exits after every turn fails in words of its own
		died(failing("TOK-1/x", `the agent reported accepted choice 1 ("b"), want choice 0 ("a")`), "exited with status 0", ""),
		died(failing("TOK-1/y", `the agent reported accepted choice 0 ("a"), want declined`), "exited with status 0", ""),
	}
	checks[5].Known = "we accept choice_01 until 2.0"
	r := reports.Run{Subject: "s", Checks: checks}
	got := causeIDs(reports.Causes(r.Checks))
	want := [][]string{
		{"TOK-2/leading-zero", "TOK-2/two-zeros"},
		{"RTE-1/method-not-found"},
		{"RTE-2/code-32602"},
		{"FB-4/value-not-offered"},
		{"CAP-3/declines"},
		{"CLI-1/refuses"},
		{"CLI-1/refuses"},
		{"SES-1/a", "SES-1/b"},
		{"SES-1/c"},
		{"SES-1/d"},
		{"TOK-1/x"},
		{"TOK-1/y"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("causes\n%v\nwant\n%v", got, want)
	}

	two := reports.Run{Subject: "s", Checks: []reports.Check{checks[0], checks[1], checks[2]}}
	var md bytes.Buffer
	if err := reports.WriteMarkdown(&md, two, nil); err != nil {
		t.Fatal(err)
	}
	s := md.String()
	if n := strings.Count(s, "**FAILED**"); n != 2 {
		t.Errorf("summary.md has %d FAILED blocks, want 2:\n%s", n, s)
	}
	for _, want := range []string{
		"**FAILED** `TOK-2/leading-zero` (TOK-2 MUST): TOK: TOK-2/leading-zero",
		"The same cause failed 2 checks",
		"- `TOK-2/leading-zero` (TOK-2 MUST)\n- `TOK-2/two-zeros` (TOK-2 MUST)\n",
		"**FAILED** `RTE-1/method-not-found` (RTE-1 MUST)",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("summary.md lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "- `RTE-1/method-not-found`") {
		t.Errorf("summary.md lists the checks of a cause of one check:\n%s", s)
	}
}

// TestTimeoutFollowsAnError: a timeout on a subject that showed an error
// earlier in the run says which, the most recent one: a JSON-RPC error
// code in a reason, a process that died, an error answer in a
// transcript; every timeout a -32601 caused names the -32601; other
// subjects' errors, and errors the harness itself sent, are not named.
// A relay or a client starts afresh for each check, so its timeouts name
// only what their own transcript shows, never another check's error.
func TestTimeoutFollowsAnError(t *testing.T) {
	relay := func(id, failure string) reports.Check {
		c := failing(id, failure)
		c.Role = "relay"
		return c
	}
	const refused = "the relay answered elicitation/create with -32601 itself: its client-facing connection has not opted into the unstable elicitation route"
	rel := func(id, n, ids string) reports.Check {
		c := relay(id, "the client did not receive the agent's "+n+"elicitation/create requests within 5s; it received "+ids)
		// Its own relay refused the agent's request too.
		c.Transcript = "agent side:\n+0.0001s -> {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"elicitation/create\",\"params\":{}}\n" +
			"+0.0002s <- {\"jsonrpc\":\"2.0\",\"id\":0,\"error\":{\"code\":-32601,\"message\":\"Method not found\"}}"
		return c
	}
	checks := []reports.Check{
		relay("REL-4/no-error", "the relay sent a frame of 3 bytes, want none"),
		relay("RTE-5/relays-elicitation-and-answer", refused),
		rel("REL-1/ids-mapped-back", "3 ", "answer id 0, answer id 1"),
		rel("REL-3/concurrent-both-ways", "4 ", "answer id 0, answer id 2, answer id 1"),
		failing("TOK-1/slow", "session/prompt: no answer within 5s (context deadline exceeded)"), // the agent showed no error
	}
	r := reports.Run{Subject: "s", Checks: checks}
	causes := reports.Causes(r.Checks)
	if got := causeIDs(causes); fmt.Sprint(got) != "[[REL-4/no-error] [RTE-5/relays-elicitation-and-answer] [REL-1/ids-mapped-back REL-3/concurrent-both-ways] [TOK-1/slow]]" {
		t.Fatalf("causes %v", got)
	}
	want := `this timeout follows an error already seen: elicitation/create answered with error -32601 "Method not found" (earlier in this check)`
	if got := causes[2].Note(); got != want {
		t.Errorf("the note of the timeouts after the -32601:\n%s\nwant\n%s", got, want)
	}
	for _, i := range []int{0, 1, 3} {
		if n := causes[i].Note(); n != "" {
			t.Errorf("%s has the note %q", causes[i].Name(), n)
		}
	}
	var md bytes.Buffer
	if err := reports.WriteMarkdown(&md, r, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "\n"+want+"\n") {
		t.Errorf("summary.md lacks the note %q:\n%s", want, md.String())
	}
	var js bytes.Buffer
	if err := reports.WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js.String(), `"follows": "elicitation/create answered with error -32601 \"Method not found\" (earlier in this check)"`) ||
		strings.Contains(js.String(), `(in RTE-5/relays-elicitation-and-answer)`) {
		t.Errorf("report.json lacks what the timeouts follow:\n%s", js.String())
	}

	// The most recent error of the subject: a process that died, after a
	// -32601; then a transcript's error answer; none the harness sent.
	died := failing("TOK-2/died", "session/prompt failed: the connection ended before the answer: the subject closed it (end of file)")
	died.Process = "was killed by signal SIGSEGV (segmentation fault) during the check"
	answered := failing("TOK-3/answered", "the agent reported no outcome, want declined")
	answered.Transcript = "+0.0001s -> {\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"session/prompt\",\"params\":{}}\n" +
		"+0.0002s <- {\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32603,\"message\":\"boom\\u001b[2J\"}}"
	relayed := failing("TOK-4/relayed", "the agent reported no outcome, want declined")
	relayed.Transcript = "+0.0001s -> {\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32000,\"message\":\"scripted\"}}\n" +
		"+0.0002s <- {\"jsonrpc\":\"2.0\",\"id\":9,\"error\":{\"code\":-32000,\"message\":\"scripted\"}}"
	timeout := failing("RES-1/late", "the agent did not end the prompt turn within 5s of session/cancel")
	for _, tc := range []struct {
		checks []reports.Check
		want   string
	}{
		{[]reports.Check{failing("RTE-1/x", "the agent reported error request_error (code -32601), want unsupported"), died, timeout},
			"the subject's process was killed by signal SIGSEGV (segmentation fault) during the check (in TOK-2/died)"},
		{[]reports.Check{died, answered, timeout}, `session/prompt answered with error -32603 "boom\x1b[2J" (in TOK-3/answered)`},
		{[]reports.Check{answered, relayed, timeout}, `session/prompt answered with error -32603 "boom\x1b[2J" (in TOK-3/answered)`},
		{[]reports.Check{relayed, timeout}, ""},
		{[]reports.Check{timeout, died}, ""}, // not earlier
	} {
		causes := reports.Causes(tc.checks)
		got := ""
		for _, c := range causes {
			if c.Name() == "RES-1/late" {
				got = c.Follows
			}
		}
		if got != tc.want {
			t.Errorf("%v: the timeout follows %q, want %q", causeIDs(causes), got, tc.want)
		}
	}
}

// TestACauseStaysBounded: what a subject wrote is as bounded in a cause's
// block as in a check's: its reason, its stderr, its transcript.
func TestACauseStaysBounded(t *testing.T) {
	r := crashRun(40)
	huge := strings.Repeat("x", 1<<20)
	for i := range r.Checks {
		r.Checks[i].Failure = "the agent reported no outcome: " + huge + ": the subject closed it (end of file)"
		r.Checks[i].Diagnostics = huge + "\n" + traceback + huge
		r.Checks[i].Transcript = "+0.1s <- " + huge
	}
	if n := len(reports.Causes(r.Checks)); n != 1 {
		t.Fatalf("%d causes, want 1", n)
	}
	var md bytes.Buffer
	if err := reports.WriteMarkdown(&md, r, nil); err != nil {
		t.Fatal(err)
	}
	if md.Len() > 64<<10 {
		t.Errorf("summary.md of one cause is %d bytes", md.Len())
	}
	for _, line := range strings.Split(md.String(), "\n") {
		if len(line) > 1100 {
			t.Errorf("a summary.md line of %d bytes: %.100s", len(line), line)
		}
	}
	if !strings.Contains(md.String(), "bytes in all]") {
		t.Error("summary.md does not say how much it cut")
	}
}

// TestACheckThatCouldNotRunIsACauseApart: a check whose subject did not
// start is shown with the failures, under a cause of its own even where
// its reason reads like a failure's.
func TestACheckThatCouldNotRunIsACauseApart(t *testing.T) {
	reason := "agent command ./slow did not start in time: initialize failed: initialize: no answer within 30s"
	checks := []reports.Check{
		{ID: "CAP-2/form-null", Area: "CAP", Rules: []string{"CAP-2"}, Level: "MUST", State: reports.StateError, Failure: reason},
		{ID: "CAP-2/url-alone", Area: "CAP", Rules: []string{"CAP-2"}, Level: "MUST", State: reports.StateError, Failure: reason},
		{ID: "TOK-1/choice-0", Area: "TOK", Rules: []string{"TOK-1"}, Level: "MUST", State: reports.StateFailed, Failure: reason},
		{ID: "TOK-1/choice-1", Area: "TOK", Rules: []string{"TOK-1"}, Level: "MUST", State: reports.StatePassed},
	}
	causes := reports.Causes(checks)
	if len(causes) != 2 || len(causes[0].Checks) != 2 || causes[0].Checks[0].State != reports.StateError || causes[1].Checks[0].ID != "TOK-1/choice-0" {
		t.Fatalf("causes %+v, want the two errors as one cause and the failure as another", causes)
	}
	var md bytes.Buffer
	run := reports.Run{Subject: "agent command ./slow", Checks: checks}
	reports.Decide(&run, nil, "", false)
	if err := reports.WriteMarkdown(&md, run, []string{"CAP", "TOK"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "**COULD NOT RUN** `CAP-2/form-null`") {
		t.Errorf("summary.md does not show the checks that could not run:\n%s", md.String())
	}
}

// TestACauseListsTheSubjectsDifferentMessages: TOK-2 failures of one shape
// whose quoted error messages are of two forms (Python's int() on most
// tokens, its 4300-digit limit on the longest) stay one cause, and its
// block lists one message of each form, so that both fixes are seen at
// once; a cause whose checks quote one form lists none.
func TestACauseListsTheSubjectsDifferentMessages(t *testing.T) {
	msg := func(token, said string) reports.Check {
		return reports.Check{ID: "TOK-2/" + token, Name: token, Area: "TOK", Rules: []string{"TOK-2"}, Level: "MUST", Role: "agent", State: reports.StateFailed,
			Failure: fmt.Sprintf(`the agent reported an error for the accept of %q, want invalid_response: "ValueError: %s"`, token, said)}
	}
	checks := []reports.Check{
		msg("choice_01", "invalid literal for int() with base 10: '01'"),
		msg("choice_x", "invalid literal for int() with base 10: 'x'"),
		msg("choice_5000", "Exceeds the limit (4300 digits) for integer string conversion: value has 5000 digits"),
		msg("choice_+1", "invalid literal for int() with base 10: '+1'"),
	}
	causes := reports.Causes(checks)
	if len(causes) != 1 {
		t.Fatalf("%d causes, want the one", len(causes))
	}
	got := causes[0].Messages()
	if len(got) != 2 || !strings.Contains(got[0], "invalid literal for int()") || !strings.Contains(got[1], "Exceeds the limit (4300 digits)") {
		t.Errorf("Messages = %q, want one of each form", got)
	}
	var md bytes.Buffer
	if err := reports.WriteMarkdown(&md, reports.Run{Subject: "agent", Verdict: reports.NotConformant, Checks: checks}, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "Exceeds the limit (4300 digits)") {
		t.Errorf("summary.md does not show the second form:\n%s", md.String())
	}
	if one := reports.Causes(checks[:2]); one[0].Messages() != nil {
		t.Errorf("one form: Messages = %q, want none", one[0].Messages())
	}
}

// TestACauseQuotesWhatTheSubjectSaid: where a reason quotes both what the
// check wanted and what the subject said, the cause lists what it said.
func TestACauseQuotesWhatTheSubjectSaid(t *testing.T) {
	said := func(id, got string) reports.Check {
		return reports.Check{ID: "CLI-2/" + id, Name: id, Area: "CLI", Rules: []string{"CLI-2"}, Level: "MUST", Role: "client", State: reports.StateFailed,
			Failure: fmt.Sprintf("the client answered %q, want \"choice_1\"\n-want +got:\n- token: \"choice_1\"", got)}
	}
	causes := reports.Causes([]reports.Check{said("a", "Choice_1"), said("b", "choice 1")})
	got := causes[0].Messages()
	if len(got) != 2 || got[0] != `"Choice_1"` || got[1] != `"choice 1"` {
		t.Errorf("Messages = %q, want what the client said, each once", got)
	}
}
