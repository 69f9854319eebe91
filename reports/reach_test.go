package reports_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/acpconform/acpconform/reports"
)

// eliLabels labels a check of an agent's create_elicitation.
func eliLabels(rule, level, slug string) []string {
	return []string{"area:ELI", "role:agent", "rule:" + rule, "level:" + level, "check:" + rule + ":" + slug}
}

// notOffered is an agent check of create_elicitation skipped because the
// agent does not offer the op, as the catalogue reports one.
func notOffered(text, rule, level, slug string) types.SpecReport {
	s := spec("ELI: an agent's create_elicitation", text, types.SpecStateSkipped, eliLabels(rule, level, slug), "", entry(reports.EntryNotOffered, "create_elicitation"))
	s.Failure = types.Failure{Message: "not offered: the agent does not offer create_elicitation: it answered a request of that op with the error outcome not_offered"}
	return s
}

// agentRun is a run of an agent that does not offer create_elicitation:
// its ask_choice checks pass, its ELI checks are not offered, a MUST rule
// is deselected and a SHOULD one skipped; rules are the rules it cites.
func agentRun(t *testing.T) reports.Run {
	t.Helper()
	r := types.Report{SpecReports: types.SpecReports{
		spec("TOK: reading", "maps choice_0", types.SpecStatePassed, labels("TOK-1", "MUST"), ""),
		spec("TOK: reading", "refuses choice_01", types.SpecStateSkipped, labels("TOK-2", "MUST"), ""),
		spec("SCH: what is sent", "sends descriptions", types.SpecStatePassed, labels("SCH-7", "SHOULD"), ""),
		notOffered("sends a form to a client with url only", "ELI-1", "MUST", "form-to-url-only"),
		notOffered("sends a form unchanged", "ELI-2", "MUST", "form-unchanged"),
		notOffered("refuses a missing property", "ELI-3", "SHOULD", "missing-required"),
	}}
	onlyTOK1 := func(labels []string) bool { return !strings.Contains(strings.Join(labels, " "), "rule:TOK-2") }
	run := reports.FromGinkgo(r, "my-agent", onlyTOK1, false)
	run.Rules = []reports.Rule{{ID: "SCH-7", Level: "SHOULD"}, {ID: "TOK-1", Level: "MUST"}, {ID: "TOK-2", Level: "MUST"},
		{ID: "ELI-1", Level: "MUST"}, {ID: "ELI-2", Level: "MUST"}, {ID: "ELI-3", Level: "SHOULD"}}
	return run
}

// TestNotOfferedIsNeitherPassedNorFailed: a check the catalogue marks
// not offered is skipped, says which operation, and the run stays
// conformant on what it did check.
func TestNotOfferedIsNeitherPassedNorFailed(t *testing.T) {
	run := agentRun(t)
	c := run.Checks[3]
	if c.State != reports.StateSkipped || c.NotOffered != "create_elicitation" || c.Op() != "create_elicitation" || !strings.HasPrefix(c.SkipReason, "not offered: ") {
		t.Errorf("a check not offered reads as %+v", c)
	}
	if op := run.Checks[0].Op(); op != "ask_choice" {
		t.Errorf("a TOK check exercises %q, want ask_choice", op)
	}
	if got := reports.Count(run.Checks); got.Passed != 2 || got.Failed != 0 || got.Skipped != 3 || got.Deselected != 1 {
		t.Errorf("Count = %+v, want 2 passed, 3 skipped, 1 deselected", got)
	}
}

// TestTheVerdictSaysWhatItCovers: the verdict line names the operations
// it judged and counts the MUST rules no check reached; report.json
// carries both, and every summary lists the rules by reason.
func TestTheVerdictSaysWhatItCovers(t *testing.T) {
	run := agentRun(t)
	reports.Decide(&run, nil, "", false)
	if run.Verdict != reports.Conformant || run.ExitCode() != 0 {
		t.Fatalf("verdict %s (exit %d), want conformant: not offered is no failure", run.Verdict, run.ExitCode())
	}
	if h := run.Headline(); h != "my-agent is conformant on ask_choice (create_elicitation not offered)" {
		t.Errorf("Headline = %q", h)
	}
	if run.Reason != "1 MUST check passed, 3 MUST rules not reached" {
		t.Errorf("Reason = %q", run.Reason)
	}
	want := []reports.Operation{{Op: "ask_choice", Status: reports.OpChecked}, {Op: "create_elicitation", Status: reports.OpNotOffered}}
	if got := run.Operations(); !equalJSON(got, want) {
		t.Errorf("Operations = %+v, want %+v", got, want)
	}
	unreached := []reports.Unreached{
		{Rule: reports.Rule{ID: "TOK-2", Level: "MUST"}, Why: "deselected"},
		{Rule: reports.Rule{ID: "ELI-1", Level: "MUST"}, Why: "not offered"},
		{Rule: reports.Rule{ID: "ELI-2", Level: "MUST"}, Why: "not offered"},
	}
	if got := run.Unreached(); !equalJSON(got, unreached) {
		t.Errorf("Unreached = %+v, want %+v", got, unreached)
	}

	var buf bytes.Buffer
	if err := reports.WriteJSON(&buf, run); err != nil {
		t.Fatal(err)
	}
	var doc reports.JSON
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if !equalJSON(doc.Operations, want) || !equalJSON(doc.Unreached, unreached) || doc.Checks[3].NotOffered != "create_elicitation" {
		t.Errorf("report.json has operations %+v, unreached %+v, and %+v", doc.Operations, doc.Unreached, doc.Checks[3])
	}
	back, err := reports.ReadJSON(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if !equalJSON(back.Operations(), want) || !equalJSON(back.Unreached(), unreached) || back.Headline() != run.Headline() {
		t.Errorf("read back, the run says %q, %+v, %+v", back.Headline(), back.Operations(), back.Unreached())
	}

	var out strings.Builder
	reports.Terminal{Out: &out, Command: "agent", AreasSaid: true, Width: reports.TerminalColumns}.Summary(run, nil, "")
	for _, line := range []string{
		"  not offered: ELI-1, ELI-2",
		"  deselected: TOK-2",
		"acpconform: my-agent is conformant on ask_choice (create_elicitation not offered): 1 MUST check passed, 3 MUST rules not reached",
	} {
		if !strings.Contains(out.String(), line+"\n") {
			t.Errorf("the summary has no line %q:\n%s", line, out.String())
		}
	}
	if !strings.Contains(out.String(), "3 MUST rules not reached: no check of theirs passed or failed") {
		t.Errorf("the summary does not head the rules not reached:\n%s", out.String())
	}

	buf.Reset()
	if err := reports.WriteMarkdown(&buf, run, []string{"TOK", "ELI"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## acpconform: my-agent is conformant on ask_choice (create_elicitation not offered)", "- not offered: `ELI-1`, `ELI-2`\n", "- deselected: `TOK-2`\n"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("summary.md lacks %q:\n%s", want, buf.String())
		}
	}
	buf.Reset()
	if err := reports.WriteHTML(&buf, run, []string{"TOK", "ELI"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `<li>not offered: <code>ELI-1</code>, <code>ELI-2</code></li>`) {
		t.Errorf("report.html does not list the rules not reached under the verdict")
	}
}

// TestVerdictsOfAgentsThatOfferBoth: an agent that offers both operations
// is conformant on both, and one that fails says what it does not offer;
// a client's verdict names no operation.
func TestVerdictsOfAgentsThatOfferBoth(t *testing.T) {
	both := types.Report{SpecReports: types.SpecReports{
		spec("TOK: reading", "maps choice_0", types.SpecStatePassed, labels("TOK-1", "MUST"), ""),
		spec("ELI: an agent's create_elicitation", "sends a form unchanged", types.SpecStatePassed, eliLabels("ELI-2", "MUST", "form-unchanged"), ""),
	}}
	run := reports.FromGinkgo(both, "my-agent", nil, false)
	run.Rules = []reports.Rule{{ID: "TOK-1", Level: "MUST"}, {ID: "ELI-2", Level: "MUST"}}
	reports.Decide(&run, nil, "", false)
	if h := run.Headline(); h != "my-agent is conformant on ask_choice and create_elicitation" || run.Reason != "2 MUST checks passed" {
		t.Errorf("an agent that offers both: %q: %q", h, run.Reason)
	}

	failing := agentRun(t)
	failing.Checks[0].State, failing.Checks[0].Failure = reports.StateFailed, "the agent reported declined"
	reports.Decide(&failing, nil, "", false)
	if h := failing.Headline(); h != "my-agent is NOT conformant (create_elicitation not offered)" {
		t.Errorf("a failing agent that does not offer create_elicitation: %q", h)
	}

	narrow := reports.FromGinkgo(types.Report{SpecReports: types.SpecReports{
		spec("TOK: reading", "maps choice_0", types.SpecStatePassed, labels("TOK-1", "MUST"), ""),
		spec("ELI: an agent's create_elicitation", "sends a form unchanged", types.SpecStateSkipped, eliLabels("ELI-2", "MUST", "form-unchanged"), ""),
	}}, "my-agent", func(l []string) bool { return !strings.Contains(strings.Join(l, " "), "area:ELI") }, false)
	reports.Decide(&narrow, nil, "", false)
	if h := narrow.Headline(); h != "my-agent is conformant on ask_choice (create_elicitation not checked)" {
		t.Errorf("an agent whose ELI checks were deselected: %q", h)
	}

	mixed := reports.FromGinkgo(types.Report{SpecReports: append(both.SpecReports,
		spec("ELI: a client under test", "answers forms", types.SpecStatePassed, []string{"area:ELI", "role:client", "rule:ELI-4", "level:MUST", "check:ELI-4:multi-field"}, ""))}, "the reference", nil, false)
	mixed.Selection.Catalogue = "run"
	reports.Decide(&mixed, nil, "", false)
	if h := mixed.Headline(); h != "the reference is conformant, its agent on ask_choice and create_elicitation" {
		t.Errorf("acpconform run, of an agent and a client: %q", h)
	}

	client := reports.FromGinkgo(types.Report{SpecReports: types.SpecReports{
		spec("ELI: a client under test", "answers forms", types.SpecStatePassed, []string{"area:ELI", "role:client", "rule:ELI-4", "level:MUST", "check:ELI-4:multi-field"}, ""),
	}}, "my-client", nil, false)
	reports.Decide(&client, nil, "", false)
	if h := client.Headline(); h != "my-client is conformant" || client.Operations() != nil {
		t.Errorf("a client: %q, operations %+v", h, client.Operations())
	}
}

// TestTheTerminalHoldsManyRulesNotReached: a run that left out most of
// the catalogue lists the rules it did not reach in a few lines, and says
// how many more report.json lists.
func TestTheTerminalHoldsManyRulesNotReached(t *testing.T) {
	var r types.Report
	var rules []reports.Rule
	for i := range 80 {
		id := "TOK-" + strings.Repeat("1", 1+i%3) + string(rune('a'+i%26)) + string(rune('a'+i/26))
		state := types.SpecStateSkipped // deselected, all but the first
		if i == 0 {
			state = types.SpecStatePassed
		}
		r.SpecReports = append(r.SpecReports, spec("TOK: reading", "check "+id, state, []string{"area:TOK", "role:agent", "rule:" + id, "level:MUST"}, ""))
		rules = append(rules, reports.Rule{ID: id, Level: "MUST"})
	}
	run := reports.FromGinkgo(r, "my-agent", func(l []string) bool { return strings.Contains(strings.Join(l, " "), "rule:TOK-1aa") }, false)
	run.Rules = rules
	reports.Decide(&run, nil, "", false)
	var out strings.Builder
	reports.Terminal{Out: &out, Command: "agent", AreasSaid: true, Width: reports.TerminalColumns}.Summary(run, nil, "")
	var listed []string
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(l, "  deselected:") || strings.HasPrefix(l, "    TOK-") {
			listed = append(listed, l)
			if len([]rune(l)) > reports.TerminalColumns {
				t.Errorf("a line of %d columns: %q", len([]rune(l)), l)
			}
		}
	}
	if len(listed) != 3 || !strings.HasSuffix(listed[2], "more: report.json lists each") {
		t.Errorf("79 rules not reached take %d lines, want 3, the last saying how many more:\n%s", len(listed), out.String())
	}
}

// equalJSON compares two values as JSON.
func equalJSON(a, b any) bool {
	x, errA := json.Marshal(a)
	y, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(x) == string(y)
}
