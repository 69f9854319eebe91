package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/reports"
)

// crashTraceback is the last words of an agent that crashes on every
// prompt.
const crashTraceback = `Traceback (most recent call last):
  File "/srv/agent/main.py", line 88, in handle_prompt
    raise RuntimeError("model backend unavailable")
RuntimeError: model backend unavailable`

// crashChecks are n checks that an agent's crash on every prompt failed,
// each in the words of what it was waiting for.
func crashChecks(n int) []reports.Check {
	areas := []string{"SCH", "TOK", "CAP", "FB"}
	var checks []reports.Check
	for i := range n {
		area := areas[i%len(areas)]
		rule := fmt.Sprintf("%s-%d", area, 1+i%5)
		failure := "session/prompt failed: the connection ended before the answer: the subject closed it (end of file)"
		if i%2 == 0 {
			failure = fmt.Sprintf("the agent reported no outcome for the probe request: the connection ended before the answer: the subject closed it (end of file)\nthe probe request: {\"question\":\"Q%d\"}", i)
		}
		checks = append(checks, reports.Check{
			ID: fmt.Sprintf("%s/c%03d", rule, i), Name: fmt.Sprintf("%s: check %d", area, i), Area: area, Rules: []string{rule},
			Level: "MUST", Role: "agent", State: reports.StateFailed, Failure: failure,
			Process: "exited with status 1 during the check", Diagnostics: fmt.Sprintf("pid %d up\n%s\n", 100+i, crashTraceback),
		})
	}
	return checks
}

// printed is what the terminal shows of run, as acpconform agent -- ./crashy
// prints it.
func printed(t *testing.T, run reports.Run, baseline *reports.Baseline) string {
	t.Helper()
	reports.Decide(&run, baseline, "", false)
	var out, errs bytes.Buffer
	c := &checking{cmd: "agent", again: []string{"acpconform", "agent", "--check", "{check}", "-v", "--", "./crashy"},
		f: &checkFlags{}, baseline: baseline, stdout: &out, stderr: &errs}
	for i := range run.Checks { // as finish does, before it prints
		run.Checks[i].Again = c.againLine(run.Checks[i])
	}
	c.print(run, nil, false)
	return out.String()
}

// TestTerminalPrintsACauseOnce: 160 checks a crash on every prompt failed
// are one FAILED block in the terminal, the traceback once, then the 160,
// each with the command that runs it again.
func TestTerminalPrintsACauseOnce(t *testing.T) {
	run := reports.Run{Subject: "agent command ./crashy", Checks: crashChecks(160)}
	out := printed(t, run, nil)
	if n := strings.Count(out, "RuntimeError: model backend unavailable"); n != 1 {
		t.Errorf("the traceback is in the terminal %d times, want once:\n%.3000s", n, out)
	}
	if n := len(regexp.MustCompile(`(?m)^FAILED `).FindAllString(out, -1)); n != 1 {
		t.Errorf("%d FAILED blocks, want 1:\n%.3000s", n, out)
	}
	for _, want := range []string{
		"FAILED SCH-1/c000 (SCH-1 MUST): SCH: check 0\n  the agent reported no outcome for the probe request: ",
		"  the subject's process exited with status 1 during the check\n  its stderr ends:\n",
		"  the same cause failed 160 checks; the command after each runs it again (the reports have each one's failure):\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the terminal lacks %q:\n%.3000s", want, out)
		}
	}
	for _, c := range run.Checks {
		want := fmt.Sprintf("\n    %s (%s MUST): acpconform agent --check %s -v -- ./crashy\n", c.ID, c.Rules[0], c.ID)
		if n := strings.Count(out, want); n != 1 {
			t.Errorf("the terminal lists %q %d times, want once", strings.TrimSpace(want), n)
		}
	}
	if lines := strings.Count(out, "\n"); lines > 160+20 {
		t.Errorf("%d lines for one cause of 160 checks:\n%.3000s", lines, out)
	}
}

// TestTerminalKeepsCausesApart: different causes are blocks of their own,
// known failures apart from new ones; a cause of one check prints as a
// check did; a timeout after an error says so.
func TestTerminalKeepsCausesApart(t *testing.T) {
	checks := crashChecks(4)
	checks = append(checks,
		reports.Check{ID: "TOK-2/leading-zero", Name: "TOK: leading zero", Area: "TOK", Rules: []string{"TOK-2"}, Level: "MUST", Role: "agent", State: reports.StateFailed,
			Failure: `the agent reported accepted choice 1 ("production"), want an invalid_response error`},
		reports.Check{ID: "TOK-2/two-zeros", Name: "TOK: two zeros", Area: "TOK", Rules: []string{"TOK-2"}, Level: "MUST", Role: "agent", State: reports.StateFailed,
			Failure: `the agent reported accepted choice 0 ("preview"), want an invalid_response error`},
		reports.Check{ID: "RTE-1/method-not-found", Name: "RTE: -32601", Area: "RTE", Rules: []string{"RTE-1"}, Level: "MUST", Role: "agent", State: reports.StateFailed,
			Failure: `the agent reported error request_error (code -32601), want unsupported`},
		reports.Check{ID: "FB-2/late", Name: "FB: late", Area: "FB", Rules: []string{"FB-2"}, Level: "MUST", Role: "agent", State: reports.StateFailed,
			Failure: "AskChoice did not run the fallback within 5s"},
	)
	file := filepath.Join(t.TempDir(), "baseline.yaml")
	if err := os.WriteFile(file, []byte("known:\n  - check: TOK-2/two-zeros\n    reason: \"issue 123\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	baseline, err := reports.LoadBaseline(file)
	if err != nil {
		t.Fatal(err)
	}
	out := printed(t, reports.Run{Subject: "agent command ./crashy", Checks: checks}, baseline)
	blocks := regexp.MustCompile(`(?m)^(FAILED|KNOWN) \S+`).FindAllString(out, -1)
	if want := "[FAILED SCH-1/c000 FAILED TOK-2/leading-zero KNOWN TOK-2/two-zeros FAILED RTE-1/method-not-found FAILED FB-2/late]"; fmt.Sprint(blocks) != want {
		t.Errorf("blocks %v, want %s:\n%s", blocks, want, out)
	}
	for _, want := range []string{
		"FAILED TOK-2/leading-zero (TOK-2 MUST): TOK: leading zero\n  the agent reported accepted choice 1 (\"production\"), want an invalid_response error\n" +
			"  run it again: acpconform agent --check TOK-2/leading-zero -v -- ./crashy\n  the rule:     acpconform explain TOK-2\n",
		"KNOWN TOK-2/two-zeros (TOK-2 MUST): TOK: two zeros\n  known failure: issue 123\n",
		"  AskChoice did not run the fallback within 5s\n  this timeout follows an error already seen: the agent reported error request_error (code -32601), want unsupported (in RTE-1/method-not-found)\n",
		"  the same cause failed 4 checks;",
		"  7 new failures of MUST checks: above, by cause\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the terminal lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "new failure: ") {
		t.Errorf("the terminal lists the new failures again:\n%s", out)
	}
}
