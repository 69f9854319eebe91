package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"

	"github.com/acpconform/acpconform/internal/needtool"
	"github.com/acpconform/acpconform/internal/testbound"
	"github.com/acpconform/acpconform/internal/version"
)

// TestInitWritesEachStarter: every role and language gets its adapter,
// its feature or client, CI that runs the printed command, and a README
// naming the commands to run; a second init into the same folder writes
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
			if !strings.HasSuffix(stdout, ":\n  "+strings.Join(next, "\n  ")+"\n") {
				t.Errorf("init does not end with the commands %q:\n%s", next, stdout)
			}
			for _, f := range s.files {
				if !strings.HasSuffix(f.name, "/") {
					if _, err := os.Stat(filepath.Join(dir, f.name)); err != nil {
						t.Errorf("%s: %v", f.name, err)
					}
				}
			}
			readme := read(t, filepath.Join(dir, "README.md"))
			for _, want := range append(next, "# my-agent:") {
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

// TestStartersRunWithoutTheClone is what a user's CI does with a
// starter: acpconform is built in a clone as a user builds it (a commit of
// this checkout's files), init writes the Go, TypeScript and Python
// agent starters, and the clone goes away. In folders that know nothing
// of it, the commands init printed and the generated GitLab jobs' scripts
// run as written: the Go module and `go install` resolve the pinned
// pseudo-version, here from a module proxy made of that commit, as
// proxy.golang.org serves a pushed one; the workflow's action is pinned
// to the commit's full SHA (ci/action_test.go runs the action's steps).
// Each agent fails saying the feature is not written; the catalogue's
// first run ends at the repeated cause, not after every check.
func TestStartersRunWithoutTheClone(t *testing.T) {
	if testing.Short() {
		t.Skip("builds acpconform and three starters")
	}
	t.Parallel()
	git := needtool.Path(t, "git", "git")
	needtool.Path(t, "npm", "npm")
	python3 := needtool.Path(t, "python3", "python3")
	ctx := testbound.Context(t)
	// The Python starter's checks start Python once each: the interpreter
	// itself, not a version manager's shim, which costs five times its
	// start (needtool.Python3). Only python3 comes first on PATH.
	pythonDir := t.TempDir()
	if err := os.Symlink(needtool.Python3(ctx, python3), filepath.Join(pythonDir, "python3")); err != nil {
		t.Fatal(err)
	}
	path := pythonDir + string(os.PathListSeparator) + os.Getenv("PATH")
	clone := filepath.Join(t.TempDir(), "acpconform")
	head, bin := buildInAClone(t, ctx, git, clone)
	pseudo := buildVersion(t, ctx, bin)
	if !module.IsPseudoVersion(pseudo) || !strings.HasSuffix(pseudo, head[:12]) {
		t.Fatalf("the build in a clone at %s says its version is %q, not a pseudo-version of that commit", head, pseudo)
	}
	proxy := moduleProxy(t, ctx, clone, pseudo)

	// Each starter twice: one folder for the commands init prints, one
	// for the GitLab jobs, as a project's CI checks it out.
	starters, projects := t.TempDir(), t.TempDir()
	printed := map[string][]string{}
	for _, lang := range []string{"go", "ts", "python"} {
		out, _ := shell(ctx, t, clone, bin+" init agent --lang "+lang+" "+filepath.Join(starters, lang+"-agent"), 0)
		_, after, _ := strings.Cut(out, "Next, in "+filepath.Join(starters, lang+"-agent")+":\n")
		for _, l := range strings.Split(strings.TrimRight(after, "\n"), "\n") {
			printed[lang] = append(printed[lang], strings.TrimSpace(l))
		}
		shell(ctx, t, clone, bin+" init agent --lang "+lang+" "+filepath.Join(projects, lang+"-agent"), 0)
	}
	if err := os.RemoveAll(clone); err != nil {
		t.Fatal(err)
	}

	env := []string{
		"PATH=" + filepath.Dir(bin) + string(os.PathListSeparator) + path,
		"GOPROXY=file://" + proxy + ",file://" + filepath.Join(goEnv(t, ctx, "GOMODCACHE"), "cache", "download"),
		"GOSUMDB=off", "GOTOOLCHAIN=local", "GOMODCACHE=" + t.TempDir(),
		// -trimpath: the build cache serves these builds from any folder.
		"GOFLAGS=-modcacherw -trimpath",
	}
	var installed string
	for _, lang := range []string{"go", "ts", "python"} {
		t.Run(lang, func(t *testing.T) {
			dir := filepath.Join(starters, lang+"-agent")
			for _, file := range []string{"README.md", ".gitlab-ci.yml", ".github/workflows/acpconform.yml"} {
				text := read(t, filepath.Join(dir, file))
				if strings.Contains(text, "@main") || strings.Contains(text, "Not pinned") || !strings.Contains(text, head) && !strings.Contains(text, pseudo) {
					t.Errorf("%s names no pin of commit %s:\n%s", file, head, text)
				}
			}
			if uses := "uses: acpconform/acpconform@" + head; !strings.Contains(read(t, filepath.Join(dir, ".github/workflows/acpconform.yml")), uses) {
				t.Errorf("the workflow lacks %q", uses)
			}

			// The commands init printed: prepare, one check, the catalogue.
			lines := printed[lang]
			if len(lines) < 2 || !strings.Contains(lines[len(lines)-2], "--check SCH-1/one-form-scoped-to-session -v") {
				t.Fatalf("init does not print a one-check command before the catalogue: %q", lines)
			}
			for i, line := range lines {
				want := 1
				if i == 0 && len(lines) == 3 {
					want = 0 // prepares the folder
				}
				out, _ := shellEnv(ctx, t, dir, line, want, env)
				if want == 1 && (!strings.Contains(out, "is not written yet") || !strings.Contains(out, "NOT conformant")) {
					t.Errorf("%s does not fail saying the feature is not written:\n%s", line, out)
				}
				if i == len(lines)-1 && !strings.Contains(out, "not run: the same cause failed") {
					t.Errorf("the catalogue's first run did not stop at the repeated cause:\n%s", out)
				}
			}

			// The GitLab jobs, as written, in a fresh copy of the starter.
			var gitlab struct {
				Build struct{ Script []string } `yaml:"acpconform-build"`
				Check struct{ Script []string } `yaml:"acpconform"`
			}
			if err := yaml.Unmarshal([]byte(read(t, filepath.Join(dir, ".gitlab-ci.yml"))), &gitlab); err != nil {
				t.Fatal(err)
			}
			project := filepath.Join(projects, lang+"-agent")
			jobEnv := append([]string{"PATH=" + path, "CI_PROJECT_DIR=" + project}, env[1:]...)
			if installed == "" { // the build job is the same in every starter
				for _, line := range gitlab.Build.Script {
					shellEnv(ctx, t, project, line, 0, jobEnv)
				}
				installed = filepath.Join(project, ".acpconform", "acpconform")
				if got := buildVersion(t, ctx, installed); got != pseudo {
					t.Errorf("the GitLab build job installed %q, want %q", got, pseudo)
				}
			} else {
				os.MkdirAll(filepath.Join(project, ".acpconform"), 0o755)
				copyFile(installed, filepath.Join(project, ".acpconform", "acpconform"), 0o755)
			}
			for i, line := range gitlab.Check.Script {
				want := 0
				if i == len(gitlab.Check.Script)-1 {
					want = 1
				}
				shellEnv(ctx, t, project, line, want, jobEnv)
			}
			if _, err := os.Stat(filepath.Join(project, "acpconform-reports", "junit.xml")); err != nil {
				t.Errorf("the GitLab job wrote no junit.xml: %v", err)
			}
		})
	}
}

// buildInAClone makes clone a git clone of this checkout's files, at a
// commit of its own, and builds acpconform there as a user does (vcs
// stamping on), outside it; it returns the commit and the binary.
// A checkout may be a git worktree, whose .git is a file Go does not look
// into, and the copy holds the code under test, committed or not.
func buildInAClone(t *testing.T, ctx context.Context, git, clone string) (head, bin string) {
	t.Helper()
	copyCheckout(t, ctx, git, "../..", clone)
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir = clone
		// A fixed date: the same files make the same commit, and so the
		// same pseudo-version, run after run, and the build cache serves
		// what the starters' CI compiles at it (some 50 CPU-seconds).
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
			"GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %q: %v\n%s", name, args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	run(git, "init", "--quiet")
	run(git, "add", "--all")
	run(git, "commit", "--quiet", "--no-verify", "-m", "the code under test")
	bin = filepath.Join(t.TempDir(), "acpconform")
	// -buildvcs=true: stamping is on by default in a clone, and this
	// overrides a GOFLAGS that turns it off. -trimpath, as the other
	// tests' builds: the build cache serves it from any directory.
	run("go", "build", "-buildvcs=true", "-trimpath", "-o", bin, "./cmd/acpconform")
	return run(git, "rev-parse", "HEAD"), bin
}

// buildVersion is the module version Go recorded in the binary bin.
func buildVersion(t *testing.T, ctx context.Context, bin string) string {
	t.Helper()
	out, err := exec.CommandContext(ctx, "go", "version", "-m", bin).Output()
	if err != nil {
		t.Fatalf("go version -m %s: %v", bin, err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) >= 3 && f[0] == "mod" && f[1] == "github.com/acpconform/acpconform" {
			return f[2]
		}
	}
	t.Fatalf("go version -m %s names no main module:\n%s", bin, out)
	return ""
}

// moduleProxy is a module proxy, a folder GOPROXY=file:// reads, that
// serves acpconform at version, made of clone's HEAD as proxy.golang.org
// makes it of a pushed commit.
func moduleProxy(t *testing.T, ctx context.Context, clone, version string) string {
	t.Helper()
	proxy := t.TempDir()
	dir := filepath.Join(proxy, "github.com", "acpconform", "acpconform", "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	when, err := exec.CommandContext(ctx, "git", "-C", clone, "show", "-s", "--format=%cI", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	info := fmt.Sprintf(`{"Version":%q,"Time":%q}`, version, strings.TrimSpace(string(when)))
	var zipped bytes.Buffer
	if err := modzip.CreateFromVCS(&zipped, module.Version{Path: "github.com/acpconform/acpconform", Version: version}, clone, "HEAD", ""); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"list":            []byte(version + "\n"),
		version + ".info": []byte(info),
		version + ".mod":  []byte(read(t, filepath.Join(clone, "go.mod"))),
		version + ".zip":  zipped.Bytes(),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return proxy
}

// goEnv is go env's value of key.
func goEnv(t *testing.T, ctx context.Context, key string) string {
	out, err := exec.CommandContext(ctx, "go", "env", key).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", key, err)
	}
	return strings.TrimSpace(string(out))
}

// shell runs line in bash in dir and wants the exit code want.
func shell(ctx context.Context, t *testing.T, dir, line string, want int) (string, string) {
	t.Helper()
	return shellEnv(ctx, t, dir, line, want, nil)
}

// shellEnv is shell with env added to the environment.
func shellEnv(ctx context.Context, t *testing.T, dir, line string, want int, env []string) (string, string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, "bash", "-c", line)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "npm_config_prefer_offline=true", "npm_config_audit=false", "npm_config_fund=false"), env...)
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

// TestPinToNamesARelease: the starter's CI and go.mod name the release or
// the commit of the acpconform that wrote them, or --pin's; main only when
// the build knows neither, and then they say it is not pinned.
func TestPinToNamesARelease(t *testing.T) {
	const sha = "1a2b3c4d5e6f7a8b9c0d1a2b3c4d5e6f7a8b9c0d"
	const pseudo = "v0.0.0-20261201084400-1a2b3c4d5e6f"
	const install = "github.com/acpconform/acpconform/cmd/acpconform@"
	for _, tc := range []struct {
		how                          string
		build                        version.Build
		pin                          string
		install, action, mod         string
		unpinned, changed, wantError bool
	}{
		{"a release", version.Build{Version: "v1.2.0"}, "", install + "v1.2.0", "v1.2.0", "v1.2.0", false, false, false},
		{"a clone", version.Build{Version: "devel", Commit: sha, Pseudo: pseudo}, "", install + pseudo, sha, pseudo, false, false, false},
		{"a changed clone", version.Build{Version: "devel", Commit: sha, Pseudo: pseudo, Modified: true}, "", install + pseudo, sha, pseudo, false, true, false},
		{"a clone, Go before 1.24", version.Build{Version: "devel", Commit: sha}, "", install + sha, sha, sha, false, false, false},
		{"go install @COMMIT", version.Build{Version: "devel", Commit: sha[:12], Pseudo: pseudo}, "", install + pseudo, "main", pseudo, true, false, false},
		{"a worktree", version.Build{Version: "devel"}, "", install + "main", "main", "main", true, false, false},
		{"--pin a tag", version.Build{Version: "devel"}, "v0.3.0", install + "v0.3.0", "v0.3.0", "v0.3.0", false, false, false},
		{"--pin a commit", version.Build{Version: "v1.2.0"}, sha, install + sha, sha, sha, false, false, false},
		{"--pin a branch", version.Build{Version: "devel"}, "main", "", "", "", false, false, true},
		{"--pin a short commit", version.Build{Version: "devel"}, sha[:12], "", "", "", false, false, true},
		{"--pin a pseudo-version", version.Build{Version: "devel"}, pseudo, "", "", "", false, false, true},
		{"--pin a short tag", version.Build{Version: "devel"}, "v1.2", "", "", "", false, false, true},
	} {
		v, err := pinTo(tc.build, tc.pin)
		if (err != nil) != tc.wantError {
			t.Errorf("%s: error %v", tc.how, err)
			continue
		}
		if err != nil {
			continue
		}
		if v.Install != tc.install || v.Action != tc.action || v.ModVersion != tc.mod || (v.Unpinned != "") != tc.unpinned || (v.Changed != "") != tc.changed {
			t.Errorf("%s: install %q, action %q, go.mod %q, unpinned %q, changed %q", tc.how, v.Install, v.Action, v.ModVersion, v.Unpinned, v.Changed)
		}
	}
}
