//go:build unix

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/internal/testbound"
)

// TestSubjectsRunWithoutTheRunnersFiles: in a GitHub Actions job, every
// process acpconform starts for a subject (an agent and the spare started
// ahead of need, a client and the agent it spawns through {agent}, a stdio
// relay and its {agent}) gets acpconform's environment without the
// runner's file commands and tokens, through which it could write to the
// job, and with the rest. Each writes its environment to a file of its
// own (env > DIR/ROLE.PID.env) before it runs on.
func TestSubjectsRunWithoutTheRunnersFiles(t *testing.T) {
	t.Parallel()
	bin, _ := binaries(t)
	dir := t.TempDir()
	withheld := []string{"GITHUB_ENV", "GITHUB_OUTPUT", "GITHUB_PATH", "GITHUB_STATE", "GITHUB_STEP_SUMMARY",
		"ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_URL", "ACTIONS_CACHE_URL"}
	env := []string{"KEPT_FOR_THE_SUBJECT=yes"}
	for _, name := range withheld {
		env = append(env, name+"="+filepath.Join(t.TempDir(), name))
	}
	dump := func(role string) string { return "env > " + filepath.Join(dir, role) + ".$$.env; " }
	for _, c := range []struct {
		roles []string // each writes at least one file
		args  []string
	}{
		{[]string{"agent"}, []string{"agent", "--id", "TOK-1", "--", "sh", "-c", dump("agent") + `exec "$@"`, "sh", bin, "reference-agent"}},
		{[]string{"client", "spawned"}, []string{"client", "--check", "CLI-1/route-registered", "--",
			"sh", "-c", dump("client") + `exec "$@"`, "sh", bin, "reference-client", "--agent", dump("spawned") + "exec {agent}"}},
		{[]string{"relay"}, []string{"relay", "--check", "REL-1/ids-mapped-back", "--", "sh", "-c", dump("relay") + "exec {agent}"}},
	} {
		r := acpconform(t, env, c.args...)
		expectCode(t, r, 0)
		for _, role := range c.roles {
			files, _ := filepath.Glob(filepath.Join(dir, role+".*.env"))
			if len(files) == 0 {
				t.Errorf("%s: no process wrote its environment, so this test shows nothing", role)
			}
			for _, f := range files {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(string(data), "\nKEPT_FOR_THE_SUBJECT=yes\n") {
					t.Errorf("%s lost the rest of the environment:\n%s", filepath.Base(f), data)
				}
				for _, line := range strings.Split(string(data), "\n") {
					name, _, _ := strings.Cut(line, "=")
					for _, w := range withheld {
						if name == w {
							t.Errorf("%s got %s", filepath.Base(f), line)
						}
					}
				}
			}
		}
	}
}

// TestReferenceClientsAgentRunsWithoutTheRunnersFiles: the agent
// reference-client --agent starts is under test as a subject is, and gets
// none of the runner's file commands and tokens either, even when
// reference-client itself has them (run by hand in a job's step).
func TestReferenceClientsAgentRunsWithoutTheRunnersFiles(t *testing.T) {
	out := filepath.Join(t.TempDir(), "agent.env")
	t.Setenv("GITHUB_ENV", filepath.Join(t.TempDir(), "github-env"))
	t.Setenv("ACTIONS_ID_TOKEN_REQUEST_TOKEN", "stand-in")
	t.Setenv("KEPT_FOR_THE_SUBJECT", "yes")
	var stdout, stderr bytes.Buffer
	// The agent exits without a word: the client's turn fails, which is
	// no matter here.
	run(testbound.Context(t), []string{"reference-client", "--agent", "env > " + out}, strings.NewReader(""), &stdout, &stderr)
	data, err := os.ReadFile(out)
	if err != nil || !strings.Contains(string(data), "\nKEPT_FOR_THE_SUBJECT=yes\n") {
		t.Fatalf("the agent did not write its environment (%v), so this test shows nothing:\n%s\nstderr:\n%s", err, data, stderr.String())
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "GITHUB_ENV=") || strings.HasPrefix(line, "ACTIONS_") {
			t.Errorf("the agent got %s", line)
		}
	}
}
