package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/internal/needtool"
	"github.com/acpconform/acpconform/internal/reportcheck"
	"github.com/acpconform/acpconform/internal/testbound"
)

// TestReportsOfRealRunsAreActionable: the junit.xml of a conformant run,
// of a failing client and of a run with known failures is valid against
// Jenkins' junit-10.xsd, and each failure in it, in summary.md and in
// report.json carries the command that runs it again and its explain
// line, new failures before known ones.
func TestReportsOfRealRunsAreActionable(t *testing.T) {
	t.Parallel()
	xmllint := needtool.Path(t, "xmllint", "libxml2-utils")
	_, client := slim(t) // the client alone: a check starts it once
	broken := []string{"client", "--", client, "--broken", "wrong-token"}
	baseline := filepath.Join(t.TempDir(), "baseline.yaml")
	expectCode(t, acpconform(t, nil, append([]string{broken[0], "--write-baseline", baseline}, broken[1:]...)...), 1)
	giveReasons(t, baseline)
	for _, tc := range []struct {
		name  string
		args  []string
		code  int
		known bool
	}{
		{"a conformant run", []string{"run"}, 0, false},
		{"a failing client", broken, 1, false},
		{"known failures", append([]string{broken[0], "--baseline", baseline}, broken[1:]...), 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := acpconform(t, nil, tc.args...)
			expectCode(t, r, tc.code)
			junit, err := os.ReadFile(filepath.Join(r.dir, "junit.xml"))
			if err != nil {
				t.Fatal(err)
			}
			if err := reportcheck.JUnitValid(testbound.Context(t), xmllint, junit); err != nil {
				t.Fatal(err)
			}
			summary, err := os.ReadFile(filepath.Join(r.dir, "summary.md"))
			if err != nil {
				t.Fatal(err)
			}
			failures := 0
			for _, c := range r.report.Checks {
				if !c.Failed() {
					continue
				}
				failures++
				if (c.Known != "") != tc.known {
					t.Errorf("%s: known %q", c.Key(), c.Known)
				}
				if !strings.HasPrefix(c.Again, "acpconform client --check "+c.ID+" ") {
					t.Errorf("%s: report.json's again is %q", c.Key(), c.Again)
				}
				for _, want := range []string{"run it again: " + c.Again, "the rule:     acpconform explain " + c.Rules[0]} {
					if !strings.Contains(string(junit), want) {
						t.Errorf("junit.xml lacks %q", want)
					}
				}
				for _, want := range []string{"`" + c.Again + "`", "`acpconform explain " + c.Rules[0] + "`"} {
					if !strings.Contains(string(summary), want) {
						t.Errorf("summary.md lacks %q", want)
					}
				}
			}
			if tc.code != 0 || tc.known {
				if failures == 0 {
					t.Fatalf("no failed check:\n%s", r.stdout)
				}
				if known := regexp.MustCompile(`<skipped message="[^"]*" type="known failure">`).Match(junit); known != tc.known {
					t.Errorf("junit.xml has a known failure: %v, want %v", known, tc.known)
				}
			}
		})
	}
}
