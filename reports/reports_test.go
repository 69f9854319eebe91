package reports_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	junit "github.com/joshdk/go-junit"
	"github.com/onsi/ginkgo/v2/types"

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
	}
	if failure != "" {
		s.Failure = types.Failure{Message: failure, Location: types.CodeLocation{FileName: "tok.go", LineNumber: 42}}
	}
	return s
}

func labels(rule, level string) []string {
	area, _, _ := strings.Cut(rule, "-")
	return []string{"area:" + area, "role:agent", "rule:" + rule, "level:" + level}
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

func TestChecksCountAndExitCode(t *testing.T) {
	r := sample()
	checks := reports.Checks(r)
	if len(checks) != 5 {
		t.Fatalf("%d checks, want 5", len(checks))
	}
	c := checks[1]
	if c.Name != "TOK: reading refuses choice_01" || c.Area != "TOK" || c.Level != "MUST" || c.Role != "agent" ||
		strings.Join(c.Rules, ",") != "TOK-2" || !c.Failed() || c.Transcript == "" || c.Diagnostics != "panic: boom" || c.Location != "tok.go:42" {
		t.Errorf("check = %+v", c)
	}
	if checks[4].State != "failed" {
		t.Errorf("a panicked spec is %q, want failed", checks[4].State)
	}
	got := reports.Count(checks)
	if want := (reports.Totals{Passed: 1, Failed: 3, MustFailed: 2, Skipped: 1}); got != want {
		t.Errorf("Count = %+v, want %+v", got, want)
	}
	if code := reports.ExitCode(r); code != 1 {
		t.Errorf("ExitCode = %d with MUST failures, want 1", code)
	}
	r.SpecReports = r.SpecReports[2:4] // a SHOULD failure and a skip
	if code := reports.ExitCode(r); code != 0 {
		t.Errorf("ExitCode = %d with only a SHOULD failure and a skip, want 0", code)
	}
	r.SpecReports = append(r.SpecReports, types.SpecReport{LeafNodeType: types.NodeTypeBeforeSuite, State: types.SpecStateFailed})
	if code := reports.ExitCode(r); code != 1 {
		t.Errorf("ExitCode = %d after a failed BeforeSuite, want 1", code)
	}
}

// TestJUnitReadsBackTheSame reads Ginkgo's JUnit output with an independent
// parser and finds the report's counts, names, failures and CONTRACT IDs.
func TestJUnitReadsBackTheSame(t *testing.T) {
	dir := t.TempDir()
	paths := reports.Paths{JUnit: filepath.Join(dir, "junit.xml"), JSON: filepath.Join(dir, "r.json"), Summary: filepath.Join(dir, "s.md")}
	r := sample()
	if err := reports.Write(r, "sample", []string{"TOK", "FB", "RTE", "CLI"}, paths); err != nil {
		t.Fatal(err)
	}
	suites, err := junit.IngestFile(paths.JUnit)
	if err != nil {
		t.Fatal(err)
	}
	if len(suites) != 1 {
		t.Fatalf("%d suites", len(suites))
	}
	s := suites[0]
	checks := reports.Checks(r)
	want := reports.Count(checks)
	if s.Totals.Tests != len(checks) || s.Totals.Failed+s.Totals.Error != want.Failed || s.Totals.Skipped != want.Skipped || s.Totals.Passed != want.Passed {
		t.Errorf("JUnit totals %+v, report %+v", s.Totals, want)
	}
	byName := map[string]junit.Test{}
	for _, tc := range s.Tests {
		byName[tc.Name] = tc
	}
	for _, c := range checks {
		var tc junit.Test
		found := false
		for name, candidate := range byName {
			if strings.Contains(name, c.Name) {
				tc, found = candidate, true
			}
		}
		if !found {
			t.Errorf("no JUnit testcase for %q", c.Name)
			continue
		}
		if failed := tc.Status == junit.StatusFailed || tc.Status == junit.StatusError; failed != c.Failed() {
			t.Errorf("%q: JUnit status %s, report state %s", c.Name, tc.Status, c.State)
		}
		if c.Failed() && (tc.Error == nil || !strings.Contains(tc.Error.Error(), strings.SplitN(c.Failure, ":", 2)[0])) {
			t.Errorf("%q: JUnit failure %v, report %q", c.Name, tc.Error, c.Failure)
		}
	}
	// go-junit reads no testcase properties; read those with encoding/xml.
	props := testcaseProperties(t, paths.JUnit)
	for _, c := range checks[:2] {
		if got := props[c.Name][reports.EntryRules]; got != `"`+strings.Join(c.Rules, ", ")+`"` {
			t.Errorf("%q: JUnit property %s = %s, want its IDs %v", c.Name, reports.EntryRules, got, c.Rules)
		}
	}
	if got := props["TOK: reading refuses choice_01"][reports.EntryTranscript]; !strings.Contains(got, `+0.0001s -\u003e {}`) && !strings.Contains(got, "+0.0001s -> {}") {
		t.Errorf("the failure's transcript is not a JUnit property: %q", got)
	}
}

// testcaseProperties maps each testcase (by its name before the labels) to
// its properties.
func testcaseProperties(t *testing.T, path string) map[string]map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Suites []struct {
			Cases []struct {
				Name  string `xml:"name,attr"`
				Props []struct {
					Name  string `xml:"name,attr"`
					Value string `xml:"value,attr"`
				} `xml:"properties>property"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]string{}
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			name, _, _ := strings.Cut(c.Name, " [")
			out[name] = map[string]string{}
			for _, p := range c.Props {
				out[name][p.Name] = p.Value
			}
		}
	}
	return out
}

func TestJSONAndMarkdown(t *testing.T) {
	r := sample()
	var buf bytes.Buffer
	if err := reports.WriteJSON(&buf, r, "sample"); err != nil {
		t.Fatal(err)
	}
	var doc reports.JSON
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Acpconform != 1 || doc.Subject != "sample" || doc.Succeeded || doc.Totals.MustFailed != 2 || len(doc.Checks) != 5 {
		t.Errorf("JSON report = %+v", doc)
	}
	buf.Reset()
	if err := reports.WriteMarkdown(&buf, r, "sample", []string{"TOK", "FB", "RTE", "CLI"}); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	for _, want := range []string{
		"## acpconform: sample is NOT conformant",
		"1 passed, 3 failed (2 MUST), 1 skipped in 2.00s",
		"| TOK | 1 | 1 | 0 |",
		"| FB | 0 | 0 | 1 |",
		"**FAILED** TOK-2 MUST `TOK: reading refuses choice_01`",
		"    the subject reported accepted",
		"<details><summary>transcript</summary>",
		"**FAILED** CLI-4 SHOULD",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("summary lacks %q:\n%s", want, md)
		}
	}
	if strings.Index(md, "| TOK |") > strings.Index(md, "| FB |") {
		t.Error("areas are not in the contract's order")
	}
}

func TestWriteReportsEveryFailure(t *testing.T) {
	blocked := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocked, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err := reports.Write(sample(), "sample", nil, reports.Paths{JUnit: filepath.Join(blocked, "junit.xml"), JSON: filepath.Join(blocked, "r.json")})
	if err == nil || !strings.Contains(err.Error(), "junit.xml") || !strings.Contains(err.Error(), "r.json") {
		t.Errorf("Write = %v, want both failures named", err)
	}
}
