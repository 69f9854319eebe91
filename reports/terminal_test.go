package reports_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/acpconform/acpconform/reports"
)

// crashTraceback is the last words of an agent that crashes on every
// prompt.
const crashTraceback = `Traceback (most recent call last):
  File "/srv/agent/main.py", line 88, in handle_prompt
    raise RuntimeError("model backend unavailable")
RuntimeError: model backend unavailable`

// crashChecks are n checks that an agent's crash on every prompt failed,
// each in the words of what it was waiting for, each with the command
// that runs it again.
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

// printed is what the terminal shows of run, as acpconform agent --
// ./crashy prints it: its summary, and what it says on stderr.
func printed(t *testing.T, run reports.Run, baseline *reports.Baseline, verbose bool) (stdout, stderr string) {
	t.Helper()
	reports.Decide(&run, baseline, "", false)
	for i, c := range run.Checks { // as the CLI does, before it prints
		if c.ID != "" && c.Again == "" {
			run.Checks[i].Again = "acpconform agent --check " + c.ID + " -v -- ./crashy"
		}
	}
	var out, errs strings.Builder
	term := reports.Terminal{Out: &out, Err: &errs, Command: "agent", Areas: []string{"SCH", "TOK", "CAP", "FB", "RTE"}, Verbose: verbose, Baseline: baseline, Width: reports.TerminalColumns}
	term.Summary(run, []string{"acpconform-reports/report.json"}, "")
	return out.String(), errs.String()
}

// TestTerminalPrintsACauseOnce: 160 checks a crash on every prompt failed
// are one FAILED block in the terminal, the traceback once, then as many
// of the 160 as fit on its screen, each with the command that runs it
// again, and how many more the reports list.
func TestTerminalPrintsACauseOnce(t *testing.T) {
	run := reports.Run{Subject: "agent command ./crashy", Checks: crashChecks(160)}
	out, _ := printed(t, run, nil, false)
	if n := strings.Count(out, "RuntimeError: model backend unavailable"); n != 1 {
		t.Errorf("the traceback is in the terminal %d times, want once:\n%.3000s", n, out)
	}
	if n := len(regexp.MustCompile(`(?m)^FAILED `).FindAllString(out, -1)); n != 1 {
		t.Errorf("%d FAILED blocks, want 1:\n%.3000s", n, out)
	}
	for _, want := range []string{
		"FAILED SCH-1/c000 (SCH-1 MUST): SCH: check 0\n  the agent reported no outcome for the probe request: ",
		"  the subject's process exited with status 1 during the check\n  its stderr ends:\n",
		"  the same cause failed 160 checks; the command after each runs it again:\n",
		"\n    SCH-1/c000 (SCH-1 MUST): acpconform agent --check SCH-1/c000 -v -- ./crashy\n",
		"\n    and 150 more: summary.md and report.json list each with its command\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the terminal lacks %q:\n%.3000s", want, out)
		}
	}
	expectOneScreen(t, out, "FAILED SCH-1/c000")
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
	baseline := loadBaseline(t, "known:\n  - check: TOK-2/two-zeros\n    reason: \"issue 123\"\n")
	out, _ := printed(t, reports.Run{Subject: "agent command ./crashy", Checks: checks}, baseline, false)
	blocks := regexp.MustCompile(`(?m)^(FAILED|KNOWN) \S+`).FindAllString(out, -1)
	if want := "[FAILED SCH-1/c000 FAILED TOK-2/leading-zero KNOWN TOK-2/two-zeros FAILED RTE-1/method-not-found FAILED FB-2/late]"; fmt.Sprint(blocks) != want {
		t.Errorf("blocks %v, want %s:\n%s", blocks, want, out)
	}
	for _, want := range []string{
		"FAILED TOK-2/leading-zero (TOK-2 MUST): TOK: leading zero\n  the agent reported accepted choice 1 (\"production\"), want an invalid_response error\n" +
			"  run it again: acpconform agent --check TOK-2/leading-zero -v -- ./crashy\n  the rule:     acpconform explain TOK-2\n",
		"KNOWN TOK-2/two-zeros (TOK-2 MUST): TOK: two zeros\n  known failure: issue 123\n",
		"  AskChoice did not run the fallback within 5s\n  this timeout follows an error already seen: the agent reported error request_error (code -32601),\n  want unsupported (in RTE-1/method-not-found)\n",
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

// TestTerminalShowsOneMistakeOnOneScreen: a check whose reason,
// transcript, stderr and process are each megabytes, of long lines and
// of many, prints at most TerminalLines lines of at most TerminalColumns
// columns, with -v too; only the commands to paste are wider. The
// reports keep the rest, and the terminal says so.
func TestTerminalShowsOneMistakeOnOneScreen(t *testing.T) {
	long := strings.Repeat("x", 1<<20)
	many := strings.Repeat("a line of its own\n", 100000)
	check := reports.Check{
		ID: "TOK-2/leading-zero", Name: "TOK: reading the answer: refuses every accept without a canonical offered token, default or not: a leading zero, " + long[:300],
		Area: "TOK", Rules: []string{"TOK-2"}, Level: "MUST", Role: "agent", State: reports.StateFailed,
		Failure:     "the agent reported accepted choice 1: " + long + "\n" + many,
		Process:     "exited with status 1 during the check: " + long,
		Rerun:       "it failed on a connection shared with earlier checks, and failed again on a fresh one (below); on the shared one: " + long,
		Diagnostics: many + long + "\n" + long,
		Transcript:  many + "+0.1s <- " + long,
	}
	for _, verbose := range []bool{false, true} {
		out, errs := printed(t, reports.Run{Subject: "agent command ./crashy", Checks: []reports.Check{check}}, nil, verbose)
		expectOneScreen(t, out, "FAILED TOK-2/leading-zero")
		if errs != "" {
			t.Errorf("a failed run says on stderr:\n%s", errs)
		}
		for _, want := range []string{"  the agent reported accepted choice 1: xxx", "more lines: the reports have them]", "  run it again: acpconform agent --check TOK-2/leading-zero -v -- ./crashy\n", "  its stderr ends:\n"} {
			if !strings.Contains(out, want) {
				t.Errorf("verbose %v: the terminal lacks %q:\n%s", verbose, want, out)
			}
		}
		if verbose != strings.Contains(out, "  its transcript, its last ") {
			t.Errorf("verbose %v: the transcript's end is shown %v:\n%s", verbose, !verbose, out)
		}
		if lines := strings.Count(out, "\n"); lines > reports.TerminalLines+4 {
			t.Errorf("verbose %v: a run of one failed check prints %d lines:\n%s", verbose, lines, out)
		}
	}
}

// expectOneScreen fails the test unless the block that starts with the
// line heading has at most TerminalLines lines, each of at most
// TerminalColumns columns but the commands to paste.
func expectOneScreen(t *testing.T, out, heading string) {
	t.Helper()
	_, block, ok := strings.Cut(out, heading)
	if !ok {
		t.Fatalf("no %q in\n%s", heading, out)
	}
	block = heading + block
	var lines []string
	for _, l := range strings.Split(block, "\n") {
		if strings.HasPrefix(l, "acpconform: ") { // the verdict: the block ended
			break
		}
		lines = append(lines, l)
	}
	if len(lines) > reports.TerminalLines {
		t.Errorf("one cause prints %d lines, more than %d:\n%s", len(lines), reports.TerminalLines, strings.Join(lines, "\n"))
	}
	for _, l := range lines {
		if n := utf8.RuneCountInString(l); n > reports.TerminalColumns && !strings.Contains(l, "acpconform agent --check ") {
			t.Errorf("a line of %d columns, more than %d: %.200s", n, reports.TerminalColumns, l)
		}
	}
}

// TestTerminalSaysWhyChecksWereSkipped: the summary lists each skip
// reason with the checks it skipped, the commonest first and bounded; a
// deselected check is not listed.
func TestTerminalSaysWhyChecksWereSkipped(t *testing.T) {
	checks := []reports.Check{{ID: "TOK-1/a", Name: "TOK: a", Area: "TOK", Rules: []string{"TOK-1"}, Level: "MUST", State: reports.StatePassed}}
	skip := func(id, reason string) reports.Check {
		return reports.Check{ID: id, Name: "x", Area: "REM", Level: "MUST", State: reports.StateSkipped, SkipReason: reason}
	}
	checks = append(checks, skip("REM-1/binary-frame", "the client speaks to its agent through acpconform bridge (stdio): its WebSocket transport is not under test"))
	for i := range 6 {
		checks = append(checks, skip(fmt.Sprintf("TOK-9/in-process-%d", i), "needs the reference's Go API\x1b[2J"))
	}
	for i := range 6 {
		checks = append(checks, skip(fmt.Sprintf("X-%d/y", i), fmt.Sprintf("reason %d", i)))
	}
	checks = append(checks, reports.Check{ID: "TOK-3/deselected", Name: "y", Area: "TOK", State: reports.StateDeselected})
	out, _ := printed(t, reports.Run{Subject: "s", Checks: checks}, nil, false)
	for _, want := range []string{
		"skipped 13 checks:\n  needs the reference's Go API\\x1b[2J\n    TOK-9/in-process-0, TOK-9/in-process-1, TOK-9/in-process-2, TOK-9/in-process-3 and 2 more\n",
		"  the client speaks to its agent through acpconform bridge (stdio): its WebSocket transport is not\n  under test\n    REM-1/binary-frame\n",
		"  and 3 more for 3 other reasons: report.json has each one's skipReason\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the terminal lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "TOK-3/deselected") {
		t.Errorf("the terminal lists a deselected check as skipped:\n%s", out)
	}
}

// TestTerminalCallsAStaleBaselineTheBaselines: a subject that passes
// every check, against a baseline that lists one of them and a check
// that does not exist, is conformant, and the verdict line says how many
// stale entries there are; the run exits 7, not 1.
func TestTerminalCallsAStaleBaselineTheBaselines(t *testing.T) {
	baseline := loadBaseline(t, "known:\n  - check: TOK-1/a\n    reason: issue 1\n  - check: TOK-1/gone\n    reason: issue 2\n")
	run := reports.Run{Subject: "my-agent", Checks: []reports.Check{{ID: "TOK-1/a", Name: "TOK: a", Area: "TOK", Rules: []string{"TOK-1"}, Level: "MUST", State: reports.StatePassed}}}
	out, _ := printed(t, run, baseline, false)
	reports.Decide(&run, baseline, "", false)
	if run.Verdict != reports.Conformant || run.ExitCode() != reports.ExitStaleBaseline || run.Stale != 2 {
		t.Errorf("%s, exit %d, %d stale; want conformant, exit %d, 2 stale", run.Verdict, run.ExitCode(), run.Stale, reports.ExitStaleBaseline)
	}
	for _, want := range []string{
		"acpconform: my-agent is conformant: 1 MUST check passed, 2 stale baseline entries to take off\n",
		":2: stale: TOK-1/a passes now; take it off the baseline\n",
		":4: TOK-1/gone names no check of this run\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the terminal lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "NOT conformant") {
		t.Errorf("a stale baseline makes the subject NOT conformant:\n%s", out)
	}
}

// TestTerminalSaysWhyARunReachedNoVerdict: a run that could not run says
// its diagnosis on stderr too, its first line whole, bounded.
func TestTerminalSaysWhyARunReachedNoVerdict(t *testing.T) {
	diagnosis := "the agent exited with status 1 before it answered initialize: " + strings.Repeat("z", 200) + "\n" + strings.Repeat("stderr line "+strings.Repeat("y", 100)+"\n", 100)
	run := reports.Run{Subject: "my-agent", Verdict: reports.CouldNotRun, Reason: "it exited", Checks: []reports.Check{reports.StartUp("my-agent", "agent", diagnosis)}}
	_, errs := printed(t, run, nil, false)
	if !strings.HasPrefix(errs, "acpconform agent: could not run: the agent exited with status 1 before it answered initialize: "+strings.Repeat("z", 200)+"\n  stderr line yyy") {
		t.Errorf("stderr:\n%.2000s", errs)
	}
	lines := strings.Split(strings.TrimSuffix(errs, "\n"), "\n")
	if len(lines) > 21 || !strings.Contains(errs, "more lines]") {
		t.Errorf("stderr is %d lines, want at most 21 saying how many more there were:\n%.2000s", len(lines), errs)
	}
	for _, l := range lines {
		if len(l) > 600 {
			t.Errorf("a line of %d bytes: %.200s", len(l), l)
		}
	}
}

func loadBaseline(t *testing.T, yaml string) *reports.Baseline {
	t.Helper()
	file := filepath.Join(t.TempDir(), "baseline.yaml")
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := reports.LoadBaseline(file)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestTerminalOffATerminalWrapsNothing: off a terminal (Width 0, a CI
// log), a failure's reason is printed line for line, so that a frame it
// quotes, copied from the log, parses as JSON; with -v each frame of the
// transcript is one line, cut only past FrameColumns, and the probe
// request, what the check asked, is whole at any length.
func TestTerminalOffATerminalWrapsNothing(t *testing.T) {
	frame := `{"jsonrpc":"2.0","id":7,"result":{"action":"accept","content":{"Languages":"choice_1","note":"` + strings.Repeat("word ", 60) + `"}}}`
	probe := `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"` + strings.Repeat("q", 2*reports.FrameColumns) + `"}]}}`
	long := `{"jsonrpc":"2.0","method":"session/update","params":{"text":"` + strings.Repeat("u", 2*reports.FrameColumns) + `"}}`
	check := reports.Check{
		ID: "CLI-2/accept-the-second-option", Name: "CLI: the client answers " + strings.Repeat("with care ", 20),
		Area: "CLI", Rules: []string{"CLI-2"}, Level: "MUST", Role: "client", State: reports.StateFailed,
		Failure:    "the answer " + frame + " has no member \"action\"",
		Transcript: "+0.1s -> " + probe + "\n+0.2s <- " + frame + "\n+0.3s <- " + long,
	}
	run := reports.Run{Subject: "client command ./c", Checks: []reports.Check{check}}
	reports.Decide(&run, nil, "", false)
	var out strings.Builder
	reports.Terminal{Out: &out, Command: "client", Verbose: true}.Summary(run, nil, "")
	lines := strings.Split(out.String(), "\n")
	found := map[string]bool{}
	for _, l := range lines {
		if i := strings.Index(l, "the answer {"); i >= 0 {
			quoted := strings.TrimSuffix(l[i+len("the answer "):], ` has no member "action"`)
			found["reason"] = json.Valid([]byte(quoted))
		}
		if _, f, ok := strings.Cut(l, "+0.1s -> "); ok {
			found["probe"] = f == probe
		}
		if _, f, ok := strings.Cut(l, "+0.2s <- "); ok {
			found["frame"] = f == frame
		}
		if _, f, ok := strings.Cut(l, "+0.3s <- "); ok {
			found["long"] = utf8.RuneCountInString(l) == reports.FrameColumns && strings.HasSuffix(f, " …")
		}
	}
	for _, what := range []string{"reason", "probe", "frame", "long"} {
		if !found[what] {
			t.Errorf("off a terminal, the %s is not shown as it should be (whole on one line, or cut past FrameColumns):\n%.3000s", what, out.String())
		}
	}
}
