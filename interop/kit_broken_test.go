package interop_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/reports"
)

// verdictExit, as a subject's code, leaves its exit code to the caller,
// which judges it from the report with expectBroken: a broken variant
// whose only failures are of SHOULD rules exits 0, of MUST rules 1, and
// the level of a rule may change between revisions of the contract.
const verdictExit = -1

// expectBroken judges the report r of a run, exit code, of a deliberately
// broken adapter on the checks broken plus untouched: each check of broken
// must have failed citing the rule its ID names, untouched (if not "") must
// have passed, so the adapter itself runs, and the exit code must be the
// verdict's: 1 when a failed check is a MUST check, else 0.
func expectBroken(t *testing.T, name string, r *reports.JSON, code int, broken []string, untouched string) {
	t.Helper()
	states := map[string]reports.Check{}
	for _, c := range r.Checks {
		states[c.ID] = c
	}
	for _, id := range broken {
		c, ok := states[id]
		rule, _, _ := strings.Cut(id, "/")
		switch {
		case !ok:
			t.Errorf("%s: the report has no %s", name, id)
		case c.State != reports.StateFailed || !slices.Contains(c.Rules, rule):
			t.Errorf("%s: %s is %s citing %v, want failed citing %s", name, id, c.State, c.Rules, rule)
		}
	}
	if c := states[untouched]; untouched != "" && c.State != reports.StatePassed {
		t.Errorf("%s: %s is %q (%s), want passed: the adapter does not run", name, untouched, c.State, c.Failure)
	}
	want := 0
	if slices.ContainsFunc(r.Checks, func(c reports.Check) bool { return c.Failed() && c.Level == "MUST" }) {
		want = 1
	}
	if code != want {
		t.Errorf("%s: exit %d, want %d: 1 exactly when a MUST check failed", name, code, want)
	}
}

// replaceOnce breaks the copy of an example at path: from, which must be in
// it exactly once, is replaced by to. Anything else fails the test at once,
// naming the file: the example has changed, and the variant no longer breaks
// what it says.
func replaceOnce(t *testing.T, path, from, to string) {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(text), from); n != 1 {
		t.Fatalf("the example's %s has %q %d times, want once: the variant no longer breaks what it says", filepath.Base(path), from, n)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(text), from, to, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// copyFile copies a file and makes the folders it needs.
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
