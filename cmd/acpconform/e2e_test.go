package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/acpconform/acpconform/internal/gobuild"
	"github.com/acpconform/acpconform/internal/testbound"
	"github.com/acpconform/acpconform/internal/testcost/budget"
	"github.com/acpconform/acpconform/internal/waitbound"
	"github.com/acpconform/acpconform/mutants"
	"github.com/acpconform/acpconform/reports"
	"github.com/acpconform/acpconform/suite"
)

// The end-to-end tests run the built acpconform against the reference, the
// mock peers, a broken agent and broken clients, as a user's pipeline does.

var (
	buildOnce sync.Once
	binDir    string
	built     string // acpconform
	mutant    string // acpconform whose reference accepts choice_01
	buildErr  error
)

func binaries(t *testing.T) (string, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds acpconform")
	}
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "acpconform-e2e")
		if buildErr != nil {
			return
		}
		built = filepath.Join(binDir, "acpconform")
		// As releases are (gobuild). Beside it the reference agent and
		// client alone (slim), for tests whose subject starts once per
		// check and is not the CLI's own command under test.
		if buildErr = gobuild.Run("", "-o", binDir+string(filepath.Separator), ".", "../acpconform-reference-agent", "../acpconform-reference-client"); buildErr != nil {
			return
		}
		root, _ := filepath.Abs("../..")
		var m mutants.Mutant
		for _, c := range mutants.All {
			if c.Name == "leading-zero-accepted" {
				m = c
			}
		}
		mutantDir := filepath.Join(binDir, "mutant")
		if buildErr = os.Mkdir(mutantDir, 0o755); buildErr == nil {
			mutant, buildErr = m.Build(root, mutantDir)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return built, mutant
}

// slim returns the reference agent's and client's binaries of binaries'
// build (acpconform-reference-agent, acpconform-reference-client): they
// start in a fifth of the CLI's CPU time.
func slim(t *testing.T) (agent, client string) {
	bin, _ := binaries(t)
	return mutants.Slim(bin)
}

func TestMain(m *testing.M) {
	// Most of these tests wait for a subject to time out, exit or be
	// stopped; only a few compute.
	waitbound.Parallel(3)
	code := budget.Main(m)
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// result is one run of acpconform.
type result struct {
	code           int
	stdout, stderr string
	report         reports.JSON
	dir            string
}

// acpconform runs the binary with args, its reports in a fresh directory.
func acpconform(t *testing.T, env []string, args ...string) result {
	t.Helper()
	bin, _ := binaries(t)
	dir := t.TempDir()
	ctx := testbound.Context(t)
	full := append([]string{args[0], "--junit", filepath.Join(dir, "junit.xml"), "--json", filepath.Join(dir, "report.json"), "--summary", filepath.Join(dir, "summary.md")}, args[1:]...)
	if args[0] == "list" || args[0] == "explain" || args[0] == "__complete" {
		full = args
	}
	cmd := exec.CommandContext(ctx, bin, full...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	_ = cmd.Run()
	if timeout := testbound.TimedOut(ctx); timeout != nil {
		t.Fatalf("acpconform %q: %v\nstdout:\n%s\nstderr:\n%s", full, timeout, stdout.String(), stderr.String())
	}
	r := result{code: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String(), dir: dir}
	if data, err := os.ReadFile(filepath.Join(dir, "report.json")); err == nil {
		if err := json.Unmarshal(data, &r.report); err != nil {
			t.Fatalf("report.json: %v", err)
		}
	}
	return r
}

// readJSON reads a run's report.json, failing the test when it is missing
// or does not parse.
func readJSON(t *testing.T, path string) reports.JSON {
	t.Helper()
	data, err := readReport(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc reports.JSON
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s does not parse: %v", path, err)
	}
	return doc
}

func (r result) failedRules() map[string]bool {
	out := map[string]bool{}
	for _, c := range r.report.Checks {
		if c.Failed() {
			for _, id := range c.Rules {
				out[id] = true
			}
		}
	}
	return out
}

func expectCode(t *testing.T, r result, code int) {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.stdout, r.stderr)
	}
}

// TestBrokenAgentFails: the mutant that accepts choice_01 fails TOK-2, and
// the summary, summary.md and the check's transcript say so. (That it fails
// TOK-2 alone among all checks is the kill matrix's.)
func TestBrokenAgentFails(t *testing.T) {
	t.Parallel()
	_, mut := binaries(t)
	r := acpconform(t, nil, "agent", "--response-timeout", "2s", "--id", "TOK-2,ELI-2", "--", mut, "reference-agent")
	expectCode(t, r, 1)
	if !r.failedRules()["TOK-2"] || r.report.Succeeded {
		t.Errorf("the mutant accepting choice_01 did not fail TOK-2: %v", r.failedRules())
	}
	if !strings.Contains(r.stdout, "(TOK-2 MUST): TOK: reading the answer: refuses") {
		t.Errorf("summary lacks the failure:\n%s", r.stdout)
	}
	md, _ := os.ReadFile(filepath.Join(r.dir, "summary.md"))
	if !strings.Contains(string(md), "NOT conformant") || !strings.Contains(string(md), "<summary>transcript</summary>") {
		t.Errorf("summary.md:\n%s", md)
	}
	expectOwnEvidence(t, r, "elicitation/create")
	for _, c := range r.report.Checks {
		if c.ID == "TOK-2/leading-zero" && !strings.Contains(c.Transcript, `\"choice_01\"`) && !strings.Contains(c.Transcript, `"choice_01"`) {
			t.Errorf("TOK-2/leading-zero's transcript lacks its own answer, choice_01:\n%s", c.Transcript)
		}
	}
	// The report and explain give one check one line, its scenario's; the
	// report adds where it failed.
	explained := acpconform(t, nil, "explain", "TOK-2/leading-zero")
	for _, c := range r.report.Checks {
		if c.ID != "TOK-2/leading-zero" {
			continue
		}
		if want := "scenario:  " + c.Location + "\n"; c.Location == "" || !strings.Contains(explained.stdout, want) {
			t.Errorf("the report puts TOK-2/leading-zero at %q, and explain does not say %q:\n%s", c.Location, want, explained.stdout)
		}
		junit, _ := os.ReadFile(filepath.Join(r.dir, "junit.xml"))
		if c.FailedAt == "" || !strings.Contains(string(junit), "scenario:     "+c.Location+"&#xA;failed at:    "+c.FailedAt+"&#xA;") {
			t.Errorf("report.json says TOK-2/leading-zero, of %s, failed at %q, and junit.xml does not say so:\n%s", c.Location, c.FailedAt, junit)
		}
	}
}

// giveReasons replaces the TODO reasons --write-baseline wrote in the
// baseline at path, as its user would, so that --baseline takes it.
func giveReasons(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	given := regexp.MustCompile(`'TODO: say why ([^']*) fails'`).ReplaceAll(data, []byte("'known to fail $1 in this test'"))
	if err := os.WriteFile(path, given, 0o644); err != nil {
		t.Fatal(err)
	}
}

// expectOwnEvidence fails the test unless every failed check of r carries
// a transcript with frame in it: a check that sent its subject something
// shows its own connection, not another's (a capability probe, say).
func expectOwnEvidence(t *testing.T, r result, frame string) {
	t.Helper()
	for _, c := range r.report.Checks {
		if c.Failed() && !strings.Contains(c.Transcript, frame) {
			t.Errorf("%s failed, but its transcript has no %s: it is not the check's own connection:\n%s", c.Key(), frame, c.Transcript)
		}
	}
}

// TestBaselineForPullRequests: --write-baseline lists the failures with a
// TODO reason that --baseline refuses (exit 2, file:line) until it is
// replaced; then only new failures fail, and a fixed agent is conformant
// with stale entries, which fail the job with exit 7. The runs check TOK-2,
// which the broken agent breaks, and ELI-2, which it passes: a baseline's
// workings do not depend on how many checks run.
func TestBaselineForPullRequests(t *testing.T) {
	t.Parallel()
	bin, mut := binaries(t)
	baseline := filepath.Join(t.TempDir(), "baseline.yaml")
	r := acpconform(t, nil, "agent", "--id", "TOK-2,ELI-2", "--response-timeout", "2s", "--write-baseline", baseline, "--", mut, "reference-agent")
	expectCode(t, r, 1)
	data, err := os.ReadFile(baseline)
	if err != nil || !strings.Contains(string(data), "a leading zero") || !strings.Contains(string(data), "reason: 'TODO: say why TOK-2 fails'") {
		t.Fatalf("baseline %v:\n%s", err, data)
	}

	r = acpconform(t, nil, "agent", "--id", "TOK-2,ELI-2", "--baseline", baseline, "--", mut, "reference-agent")
	expectCode(t, r, 2) // the TODO reasons are still there
	if line := strings.TrimSpace(r.stderr); strings.Count(line, "\n") > 0 || !strings.Contains(line, baseline+":") || !strings.Contains(line, "TODO: say why TOK-2 fails") {
		t.Errorf("a baseline with a TODO reason is not one line naming the file, its line and the reason:\n%s", r.stderr)
	}
	giveReasons(t, baseline)

	r = acpconform(t, nil, "agent", "--id", "TOK-2,ELI-2", "--baseline", baseline, "--", mut, "reference-agent")
	expectCode(t, r, 0) // only known failures

	r = acpconform(t, nil, "agent", "--id", "TOK-2,ELI-2", "--baseline", baseline, "--", bin, "reference-agent")
	expectCode(t, r, reports.ExitStaleBaseline) // the fixed agent makes the entries stale
	if !strings.Contains(r.stdout, "stale:") || !regexp.MustCompile(`is conformant on ask_choice and create_elicitation: \d+ MUST checks passed, \d+ stale baseline entr`).MatchString(r.stdout) || strings.Contains(r.stdout, "NOT conformant") {
		t.Errorf("a conformant agent with stale entries is not said to be conformant, with its stale entries:\n%s", r.stdout)
	}
	if r.report.Verdict != reports.Conformant {
		t.Errorf("report.json's verdict is %q, want conformant", r.report.Verdict)
	}

	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte("known:\n  - check: \"x\"\n  - check: \"y\"\n    reason: z\n    why: no\n"), 0o644)
	r = acpconform(t, nil, "agent", "--baseline", bad, "--", bin, "reference-agent")
	expectCode(t, r, 2)
	if !strings.Contains(r.stderr, bad) || strings.Count(strings.TrimSpace(r.stderr), "\n") > 1 {
		t.Errorf("a malformed baseline is one line naming the file:\n%s", r.stderr)
	}
}

func TestAgentWithoutProbe(t *testing.T) {
	t.Parallel()
	bin, _ := binaries(t)
	prompt := `{"acpconform":1,"op":"ask_choice","question":"Choose","choices":[{"value":1,"label":"One"},{"value":2,"label":"Two","default":true}]}`
	r := acpconform(t, nil, "agent", "--no-probe", "--prompt", prompt, "--", bin, "reference-agent")
	expectCode(t, r, 0)
	if r.report.Totals.Passed != 5 {
		t.Errorf("want the 5 wire-only checks to pass: %+v", r.report.Totals)
	}

	// The mock agent as a subject: it asks whatever the client advertised,
	// so the capability checks must catch it.
	mock := filepath.Join(t.TempDir(), "ask.yaml")
	os.WriteFile(mock, []byte("name: always-asks\npeer: agent\ntimeout: 2s\nsteps:\n  - elicit: {question: Choose, choices: [{label: One}, {label: Two}]}\n"), 0o644)
	r = acpconform(t, nil, "agent", "--no-probe", "--prompt", "go", "--response-timeout", "3s", "--", bin, "mock", "agent", "--script", mock)
	expectCode(t, r, 1)
	failed := r.failedRules()
	if !failed["CAP-2"] || failed["SCH-1"] {
		t.Errorf("the mock agent should fail CAP-2 and pass SCH-1: %v", failed)
	}
}

// TestClient runs the reference client's broken variants, each on the
// checks of the rules it breaks. (The conformant reference client, over
// stdio and over WebSocket, is two rows of the interop matrix; that a
// check of the client catalogue fails for its own rule alone is shown for
// every client mutant by the mutants' test.)
func TestClient(t *testing.T) {
	t.Parallel()
	_, client := slim(t) // the client alone: a check starts it once
	// Each broken variant fails a check of every rule it breaks: a valid
	// answer unlike its instruction is CLI-5's. A client without the route
	// breaks them for every shape and mode (ELI-4, ELI-5; and ELI-7, which
	// needs an answer to a cancelled request); one whose declines carry
	// content breaks ELI-8 (a SHOULD) and, in test mode, CLI-5.
	var ignoresUser result
	for broken, rules := range map[string][]string{
		"unregistered":       {"CLI-1", "ELI-4", "ELI-5", "ELI-7"},
		"wrong-token":        {"CLI-2"},
		"content-on-decline": {"CLI-5", "ELI-8"}, // in test mode the instructed decline has no content
		"meta-intolerant":    {"CLI-3"},
		"ignores-user":       {"CLI-5"},
	} {
		r := acpconform(t, nil, "client", "--id", strings.Join(rules, ","), "--", client, "--broken", broken)
		expectCode(t, r, 1)
		if failed := r.failedRules(); len(failed) != len(rules) || !allOf(failed, rules) {
			t.Errorf("--broken %s failed %v, want %v alone", broken, failed, rules)
		}
		expectOwnEvidence(t, r, `"method":"elicitation/create"`)
		if broken == "ignores-user" {
			ignoresUser = r
		}
	}
	// The CLI-5 failures point at --no-scripted-user, which checks a client
	// without test mode as a free user.
	for _, c := range ignoresUser.report.Checks {
		if c.Failed() && !strings.Contains(c.Failure, "run with --no-scripted-user to check it as a free user") {
			t.Errorf("%s failed without the hint to run with --no-scripted-user:\n%s", c.ID, c.Failure)
		}
	}
	r := acpconform(t, nil, "client", "--no-scripted-user", "--id", "CLI-2,CLI-5", "--", client, "--broken", "ignores-user")
	expectCode(t, r, 0)
	for _, c := range r.report.Checks {
		if strings.HasPrefix(c.ID, "CLI-5/") && (c.State != reports.StateSkipped || !strings.Contains(c.SkipReason, "--no-scripted-user")) {
			t.Errorf("with --no-scripted-user, %s is %s (%q), want skipped for it", c.ID, c.State, c.SkipReason)
		}
	}
	// CLI-4 is a SHOULD: reported, never fatal; and a client that advertises
	// no form gets no form to answer, so no MUST check runs.
	r = acpconform(t, nil, "client", "--", client, "--broken", "accepts-unadvertised")
	expectCode(t, r, 4)
	if !r.failedRules()["CLI-4"] {
		t.Errorf("accepts-unadvertised did not fail CLI-4: %v", r.failedRules())
	}
	// ELI-6 likewise: a URL elicitation accepted where only form was
	// advertised is reported, and the client stays conformant.
	r = acpconform(t, nil, "client", "--", client, "--broken", "accepts-unadvertised-url")
	expectCode(t, r, 0)
	if failed := r.failedRules(); len(failed) != 1 || !failed["ELI-6"] {
		t.Errorf("accepts-unadvertised-url failed %v, want ELI-6 alone", failed)
	}
}

// allOf reports whether every rule is in set.
func allOf(set map[string]bool, rules []string) bool {
	for _, r := range rules {
		if !set[r] {
			return false
		}
	}
	return true
}

func TestClientListening(t *testing.T) {
	t.Parallel()
	bin, _ := binaries(t)
	connectUntilDone(testbound.Context(t), t, bin, filepath.Join(t.TempDir(), "r.json"))
}

// connectUntilDone runs acpconform client --listen, its report at
// report, and connects the reference client to the URL it prints, again
// and again, as a client under test connects by itself once per check,
// until the run ends; the run must exit 0. It returns how many of the
// clients connected: one that could not says so ("wire: dial ...").
func connectUntilDone(ctx context.Context, t *testing.T, bin, report string) (connected int) {
	t.Helper()
	cmd := exec.CommandContext(ctx, bin, "client", "--listen", "127.0.0.1:0", "--json", report, "--junit", "", "--summary", "")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewReader(stdout)
	url, err := lines.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, lines)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("acpconform client --listen: %v", testbound.Err(ctx, err))
			}
			return connected
		default:
		}
		c := exec.CommandContext(ctx, bin, "reference-client", "--websocket", strings.TrimSpace(url), "--timeout", "10s")
		var stderr strings.Builder
		c.Stderr = &stderr
		if c.Run() == nil || !strings.Contains(stderr.String(), "dial") {
			connected++
		}
	}
}

func TestUsageAndCouldNotRun(t *testing.T) {
	bin, _ := binaries(t)
	empty := filepath.Join(t.TempDir(), "empty")
	for _, tc := range []struct {
		args []string
		env  []string
		code int
		want string
	}{
		{[]string{"agent", "--bogus"}, nil, 2, "unknown flag: --bogus"},
		{[]string{"agent"}, nil, 2, "name the agent"},
		{[]string{"agent", "--url", "http://x"}, nil, 2, "is not a ws:// or wss:// URL"},
		{[]string{"agent", "--token-env", "T", "--", "x"}, nil, 2, "--token-env goes with --url"},
		{[]string{"agent", "--url", "ws://127.0.0.1:1/acp/ws", "--token-env", "ACPCONFORM_UNSET_TOKEN"}, nil, 2, "$ACPCONFORM_UNSET_TOKEN is empty or unset"},
		{[]string{"agent", "--no-probe", "--", "x"}, nil, 2, "--no-probe and --prompt go together"},
		{[]string{"agent", "--id", "TOK-99", "--", "x"}, nil, 2, `"TOK-99" is not a CONTRACT ID`},
		{[]string{"agent", "--label-filter", "((", "--", "x"}, nil, 2, `--label-filter "((": Mismatched '(' - could not find matching ')'.`},
		{[]string{"agent", "--promptly-within", "1500ms", "--", "x"}, nil, 2, "--promptly-within 1.5s: the contract's bound is 2s; --promptly-within only raises it"},
		{[]string{"run", "--promptly-within", "0s"}, nil, 2, "the contract's bound is 2s; --promptly-within only raises it"},
		{[]string{"client"}, nil, 2, "name the client"},
		{[]string{"agent", "--startup-timeout", "5s", "--", "false"}, nil, 3, "could not run"},
		{[]string{"agent", "--startup-timeout", "5s", "--", empty}, nil, 3, "could not run"},
		{[]string{"agent", "--url", "ws://127.0.0.1:1/acp/ws"}, nil, 3, "could not run"},
		{[]string{"client", "--startup-timeout", "5s", "--", "true"}, nil, 3, "could not run"},
		{[]string{"explain", "NOPE-1"}, nil, 2, `"NOPE-1" is not a CONTRACT ID`},
	} {
		r := acpconform(t, tc.env, tc.args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("acpconform %q: exit %d, stderr %q; want %d and %q", tc.args, r.code, r.stderr, tc.code, tc.want)
		}
		if tc.code != 0 && strings.Count(strings.TrimSpace(r.stderr), "\n") > 5 {
			t.Errorf("acpconform %q: the error is not short:\n%s", tc.args, r.stderr)
		}
	}
	_ = bin
}

func TestListAndExplain(t *testing.T) {
	r := acpconform(t, nil, "list", "--json", "-")
	expectCode(t, r, 0)
	var rules []struct {
		ID     string   `json:"id"`
		Level  string   `json:"level"`
		Checks []string `json:"checks"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rules); err != nil || len(suite.Rules()) != 71 || len(rules) != len(suite.Rules()) {
		t.Fatalf("list --json: %v, %d rules", err, len(rules))
	}
	for _, rule := range rules {
		if len(rule.Checks) == 0 { // the relay catalogue walked too
			t.Errorf("list --json: %s has no check", rule.ID)
		}
	}
	r = acpconform(t, nil, "list")
	expectCode(t, r, 0)
	if first, _, _ := strings.Cut(r.stdout, "\n"); first != "CONTRACT revision "+suite.Revision()+": 71 rules, each cited by a check, none pending" {
		t.Errorf("list's first line is %q, want the revision and no rule pending", first)
	}
	r = acpconform(t, nil, "explain", "CLI-4")
	expectCode(t, r, 0)
	if !strings.Contains(r.stdout, "CLI-4 (SHOULD, client role, area CLI)") || !strings.Contains(r.stdout, "CLI-4/unadvertised-form-refused") {
		t.Errorf("explain CLI-4:\n%s", r.stdout)
	}
}

func TestStepSummaryAndCleanup(t *testing.T) {
	bin, _ := binaries(t)
	marker := fmt.Sprintf("%d", 4000+os.Getpid()%1000)
	agent := filepath.Join(t.TempDir(), "agent.sh")
	// An agent that leaves a child behind: stopping it must end the child.
	os.WriteFile(agent, []byte("#!/bin/sh\nsleep "+marker+" &\nexec "+bin+" reference-agent\n"), 0o755)
	summary := filepath.Join(t.TempDir(), "step-summary.md")
	r := acpconform(t, []string{"GITHUB_STEP_SUMMARY=" + summary}, "agent", "--id", "SCH-1,TOK-1", "--", agent)
	expectCode(t, r, 0)
	md, err := os.ReadFile(summary)
	if err != nil || !strings.Contains(string(md), "is conformant") {
		t.Errorf("$GITHUB_STEP_SUMMARY: %v\n%s", err, md)
	}
	if pids := processesWith("sleep " + marker); len(pids) > 0 {
		t.Errorf("processes left behind: %v", pids)
	}
}

// TestInterruptWritesReports sends SIGINT mid-run: the report is written
// with what ran, the run fails, and no subject process is left.
func TestInterruptWritesReports(t *testing.T) {
	bin, _ := binaries(t)
	marker := fmt.Sprintf("%d", 5000+os.Getpid()%1000)
	agent := filepath.Join(t.TempDir(), "agent.sh")
	os.WriteFile(agent, []byte("#!/bin/sh\nsleep "+marker+" &\nexec "+bin+" reference-agent\n"), 0o755)
	dir := t.TempDir()
	cmd := exec.Command(bin, "agent", "--json", filepath.Join(dir, "r.json"), "--junit", filepath.Join(dir, "j.xml"), "--summary", "", "--", agent)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Interrupt once the run has begun: acpconform says so on stderr.
	lines := bufio.NewScanner(stderr)
	for lines.Scan() && !strings.Contains(lines.Text(), "acpconform: checking") {
	}
	go io.Copy(io.Discard, stderr)
	_ = cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	ctx := testbound.Context(t)
	select {
	case <-done:
	case <-ctx.Done():
		cmd.Process.Kill()
		t.Fatalf("acpconform did not stop after SIGINT: %v", testbound.Err(ctx, nil))
	}
	if code := cmd.ProcessState.ExitCode(); code == 0 {
		t.Errorf("an interrupted run exited 0")
	}
	for _, f := range []string{"r.json", "j.xml"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("the interrupted run wrote no %s: %v", f, err)
		}
	}
	if pids := processesWith("sleep " + marker); len(pids) > 0 {
		t.Errorf("processes left behind: %v", pids)
	}
}

// processesWith lists the processes whose command line is exactly cmdline.
func processesWith(cmdline string) []string {
	entries, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.ReplaceAll(strings.TrimRight(string(data), "\x00"), "\x00", " ") == cmdline {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestShellExample runs the CI script of docs/ci as a pipeline would. What
// it shows is the script's: its exit codes, its reports and its baseline.
// So the acpconform it runs checks TOK-2 alone, the rule the broken agent
// breaks: the whole catalogue against these agents is other tests'.
func TestShellExample(t *testing.T) {
	t.Parallel()
	bin, mut := binaries(t)
	script, _ := filepath.Abs("../../docs/ci/acpconform-check.sh")
	tok2 := filepath.Join(t.TempDir(), "acpconform-tok2")
	wrapper := "#!/bin/sh\ncommand=$1\nshift\nexec '" + bin + "' \"$command\" --id TOK-2 \"$@\"\n"
	if err := os.WriteFile(tok2, []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(env ...string) (int, string) {
		dir := t.TempDir()
		cmd := exec.Command("sh", script)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), append([]string{"ACPCONFORM=" + tok2}, env...)...)
		out, _ := cmd.CombinedOutput()
		if _, err := os.Stat(filepath.Join(dir, "acpconform-reports", "junit.xml")); err != nil && cmd.ProcessState.ExitCode() < 2 {
			t.Errorf("the script wrote no acpconform-reports/junit.xml: %v\n%s", err, out)
		}
		return cmd.ProcessState.ExitCode(), string(out)
	}
	if code, out := run("AGENT=" + bin + " reference-agent"); code != 0 {
		t.Errorf("conformant agent: exit %d\n%s", code, out)
	}
	if code, out := run("AGENT=" + mut + " reference-agent"); code != 1 {
		t.Errorf("broken agent without a baseline: exit %d\n%s", code, out)
	}
	baseline := filepath.Join(t.TempDir(), "baseline.yaml")
	if out, err := exec.Command(bin, "agent", "--id", "TOK-2", "--junit", "", "--json", "", "--summary", "", "--write-baseline", baseline, "--", mut, "reference-agent").CombinedOutput(); err == nil {
		t.Fatalf("the broken agent passed:\n%s", out)
	}
	giveReasons(t, baseline)
	if code, out := run("AGENT="+mut+" reference-agent", "BASELINE="+baseline); code != 0 {
		t.Errorf("broken agent with its baseline: exit %d\n%s", code, out)
	}
	if code, out := run(); code != 2 || !strings.Contains(out, "set AGENT") {
		t.Errorf("no AGENT: exit %d\n%s", code, out)
	}
}
