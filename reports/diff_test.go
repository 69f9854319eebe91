package reports_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/internal/reportcheck"
	"github.com/acpconform/acpconform/reports"
)

func diffCheck(id, state string) reports.Check {
	c := reports.Check{ID: id, Name: "TOK: " + id, Area: "TOK", Rules: []string{strings.Split(id, "/")[0]}, Level: "MUST", Role: "agent", State: state,
		Again: "acpconform agent --check " + id + " -v -- ./my-agent"}
	if state == reports.StateFailed {
		c.Failure = "the agent reported accepted choice 1\nmore"
	}
	return c
}

func diffRun(v reports.Verdict, checks ...reports.Check) reports.Run {
	return reports.Run{Subject: "my-agent", Verdict: v, Reason: "why", Checks: checks}
}

func diffMarkdown(t *testing.T, d reports.Diff) string {
	t.Helper()
	var b bytes.Buffer
	if err := reports.WriteDiffMarkdown(&b, d); err != nil {
		t.Fatal(err)
	}
	if err := reportcheck.Clean(b.String()); err != nil {
		t.Fatalf("the diff's Markdown: %v\n%s", err, b.String())
	}
	return b.String()
}

func TestCompareSortsEveryChange(t *testing.T) {
	known := diffCheck("KNO-1/known", reports.StateFailed)
	known.Known = "issue 7"
	base := diffRun(reports.Conformant,
		diffCheck("TOK-1/stays", reports.StatePassed), diffCheck("TOK-2/breaks", reports.StatePassed),
		diffCheck("TOK-3/still", reports.StateFailed), diffCheck("TOK-4/fixed", reports.StateFailed),
		diffCheck("TOK-5/gone", reports.StatePassed), diffCheck("TOK-7/skipped-now", reports.StatePassed),
		diffCheck("KNO-1/known", reports.StatePassed))
	head := diffRun(reports.NotConformant,
		diffCheck("TOK-1/stays", reports.StatePassed), diffCheck("TOK-2/breaks", reports.StateFailed),
		diffCheck("TOK-3/still", reports.StateFailed), diffCheck("TOK-4/fixed", reports.StatePassed),
		diffCheck("TOK-6/added", reports.StatePassed), diffCheck("TOK-7/skipped-now", reports.StateSkipped), known)
	d := reports.Compare(base, head)
	if !d.Broke() {
		t.Error("a new MUST failure does not break the diff")
	}
	doc := reportcheck.Show(diffMarkdown(t, d))
	if len(doc.Tables) != 1 {
		t.Fatalf("%d tables, want 1", len(doc.Tables))
	}
	var got []string
	for _, r := range doc.Tables[0] {
		got = append(got, strings.Join(r[:2], " | "))
	}
	want := []string{
		"change | check",
		"new failure | TOK-2/breaks: TOK: TOK-2/breaks",
		"fixed | TOK-4/fixed: TOK: TOK-4/fixed",
		"still failing | TOK-3/still: TOK: TOK-3/still",
		"added | TOK-6/added: TOK: TOK-6/added",
		"removed | TOK-7/skipped-now: TOK: TOK-7/skipped-now",
		"removed | TOK-5/gone: TOK: TOK-5/gone",
	}
	if !slices.Equal(got, want) {
		t.Errorf("the table's rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if r := doc.Tables[0][1]; r[3] != "passed" || r[4] != "failed: the agent reported accepted choice 1" {
		t.Errorf("the new failure's base and head cells: %q", r)
	}
	if r := doc.Tables[0][6]; r[4] != "not in the report" {
		t.Errorf("the removed check's head cell: %q", r)
	}
	if want := []string{"2 acpconform diff: 1 new failure, 1 fixed", "3 New failures"}; !slices.Equal(doc.Headings, want) {
		t.Errorf("headings %q, want %q", doc.Headings, want)
	}
}

func TestDiffShowsRerunAndExplain(t *testing.T) {
	d := reports.Compare(diffRun(reports.Conformant, diffCheck("TOK-2/breaks", reports.StatePassed)), diffRun(reports.NotConformant, diffCheck("TOK-2/breaks", reports.StateFailed)))
	md := diffMarkdown(t, d)
	if !strings.Contains(md, "```\nacpconform agent --check TOK-2/breaks -v -- ./my-agent\nacpconform explain TOK-2\n```") {
		t.Errorf("the new failure's commands are not a code block:\n%s", md)
	}
	a := d.Annotations()
	if len(a) != 1 || !strings.HasPrefix(a[0], "::error title=acpconform%3A new failure TOK-2/breaks::") ||
		!strings.Contains(a[0], "%0Arun it again: acpconform agent --check TOK-2/breaks -v -- ./my-agent%0Athe rule: acpconform explain TOK-2") {
		t.Errorf("annotations %q", a)
	}
}

func TestKnownAndShouldFailuresDoNotBreak(t *testing.T) {
	known := diffCheck("TOK-2/known", reports.StateFailed)
	known.Known = "issue 7"
	should := diffCheck("TOK-3/should", reports.StateFailed)
	should.Level = "SHOULD"
	d := reports.Compare(diffRun(reports.Conformant), diffRun(reports.Conformant, known, should))
	if d.Broke() || len(d.New) != 1 || d.New[0].Head.ID != "TOK-3/should" {
		t.Errorf("broke %v, new %v: a known failure is not new, a new SHOULD failure is new and not fatal", d.Broke(), d.New)
	}
	if a := d.Annotations(); len(a) != 1 || !strings.HasPrefix(a[0], "::warning ") {
		t.Errorf("a new SHOULD failure is a warning: %q", a)
	}
}

func TestStaleEntriesAreWarningsAtTheirLine(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "base,line:1.yaml")
	os.WriteFile(file, []byte("known:\n  - check: TOK-1/other\n    reason: x\n  - check: TOK-2/fixed\n    reason: issue 7\n"), 0o644)
	b, err := reports.LoadBaseline(file)
	if err != nil {
		t.Fatal(err)
	}
	head := diffRun("", diffCheck("TOK-2/fixed", reports.StatePassed), diffCheck("TOK-1/other", reports.StateFailed))
	reports.Decide(&head, b, "", false)
	d := reports.Compare(diffRun(reports.Conformant), head)
	if len(d.Stale) != 1 || d.Stale[0] != (reports.StaleEntry{File: file, Line: 4, Check: "TOK-2/fixed"}) {
		t.Fatalf("stale %+v from problems %q", d.Stale, head.Problems)
	}
	a := d.Annotations()
	want := "::warning file=" + strings.NewReplacer(",", "%2C", ":", "%3A").Replace(file) + ",line=4,title=acpconform%3A stale baseline entry TOK-2/fixed::stale baseline entry: TOK-2/fixed passes now; take it off the baseline"
	if !slices.Contains(a, want) {
		t.Errorf("annotations %q\nwant %q", a, want)
	}
}

func TestDuplicateCheck(t *testing.T) {
	r := diffRun(reports.Conformant, diffCheck("TOK-1/a", reports.StatePassed), diffCheck("TOK-2/b", reports.StatePassed), diffCheck("TOK-1/a", reports.StateFailed))
	if err := r.DuplicateCheck(); err == nil || err.Error() != `checks 1 and 3 are both "TOK-1/a": a report lists each check once` {
		t.Errorf("DuplicateCheck: %v", err)
	}
	if err := diffRun(reports.Conformant, diffCheck("TOK-1/a", reports.StatePassed)).DuplicateCheck(); err != nil {
		t.Error(err)
	}
}

// A report's texts are data in the diff: a forged heading, table row or
// fence, control characters, bytes that are not UTF-8 and pipes stay in
// their cell, and a workflow command stays one command, with none
// inside it.
func TestDiffShowsHostileTextAsData(t *testing.T) {
	forged := reportcheck.Forgery + "\n" + reportcheck.NotUTF8 + "\n| a | b |\n::error::forged%0A\r\n"
	hostile := func(state string) reports.Check {
		c := diffCheck("TOK-2/`x|"+forged, state)
		c.Name, c.Level, c.Known, c.Again = forged, "MUST", "", "./acpconform agent -- "+forged
		c.Failure = forged
		c.Rules = []string{"TOK-2" + forged}
		return c
	}
	base := diffRun(reports.Verdict(forged), hostile(reports.StatePassed))
	head := diffRun(reports.NotConformant, hostile(reports.StateFailed))
	head.Reason = forged
	d := reports.Compare(base, head)
	md := diffMarkdown(t, d)
	doc := reportcheck.Show(md)
	if len(doc.Tables) != 1 || len(doc.Tables[0]) != 2 {
		t.Fatalf("the table has %d rows, want a header and one row:\n%s", len(doc.Tables[0]), md)
	}
	for _, r := range doc.Tables[0] {
		if len(r) != 5 {
			t.Errorf("a row of %d cells, want 5: %q", len(r), r)
		}
	}
	if cell := doc.Tables[0][1][1]; !strings.HasPrefix(cell, "TOK-2/`x|C0:\\x00\\x01") {
		t.Errorf("the check's cell does not show its ID as written: %q", cell)
	}
	if len(doc.Headings) != 2 || !strings.HasPrefix(doc.Headings[0], "2 acpconform diff: ") || doc.Headings[1] != "3 New failures" {
		t.Errorf("a forged heading became one: %q", doc.Headings)
	}
	for _, a := range d.Annotations() {
		if strings.ContainsAny(a, "\r\n") || strings.Count(a, "::") < 2 {
			t.Errorf("an annotation is not one workflow command: %q", a)
		}
		props, _, _ := strings.Cut(strings.TrimPrefix(a, "::error "), "::")
		if strings.Count(props, ",") != 0 || strings.Count(props, ":") != 0 {
			t.Errorf("an annotation's title is not escaped: %q", props)
		}
		if !strings.Contains(a, "%25") || reportcheck.Clean(a) != nil {
			t.Errorf("an annotation is not escaped: %q", a)
		}
		if strings.Contains(a, "##[") {
			t.Errorf("an annotation holds a second workflow command, ##[: %q", a)
		}
	}
}

// Two huge reports still make a diff GitHub takes: a bounded table, the
// commands of a few new failures, and ten annotations of each kind, the
// last saying how many more.
func TestDiffOfHugeReportsIsBounded(t *testing.T) {
	const n = 1000
	long := strings.Repeat("x", 16<<10)
	var base, head reports.Run
	base.Verdict, head.Verdict = reports.Conformant, reports.NotConformant
	for i := range n {
		c := diffCheck(fmt.Sprintf("TOK-%d/%s", i, long), reports.StatePassed)
		c.Name = long
		base.Checks = append(base.Checks, c)
		c.State, c.Failure = reports.StateFailed, long
		if i%2 == 0 {
			c.Level = "SHOULD"
		}
		head.Checks = append(head.Checks, c)
	}
	d := reports.Compare(base, head)
	md := diffMarkdown(t, d)
	t.Logf("the Markdown of a diff of %d new failures, each with 16 KiB texts: %d bytes", n, len(md))
	if len(md) > 256<<10 {
		t.Errorf("the Markdown of a diff of %d new failures is %d bytes", n, len(md))
	}
	doc := reportcheck.Show(md)
	if rows := len(doc.Tables[0]) - 1; rows != reports.MaxDiffRows {
		t.Errorf("%d rows, want %d", rows, reports.MaxDiffRows)
	}
	if !strings.Contains(md, fmt.Sprintf("\n%d more rows left out", n-reports.MaxDiffRows)) || !strings.Contains(md, fmt.Sprintf("\n%d more new failures left out", n-reports.MaxDiffCommands)) {
		t.Errorf("the Markdown does not say how much it left out")
	}
	a := d.Annotations()
	var errs, warns []string
	for _, s := range a {
		if len(s) > 8<<10 {
			t.Errorf("an annotation of %d bytes", len(s))
		}
		switch {
		case strings.HasPrefix(s, "::error "):
			errs = append(errs, s)
		case strings.HasPrefix(s, "::warning "):
			warns = append(warns, s)
		}
	}
	if len(errs) != reports.MaxErrorAnnotations || len(warns) != reports.MaxWarningAnnotations || len(a) != len(errs)+len(warns) {
		t.Fatalf("%d errors and %d warnings of %d annotations", len(errs), len(warns), len(a))
	}
	if !strings.HasSuffix(errs[9], fmt.Sprintf("%%0A(and %d more error annotations, left out: GitHub shows 10 a step; the job's summary lists them all)", n/2-10)) {
		t.Errorf("the last error annotation does not say how many more: %q", errs[9][len(errs[9])-200:])
	}
}

// TestReadJSONReadsEveryState: every state a run writes reads back, an
// error (a check whose subject did not start in time) too, so that diff
// and merge take the report of such a run.
func TestReadJSONReadsEveryState(t *testing.T) {
	states := []string{reports.StatePassed, reports.StateFailed, reports.StateInterrupted, reports.StateError, reports.StateSkipped, reports.StateDeselected}
	var r reports.Run
	r.Verdict = reports.CouldNotRun
	for i, s := range states {
		r.Checks = append(r.Checks, diffCheck(fmt.Sprintf("TOK-%d/x", i), s))
	}
	got := readBack(t, r)
	for i, c := range got.Checks {
		if c.State != states[i] {
			t.Errorf("check %d read back %q, want %q", i+1, c.State, states[i])
		}
	}
}
