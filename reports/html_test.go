package reports_test

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"html"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/acpconform/acpconform/reports"
)

// report.html of a failed check draws its transcript as arrows, with the
// commands that run it again and explain its rule.
func ExampleWriteHTML() {
	run := reports.Run{Subject: "agent command ./my-agent", Verdict: reports.NotConformant, Reason: "1 MUST check failed",
		Checks: []reports.Check{{
			ID: "TOK-2/leading-zero", Name: "TOK: an accept of choice_01 is refused", Area: "TOK", Rules: []string{"TOK-2"},
			Level: "MUST", Role: "agent", State: reports.StateFailed, Failure: "the agent accepted choice_01",
			Again: "acpconform agent --check TOK-2/leading-zero -v -- ./my-agent",
			Transcript: `+0.0010s -> {"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{}}` + "\n" +
				`+0.0020s <- {"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}` + "\n",
		}}}
	var page strings.Builder
	_ = reports.WriteHTML(&page, run, nil)
	for _, m := range regexp.MustCompile(`<span class="method">([^<]*)</span> <span class="mid">([^<]*)</span>`).FindAllStringSubmatch(page.String(), -1) {
		fmt.Println(m[1], m[2])
	}
	fmt.Println(strings.Contains(page.String(), `<code class="explain">acpconform explain TOK-2</code>`))
	// Output:
	// session/prompt #3
	// result of session/prompt #3
	// true
}

// A run of many failures with large transcripts makes a page of bounded
// size: past the page's budget, a failure says where its transcript is.
func TestHTMLReportIsBounded(t *testing.T) {
	frame := `{"jsonrpc":"2.0","method":"session/update","params":{"text":"` + strings.Repeat("<&>", 5000) + `"}}`
	transcript := strings.Repeat("+0.0010s <- "+frame+"\n", 4) // 60 KiB, as big as a transcript gets
	run := reports.Run{Subject: "s", Verdict: reports.NotConformant}
	for i := range 200 {
		run.Checks = append(run.Checks, reports.Check{ID: fmt.Sprintf("TOK-2/c%d", i), Name: "n", Area: "TOK", Level: "MUST", Role: "agent",
			State: reports.StateFailed, Failure: strings.Repeat("why ", 10000), Diagnostics: strings.Repeat("err ", 10000), Transcript: transcript})
	}
	var page strings.Builder
	if err := reports.WriteHTML(&page, run, nil); err != nil {
		t.Fatal(err)
	}
	// 1 MiB of evidence, escaped (<&> as &lt;&amp;&gt;: 13/3 of its
	// size), and for each failure its heading and its reason's first line.
	if max := 1<<20*13/3 + 200*(4<<10); page.Len() > max {
		t.Errorf("the page is %d bytes, want at most %d", page.Len(), max)
	}
	if n := strings.Count(page.String(), "is not drawn: this page has drawn as much as it holds"); n == 0 || n == 200 {
		t.Errorf("%d of 200 failures say their transcript is not drawn; want some, not all", n)
	}
	if os.Getenv("ACPCONFORM_HTML_SIZE") != "" {
		t.Logf("%d bytes", page.Len())
	}
}

// A check that ran again after failing on a connection shared with
// earlier checks has its attempts drawn apart in report.html, each
// labelled with its connection and how it fared, the failure marked in
// each attempt that failed; a check whose first attempt was fresh, and
// so did not run again, has one part.
func TestHTMLDrawsTheAttemptsOfARerun(t *testing.T) {
	frames := func(outcome string) string {
		return `+0.0010s -> {"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{}}` + "\n" +
			`+0.0020s <- {"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"{\"acpconform\":1,\"outcome\":\"` + outcome + `\"}"}}}}` + "\n" +
			`+0.0030s <- {"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}` + "\n"
	}
	transcript := func(attempt int, text string) types.ReportEntry {
		e := types.ReportEntry{Name: reports.EntryTranscript, Visibility: types.ReportEntryVisibilityFailureOrVerbose}
		e.Value = types.WrapEntryValue(reports.Transcript{Attempt: attempt, Text: text})
		return e
	}
	rerun := func(name, first, last string, state types.SpecState, entries ...types.ReportEntry) types.SpecReport {
		s := spec("TOK: reading", name, state, labels("TOK-2", "MUST"), last, entries...)
		s.NumAttempts = 2
		s.AdditionalFailures = []types.AdditionalFailure{{State: types.SpecStateFailed, Failure: types.Failure{Message: "Failure recorded during attempt 1:\n" + first}}}
		return s
	}
	declined := "the agent reported declined, want accepted"
	ses1 := types.ReportEntry{Name: reports.EntrySES1, Value: types.WrapEntryValue("SES-1")}
	r := types.Report{SpecReports: types.SpecReports{
		rerun("fresh at once", declined, declined, types.SpecStateFailed, transcript(1, frames("declined"))),
		rerun("failed alike", declined, declined, types.SpecStateFailed, transcript(1, frames("declined")), transcript(2, frames("declined"))),
		rerun("failed otherwise", declined, "the agent reported cancelled, want accepted", types.SpecStateFailed, transcript(1, frames("declined")), transcript(2, frames("cancelled"))),
		rerun("passed fresh", declined, "SES-1: the check failed on a connection that had served 3 earlier sessions, and passed on a fresh connection. On the shared connection:\n"+declined,
			types.SpecStateFailed, ses1, transcript(1, frames("declined")), transcript(2, frames("accepted"))),
	}}
	var page strings.Builder
	if err := reports.WriteHTML(&page, reports.FromGinkgo(r, "s", nil, false), nil); err != nil {
		t.Fatal(err)
	}
	var got []string
	articles := strings.Split(page.String(), "<article ")[1:]
	for _, a := range articles {
		name := regexp.MustCompile(`</span> ([^<]*)</h3>`).FindStringSubmatch(a)[1]
		var parts []string
		for _, p := range regexp.MustCompile(`<div class="part[^"]*">\n(?:<p class="attempt-label"><span class="attempt-name">([^<]*)</span> <span class="verdict-badge [a-z]+">([^<]*)</span>)?`).FindAllStringSubmatch(a, -1) {
			parts = append(parts, fmt.Sprintf("[%s: %s]", p[1], p[2]))
		}
		got = append(got, fmt.Sprintf("%s: %s, %d marked", name, strings.Join(parts, " "), strings.Count(a, ` blame"><summary>`)))
	}
	want := []string{
		"TOK: reading: fresh at once: [: ], 1 marked",
		"TOK: reading: failed alike: [attempt 1, on a connection shared with earlier checks: failed] [attempt 2, on a fresh connection: failed again], 2 marked",
		"TOK: reading: failed otherwise: [attempt 1, on a connection shared with earlier checks: failed] [attempt 2, on a fresh connection: failed again], 2 marked",
		"TOK: reading: passed fresh: [attempt 1, on a connection shared with earlier checks: failed] [attempt 2, on a fresh connection: passed], 1 marked",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the failures:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n := strings.Count(page.String(), `<p class="rerun">Run again: it failed on a connection shared with earlier checks`); n != 3 {
		t.Errorf("%d failures say they ran again, want the 3 that did", n)
	}
}

// The page's Content-Security-Policy allows its own style and script, as
// the page holds them, by their hashes: a comment html/template dropped
// from either would leave the page without it.
func TestHTMLPolicyAllowsItsOwnStyleAndScript(t *testing.T) {
	var page strings.Builder
	if err := reports.WriteHTML(&page, reports.Run{Subject: "s", Verdict: reports.Conformant}, nil); err != nil {
		t.Fatal(err)
	}
	p := page.String()
	policy := html.UnescapeString(regexp.MustCompile(`http-equiv="Content-Security-Policy" content="([^"]*)"`).FindStringSubmatch(p)[1])
	for _, tag := range []string{"style", "script"} {
		m := regexp.MustCompile(`(?s)<`+tag+`>(.*?)</`+tag+`>`).FindAllStringSubmatch(p, -1)
		if len(m) != 1 || !strings.Contains(m[0][1], "/*") && tag == "style" {
			t.Fatalf("the page has %d %s elements, want 1 with its comments", len(m), tag)
		}
		sum := sha256.Sum256([]byte(m[0][1]))
		if hash := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"; !strings.Contains(policy, tag+"-src "+hash) {
			t.Errorf("the policy %q does not allow the page's %s (%s)", policy, tag, hash)
		}
	}
}
