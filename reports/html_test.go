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
