package reports

import (
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/acpconform/acpconform/internal/elide"
)

// The page's own style and script, inline; the Content-Security-Policy
// allows these two by their hashes and nothing else: no network, no other
// script, whatever a subject's text holds.
var (
	//go:embed html.css
	htmlStyle string
	//go:embed html.js
	htmlScript string
	htmlPolicy = "default-src 'none'; img-src data:; style-src " + digest(htmlStyle) + "; script-src " + digest(htmlScript) + "; base-uri 'none'; form-action 'none'"
	//go:embed html.tmpl
	htmlPage string
	// The style and the script go in as they are, trusted: parsed as part
	// of the template, html/template would drop their comments, and the
	// policy's hashes would no longer match.
	htmlTmpl = template.Must(template.New("report.html").Funcs(template.FuncMap{
		"line":   func(s string) string { return elide.EscapeLine(elide.Head(s, 1000)) },
		"text":   func(s string) string { return elide.Escape(s) },
		"id":     shortID,
		"style":  func() template.CSS { return template.CSS(htmlStyle) }, // #nosec G203 -- our own file
		"script": func() template.JS { return template.JS(htmlScript) },  // #nosec G203 -- our own file
	}).Parse(htmlPage))
)

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// Bounds on what report.html draws of the subject's text, so that a run of
// many failures stays a page a browser opens: each failure's reason and
// stderr, and what the page draws of reasons, stderrs and transcripts in
// all (escaped, at most 6 times as many bytes: " is &#34;). Past that, a
// failure shows its reason's first line and says report.json has the rest.
const (
	maxHTMLFailure = 8 << 10
	maxHTMLStderr  = 8 << 10
	maxHTMLDrawn   = 1 << 20
)

// htmlRun is what the template of report.html reads.
type htmlRun struct {
	Run
	Policy   string
	Headline string
	Totals   Totals
	Areas    []Area
	States   []string
	Checks   []htmlCheck
	// Failures are the failures, the new ones (and the checks that could
	// not run) first, then the known ones, each in the run's order.
	Failures []htmlFailure
	// Problems are the run's problems, its new failures in one line when
	// there are several: the failures below show each.
	Problems   []string
	Known      int // failures the baseline knows
	Deselected int
	// NotReached heads and lists, by reason, the MUST rules no check
	// reached (Run.Unreached), under the verdict.
	NotReachedHeading string
	NotReached        []htmlUnreached
}

// htmlUnreached is the MUST rules no check reached for one reason.
type htmlUnreached struct {
	Why string
	IDs []string
}

type htmlCheck struct {
	Check
	Index int // its place in the run, the anchor of its failure: #f-Index
	// HasFailure says it has a block below, with its failure drawn.
	HasFailure bool
}

type htmlFailure struct {
	htmlCheck
	Failure    string // escaped and bounded
	Stderr     string
	Diagram    *diagram // nil without a transcript, or past the page's budget
	Untold     int      // bytes of evidence not drawn: the page's budget was spent
	Explains   []string // acpconform explain RULE, a command a rule
	FirstKnown bool     // the first known failure: the known ones start here
	// Fresh says how the check fared on a fresh connection, after it
	// failed on a shared one: "passed", "failed again"; "" when it ran once.
	Fresh string
}

// WriteHTML writes report.html: one page, whole in itself (no network,
// fonts or files besides), that opens on the failures: the verdict, then
// each failure, new ones before known ones, with its reason, the command
// that runs it again, `acpconform explain` for its rules and its
// transcript drawn as a sequence diagram, a lane a party, an arrow a
// frame, its full text on demand, the frame the failure is about marked;
// a check that failed on a connection shared with earlier checks and ran
// again on a fresh one has each attempt drawn apart. Under the verdict, the
// MUST rules no check reached, by reason. Below, a table by
// area and every check with its state (a skipped one with its reason),
// with filters by state and by area. areas orders the areas.
// html/template escapes what a subject wrote; its control characters show
// escaped (see elide.Escape), and the page bounds how much it draws.
func WriteHTML(w io.Writer, r Run, areas []string) error {
	page := htmlRun{Run: r, Policy: htmlPolicy, Headline: r.Headline() + r.ShardNote(), Totals: Count(r.Checks), Areas: ByArea(r.Checks, areas),
		Problems: problemLines(r.Problems)}
	if us := r.Unreached(); len(us) > 0 {
		page.NotReachedHeading = unreachedHeading(len(us))
		whys, ids := unreachedGroups(us)
		for _, why := range whys {
			page.NotReached = append(page.NotReached, htmlUnreached{Why: why, IDs: ids[why]})
		}
	}
	seen := map[string]bool{}
	budget := maxHTMLDrawn
	var known []htmlFailure
	for i, c := range r.Checks {
		if c.State == StateDeselected {
			page.Deselected++
			continue
		}
		if !seen[c.State] {
			seen[c.State] = true
			page.States = append(page.States, c.State)
		}
		hc := htmlCheck{Check: c, Index: i, HasFailure: c.Failed() || c.State == StateError}
		page.Checks = append(page.Checks, hc)
		if !hc.HasFailure {
			continue
		}
		f := htmlFailure{htmlCheck: hc,
			Failure: elide.Escape(elide.Head(strings.TrimSpace(c.Failure), maxHTMLFailure)),
			Stderr:  elide.Escape(elide.Tail(c.Diagnostics, maxHTMLStderr)),
		}
		switch {
		case c.Rerun == rerunPassed:
			f.Fresh = "passed"
		case c.Rerun != "":
			f.Fresh = "failed again"
		}
		if cost := len(f.Failure) + len(f.Stderr) + len(c.Transcript); cost > budget {
			f.Failure, f.Stderr, f.Untold = elide.Escape(firstLine(c.Failure)), "", cost
		} else {
			budget -= cost
			if c.Transcript != "" {
				d := readDiagram(c.Transcript, c.Role, c.Failure, f.Fresh == "passed")
				f.Diagram = &d
			}
		}
		for _, rule := range c.Rules {
			f.Explains = append(f.Explains, ExplainLine(rule))
		}
		if c.Known != "" {
			known = append(known, f)
			continue
		}
		page.Failures = append(page.Failures, f)
	}
	if len(known) > 0 {
		known[0].FirstKnown = true
		page.Known = len(known)
		page.Failures = append(page.Failures, known...)
	}
	return htmlTmpl.Execute(w, page)
}

// problemLines are a run's problems as the page heads them: several new
// failures are one line, since the failures below show each.
func problemLines(problems []string) []string {
	news := 0
	for _, p := range problems {
		if strings.HasPrefix(p, "new failure: ") {
			news++
		}
	}
	var out []string
	said := false
	for _, p := range problems {
		if news > 1 && strings.HasPrefix(p, "new failure: ") {
			if !said {
				out = append(out, fmt.Sprintf("%d new failures of MUST checks: below, each with its transcript", news))
				said = true
			}
			continue
		}
		out = append(out, p)
	}
	return out
}
