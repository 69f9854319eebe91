package script_test

import (
	"fmt"
	"os"
	"regexp"
	"testing"

	"github.com/acpconform/acpconform/mocks/script"
)

// TestDocsExamples loads every script shown in docs/scripts.md, so the docs
// cannot drift from the language.
func TestDocsExamples(t *testing.T) {
	doc, err := os.ReadFile("../../docs/scripts.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```(yaml|json)\n(.*?)```").FindAllSubmatch(doc, -1)
	if len(blocks) < 5 {
		t.Fatalf("found %d examples in docs/scripts.md, want at least 5", len(blocks))
	}
	names := map[string]bool{}
	for i, b := range blocks {
		s, err := script.Parse(fmt.Sprintf("docs/scripts.md example %d", i+1), b[2])
		if err != nil {
			t.Errorf("example %d (%s) does not load:\n%v", i+1, b[1], err)
			continue
		}
		if names[s.Name] {
			t.Errorf("example %d reuses the name %q", i+1, s.Name)
		}
		names[s.Name] = true
	}
}
