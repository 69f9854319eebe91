//go:build unix

package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/internal/bridge"
	"github.com/acpconform/acpconform/internal/testbound"
	"github.com/acpconform/acpconform/reports"
)

// noBridgeDirs fails t when a socket directory of acpconform bridge is left
// in dir, the runs' TMPDIR.
func noBridgeDirs(t *testing.T, dir string) {
	t.Helper()
	left, _ := filepath.Glob(filepath.Join(dir, "acpconform-bridge-*"))
	if len(left) > 0 {
		t.Errorf("socket directories left behind: %v", left)
	}
}

// The reference client plays an editor that spawns its agent: through
// {agent} it passes the client catalogue, with REM-1 skipped for the
// bridge, and leaves no socket behind.
func TestClientSpawningItsAgent(t *testing.T) {
	t.Parallel()
	bin, _ := binaries(t)
	tmp := t.TempDir()
	r := acpconform(t, []string{"TMPDIR=" + tmp}, "client", "--", bin, "reference-client", "--agent", "{agent}")
	expectCode(t, r, 0)
	if r.report.Totals.Failed != 0 || r.report.Totals.Passed < 15 {
		t.Errorf("report totals %+v", r.report.Totals)
	}
	for _, c := range r.report.Checks {
		if slices.Contains(c.Rules, "REM-1") && (c.State != reports.StateSkipped || !strings.Contains(c.SkipReason, "through acpconform bridge (stdio): its WebSocket transport is not under test")) {
			t.Errorf("%s is %s (%q), want skipped for the bridge", c.ID, c.State, c.SkipReason)
		}
	}
	noBridgeDirs(t, tmp)
}

// A TMPDIR too long for a unix socket's path (200 bytes), or one that does
// not exist, is no fault of the client: the sockets go to short private
// directories under /tmp, the client is checked conformant, and nothing is
// left behind. Each check makes its socket alike, so the checks of CLI-2
// (a spawn each) show it; the whole catalogue through {agent} is
// TestClientSpawningItsAgent's.
func TestClientSpawningItsAgentWithAnUnusableTMPDIR(t *testing.T) {
	t.Parallel()
	bin, _ := binaries(t)
	base := t.TempDir()
	long := filepath.Join(base, strings.Repeat("t", 200-len(base)-1))
	if err := os.Mkdir(long, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tmpdir := range []string{long, filepath.Join(base, "missing")} {
		log := filepath.Join(t.TempDir(), "agents")
		// The client notes the {agent} it was given, then runs it.
		client := `printf '%s\n' "$1" >> ` + log + `; exec ` + bin + ` reference-client --agent "$1"`
		r := acpconform(t, []string{"TMPDIR=" + tmpdir}, "client", "--id", "CLI-2", "--", "sh", "-c", client, "sh", "{agent}")
		expectCode(t, r, 0)
		if r.report.Totals.Failed != 0 || r.report.Totals.Passed < 2 {
			t.Errorf("TMPDIR of %d bytes: report totals %+v", len(tmpdir), r.report.Totals)
		}
		data, err := os.ReadFile(log)
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(string(data)) == "" {
			t.Fatal("the client was given no {agent}")
		}
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			socket := line[strings.LastIndexByte(line, ' ')+1:]
			if dir := filepath.Dir(socket); filepath.Dir(dir) != "/tmp" || len(socket) > bridge.MaxPath {
				t.Errorf("TMPDIR of %d bytes: {agent} is %q, want a socket under /tmp of at most %d bytes", len(tmpdir), line, bridge.MaxPath)
			} else if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("%s is still there after the run: %v", dir, err)
			}
		}
	}
	noBridgeDirs(t, long)
}

// A client that ignores {agent} could not run, within --startup-timeout,
// and the diagnosis names {agent}.
func TestClientIgnoringItsAgent(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	r := acpconform(t, []string{"TMPDIR=" + tmp}, "client", "--startup-timeout", "2s", "--", "sh", "-c", "sleep 100", "{agent}")
	expectCode(t, r, 3)
	if !strings.Contains(r.stderr, "it did not start the agent it was given as {agent}") {
		t.Errorf("stderr does not name {agent}:\n%s", r.stderr)
	}
	noBridgeDirs(t, tmp)
}

// A stdio relay that spawns {agent}: the trivial one passes frames
// through unchanged, since its agent is the bridge.
func TestRelaySpawningItsAgent(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	r := acpconform(t, []string{"TMPDIR=" + tmp}, "relay", "--", "sh", "-c", "exec {agent}")
	expectCode(t, r, 0)
	if r.report.Totals.Failed != 0 || r.report.Totals.Passed == 0 {
		t.Errorf("report totals %+v", r.report.Totals)
	}
	noBridgeDirs(t, tmp)
	for _, argv := range [][]string{{"sh", "-c", "exec {agent}", "{url}"}, {"cat"}} {
		r := acpconform(t, nil, append([]string{"relay", "--"}, argv...)...)
		expectCode(t, r, 2)
		if !strings.Contains(r.stderr, "exactly one of {agent}") || !strings.Contains(r.stderr, "{url}") {
			t.Errorf("relay -- %q: stderr %q, want a usage error naming {agent} and {url}", argv, r.stderr)
		}
	}
}

// A client with both placeholders is a usage error.
func TestClientWithBothPlaceholders(t *testing.T) {
	r := acpconform(t, nil, "client", "--", "sh", "-c", "{agent}", "{url}")
	expectCode(t, r, 2)
	if !strings.Contains(r.stderr, "both {agent} and {url}") {
		t.Errorf("stderr %q", r.stderr)
	}
}

// With --listen, REM-1 runs, and the run makes the connections docs/cli.md
// says: the start-up probe, the capability probe and one per check that
// runs; a check that skips uses none.
func TestClientListeningConnectionCount(t *testing.T) {
	t.Parallel()
	bin, _ := binaries(t)
	report := filepath.Join(t.TempDir(), "r.json")
	connected := connectUntilDone(testbound.Context(t), t, bin, report)
	r := readJSON(t, report)
	ran := r.Totals.Passed + r.Totals.Failed
	if want := 2 + ran; connected != want {
		t.Errorf("the run took %d connections, want %d: the start-up probe, the capability probe and %d checks that ran", connected, want, ran)
	}
	for _, c := range r.Checks {
		if slices.Contains(c.Rules, "REM-1") && c.State != reports.StatePassed {
			t.Errorf("%s is %s (%q), want passed: a --listen client's transport is a WebSocket", c.ID, c.State, c.SkipReason)
		}
	}
}
