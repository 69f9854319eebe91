package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/acpconform/acpconform/internal/needtool"
	"github.com/acpconform/acpconform/internal/testbound"
)

// TestInitWritesEachStarter: every role and language gets its adapter,
// its feature or client, CI that runs the printed command, and a README
// naming the two commands; a second init into the same folder writes
// nothing; a role or language init does not know is a usage error.
func TestInitWritesEachStarter(t *testing.T) {
	for key, s := range starters {
		t.Run(strings.ReplaceAll(key, "/", "-"), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "My Agent!")
			code, stdout, stderr := runInit(t, "init", s.role, "--lang", s.lang, dir)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			next := s.next()
			if !strings.Contains(stdout, "\n  "+next[0]+"\n  "+next[1]+"\n") {
				t.Errorf("init does not print the two commands %q:\n%s", next, stdout)
			}
			for _, f := range s.files {
				if !strings.HasSuffix(f.name, "/") {
					if _, err := os.Stat(filepath.Join(dir, f.name)); err != nil {
						t.Errorf("%s: %v", f.name, err)
					}
				}
			}
			readme := read(t, filepath.Join(dir, "README.md"))
			for _, want := range []string{next[0], next[1], "# my-agent:"} {
				if !strings.Contains(readme, want) {
					t.Errorf("README.md lacks %q:\n%s", want, readme)
				}
			}
			var workflow struct {
				Jobs map[string]struct {
					Steps []struct {
						Run  string
						Uses string
						With map[string]string
					}
				}
			}
			if err := yaml.Unmarshal([]byte(read(t, filepath.Join(dir, ".github/workflows/acpconform.yml"))), &workflow); err != nil {
				t.Fatal(err)
			}
			steps := workflow.Jobs["conformance"].Steps
			last := steps[len(steps)-1]
			if !strings.HasPrefix(last.Uses, "acpconform/acpconform@") || last.With["role"] != s.role || last.With["command"] != s.command {
				t.Errorf("the workflow's last step %+v does not check the %s %q", last, s.role, s.command)
			}
			var gitlab struct {
				Job struct{ Script []string } `yaml:"acpconform"`
			}
			if err := yaml.Unmarshal([]byte(read(t, filepath.Join(dir, ".gitlab-ci.yml"))), &gitlab); err != nil {
				t.Fatal(err)
			}
			if script := strings.Join(gitlab.Job.Script, "\n"); !strings.HasSuffix(script, " -- "+s.command) {
				t.Errorf("the GitLab job does not run %q:\n%s", s.command, script)
			}

			before := read(t, filepath.Join(dir, "README.md"))
			os.WriteFile(filepath.Join(dir, "README.md"), []byte("mine"), 0o644)
			code, _, stderr = runInit(t, "init", s.role, "--lang", s.lang, dir)
			if code != exitUsage || !strings.Contains(stderr, "already has") || read(t, filepath.Join(dir, "README.md")) != "mine" {
				t.Errorf("a second init: exit %d, %s (README.md was %d bytes)", code, stderr, len(before))
			}
		})
	}
	for _, args := range [][]string{{"init", "relay", "--lang", "go"}, {"init", "agent", "--lang", "rust"}, {"init", "agent"}, {"init"}} {
		if code, _, stderr := runInit(t, append(args, t.TempDir())...); code != exitUsage || !strings.Contains(stderr, "acpconform init: ") {
			t.Errorf("%q: exit %d, %s", args, code, stderr)
		}
	}
}

// TestInitWritesNothingThroughASymlink: a folder in the target that is a
// symbolic link (.github pointing elsewhere) stops init before it writes
// anything, here or there, saying which.
func TestInitWritesNothingThroughASymlink(t *testing.T) {
	dir, elsewhere := t.TempDir(), t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(dir, ".github")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	code, _, stderr := runInit(t, "init", "agent", "--lang", "go", dir)
	if code != exitUsage || !strings.Contains(stderr, filepath.Join(dir, ".github")+" is a symbolic link") {
		t.Errorf("init into a folder whose .github is a link: exit %d, %s", code, stderr)
	}
	for _, d := range []string{dir, elsewhere} {
		entries, _ := os.ReadDir(d)
		if d == dir && len(entries) != 1 || d == elsewhere && len(entries) != 0 {
			t.Errorf("init wrote into %s: %d entries", d, len(entries))
		}
	}
}

// TestInitTypeScriptStarterRuns is the promise: init in an empty
// folder, then the two commands it prints, run the catalogue against the
// starter, which fails saying the feature is not written. The second
// command runs with a --check of two checks: the whole catalogue would
// start node some two hundred times.
func TestInitTypeScriptStarterRuns(t *testing.T) {
	needtool.Path(t, "npm", "npm")
	next := initAndRun(t, "ts", "agent")
	if next[0] != "npm install" || next[1] != "acpconform agent -- node agent.mjs" {
		t.Fatalf("init prints %q", next)
	}
}

// TestInitPythonStarterRuns: the Python starter needs no install; its
// first command runs one check, which fails saying the feature is not
// written.
func TestInitPythonStarterRuns(t *testing.T) {
	needtool.Path(t, "python3", "python3")
	initAndRun(t, "python", "agent")
}

// TestInitGoStarterRuns: from a clone, the Go starter's go.mod replaces
// the unreleased module with the clone, and it builds and runs.
func TestInitGoStarterRuns(t *testing.T) {
	initAndRun(t, "go", "agent")
}

// initAndRun writes the lang starter with the built acpconform into an
// empty folder, and runs the commands it prints there, the catalogue
// limited to two checks, which must fail saying the feature is not
// written. It returns the commands.
func initAndRun(t *testing.T, lang, role string) [2]string {
	bin, _ := binaries(t)
	ctx := testbound.Context(t)
	dir := t.TempDir()
	root, _ := filepath.Abs("../..")
	stdout, _ := shell(ctx, t, root, bin+" init "+role+" --lang "+lang+" "+dir, 0)
	_, after, ok := strings.Cut(stdout, "Next, in "+dir+":\n")
	lines := strings.Split(strings.TrimRight(after, "\n"), "\n")
	if !ok || len(lines) != 2 {
		t.Fatalf("init does not end with the two commands:\n%s", stdout)
	}
	next := [2]string{strings.TrimSpace(lines[0]), strings.TrimSpace(lines[1])}
	last := next[1]
	if strings.Contains(next[0], "--check") {
		last = next[0] // nothing to prepare: the first command runs a check
	} else {
		shell(ctx, t, dir, next[0], 0)
		last = strings.Replace(last, "acpconform "+role+" ", "acpconform "+role+" --check SCH-1/one-form-scoped-to-session,VAL-1/empty-question ", 1)
	}
	out, _ := shell(ctx, t, dir, strings.Replace(last, "acpconform ", bin+" ", 1), 1)
	if !strings.Contains(out, "is not written yet") || !strings.Contains(out, "NOT conformant") {
		t.Errorf("%s does not fail saying the feature is not written:\n%s", last, out)
	}
	return next
}

// shell runs line in bash in dir and wants the exit code want.
func shell(ctx context.Context, t *testing.T, dir, line string, want int) (string, string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, "bash", "-c", line)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "npm_config_prefer_offline=true", "npm_config_audit=false", "npm_config_fund=false")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	_ = cmd.Run()
	if timeout := testbound.TimedOut(ctx); timeout != nil {
		t.Fatalf("%s: %v\n%s%s", line, timeout, stdout.String(), stderr.String())
	}
	if code := cmd.ProcessState.ExitCode(); code != want {
		t.Fatalf("%s: exit %d, want %d\n%s%s", line, code, want, stdout.String(), stderr.String())
	}
	return stdout.String(), stderr.String()
}

// runInit runs acpconform in-process.
func runInit(t *testing.T, args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(testbound.Context(t), args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
