package reports_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/acpconform/acpconform/internal/needtool"
	"github.com/acpconform/acpconform/internal/reportcheck"
	"github.com/acpconform/acpconform/reports"
)

// expectValidJUnit validates the junit.xml of r against junit-10.xsd and
// returns it.
func expectValidJUnit(t *testing.T, r reports.Run) string {
	t.Helper()
	xmllint := needtool.Path(t, "xmllint", "libxml2-utils")
	var buf bytes.Buffer
	if err := reports.WriteJUnit(&buf, r); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := reportcheck.JUnitValid(ctx, xmllint, buf.Bytes()); err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	return buf.String()
}

// Every state a check can be in, a known failure, a shard and text that
// is not plain: junit.xml is valid against Jenkins' schema all the same.
func TestJUnitIsValidAgainstJenkinsSchema(t *testing.T) {
	r := forgedRun("a \x1b]0;title\x07 <b>&amp;</b> \xff")
	r.Shard = reports.Shard{Index: 1, Count: 2}
	r.Checks[0].Seconds = 1234.56789
	expectValidJUnit(t, r)
}

// report.json has, for each failed check, the command that runs it again
// and the explain line of each of its rules, as the terminal does.
func TestJSONSaysWhatToDoNext(t *testing.T) {
	r := reports.Run{Subject: "my-agent", Checks: []reports.Check{
		{ID: "TOK-1/new", Name: "TOK: new", Area: "TOK", Rules: []string{"TOK-1", "SES-1"}, Level: "MUST", State: reports.StateFailed,
			Failure: "got choice_1", Again: "acpconform agent --check TOK-1/new -v -- ./my-agent"},
		{ID: "TOK-1/passed", Name: "TOK: passed", Area: "TOK", Rules: []string{"TOK-1"}, Level: "MUST", State: reports.StatePassed},
	}}
	var buf bytes.Buffer
	if err := reports.WriteJSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Checks []struct {
			Again   string   `json:"again"`
			Explain []string `json:"explain"`
		} `json:"checks"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if c := doc.Checks[0]; c.Again != r.Checks[0].Again || strings.Join(c.Explain, "; ") != "acpconform explain TOK-1; acpconform explain SES-1" {
		t.Errorf("the failed check in report.json: again %q, explain %q", c.Again, c.Explain)
	}
	if c := doc.Checks[1]; len(c.Explain) != 0 {
		t.Errorf("a passed check has explain lines %q", c.Explain)
	}
}

// A cause of several checks lists each with the command that runs it
// again, then the explain line of every rule they cite.
func TestMarkdownCauseOfSeveralSaysEachRule(t *testing.T) {
	check := func(id, rule string) reports.Check {
		return reports.Check{ID: id, Name: "TOK: " + id, Area: "TOK", Rules: []string{rule}, Level: "MUST", State: reports.StateFailed,
			Failure: "the agent closed the connection", Again: "acpconform agent --check " + id + " -v -- ./my-agent"}
	}
	r := reports.Run{Subject: "my-agent", Verdict: reports.NotConformant, Checks: []reports.Check{check("TOK-3/a", "TOK-3"), check("TOK-4/b", "TOK-4")}}
	var buf bytes.Buffer
	if err := reports.WriteMarkdown(&buf, r, []string{"TOK"}); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	for _, want := range []string{
		"- `TOK-3/a` (TOK-3 MUST): `acpconform agent --check TOK-3/a -v -- ./my-agent`\n",
		"- `TOK-4/b` (TOK-4 MUST): `acpconform agent --check TOK-4/b -v -- ./my-agent`\n",
		"The rules: `acpconform explain TOK-3`, `acpconform explain TOK-4`\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("summary.md lacks %q:\n%s", want, md)
		}
	}
}
