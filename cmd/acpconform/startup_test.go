package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/internal/needtool"
	"github.com/acpconform/acpconform/internal/testbound"
	"github.com/acpconform/acpconform/reports"
)

// slowStart is a shell wrapper that runs its arguments as a command after
// sleeping: from the start numbered after (counted in the file starts)
// on, for delay seconds; before it, at once.
func slowStart(t *testing.T, after int, delay string) (wrapper, starts string) {
	t.Helper()
	dir := t.TempDir()
	wrapper, starts = filepath.Join(dir, "slow.sh"), filepath.Join(dir, "starts")
	script := "#!/bin/sh\necho >> '" + starts + "'\nif [ \"$(wc -l < '" + starts + "')\" -gt " + strconv.Itoa(after) + " ]; then sleep " + delay + "; fi\nexec \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return wrapper, starts
}

// startupChecks need several agent processes: two capability sets (each
// a shared connection) and a fresh check.
const startupChecks = "CAP-2/capabilities-without-elicitation,TOK-1/choice-0,RTE-7/cancel-tells-client"

// TestEveryProcessGetsTheStartupTimeout: an agent each of whose processes
// takes longer to start than --response-timeout, well within
// --startup-timeout, is conformant; the bound of a later process's start
// is the startup timeout, not the response timeout.
func TestEveryProcessGetsTheStartupTimeout(t *testing.T) {
	t.Parallel()
	bin, _ := binaries(t)
	wrapper, starts := slowStart(t, 0, "4")
	r := acpconform(t, nil, "agent", "--check", startupChecks, "--response-timeout", "3s", "--", wrapper, bin, "reference-agent")
	expectCode(t, r, reports.ExitConformant)
	log, _ := os.ReadFile(starts)
	if n := strings.Count(string(log), "\n"); n < 3 {
		t.Errorf("the agent was started %d times, want at least 3: the test does not test later starts", n)
	}
}

// TestAProcessThatDoesNotStartIsAnError: when the first process starts
// and a later one does not within --startup-timeout, its check is an
// error, not a failure of its rules, and the run could not run (exit 3),
// with <error> in junit.xml.
func TestAProcessThatDoesNotStartIsAnError(t *testing.T) {
	t.Parallel()
	bin, _ := binaries(t)
	// The start-up probe's process and the first check's start at once;
	// every later one never does. The bound leaves a loaded machine room
	// for the first two.
	wrapper, _ := slowStart(t, 2, "600")
	r := acpconform(t, nil, "agent", "--check", startupChecks, "--startup-timeout", "8s", "--", wrapper, bin, "reference-agent")
	expectCode(t, r, reports.ExitCouldNotRun)
	errs := 0
	for _, c := range r.report.Checks {
		switch c.State {
		case reports.StateError:
			errs++
			if !strings.Contains(c.Failure, "did not start in time") || !strings.Contains(c.Failure, "--startup-timeout 8s") {
				t.Errorf("%s is an error whose reason does not say it did not start within --startup-timeout: %s", c.ID, c.Failure)
			}
		case reports.StateFailed:
			t.Errorf("%s failed, want an error or a pass: %s", c.ID, c.Failure)
		}
	}
	if errs == 0 || r.report.Totals.Errors != errs {
		t.Errorf("%d checks are errors, totals say %d; want at least one", errs, r.report.Totals.Errors)
	}
	if !strings.Contains(r.report.Reason, "could not run") {
		t.Errorf("the reason %q does not say checks could not run", r.report.Reason)
	}
	if !strings.Contains(r.stdout, "COULD NOT RUN ") {
		t.Errorf("the terminal does not show the checks that could not run:\n%s", r.stdout)
	}
	junit, err := os.ReadFile(filepath.Join(r.dir, "junit.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(junit), `<error message=`) || strings.Contains(string(junit), `<failure`) {
		t.Errorf("junit.xml has no <error> for the check that did not start, or a <failure>:\n%s", junit)
	}
}

// TestASlowRelayIsConformant: a correct relay that takes its time over
// every message (no contract rule limits a relay's latency) is
// conformant: a wait that spans several crossings of the relay is bounded
// by the response timeout for each. Each check crosses the relay some ten
// times, 1.5 s each: they run side by side, a run each, so that the test
// waits 20 s, not a minute.
func TestASlowRelayIsConformant(t *testing.T) {
	t.Parallel()
	python3 := needtool.Python3(testbound.Context(t), needtool.Path(t, "python3", "python3"))
	relay, err := filepath.Abs("testdata/latency_relay.py")
	if err != nil {
		t.Fatal(err)
	}
	for _, check := range []string{"RTE-5/passes-capability", "RTE-5/relays-elicitation-and-answer", "REL-1/answers-unchanged"} {
		t.Run(check, func(t *testing.T) {
			t.Parallel()
			r := acpconform(t, nil, "relay", "--response-timeout", "2.5s", "--check", check,
				"--", python3, relay, "1.5", "{agent}")
			expectCode(t, r, reports.ExitConformant)
		})
	}
}

// TestNoProbeSaysWhatItSaw: an agent checked on the wire alone that
// refuses session/new could not run, quoting its error; one that answers
// the prompt without asking leaves nothing checked, saying so. Neither is
// "not conformant": neither showed anything of its elicitation.
func TestNoProbeSaysWhatItSaw(t *testing.T) {
	t.Parallel()
	h := hostileBinary(t)
	for _, tc := range []struct {
		mode string
		code int
		want string
	}{
		{"refuse-sessions", reports.ExitCouldNotRun, `it refused session/new, so no check can run: session/new: JSON-RPC error -32000: Authentication required`},
		{"never-ask", reports.ExitNothingChecked, `the agent ended its turn (end_turn) without an elicitation/create in answer to the --prompt "deploy it"`},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			r := acpconform(t, nil, "agent", "--no-probe", "--prompt", "deploy it", "--", h, tc.mode)
			expectCode(t, r, tc.code)
			if !strings.Contains(r.report.Reason, tc.want) || !strings.Contains(r.stdout, tc.want) {
				t.Errorf("the reason %q (and stdout) should say %q; stdout:\n%s", r.report.Reason, tc.want, r.stdout)
			}
		})
	}
}

// TestAClientSlowToExitIsConformant: a client that takes longer than
// --response-timeout to exit after its turn (a runtime shutting its agent
// down on a loaded machine) passes CLI-5/exits-after-turn: a process's end
// is bounded by --startup-timeout, as its start is.
func TestAClientSlowToExitIsConformant(t *testing.T) {
	t.Parallel()
	bin, _ := binaries(t)
	wrapper := filepath.Join(t.TempDir(), "slow-exit.sh")
	script := "#!/bin/sh\n\"$@\"\ncode=$?\nsleep 3\nexit $code\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	r := acpconform(t, nil, "client", "--check", "CLI-5/exits-after-turn", "--response-timeout", "1s", "--", wrapper, bin, "reference-client")
	expectCode(t, r, reports.ExitConformant)
}
