package reports_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	junit "github.com/joshdk/go-junit"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/acpconform/acpconform/internal/reportcheck"
	"github.com/acpconform/acpconform/reports"
)

// spec builds a spec report the way Ginkgo fills one.
func spec(container, text string, state types.SpecState, labels []string, failure string, entries ...types.ReportEntry) types.SpecReport {
	s := types.SpecReport{
		ContainerHierarchyTexts:  []string{container},
		ContainerHierarchyLabels: [][]string{nil},
		LeafNodeType:             types.NodeTypeIt,
		LeafNodeText:             text,
		LeafNodeLabels:           labels,
		State:                    state,
		RunTime:                  10 * time.Millisecond,
		ReportEntries:            entries,
		LeafNodeLocation:         types.CodeLocation{FileName: "tok.go", LineNumber: 30},
	}
	if failure != "" {
		s.Failure = types.Failure{Message: failure, Location: types.CodeLocation{FileName: "tok.go", LineNumber: 42}}
	}
	return s
}

func labels(rule, level string) []string {
	area, _, _ := strings.Cut(rule, "-")
	slug := map[string]string{"TOK-1": "maps-choice-0", "TOK-2": "leading-zero"}[rule]
	l := []string{"area:" + area, "role:agent", "rule:" + rule, "level:" + level}
	if slug != "" {
		l = append(l, "check:"+rule+":"+slug)
	}
	return l
}

func entry(name, value string) types.ReportEntry {
	e := types.ReportEntry{Name: name, Visibility: types.ReportEntryVisibilityFailureOrVerbose}
	e.Value = types.WrapEntryValue(value)
	return e
}

func sample() types.Report {
	return types.Report{
		SuiteDescription: "acpconform: sample",
		SuiteSucceeded:   false,
		RunTime:          2 * time.Second,
		SpecReports: types.SpecReports{
			spec("TOK: reading", "maps choice_0", types.SpecStatePassed, labels("TOK-1", "MUST"), "", entry(reports.EntryRules, "TOK-1")),
			spec("TOK: reading", "refuses choice_01", types.SpecStateFailed, labels("TOK-2", "MUST"), "the subject reported accepted",
				entry(reports.EntryRules, "TOK-2"), entry(reports.EntryTranscript, "+0.0001s -> {}\n+0.0002s <- {}"), entry(reports.EntryDiagnostics, "panic: boom")),
			spec("CLI: clients", "answers -32602", types.SpecStateFailed, labels("CLI-4", "SHOULD"), "got -32603"),
			spec("FB: fallbacks", "skips a panicking comparison", types.SpecStateSkipped, append(labels("FB-6", "MUST"), "in-process"), ""),
			spec("RTE: routes", "ends on close", types.SpecStatePanicked, labels("RTE-7", "MUST"), "Test Panicked"),
		},
	}
}

// run reads sample() as the CLI does, selecting every check.
func run(r types.Report) reports.Run {
	return reports.FromGinkgo(r, "sample", nil, false)
}

func TestFromGinkgoReadsEveryState(t *testing.T) {
	r := sample()
	r.SpecReports = append(r.SpecReports,
		spec("VAL: arguments", "refuses a blank question", types.SpecStateSkipped, labels("VAL-1", "MUST"), ""),
		spec("DEP: plain values", "warns once", types.SpecStateInterrupted, labels("DEP-1", "MUST"), "Interrupted by User"),
		spec("TOK: reading", "reads a huge answer", types.SpecStateFailed, labels("TOK-1", "MUST"), "got "+strings.Repeat("1", 1<<20)),
	)
	r.SpecReports[3].Failure = types.Failure{Message: "needs the reference's Go API"}
	notVAL := func(labels []string) bool { return !strings.Contains(strings.Join(labels, " "), "rule:VAL-1") }
	checks := reports.FromGinkgo(r, "sample", notVAL, true).Checks
	if len(checks) != 8 {
		t.Fatalf("%d checks, want 8", len(checks))
	}
	c := checks[1]
	if c.Name != "TOK: reading: refuses choice_01" || c.Area != "TOK" || c.Level != "MUST" || c.Role != "agent" ||
		strings.Join(c.Rules, ",") != "TOK-2" || !c.Failed() || c.Transcript == "" || c.Diagnostics != "panic: boom" ||
		c.Location != "tok.go:30" || c.FailedAt != "tok.go:42" {
		t.Errorf("check = %+v", c)
	}
	for i, want := range []string{"passed", "failed", "failed", "skipped", "failed", "deselected", "interrupted", "failed"} {
		if checks[i].State != want {
			t.Errorf("check %d %q is %s, want %s", i, checks[i].Name, checks[i].State, want)
		}
	}
	if checks[3].SkipReason != "needs the reference's Go API" {
		t.Errorf("skip reason %q", checks[3].SkipReason)
	}
	if huge := checks[7].Failure; len(huge) > reports.MaxFailure+64 || !strings.Contains(huge, "[1048580 bytes in all]") {
		t.Errorf("a 1 MB failure is kept as %d bytes, ending %q", len(huge), huge[len(huge)-40:])
	}
	got := reports.Count(checks)
	if want := (reports.Totals{Passed: 1, Failed: 5, MustFailed: 4, Skipped: 1, Deselected: 1, MustRan: 4, Interrupted: 1}); got != want {
		t.Errorf("Count = %+v, want %+v", got, want)
	}
}

func TestDecideTheVerdict(t *testing.T) {
	only := func(i ...int) reports.Run {
		all := sample()
		var r types.Report
		for _, n := range i {
			r.SpecReports = append(r.SpecReports, all.SpecReports[n])
		}
		return run(r)
	}
	for _, tc := range []struct {
		name         string
		run          reports.Run
		interruption string
		broke        bool
		want         reports.Verdict
		code         int
		reason       string
	}{
		{"a MUST failure", only(0, 1), "", false, reports.NotConformant, 1, "1 MUST check failed"},
		{"a SHOULD failure and a skip beside a pass", only(0, 2, 3), "", false, reports.Conformant, 0, "1 MUST check passed"},
		{"a broken run", only(0), "", true, reports.NotConformant, 1, "the run itself did not complete"},
		{"only skips", only(3), "", false, reports.NothingChecked, 4, "every selected check was skipped (1): "},
		{"only a SHOULD check", only(2), "", false, reports.NothingChecked, 4, "only SHOULD checks ran"},
		{"no checks", only(), "", false, reports.NothingChecked, 4, "no check for this subject"},
		{"interrupted", only(0, 1), "interrupted by SIGINT", false, reports.Interrupted, 5, "interrupted by SIGINT"},
	} {
		r := tc.run
		reports.Decide(&r, nil, tc.interruption, tc.broke)
		if r.Verdict != tc.want || r.Verdict.ExitCode() != tc.code || !strings.Contains(r.Reason, tc.reason) {
			t.Errorf("%s: %s (%d) because %q; want %s (%d) because %q", tc.name, r.Verdict, r.Verdict.ExitCode(), r.Reason, tc.want, tc.code, tc.reason)
		}
	}

	deselected := run(sample())
	for i := range deselected.Checks {
		deselected.Checks[i].State = reports.StateDeselected
	}
	reports.Decide(&deselected, nil, "", false)
	if deselected.Verdict != reports.NothingChecked || !strings.Contains(deselected.Reason, "no check matches the selection (5 checks deselected)") {
		t.Errorf("all deselected: %s because %q", deselected.Verdict, deselected.Reason)
	}

	couldNot := reports.Run{Subject: "x", Verdict: reports.CouldNotRun, Reason: "it exited", Checks: []reports.Check{reports.StartUp("x", "agent", "it exited with status 5")}}
	reports.Decide(&couldNot, nil, "", false)
	if couldNot.Verdict != reports.CouldNotRun || couldNot.Verdict.ExitCode() != 3 || couldNot.Reason != "it exited" {
		t.Errorf("could not run became %s because %q", couldNot.Verdict, couldNot.Reason)
	}
}

func TestDecideWithABaseline(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "b.yaml")
	os.WriteFile(path, []byte("known:\n  - check: \"TOK: reading refuses choice_01\"\n    reason: we accept choice_01 until 2.0\n  - check: \"RTE: routes ends on close\"\n    reason: \"tracked in #7\"\n"), 0o644)
	b, err := reports.LoadBaseline(path)
	if err != nil {
		t.Fatal(err)
	}
	r := run(sample())
	reports.Decide(&r, b, "", false)
	if r.Verdict != reports.Conformant || r.Checks[1].Known != "we accept choice_01 until 2.0" || r.Checks[4].Known != "tracked in #7" {
		t.Errorf("known failures only: %s because %q; known %q, %q", r.Verdict, r.Reason, r.Checks[1].Known, r.Checks[4].Known)
	}
	if !strings.Contains(r.Reason, "2 known failures in the baseline") {
		t.Errorf("reason %q does not count the known failures", r.Reason)
	}

	fixed := sample()
	fixed.SpecReports[1].State, fixed.SpecReports[1].Failure = types.SpecStatePassed, types.Failure{}
	r = run(fixed)
	reports.Decide(&r, b, "", false)
	// A stale entry is the baseline's problem, not the subject's: the
	// run is conformant, says so, and exits 7.
	if r.Verdict != reports.Conformant || len(r.Problems) != 1 || !strings.Contains(r.Problems[0], "stale") || r.Stale != 1 {
		t.Errorf("a fixed known failure: %s, %d stale, problems %q", r.Verdict, r.Stale, r.Problems)
	}
	if !strings.Contains(r.Reason, "1 stale baseline entry to take off") || r.ExitCode() != reports.ExitStaleBaseline || r.Verdict.ExitCode() != reports.ExitConformant {
		t.Errorf("a fixed known failure: %q, exit %d", r.Reason, r.ExitCode())
	}

	// A new MUST failure beside a stale entry is the subject's: not
	// conformant, exit 1.
	both := sample()
	both.SpecReports[4].State, both.SpecReports[4].Failure = types.SpecStatePassed, types.Failure{}
	both.SpecReports[0].State, both.SpecReports[0].Failure = types.SpecStateFailed, types.Failure{Message: "got choice_1"}
	r = run(both)
	reports.Decide(&r, b, "", false)
	if r.Verdict != reports.NotConformant || r.ExitCode() != reports.ExitNotConformant || r.Reason != "1 MUST check failed" {
		t.Errorf("a new failure and a stale entry: %s because %q, exit %d", r.Verdict, r.Reason, r.ExitCode())
	}
}

// TestJUnitReadsBack reads the JUnit output with an independent parser and
// finds the run's counts, names, classnames, failures and CONTRACT IDs.
func TestJUnitReadsBack(t *testing.T) {
	dir := t.TempDir()
	paths := reports.Paths{JUnit: filepath.Join(dir, "junit.xml"), JSON: filepath.Join(dir, "r.json"), Summary: filepath.Join(dir, "s.md")}
	r := run(sample())
	r.Version, r.Contract, r.Schema, r.Command = "v9.9.9", "2", "1.21.0", "./my-agent --stdio"
	r.Checks = append(r.Checks, reports.Check{Name: "VAL: deselected", Area: "VAL", State: reports.StateDeselected})
	r.Checks[1].Again = "acpconform agent --check TOK-2/leading-zero -v"
	reports.Decide(&r, nil, "", false)
	written, err := reports.Write(r, []string{"TOK", "FB", "RTE", "CLI"}, paths)
	if err != nil || len(written) != 3 {
		t.Fatalf("Write = %v, %v", written, err)
	}
	suites, err := junit.IngestFile(paths.JUnit)
	if err != nil {
		t.Fatal(err)
	}
	if len(suites) != 1 {
		t.Fatalf("%d suites", len(suites))
	}
	s := suites[0]
	if s.Totals.Tests != 5 || s.Totals.Failed+s.Totals.Error != 3 || s.Totals.Skipped != 1 || s.Totals.Passed != 1 {
		t.Errorf("JUnit totals %+v; the deselected check must be left out", s.Totals)
	}
	if s.Properties["acpconform.version"] != "v9.9.9" || s.Properties["subject.command"] != "./my-agent --stdio" || s.Properties["contract.revision"] != "2" || s.Properties["acp.schema"] != "1.21.0" || s.Properties["verdict"] != "not conformant" {
		t.Errorf("suite properties %v", s.Properties)
	}
	byName := map[string]junit.Test{}
	for _, tc := range s.Tests {
		byName[tc.Name] = tc
	}
	junitName := func(c reports.Check) string { // the ID first, when there is one
		if c.ID != "" {
			return c.ID + ": " + c.Name
		}
		return c.Name
	}
	if _, ok := byName["TOK-2/leading-zero: TOK: reading: refuses choice_01"]; !ok {
		t.Errorf("no JUnit testcase named by its ID first: %v", s.Tests)
	}
	for _, c := range r.Checks {
		tc, found := byName[junitName(c)]
		if c.State == reports.StateDeselected {
			if found {
				t.Errorf("deselected %q is a testcase", c.Name)
			}
			continue
		}
		if !found {
			t.Errorf("no JUnit testcase for %q", c.Name)
			continue
		}
		if tc.Classname != "acpconform."+c.Area {
			t.Errorf("%q: classname %q", c.Name, tc.Classname)
		}
		if failed := tc.Status == junit.StatusFailed || tc.Status == junit.StatusError; failed != c.Failed() {
			t.Errorf("%q: JUnit status %s, report state %s", c.Name, tc.Status, c.State)
		}
		if c.Failed() && (tc.Error == nil || !strings.Contains(tc.Error.Error(), strings.SplitN(c.Failure, ":", 2)[0])) {
			t.Errorf("%q: JUnit failure %v, report %q", c.Name, tc.Error, c.Failure)
		}
	}
	if got := byName["TOK-2/leading-zero: TOK: reading: refuses choice_01"]; got.SystemOut != "+0.0001s -> {}\n+0.0002s <- {}" || got.SystemErr != "panic: boom" {
		t.Errorf("transcript and stderr: out %q, err %q", got.SystemOut, got.SystemErr)
	}
	// The schema has no properties of a testcase: its rules are in the
	// explain lines of its failure, with the command that runs it again.
	failed := byName["TOK-2/leading-zero: TOK: reading: refuses choice_01"]
	for _, want := range []string{"the subject reported accepted", "scenario:     tok.go:30", "failed at:    tok.go:42", "run it again: acpconform agent --check TOK-2/leading-zero -v", "the rule:     acpconform explain TOK-2"} {
		if failed.Error == nil || !strings.Contains(failed.Error.Error(), want) {
			t.Errorf("the failure of TOK-2/leading-zero does not say %q: %v", want, failed.Error)
		}
	}
}

// A known failure is a testcase of a suite of its own, so that no count
// takes it for a skip or a new failure; it is skipped, as pytest reports
// an expected failure, and keeps its failure and what to do next.
func TestJUnitReportsKnownFailuresApart(t *testing.T) {
	r := run(sample())
	r.Checks[1].Known = "we accept choice_01 until 2.0"
	r.Checks[1].Again = "acpconform agent --check TOK-2/leading-zero -v"
	var buf bytes.Buffer
	if err := reports.WriteJUnit(&buf, r); err != nil {
		t.Fatal(err)
	}
	suites, err := junit.Ingest(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if len(suites) != 2 || len(suites[1].Tests) != 1 {
		t.Fatalf("%d suites, want the run's and its known failures': %s", len(suites), buf.String())
	}
	if s := suites[0]; s.Totals.Skipped != 1 || s.Totals.Failed+s.Totals.Error != 2 {
		t.Errorf("the run's suite counts %+v, want the known failure in neither its skips nor its failures", s.Totals)
	}
	tc := suites[1].Tests[0]
	if tc.Name != "TOK-2/leading-zero: TOK: reading: refuses choice_01" || tc.Status != junit.StatusSkipped || !strings.Contains(tc.Message, "known failure: we accept choice_01") {
		t.Errorf("a known failure in JUnit: %q %s %q", tc.Name, tc.Status, tc.Message)
	}
	if !regexp.MustCompile(`<skipped message="[^"]*" type="known failure">`).MatchString(buf.String()) {
		t.Errorf("the known failure is not a <skipped type=\"known failure\">:\n%s", buf.String())
	}
	for _, want := range []string{"the subject reported accepted", "run it again: acpconform agent --check TOK-2/leading-zero -v", "the rule:     acpconform explain TOK-2"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("the known failure's testcase does not say %q:\n%s", want, buf.String())
		}
	}
	expectValidJUnit(t, r)
}

func TestJSONAndMarkdown(t *testing.T) {
	r := run(sample())
	r.Checks[1].Process = "was killed by signal SIGSEGV (segmentation fault)"
	reports.Decide(&r, nil, "", false)
	var buf bytes.Buffer
	if err := reports.WriteJSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	var doc reports.JSON
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Acpconform != 2 || doc.Subject != "sample" || doc.Succeeded || doc.Verdict != reports.NotConformant || doc.Reason != "2 MUST checks failed" ||
		doc.Totals.MustFailed != 2 || len(doc.Checks) != 5 || doc.Checks[3].SkipReason != "not run" {
		t.Errorf("JSON report = %+v", doc)
	}
	buf.Reset()
	if err := reports.WriteMarkdown(&buf, r, []string{"TOK", "FB", "RTE", "CLI"}); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	for _, want := range []string{
		"## acpconform: sample is NOT conformant",
		"2 MUST checks failed.",
		"1 passed, 3 failed (2 MUST), 1 skipped, 0 deselected in 2.00s",
		"| TOK | 1 | 1 | 0 |",
		"| FB | 0 | 0 | 1 |",
		"**FAILED** `TOK-2/leading-zero` (TOK-2 MUST): TOK: reading: refuses choice_01",
		"\n\nthe subject reported accepted\n",
		"The subject's process was killed by signal SIGSEGV (segmentation fault).",
		"<details><summary>transcript</summary>",
		"**FAILED** (CLI-4 SHOULD): CLI: clients: answers -32602",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("summary lacks %q:\n%s", want, md)
		}
	}
	if strings.Index(md, "| TOK |") > strings.Index(md, "| FB |") {
		t.Error("areas are not in the contract's order")
	}
}

// summary.md says what to do about each failure, as the terminal does:
// the new failures first, each reason as text that wraps (not a code
// block, which GitHub cuts at its width), then the command that runs the
// check again and the explain line of each of its rules.
func TestMarkdownIsActionable(t *testing.T) {
	long := "the subject answered " + strings.Repeat("with a long reason that goes on ", 8) + "and ends HERE"
	r := reports.Run{Subject: "my-agent", Verdict: reports.Conformant, Checks: []reports.Check{
		{ID: "TOK-2/known", Name: "TOK: known", Area: "TOK", Rules: []string{"TOK-2"}, Level: "MUST", State: reports.StateFailed,
			Failure: "an old failure", Known: "issue 12", Again: "acpconform agent --check TOK-2/known -v -- ./my-agent"},
		{ID: "TOK-1/new", Name: "TOK: new", Area: "TOK", Rules: []string{"TOK-1", "SES-1"}, Level: "MUST", State: reports.StateFailed,
			Failure: long + "\nExpected\n    <string>: choice_0\nto equal\n    <string>: choice_1", Again: "acpconform agent --check TOK-1/new -v -- ./my-agent"},
	}}
	var buf bytes.Buffer
	if err := reports.WriteMarkdown(&buf, r, []string{"TOK"}); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	if err := reportcheck.Markdown(md); err != nil {
		t.Fatal(err)
	}
	newAt, knownAt := strings.Index(md, "**FAILED** `TOK-1/new`"), strings.Index(md, "**KNOWN FAILURE** `TOK-2/known`")
	if newAt < 0 || knownAt < 0 || newAt > knownAt {
		t.Errorf("the new failure (at %d) is not before the known one (at %d):\n%s", newAt, knownAt, md)
	}
	for _, want := range []string{
		"\n" + long + "\\\nExpected\\\n\u00a0\u00a0\u00a0\u00a0\\<string\\>: choice_0\\\n",
		"Run it again: `acpconform agent --check TOK-1/new -v -- ./my-agent`\\\nThe rules: `acpconform explain TOK-1`, `acpconform explain SES-1`\n",
		"Run it again: `acpconform agent --check TOK-2/known -v -- ./my-agent`\\\nThe rules: `acpconform explain TOK-2`\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("summary.md lacks %q:\n%s", want, md)
		}
	}
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "\t") {
			t.Errorf("summary.md has an indented code block, which does not wrap: %q", l)
		}
	}
}

func TestACouldNotRunRunHasReportsThatSayWhy(t *testing.T) {
	r := reports.Run{Subject: "agent command ./a", Verdict: reports.CouldNotRun, Reason: "it exited with status 5 before it answered initialize",
		Checks: []reports.Check{reports.StartUp("agent command ./a", "agent", "it exited with status 5 before it answered initialize; its stderr ends:\n  LAST-WORDS")}}
	reports.Decide(&r, nil, "", false)
	dir := t.TempDir()
	paths := reports.Paths{JUnit: filepath.Join(dir, "j.xml"), JSON: filepath.Join(dir, "r.json"), Summary: filepath.Join(dir, "s.md")}
	if _, err := reports.Write(r, nil, paths); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{paths.JUnit, paths.JSON, paths.Summary} {
		data, _ := os.ReadFile(p)
		if !strings.Contains(string(data), "LAST-WORDS") || !strings.Contains(string(data), "could not run") {
			t.Errorf("%s does not say why the run could not start:\n%s", p, data)
		}
	}
}

func TestWriteReportsEveryFailure(t *testing.T) {
	blocked := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocked, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(t.TempDir(), "s.md")
	full := t.TempDir() // a directory where the report should be
	if st, err := os.Stat("/dev/full"); err == nil && st.Mode()&os.ModeCharDevice != 0 {
		full = "/dev/full" // a disk that is full
	}
	written, err := reports.Write(run(sample()), nil, reports.Paths{JUnit: filepath.Join(blocked, "junit.xml"), JSON: full, Summary: good})
	if err == nil || !strings.Contains(err.Error(), "junit.xml") || !strings.Contains(err.Error(), full) {
		t.Errorf("Write = %v, want both failures named", err)
	}
	if len(written) != 1 || written[0] != good {
		t.Errorf("written = %q, want only %s", written, good)
	}
}

func TestRemoveTakesAwayOldReports(t *testing.T) {
	dir := t.TempDir()
	paths := reports.Paths{JUnit: filepath.Join(dir, "j.xml"), JSON: filepath.Join(dir, "r.json"), Summary: filepath.Join(dir, "none.md")}
	os.WriteFile(paths.JUnit, []byte("old"), 0o644)
	os.WriteFile(paths.JSON, []byte("old"), 0o644)
	if err := paths.Remove(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{paths.JUnit, paths.JSON} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s is still there", p)
		}
	}
	empty := t.TempDir()
	if err := (reports.Paths{JSON: empty}).Remove(); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("Remove of a directory in place of a report = %v", err)
	}
	if _, err := os.Stat(empty); err != nil {
		t.Errorf("Remove took away a directory: %v", err)
	}
}

func TestBaselinesNameChecksByIDAndStillByName(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "b.yaml")
	os.WriteFile(path, []byte("known:\n  - check: TOK-2/leading-zero\n    reason: until 2.0\n  - check: \"RTE: routes ends on close\"\n    reason: old style\n"), 0o644)
	b, err := reports.LoadBaseline(path)
	if err != nil {
		t.Fatal(err)
	}
	checks := run(sample()).Checks
	checks[4].ID = "RTE-7/close-ends-choice"
	v := b.Judge(checks)
	if len(v.Known) != 2 || len(v.New) != 1 || len(v.Unknown) != 0 {
		t.Errorf("judgement: %d known, %d new, %d unknown; want 2, 1 (the SHOULD failure), 0", len(v.Known), len(v.New), len(v.Unknown))
	}
	if m := v.Migration(path); !strings.Contains(m, "1 entry names the check by its full name, which still works") || !strings.Contains(m, "line 4: RTE-7/close-ends-choice") {
		t.Errorf("migration note %q", m)
	}

	// The run's reports carry each known failure's reason and count it,
	// whichever way its entry names it.
	r := run(sample())
	r.Checks[4].ID = "RTE-7/close-ends-choice"
	reports.Decide(&r, b, "", false)
	if r.Checks[1].Known != "until 2.0" || r.Checks[4].Known != "old style" || reports.Count(r.Checks).Known != 2 {
		t.Errorf("known by ID %q, by name %q, %d counted; want both reasons, 2", r.Checks[1].Known, r.Checks[4].Known, reports.Count(r.Checks).Known)
	}

	written := filepath.Join(dir, "new.yaml")
	if err := reports.WriteBaseline(written, "sample", checks); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(written)
	for _, want := range []string{"# TOK: reading: refuses choice_01\n", "check: TOK-2/leading-zero\n", "check: RTE-7/close-ends-choice\n"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the written baseline lacks %q:\n%s", want, data)
		}
	}
	// Its TODO reasons are refused, each at its line, until replaced.
	_, err = reports.LoadBaseline(written)
	for _, want := range []string{written + ":13: \"TOK-2/leading-zero\" has the reason --write-baseline left to replace, \"TODO: say why TOK-2 fails\"", written + ":10: ", written + ":7: "} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("a baseline of TODO reasons: %v; want %q", err, want)
		}
	}
	if err := os.WriteFile(written, []byte(strings.ReplaceAll(string(data), "TODO: ", "")), 0o644); err != nil {
		t.Fatal(err)
	}
	again, err := reports.LoadBaseline(written)
	if err != nil || len(again.Judge(checks).Known) != 3 || again.Judge(checks).Migration(written) != "" {
		t.Errorf("the written baseline does not read back as knowing the 3 failures by ID: %v\n%s", err, data)
	}
	// Written again from a run that knew some failures, it keeps their
	// reasons: only the new one is a TODO.
	if err := reports.WriteBaseline(written, "sample", r.Checks); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(written)
	if n := strings.Count(string(data), "TODO: "); n != 1 || !strings.Contains(string(data), "reason: until 2.0\n") || !strings.Contains(string(data), "reason: old style\n") {
		t.Errorf("a baseline written from known failures has %d TODO reasons, want 1, and the known reasons:\n%s", n, data)
	}
	empty := filepath.Join(dir, "empty.yaml")
	if err := reports.WriteBaseline(empty, "sample", nil); err != nil {
		t.Fatal(err)
	}
	if b, err := reports.LoadBaseline(empty); err != nil || len(b.Known) != 0 {
		t.Errorf("an empty baseline: %v", err)
	}
}

func TestLocationsAreRelativeToTheRepository(t *testing.T) {
	_, file, _, _ := goruntime.Caller(0) // .../reports/reports_test.go
	r := sample()
	r.SpecReports[0].LeafNodeLocation = types.CodeLocation{FileName: file, LineNumber: 7}
	if got := run(r).Checks[0].Location; got != "reports/reports_test.go:7" {
		t.Errorf("location %q, want reports/reports_test.go:7", got)
	}
}

func TestStateDifferences(t *testing.T) {
	a := []reports.Check{{ID: "TOK-2/x", Name: "x", State: reports.StatePassed}, {ID: "TOK-2/y", Name: "y", State: reports.StateSkipped}, {ID: "A-1/gone", Name: "g", State: reports.StatePassed}}
	b := []reports.Check{{ID: "TOK-2/x", Name: "x", State: reports.StateFailed}, {ID: "TOK-2/y", Name: "y", State: reports.StateSkipped}, {ID: "A-1/new", Name: "n", State: reports.StatePassed}}
	got := strings.Join(reports.StateDifferences(a, b), "\n")
	want := "TOK-2/x: passed, then failed\nA-1/new: only in the second run (passed)\nA-1/gone: only in the first run (passed)"
	if got != want {
		t.Errorf("StateDifferences =\n%s\nwant\n%s", got, want)
	}
	if d := reports.StateDifferences(a, a); len(d) > 0 {
		t.Errorf("a run differs from itself: %v", d)
	}
}

// TestATimedOutCheckSaysWhy: Ginkgo's "A spec timeout occurred" alone does
// not tell a slow subject from a silent one; the failure names the bound,
// the time and where the check was waiting.
func TestATimedOutCheckSaysWhy(t *testing.T) {
	s := spec("CLI: clients", "answers the default", types.SpecStateTimedout, labels("CLI-2", "MUST"), "A spec timeout occurred")
	s.RunTime = 61 * time.Second
	s.Failure.ProgressReport = types.ProgressReport{
		CurrentNodeType: types.NodeTypeIt,
		Goroutines: []types.Goroutine{{IsSpecGoroutine: true, Stack: []types.FunctionCall{
			{Function: "runtime.gopark(0x1)", Filename: "/usr/local/go/src/runtime/proc.go", Line: 435},
			{Function: "github.com/acpconform/acpconform/mocks/peer.(*State).await(0x39c4, {0xe5fc})", Filename: sourceFile(t, "mocks/peer/state.go"), Line: 66},
			{Function: "github.com/acpconform/acpconform/mocks/peer.(*State).Wait(0x39c4)", Filename: sourceFile(t, "mocks/peer/state.go"), Line: 90},
			{Function: "github.com/acpconform/acpconform/scenarios.(*env).advertisesForm(0x1)", Filename: sourceFile(t, "scenarios/cli.go"), Line: 399},
			{Function: "github.com/acpconform/acpconform/scenarios.(*env).clientChecks.func1()", Filename: sourceFile(t, "scenarios/cli.go"), Line: 38},
		}}},
	}
	got := run(types.Report{SpecReports: types.SpecReports{s}}).Checks[0].Failure
	for _, want := range []string{
		"A spec timeout occurred: the check ran past its bound in all after 61.00s (--scenario-timeout, plus --startup-timeout",
		"it was waiting in peer.(*State).await (mocks/peer/state.go:66), called from scenarios.(*env).advertisesForm (scenarios/cli.go:399)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the failure of a timed-out check does not say %q:\n%s", want, got)
		}
	}
}

// sourceFile is the absolute path of a file of this repository, as a
// stack trace of a binary built here names it.
func sourceFile(t *testing.T, rel string) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0) // .../reports/reports_test.go, trimmed as the package's own paths are
	return filepath.Join(filepath.Dir(filepath.Dir(file)), rel)
}
