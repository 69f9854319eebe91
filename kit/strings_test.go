package kit_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/suite"
)

// TestEachKitREADMEHasTheExactStrings: the three kits' READMEs carry one
// box of the strings a feature must produce, the same in each, and its
// VAL messages are the contract's.
func TestEachKitREADMEHasTheExactStrings(t *testing.T) {
	const begin, end = "<!-- exact strings:", "<!-- /exact strings -->"
	var boxes []string
	for _, readme := range []string{"README.md", "ts/README.md", "python/README.md"} {
		data, err := os.ReadFile(readme)
		if err != nil {
			t.Fatal(err)
		}
		_, after, ok := strings.Cut(string(data), begin)
		box, _, closed := strings.Cut(after, end)
		if !ok || !closed {
			t.Fatalf("kit/%s has no box of the exact strings", readme)
		}
		boxes = append(boxes, box)
	}
	for i, b := range boxes[1:] {
		if b != boxes[0] {
			t.Errorf("the box of the exact strings differs between kit/README.md and the %s kit's README", []string{"TypeScript", "Python"}[i])
		}
	}
	messages := regexp.MustCompile(`\(VAL-(\d)\) \| error `+"`invalid_argument` \\| message `([^`]+)`").FindAllStringSubmatch(boxes[0], -1)
	if len(messages) != 4 {
		t.Fatalf("the box gives %d VAL messages, want 4", len(messages))
	}
	for _, m := range messages {
		if rule := suite.MustLookup("VAL-" + m[1]); !strings.Contains(rule.Text, `"`+m[2]+`"`) {
			t.Errorf("the box says VAL-%s's message is %q; the contract says: %s", m[1], m[2], rule.Text)
		}
	}
}
