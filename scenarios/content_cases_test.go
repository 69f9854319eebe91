package scenarios_test

import (
	"testing"

	"github.com/acpconform/acpconform/reference"
	"github.com/acpconform/acpconform/scenarios"
)

// TestTheReferenceJudgesContentAsTheCatalogue: the reference's judge of
// content, which the Go kit's example calls, holds valid exactly the
// content the ELI checks want handed back. The TypeScript and Python
// kits' judges are held to the same cases in interop.
func TestTheReferenceJudgesContentAsTheCatalogue(t *testing.T) {
	cases := scenarios.ContentCases()
	if len(cases) < 20 {
		t.Fatalf("%d content cases, want the ELI checks' 20 or more", len(cases))
	}
	for _, c := range cases {
		if problems := reference.ContentProblems(c.RequestedSchema, c.Content); (len(problems) == 0) != c.Valid {
			t.Errorf("%s: %s is valid %v to the catalogue, and the reference says %q", c.Name, c.Content, c.Valid, problems)
		}
	}
}
