package reports

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/acpconform/acpconform/internal/elide"
)

// WriteJUnit writes the JUnit XML report of r, valid against junit-10.xsd
// (the schema of Jenkins' xUnit plugin; reports/testdata has it), for the
// JUnit readers of CI: one testcase a check (deselected ones left out),
// named by its ID and title, its area as the classname.
//
// A failure's body says what the terminal says: the reason, how the
// subject's process ended, where the check failed, the command that runs
// it again and the acpconform explain line of each rule it cites; the
// transcript is its system-out and the subject's stderr its system-err.
// The schema allows no file or line on a testcase, so the location is a
// line of the body. Known failures, those the baseline lists, are a
// testsuite of their own, so that no header counts them with the checks
// that were skipped, each a <skipped type="known failure"> that keeps the
// whole failure in its body: the run is conformant with them, so they fail
// no CI check, as pytest reports an expected failure (xfail).
//
// What a subject or a shard wrote has its control characters escaped
// (elide.Escape; attributes on one line, elide.EscapeLine), so that the
// file is well-formed XML 1.0 whatever they wrote, and nothing in it
// moves the cursor of a CI log that shows it.
func WriteJUnit(w io.Writer, r Run) error {
	line := elide.EscapeLine
	main := junitSuite{
		Name: line("acpconform: " + r.Subject), Package: "acpconform", Time: junitTime(r.Seconds),
		Properties: &junitProperties{Properties: []junitProperty{
			{Name: "subject", Value: line(r.Subject)},
			{Name: "subject.command", Value: line(r.Command)},
			{Name: "verdict", Value: line(string(r.Verdict))},
			{Name: "reason", Value: line(r.Reason)},
			{Name: "acpconform.version", Value: line(r.Version)},
			{Name: "acpconform.commit", Value: line(r.Commit)},
			{Name: "contract.revision", Value: line(r.Contract)},
			{Name: "acp.schema", Value: line(r.Schema)},
		}},
	}
	if r.Modified {
		main.Properties.Properties = append(main.Properties.Properties, junitProperty{Name: "acpconform.modified", Value: "true"})
	}
	if r.Shard.Count > 0 {
		main.Properties.Properties = append(main.Properties.Properties, junitProperty{Name: "shard", Value: r.Shard.String()})
	}
	known := junitSuite{Name: line("acpconform: " + r.Subject + ": known failures, in the baseline"), Package: "acpconform"}
	knownSeconds := 0.0
	for _, c := range r.Checks {
		if c.State == StateDeselected {
			continue
		}
		if c.Known != "" {
			known.add(junitCaseOf(c))
			knownSeconds += c.Seconds
			continue
		}
		main.add(junitCaseOf(c))
	}
	doc := junitSuites{Name: "acpconform", Time: main.Time, Suites: []junitSuite{main}}
	if len(known.Cases) > 0 {
		known.Time = junitTime(knownSeconds)
		doc.Suites = append(doc.Suites, known)
	}
	for _, s := range doc.Suites {
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Errors += s.Errors
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// junitCaseOf is the testcase of a check.
func junitCaseOf(c Check) junitCase {
	line, text := elide.EscapeLine, elide.Escape
	name := c.Name
	if c.ID != "" {
		name = c.ID + ": " + c.Name
	}
	tc := junitCase{
		Name: line(name), Classname: line("acpconform." + c.Area), Time: junitTime(c.Seconds),
		SystemOut: text(c.Transcript), SystemErr: text(c.Diagnostics),
	}
	body := text(strings.Join(failureBody(c), "\n"))
	switch {
	case c.Known != "":
		tc.Skipped = &junitResult{Type: "known failure", Message: line("known failure: " + elide.Head(c.Known, 1000) + "; " + firstLine(c.Failure)), Text: body}
	case c.State == StateFailed:
		tc.Failure = &junitResult{Type: line(c.Level), Message: line(firstLine(c.Failure)), Text: body}
	case c.State == StateInterrupted:
		tc.Error = &junitResult{Type: "interrupted", Message: "interrupted", Text: body}
	case c.State == StateError:
		tc.Error = &junitResult{Type: "not started", Message: line(firstLine(c.Failure)), Text: body}
	case c.State == StateSkipped:
		tc.Skipped = &junitResult{Message: line(c.SkipReason)}
	}
	return tc
}

// failureBody is what reports say of a failed check, a paragraph or a
// line each: its reason, how the subject's process ended, what its rerun
// on a fresh connection found, where it failed, and the lines that go
// further (see [Check.NextSteps]).
func failureBody(c Check) []string {
	var out []string
	if c.Known != "" {
		out = append(out, "Known failure, in the baseline: "+c.Known, "")
	}
	out = append(out, strings.TrimSpace(c.Failure))
	if c.Process != "" {
		out = append(out, "", "The subject's process "+c.Process+".")
	}
	if c.Rerun != "" {
		out = append(out, "", "Run again: "+c.Rerun+".")
	}
	out = append(out, "")
	if c.Location != "" {
		out = append(out, "scenario:     "+c.Location)
	}
	if c.FailedAt != "" {
		out = append(out, "failed at:    "+c.FailedAt)
	}
	return append(out, c.NextSteps()...)
}

// NextSteps are the lines that take a failed check further, as the
// terminal shows them: "run it again: " and the command that runs it
// alone (see Check.Again), "the rule:     acpconform explain RULE" for
// its first rule, and "other rules:  acpconform explain RULE" for each of
// the others. A check without Again or rules has fewer.
func (c Check) NextSteps() []string {
	var out []string
	if c.Again != "" {
		out = append(out, "run it again: "+c.Again)
	}
	for i, rule := range c.Rules {
		label := "the rule:     "
		if i > 0 {
			label = "other rules:  "
		}
		out = append(out, label+ExplainLine(rule))
	}
	return out
}

// ExplainLine is the command line that explains a rule of the contract.
func ExplainLine(rule string) string { return "acpconform explain " + rule }

// junitTime is seconds as junit-10.xsd's SUREFIRE_TIME has it: at most
// three decimals.
func junitTime(seconds float64) string { return fmt.Sprintf("%.3f", max(seconds, 0)) }

// The elements of junit.xml, as junit-10.xsd defines them: no attribute
// or element it lacks (a testcase has no status, file, line or
// properties).
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Time     string       `xml:"time,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name       string           `xml:"name,attr"`
		Tests      int              `xml:"tests,attr"`
		Failures   int              `xml:"failures,attr"`
		Errors     int              `xml:"errors,attr"`
		Skipped    int              `xml:"skipped,attr"`
		Time       string           `xml:"time,attr"`
		Package    string           `xml:"package,attr,omitempty"`
		Properties *junitProperties `xml:"properties,omitempty"`
		Cases      []junitCase      `xml:"testcase"`
	}
	junitProperties struct {
		Properties []junitProperty `xml:"property"`
	}
	junitProperty struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	junitCase struct {
		Name      string       `xml:"name,attr"`
		Classname string       `xml:"classname,attr"`
		Time      string       `xml:"time,attr"`
		Skipped   *junitResult `xml:"skipped"`
		Error     *junitResult `xml:"error"`
		Failure   *junitResult `xml:"failure"`
		SystemOut string       `xml:"system-out,omitempty"`
		SystemErr string       `xml:"system-err,omitempty"`
	}
	// junitResult is a <failure>, <error> or <skipped>.
	junitResult struct {
		Message string `xml:"message,attr,omitempty"`
		Type    string `xml:"type,attr,omitempty"`
		Text    string `xml:",chardata"`
	}
)

// add puts a testcase in the suite, and counts it.
func (s *junitSuite) add(tc junitCase) {
	s.Cases = append(s.Cases, tc)
	s.Tests++
	switch {
	case tc.Failure != nil:
		s.Failures++
	case tc.Error != nil:
		s.Errors++
	case tc.Skipped != nil:
		s.Skipped++
	}
}
