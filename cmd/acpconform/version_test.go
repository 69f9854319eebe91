package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/internal/needtool"
	"github.com/acpconform/acpconform/internal/testbound"
	"github.com/acpconform/acpconform/reports"
)

// TestVersionNamesTheCommitOfTheClone builds acpconform as a user does in
// a clone (go build, vcs stamping on) and finds the clone's HEAD in
// --version and in report.json, with "(modified)" once a file differs
// from it. The clone is a copy of this checkout's files committed afresh:
// a checkout may be a git worktree, whose .git is a file Go does not look
// into, and the copy holds the code under test, committed or not.
func TestVersionNamesTheCommitOfTheClone(t *testing.T) {
	if testing.Short() {
		t.Skip("builds acpconform")
	}
	t.Parallel()
	git := needtool.Path(t, "git", "git")
	ctx := testbound.Context(t)
	clone := filepath.Join(t.TempDir(), "acpconform")
	head, bin := buildInAClone(t, ctx, git, clone)
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir = clone
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %q: %v\n%s", name, args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	build := func() { run("go", "build", "-buildvcs=true", "-trimpath", "-o", bin, "./cmd/acpconform") }

	if got, want := buildLine(run(bin, "--version")), "acpconform devel, commit "+head; got != want {
		t.Errorf("--version of a build in a clean clone says %q, want %q", got, want)
	}
	report := filepath.Join(t.TempDir(), "report.json")
	run(bin, "run", "--check", "TOK-4/token-per-request", "--json", report, "--junit", "", "--summary", "", "--html", "")
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var j reports.JSON
	if err := json.Unmarshal(data, &j); err != nil {
		t.Fatal(err)
	}
	if j.Version != "devel" || j.Commit != head || j.Modified {
		t.Errorf("report.json says version %q, commit %q, modified %v; want devel, %s, not modified", j.Version, j.Commit, j.Modified, head)
	}

	f, err := os.OpenFile(filepath.Join(clone, "README.md"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("\nA local change.\n")
	f.Close()
	build()
	if got, want := buildLine(run(bin, "--version")), "acpconform devel, commit "+head+" (modified)"; got != want {
		t.Errorf("--version of a build in a changed clone says %q, want %q", got, want)
	}
}

// copyCheckout copies the files of the git checkout at src that git
// tracks or would track (not the ignored ones) to dst.
func copyCheckout(t *testing.T, ctx context.Context, git, src, dst string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, git, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = src
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files in %s: %v", src, err)
	}
	for _, name := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		from, to := filepath.Join(src, name), filepath.Join(dst, name)
		info, err := os.Lstat(from)
		if err != nil || !info.Mode().IsRegular() { // deleted, not yet committed; or a link
			continue
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := copyFile(from, to, info.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
}

func copyFile(from, to string, perm os.FileMode) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// buildLine is the first line of --version's output: the build.
func buildLine(version string) string {
	line, _, _ := strings.Cut(version, "\n")
	return line
}

// TestVersionSaysTheContract: --version's second line names what the
// binary checks.
func TestVersionSaysTheContract(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"--version"}, nil, &stdout, &stderr); code != exitOK {
		t.Fatalf("--version: exit %d, %s", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "acpconform ") || !strings.HasPrefix(lines[1], "contract revision ") {
		t.Errorf("--version printed %q: want the build, then the contract, on two lines", stdout.String())
	}
}
