package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHTMLReportPath: report.html goes beside report.json unless --html
// says where; --html "" writes none, and so does --json "" without
// --html; and with --json on stdout, --html cannot be there too.
func TestHTMLReportPath(t *testing.T) {
	bin, _ := binaries(t)
	for _, tc := range []struct {
		name  string
		flags []string
		want  []string // the files the run writes, relative to its folder
		code  int
	}{
		{"beside the JSON report", []string{"--json", "out/report.json"}, []string{"out/report.html", "out/report.json"}, 0},
		{"where --html says", []string{"--json", "out/report.json", "--html", "page.html"}, []string{"out/report.json", "page.html"}, 0},
		{"none with --html \"\"", []string{"--json", "out/report.json", "--html", ""}, []string{"out/report.json"}, 0},
		{"none without a JSON report", []string{"--json", ""}, nil, 0},
		{"one report on stdout", []string{"--json", "-", "--html", "-"}, nil, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(bin, append([]string{"run", "--check", "TOK-2/leading-zero", "--junit", "", "--summary", ""}, tc.flags...)...)
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			if code := cmd.ProcessState.ExitCode(); code != tc.code {
				t.Fatalf("exit %d (%v), want %d:\n%s", code, err, tc.code, out)
			}
			var got []string
			filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					rel, _ := filepath.Rel(dir, path)
					got = append(got, rel)
				}
				return err
			})
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("wrote %q, want %q:\n%s", got, tc.want, out)
			}
			for _, f := range tc.want {
				if !strings.Contains(string(out), " "+f) {
					t.Errorf("the run does not list the report %s it wrote:\n%s", f, out)
				}
			}
		})
	}
}
