package mutants

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpconform/acpconform/internal/gobuild"
	"github.com/acpconform/acpconform/internal/testbound"
	"github.com/acpconform/acpconform/reports"
	"github.com/acpconform/acpconform/scenarios"
	"github.com/acpconform/acpconform/suite"
)

// The child process that runs the relay catalogue against one relay
// mutant (Ginkgo runs once per process) is this test binary, told which
// by these variables.
const (
	relayMutantEnv = "ACPCONFORM_RELAY_MUTANT"
	relayReportEnv = "ACPCONFORM_RELAY_REPORT"
)

// relayFailure is one check that failed against a relay mutant.
type relayFailure struct {
	ID      string   `json:"id"`
	Rules   []string `json:"rules"`
	Failure string   `json:"failure"`
}

// TestRelayMutantChild runs the relay catalogue against the mutant its
// environment names, and writes the checks that failed; it does nothing
// in a test run of its own.
func TestRelayMutantChild(t *testing.T) {
	name, out := os.Getenv(relayMutantEnv), os.Getenv(relayReportEnv)
	if name == "" || out == "" {
		t.Skip("runs as the child of TestMutantsAreKilled")
	}
	var mutant *RelayMutant
	// A mutant must fail, and a short bound makes the checks it hangs cheap;
	// a correct relay must pass, and its bound is the one users have: on a
	// loaded runner our race-built relays, which decode and encode every
	// message again, took over a second to pass on a message of 1 MiB.
	response := time.Second
	for _, m := range Relays {
		if m.Name == name {
			mutant = &m
		}
	}
	for _, m := range CorrectRelays {
		if m.Name == name {
			mutant, response = &m, suite.DefaultResponse
		}
	}
	if mutant == nil {
		t.Fatalf("no relay mutant %q", name)
	}
	cfg := suite.Config{Subject: mutant.Subject(), Response: response, Scenario: 10 * time.Second}
	report := suite.Run(cfg, func() {
		// The relays are in-process, so starting one takes no time; a
		// mutant that answers no initialize (client-ids-not-mapped-back)
		// costs each check that starts through it this bound, not 30 s.
		scenarios.Catalogue(scenarios.Options{Subject: cfg.Subject, Response: cfg.Response, Scenario: cfg.Scenario, Startup: 10 * time.Second})
	})
	var failed []relayFailure
	for _, s := range report.SpecReports {
		if !s.Failed() {
			continue
		}
		f := relayFailure{Failure: s.Failure.Message}
		for _, l := range s.Labels() {
			if id, ok := suite.CheckID(l); ok {
				f.ID = id
			}
			if rule, ok := cutPrefix(l, "rule:"); ok {
				f.Rules = append(f.Rules, rule)
			}
		}
		failed = append(failed, f)
	}
	data, err := json.Marshal(failed)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func cutPrefix(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && s[:len(prefix)] == prefix {
		return s[len(prefix):], true
	}
	return "", false
}

// relayChild builds, once, the test binary that runs a relay mutant's
// catalogue: this package's tests, built as the mutants are and without
// the race detector, which would make each of those runs cost ten times
// the CPU. The race detector still watches the relay catalogue in the
// scenarios tests, and the CLI's in TestHostileRaceFreeRelayRun.
var relayChild = sync.OnceValues(func() (string, error) {
	var err error
	if relayChildDir, err = os.MkdirTemp("", "acpconform-relay-mutants"); err != nil {
		return "", err
	}
	bin := filepath.Join(relayChildDir, "mutants.test")
	// Built as gobuild builds the mutants, but as a test binary.
	build := exec.Command("go", append(append([]string{"test", "-c", "-trimpath"}, buildFlags...), "-o", bin, ".")...)
	build.Env = append(gobuild.Environ(), buildGOGC)
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go test -c: %v\n%s", err, out)
	}
	return bin, nil
})

// relayChildDir holds relayChild's binary once built; TestMain removes it.
var relayChildDir string

// runRelay runs the relay catalogue against m in a child process and
// returns the checks that failed.
func runRelay(t *testing.T, m RelayMutant) []relayFailure {
	child, err := relayChild()
	if err != nil {
		t.Fatal(err)
	}
	ctx := testbound.Context(t)
	out := filepath.Join(t.TempDir(), "failed.json")
	cmd := exec.CommandContext(ctx, child, "-test.run=^TestRelayMutantChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), relayMutantEnv+"="+m.Name, relayReportEnv+"="+out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the relay catalogue against %s did not run: %v\n%s", m.Name, testbound.Err(ctx, err), tail(b))
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var failed []relayFailure
	if err := json.Unmarshal(data, &failed); err != nil {
		t.Fatal(err)
	}
	return failed
}

// TestCorrectRelaysPass: a relay that rewrites every message only as
// REL-1 allows (keys sorted, \u escapes, 1.0 as 1 and 1e2 as 100, string
// ids of its own, spaces, \r\n) fails no check of the relay catalogue.
func TestCorrectRelaysPass(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the relay catalogue once per relay")
	}
	for _, m := range CorrectRelays {
		t.Run(m.Name, func(t *testing.T) {
			t.Parallel()
			for _, c := range runRelay(t, m) {
				t.Errorf("%s failed %s (%v):\n%s", m.Name, c.ID, c.Rules, c.Failure)
			}
		})
	}
}

// relayMutant is the relay mutant of that name.
func relayMutant(t *testing.T, name string) RelayMutant {
	for _, m := range Relays {
		if m.Name == name {
			return m
		}
	}
	t.Fatalf("no relay mutant %s", name)
	return RelayMutant{}
}

// TestARewrittenInitializeIsOneCause: a relay that rewrites the client's
// capabilities fails REL-5 and every check that compares the messages it
// relays (REL-1), in REL-5's words, so that the report shows one cause,
// not one for each check's own property.
func TestARewrittenInitializeIsOneCause(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the relay catalogue")
	}
	var checks []reports.Check
	for _, f := range runRelay(t, relayMutant(t, "capabilities-trimmed")) {
		if slices.Contains(f.Rules, "REL-1") || slices.Contains(f.Rules, "REL-5") {
			checks = append(checks, reports.Check{ID: f.ID, Rules: f.Rules, Role: "relay", State: reports.StateFailed, Failure: f.Failure})
		}
	}
	if len(checks) < 3 {
		t.Fatalf("capabilities-trimmed failed %d checks of REL-1 and REL-5, want REL-5's and several of REL-1", len(checks))
	}
	if causes := reports.Causes(checks); len(causes) != 1 {
		for _, c := range causes {
			t.Errorf("a cause of %d checks, the first %s:\n%s", len(c.Checks), c.Checks[0].ID, c.Checks[0].Failure)
		}
	}
	for _, c := range checks {
		if !strings.HasPrefix(c.Failure, "relay defect: the client's initialize capabilities reached the agent changed (REL-5)") {
			t.Errorf("%s does not say the capabilities changed first:\n%s", c.ID, c.Failure)
		}
	}
}

// TestATimeoutLeadsWithTheFrameThatWasNotJSON: when a relay wrote a frame
// that is not JSON, the wait it left unanswered says so first, quoting
// where the frame goes wrong, rather than leading with the time.
func TestATimeoutLeadsWithTheFrameThatWasNotJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the relay catalogue")
	}
	for _, f := range runRelay(t, relayMutant(t, "numbers-as-infinity")) {
		if f.ID != "REL-1/numbers-exact-both-ways" {
			continue
		}
		first, _, _ := strings.Cut(f.Failure, "\n")
		if !strings.HasPrefix(first, "relay defect: the relay wrote the agent a frame of ") || !strings.Contains(first, "that is not JSON") || !strings.Contains(first, "Infinity") {
			t.Errorf("REL-1/numbers-exact-both-ways does not lead with the frame that is not JSON:\n%s", f.Failure)
		}
		return
	}
	t.Error("numbers-as-infinity did not fail REL-1/numbers-exact-both-ways")
}
