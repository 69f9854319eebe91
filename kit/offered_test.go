package kit_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/reports"
)

// TestAnAgentWithoutCreateElicitationIsConformantOnAskChoice: the example
// agent without CreateElicitation (the kit answers not_offered), and the
// same agent on the kit of revision 2, which answered -32602 as an adapter
// of probe revision 1 answers an op it does not know, are each conformant
// on ask_choice: their ELI checks are not offered, neither passed nor
// failed, and the verdict line and report.json say so, listing the MUST
// rules no check reached. The example itself, which offers the op, passes
// the same checks and is conformant on both operations.
func TestAnAgentWithoutCreateElicitationIsConformantOnAskChoice(t *testing.T) {
	dir := built(t)
	withoutIt := []string{"main.go", "AskChoice: askChoice, CreateElicitation: createElicitation, ", "AskChoice: askChoice, "}
	// The kit of revision 2: -32602 for an op it runs no function for.
	revision1 := []string{"../../agent.go", "\treq, err := probe.ParseRequest(text)\n",
		"\treq, err := probe.ParseRequest(text)\n\tif err == nil && req.Op == probe.OpCreateElicitation && s.agent.CreateElicitation == nil {\n" +
			"\t\terr = fmt.Errorf(\"unknown probe op %q: this adapter runs ask_choice only (probe revision 1)\", req.Op)\n\t}\n"}
	selection := []string{"--check", "ELI-*", "--check", "TOK-1/*"}

	code, out, r := checked(t, "agent", filepath.Join(dir, "example-agent"), selection...)
	if code != 0 || !strings.Contains(out, "is conformant on ask_choice and create_elicitation: ") {
		t.Fatalf("the example, which offers create_elicitation: exit %d, want 0 and a verdict on both operations:\n%s", code, out)
	}
	for _, c := range r.Checks {
		if c.Area == "ELI" && c.State != reports.StatePassed {
			t.Errorf("the example: %s is %s (%s), want passed", c.ID, c.State, c.SkipReason)
		}
	}

	for name, edits := range map[string][][]string{
		"without CreateElicitation":      {withoutIt},
		"on the kit of probe revision 2": {withoutIt, revision1},
	} {
		t.Run(name, func(t *testing.T) {
			code, out, r := checked(t, "agent", exampleVariant(t, edits...), selection...)
			if code != 0 || r.Verdict != reports.Conformant {
				t.Fatalf("exit %d, verdict %s, want 0, conformant:\n%s", code, r.Verdict, out)
			}
			eli := 0
			for _, c := range r.Checks {
				if c.Area != "ELI" {
					continue
				}
				eli++
				if c.State != reports.StateSkipped || c.NotOffered != "create_elicitation" || !strings.HasPrefix(c.SkipReason, "not offered: ") {
					t.Errorf("%s is %s (%s), notOffered %q; want skipped, not offered", c.ID, c.State, c.SkipReason, c.NotOffered)
				}
			}
			if eli < 10 || r.Totals.Passed == 0 {
				t.Errorf("%d ELI checks and %d passed, want the ELI checks not offered and the TOK-1 ones passed", eli, r.Totals.Passed)
			}
			wantOps := []reports.Operation{{Op: "ask_choice", Status: "checked"}, {Op: "create_elicitation", Status: "not offered"}}
			if !slices.Equal(r.Operations, wantOps) {
				t.Errorf("report.json's operations are %+v, want %+v", r.Operations, wantOps)
			}
			var notOffered []string
			for _, u := range r.Unreached {
				if u.Why == "not offered" {
					notOffered = append(notOffered, u.ID)
				}
			}
			if !slices.Contains(notOffered, "ELI-1") || !slices.Contains(notOffered, "ELI-2") || slices.Contains(notOffered, "ELI-3") {
				t.Errorf("report.json's unreached MUST rules not offered are %q, want ELI-1 and ELI-2 (ELI-3 is a SHOULD)", notOffered)
			}
			for _, want := range []string{"is conformant on ask_choice (create_elicitation not offered): ", "MUST rules not reached", "  not offered: ELI-1, ELI-2"} {
				if !strings.Contains(out, want) {
					t.Errorf("the summary does not say %q:\n%s", want, out)
				}
			}
		})
	}
}

// exampleVariant builds the example agent with edits, each a file
// (relative to example/agent) then from, to pairs, and returns the binary.
func exampleVariant(t *testing.T, edits ...[]string) string {
	t.Helper()
	dir := t.TempDir()
	replace := map[string]string{}
	for i, e := range edits {
		orig, err := filepath.Abs(filepath.Join("example", "agent", e[0]))
		if err != nil {
			t.Fatal(err)
		}
		src, err := os.ReadFile(orig)
		if err != nil {
			t.Fatal(err)
		}
		text := string(src)
		for j := 1; j+1 < len(e); j += 2 {
			if strings.Count(text, e[j]) != 1 {
				t.Fatalf("%s does not hold %q once: it changed, update the test", e[0], e[j])
			}
			text = strings.Replace(text, e[j], e[j+1], 1)
		}
		mutated := filepath.Join(dir, filepath.Base(e[0])+"."+string(rune('a'+i))+".go")
		if err := os.WriteFile(mutated, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		replace[orig] = mutated
	}
	overlay := filepath.Join(dir, "overlay.json")
	b, _ := json.Marshal(map[string]map[string]string{"Replace": replace})
	if err := os.WriteFile(overlay, b, 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "variant-agent")
	if err := goBuild(bin, "./example/agent", overlay); err != nil {
		t.Fatal(err)
	}
	return bin
}
