package ci

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// pinnedUse is a use of another repository's action by a full commit SHA.
var pinnedUse = regexp.MustCompile(`^[\w.-]+/[\w.-]+(/[\w./-]+)?@[0-9a-f]{40} # v\d+\.\d+\.\d+$`)

// TestActionsArePinned: every action the action and the workflows use is
// pinned by a full commit SHA with its version in a comment, but this
// repository's own action, used by path or, in the users' example, by tag.
func TestActionsArePinned(t *testing.T) {
	files := []string{"action.yml", ".github/workflows/acpconform.yml", "docs/ci/github-workflow.yml", "docs/ci/github-shards.yml"}
	uses := regexp.MustCompile(`^\s*(?:-\s+)?uses:\s*(.*)$`)
	for _, name := range files {
		data, err := os.ReadFile(filepath.Join(root(t), name))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for i, line := range strings.Split(string(data), "\n") {
			m := uses.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			n++
			use := strings.TrimSpace(m[1])
			switch {
			case use == "./", strings.HasPrefix(use, "acpconform/acpconform@"):
			case !pinnedUse.MatchString(use):
				t.Errorf("%s:%d: uses %s: pin it by full commit SHA, with # vX.Y.Z", name, i+1, use)
			}
		}
		if n == 0 {
			t.Errorf("%s uses no action", name)
		}
	}
}
