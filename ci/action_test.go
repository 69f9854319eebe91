package ci

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/acpconform/acpconform/internal/reportcheck"
	"github.com/acpconform/acpconform/internal/testbound"
	"github.com/acpconform/acpconform/reports"
)

// The action's run steps, run here as GitHub runs a composite action:
// each with bash --noprofile --norc -eo pipefail, in the workspace, with
// its env: evaluated, a fresh GITHUB_OUTPUT, GITHUB_PATH, GITHUB_ENV and
// GITHUB_STATE per step (what a step writes to GITHUB_ENV is in the env of
// every later step, as it is on GitHub, BASH_ENV included), the runner's
// tokens and service addresses (runnerTokens), and the steps after a
// failure skipped unless their if: is always(). Steps that use other
// actions (setup-go, upload-artifact) are skipped.

// runnerTokens stand for the ACTIONS_* variables GitHub gives each step.
var runnerTokens = []string{
	"ACTIONS_RUNTIME_TOKEN=stand-in-runtime-token",
	"ACTIONS_RUNTIME_URL=https://pipelines.invalid/",
	"ACTIONS_ID_TOKEN_REQUEST_TOKEN=stand-in-id-token",
	"ACTIONS_ID_TOKEN_REQUEST_URL=https://token.invalid/",
	"ACTIONS_CACHE_URL=https://cache.invalid/",
	"ACTIONS_RESULTS_URL=https://results.invalid/",
}

// action is what the tests read of action.yml.
type action struct {
	Inputs map[string]struct {
		Required bool   `yaml:"required"`
		Default  string `yaml:"default"`
	} `yaml:"inputs"`
	Runs struct {
		Using string `yaml:"using"`
		Steps []step `yaml:"steps"`
	} `yaml:"runs"`
}

type step struct {
	Name  string            `yaml:"name"`
	ID    string            `yaml:"id"`
	If    string            `yaml:"if"`
	Uses  string            `yaml:"uses"`
	Shell string            `yaml:"shell"`
	Run   string            `yaml:"run"`
	Env   map[string]string `yaml:"env"`
}

func root(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func loadAction(t *testing.T) action {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root(t), "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a action
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	if a.Runs.Using != "composite" {
		t.Fatalf("action.yml: runs.using is %q, want composite", a.Runs.Using)
	}
	return a
}

// run is one use of the action in a workspace of its own.
type run struct {
	t         *testing.T
	ctx       context.Context // the bound of its steps: go test's -timeout, less a margin
	action    action
	inputs    map[string]string
	workspace string
	temp      string // RUNNER_TEMP
	summary   string // GITHUB_STEP_SUMMARY
	path      []string
	env       []string                     // NAME=value lines steps wrote to GITHUB_ENV
	state     []string                     // lines steps wrote to GITHUB_STATE
	outputs   map[string]map[string]string // step id -> name -> value
	log       strings.Builder
}

func newRun(t *testing.T, inputs map[string]string) *run {
	r := &run{
		t:         t,
		ctx:       testbound.Context(t),
		action:    loadAction(t),
		inputs:    inputs,
		workspace: t.TempDir(),
		temp:      t.TempDir(),
		outputs:   map[string]map[string]string{},
	}
	for name := range inputs {
		if _, ok := r.action.Inputs[name]; !ok {
			t.Fatalf("action.yml has no input %q", name)
		}
	}
	r.summary = filepath.Join(r.temp, "step-summary.md")
	if err := os.WriteFile(r.summary, []byte("an earlier step's summary\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return r
}

var expression = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

// eval replaces each ${{ }} in s by its value; it knows inputs.NAME,
// github.action_path, env.NAME and steps.ID.outputs.NAME, and fails the
// test on anything else.
func (r *run) eval(s string) string {
	r.t.Helper()
	return expression.ReplaceAllStringFunc(s, func(m string) string {
		expr := expression.FindStringSubmatch(m)[1]
		parts := strings.Split(expr, ".")
		switch {
		case len(parts) == 2 && parts[0] == "inputs":
			in, ok := r.action.Inputs[parts[1]]
			if !ok {
				r.t.Fatalf("%s: action.yml has no such input", m)
			}
			if v, ok := r.inputs[parts[1]]; ok {
				return v
			}
			if in.Required {
				r.t.Fatalf("%s: a required input the test did not give", m)
			}
			return in.Default
		case expr == "github.action_path":
			return root(r.t)
		case len(parts) == 2 && parts[0] == "env":
			return os.Getenv(parts[1])
		case len(parts) == 4 && parts[0] == "steps" && parts[2] == "outputs":
			return r.outputs[parts[1]][parts[3]]
		}
		r.t.Fatalf("%s: an expression this test does not know", m)
		return ""
	})
}

// steps runs the action's run steps and returns the exit code of the
// first that failed, 0 when none did.
func (r *run) steps() int {
	r.t.Helper()
	code := 0
	for i, s := range r.action.Runs.Steps {
		name := fmt.Sprintf("step %d (%s)", i+1, s.Name)
		if s.Uses != "" {
			r.t.Logf("%s: skipped, it uses %s, which only GitHub runs", name, s.Uses)
			continue
		}
		switch s.If {
		case "":
			if code != 0 {
				r.t.Logf("%s: skipped after a failure", name)
				continue
			}
		case "always()":
		default:
			r.t.Fatalf("%s: if: %s is a condition this test does not know", name, s.If)
		}
		if s.Shell != "bash" {
			r.t.Fatalf("%s: shell %q, want bash", name, s.Shell)
		}
		if strings.Contains(s.Run, "${{") {
			r.t.Fatalf("%s: its script holds an expression: inputs must come through env:, or they can inject shell code", name)
		}
		if c := r.step(name, s); c != 0 && code == 0 {
			code = c
		}
	}
	return code
}

// step runs one run step as GitHub would and returns its exit code.
func (r *run) step(name string, s step) int {
	r.t.Helper()
	script := filepath.Join(r.temp, "step.sh")
	output := filepath.Join(r.temp, "github-output")
	path := filepath.Join(r.temp, "github-path")
	envFile := filepath.Join(r.temp, "github-env")
	state := filepath.Join(r.temp, "github-state")
	for _, f := range []string{script, output, path, envFile, state} {
		os.Remove(f)
	}
	if err := os.WriteFile(script, []byte(s.Run), 0o644); err != nil {
		r.t.Fatal(err)
	}
	for _, f := range []string{output, path, envFile, state} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
	env := []string{
		"GITHUB_ACTIONS=true",
		"GITHUB_ACTION_PATH=" + root(r.t),
		"GITHUB_WORKSPACE=" + r.workspace,
		"GITHUB_OUTPUT=" + output,
		"GITHUB_PATH=" + path,
		"GITHUB_ENV=" + envFile,
		"GITHUB_STATE=" + state,
		"GITHUB_STEP_SUMMARY=" + r.summary,
		"RUNNER_TEMP=" + r.temp,
	}
	env = append(env, runnerTokens...)
	pathVar := os.Getenv("PATH")
	for _, kv := range os.Environ() {
		key, _, _ := strings.Cut(kv, "=")
		switch {
		case key == "PATH", strings.HasPrefix(key, "GITHUB_"), strings.HasPrefix(key, "RUNNER_"),
			strings.HasPrefix(key, "INPUT_"), strings.HasPrefix(key, "ACTIONS_"):
			continue
		}
		env = append(env, kv)
	}
	env = append(env, r.env...)
	env = append(env, "PATH="+strings.Join(append(r.path, pathVar), string(os.PathListSeparator)))
	for k, v := range s.Env {
		env = append(env, k+"="+r.eval(v))
	}

	cmd := exec.CommandContext(r.ctx, "bash", "--noprofile", "--norc", "-eo", "pipefail", script)
	cmd.Dir = r.workspace
	cmd.Env = env
	// Once the bound has killed bash, what it started (go build,
	// acpconform) may still hold its output open: stop reading soon after.
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	fmt.Fprintf(&r.log, "--- %s\n%s", name, out)
	if timeout := testbound.TimedOut(r.ctx); timeout != nil {
		// The bound killed the step: its exit code, -1, says nothing.
		r.t.Fatalf("%s: %v, still running\n%s", name, timeout, r.log.String())
	}
	code := 0
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		r.t.Fatalf("%s: %v", name, err)
	}

	if s.ID != "" {
		r.outputs[s.ID] = r.readOutputs(name, output)
	}
	r.env = append(r.env, r.readLines(envFile)...)
	r.state = append(r.state, r.readLines(state)...)
	added := r.readLines(path)
	// A later line of GITHUB_PATH comes first on PATH.
	for _, dir := range added {
		r.path = append([]string{dir}, r.path...)
	}
	return code
}

// readOutputs reads a GITHUB_OUTPUT file of name=value lines; the test
// fails on any other form, which the action does not use.
func (r *run) readOutputs(name, file string) map[string]string {
	r.t.Helper()
	outs := map[string]string{}
	for _, line := range r.readLines(file) {
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			r.t.Fatalf("%s: GITHUB_OUTPUT line %q is not name=value", name, line)
		}
		outs[k] = v
	}
	return outs
}

func (r *run) readLines(file string) []string {
	r.t.Helper()
	f, err := os.Open(file)
	if err != nil {
		r.t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if sc.Text() != "" {
			lines = append(lines, sc.Text())
		}
	}
	if err := sc.Err(); err != nil {
		r.t.Fatal(err)
	}
	return lines
}

// expectCode fails the test unless the action ended with code, and
// acpconform's step said so in the output exit-code.
func (r *run) expectCode(got, want int) {
	r.t.Helper()
	if got != want {
		r.t.Fatalf("the action exited %d, want %d\n%s", got, want, r.log.String())
	}
	if out := r.outputs["run"]["exit-code"]; out != fmt.Sprint(want) {
		r.t.Errorf("output exit-code = %q, want %d\n%s", out, want, r.log.String())
	}
}

// readReports returns report.json of the run, failing the test unless all
// three reports are in the workspace's reports folder.
func (r *run) readReports(folder string) reports.JSON {
	r.t.Helper()
	for _, f := range []string{"junit.xml", "report.json", "summary.md"} {
		if info, err := os.Stat(filepath.Join(r.workspace, folder, f)); err != nil || info.Size() == 0 {
			r.t.Errorf("%s/%s: want a report (%v)\n%s", folder, f, err, r.log.String())
		}
	}
	data, err := os.ReadFile(filepath.Join(r.workspace, folder, "report.json"))
	if err != nil {
		r.t.Fatal(err)
	}
	var report reports.JSON
	if err := json.Unmarshal(data, &report); err != nil {
		r.t.Fatalf("report.json: %v", err)
	}
	return report
}

func (r *run) stepSummary() string {
	r.t.Helper()
	data, err := os.ReadFile(r.summary)
	if err != nil {
		r.t.Fatal(err)
	}
	return string(data)
}

func requireTools(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds acpconform")
	}
	for _, tool := range []string{"bash", "go", "xargs"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the action's steps need %s: %v", tool, err)
		}
	}
}

// TestActionChecksTheReferenceAgent: the default install (the action's
// own source), the command found on the PATH the install step extended,
// args passed on, the reports in the default folder, the summary appended.
func TestActionChecksTheReferenceAgent(t *testing.T) {
	requireTools(t)
	r := newRun(t, map[string]string{
		"role":    "agent",
		"command": "acpconform reference-agent",
		"args":    "--id TOK-1",
	})
	r.expectCode(r.steps(), 0)
	report := r.readReports("acpconform-reports")
	if report.Verdict != reports.Conformant {
		t.Errorf("verdict %q, want conformant\n%s", report.Verdict, r.log.String())
	}
	if report.Totals.MustRan == 0 || report.Totals.Deselected == 0 {
		t.Errorf("totals %+v: want MUST checks run and others deselected by --id", report.Totals)
	}
	for _, c := range report.Checks {
		if c.State != "deselected" && !slices.Contains(c.Rules, "TOK-1") {
			t.Errorf("check %q of %v ran: --id TOK-1 did not reach acpconform", c.Name, c.Rules)
		}
	}
	summary := r.stepSummary()
	if !strings.HasPrefix(summary, "an earlier step's summary\n") || !strings.Contains(summary, "is conformant") {
		t.Errorf("the step summary was not appended to:\n%s", summary)
	}
}

// TestActionExitsWithAcpconformsCode: an agent that cannot start makes
// acpconform exit 3, and the action with it, after the reports are
// written. The command's quotes group its words: sh gets "exit 5".
func TestActionExitsWithAcpconformsCode(t *testing.T) {
	requireTools(t)
	r := newRun(t, map[string]string{
		"role":    "agent",
		"command": `sh -c 'exit 5'`,
		"reports": "out/conformance",
	})
	r.expectCode(r.steps(), 3)
	report := r.readReports("out/conformance")
	if report.Verdict != reports.CouldNotRun || !strings.Contains(report.Reason, "exited with status 5") {
		t.Errorf("verdict %q (%s), want could not run: exited with status 5", report.Verdict, report.Reason)
	}
	if !strings.Contains(r.stepSummary(), "could not run") {
		t.Errorf("the step summary does not say could not run:\n%s", r.stepSummary())
	}
}

// TestActionKeepsTheSubjectOutOfTheJob: a subject that writes to every
// file command of the runner (BASH_ENV into GITHUB_ENV, which every later
// bash step would source; exit-code=0 into GITHUB_OUTPUT; a folder into
// GITHUB_PATH; a forged verdict into GITHUB_STEP_SUMMARY; a line into
// GITHUB_STATE), keeps its environment for the test to read, prints
// workflow commands on its stderr, then exits 1, changes nothing of the
// job: it got none of those variables nor the runner's tokens (ACTIONS_*),
// the action still exits 3 with exit-code 3, the later steps ran without
// its BASH_ENV, the summary, state and PATH are the action's, and the log
// holds none of its commands as a runner reads them
// (reportcheck.WorkflowCommands).
func TestActionKeepsTheSubjectOutOfTheJob(t *testing.T) {
	requireTools(t)
	evil := filepath.Join(t.TempDir(), "evil")
	script := `env > "$EVIL/subject.env"
[ -n "$GITHUB_ENV" ] && printf 'BASH_ENV=%s\n' "$EVIL/env.sh" >> "$GITHUB_ENV"
[ -n "$GITHUB_OUTPUT" ] && echo 'exit-code=0' >> "$GITHUB_OUTPUT"
[ -n "$GITHUB_PATH" ] && echo "$EVIL" >> "$GITHUB_PATH"
[ -n "$GITHUB_STEP_SUMMARY" ] && echo '## acpconform: FORGED is conformant' >> "$GITHUB_STEP_SUMMARY"
[ -n "$GITHUB_STATE" ] && echo 'FORGED=1' >> "$GITHUB_STATE"
printf '::add-mask::FORGED\n  ::stop-commands::FORGED\n::error file=a.go::FORGED\n##[error]FORGED\nx ##[group]FORGED\n' >&2
exit 1`
	if err := os.MkdirAll(evil, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"subject.sh": script,
		// What each later step would run first, had the subject set
		// BASH_ENV: the last one would exit 0, the job green.
		"env.sh": `echo sourced BASH_ENV FORGED >&2; exit 0`,
	} {
		if err := os.WriteFile(filepath.Join(evil, name), []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("EVIL", evil)
	r := newRun(t, map[string]string{"role": "agent", "command": "bash " + filepath.Join(evil, "subject.sh")})
	code := r.steps()

	subjectEnv, err := os.ReadFile(filepath.Join(evil, "subject.env"))
	if err != nil || !strings.Contains(string(subjectEnv), "\nEVIL="+evil+"\n") {
		t.Fatalf("the subject did not run, or without the job's environment, so this test shows nothing (%v):\n%s\n%s", err, subjectEnv, r.log.String())
	}
	for _, line := range strings.Split(string(subjectEnv), "\n") {
		name, _, _ := strings.Cut(line, "=")
		switch name {
		case "GITHUB_ENV", "GITHUB_OUTPUT", "GITHUB_PATH", "GITHUB_STATE", "GITHUB_STEP_SUMMARY":
			t.Errorf("the subject got the runner's file command %s", line)
		default:
			if strings.HasPrefix(name, "ACTIONS_") {
				t.Errorf("the subject got the runner's %s", line)
			}
		}
	}
	r.expectCode(code, 3)
	if len(r.env) > 0 || len(r.state) > 0 || slices.Contains(r.path, evil) {
		t.Errorf("the subject wrote the job's env %q, state %q or PATH %q", r.env, r.state, r.path)
	}
	if summary := r.stepSummary(); strings.Contains(summary, "FORGED is conformant") {
		t.Errorf("the subject wrote the step summary:\n%s", summary)
	}
	log := r.log.String()
	if strings.Contains(log, "sourced BASH_ENV") {
		t.Errorf("a later step sourced the subject's BASH_ENV:\n%s", log)
	}
	if !strings.Contains(log, "FORGED") {
		t.Errorf("the log does not show the subject's stderr, so this test shows nothing:\n%s", log)
	}
	for _, c := range reportcheck.WorkflowCommands(log) {
		if strings.Contains(c, "FORGED") {
			t.Errorf("the log has the subject's workflow command %q", c)
		}
	}
}

// TestActionUsageErrors: inputs the action cannot use end it with 2,
// acpconform's usage code, before acpconform runs.
func TestActionUsageErrors(t *testing.T) {
	requireTools(t)
	for _, c := range []struct {
		name   string
		inputs map[string]string
		say    string
	}{
		{"unknown role", map[string]string{"role": "run", "command": "acpconform reference-agent"}, "role is agent, client or relay"},
		{"no subject", map[string]string{"role": "agent"}, "command (or, for an agent, url) is required"},
		{"url and command", map[string]string{"role": "agent", "url": "ws://127.0.0.1:1/acp/ws", "command": "agent"}, "not both"},
		{"url for a client", map[string]string{"role": "client", "url": "ws://127.0.0.1:1/acp/ws"}, "url is for role agent"},
		{"unmatched quote", map[string]string{"role": "agent", "command": `sh -c 'exit 5`}, "unmatched quote"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRun(t, c.inputs)
			r.expectCode(r.steps(), 2)
			if !strings.Contains(r.log.String(), c.say) {
				t.Errorf("the log does not say %q:\n%s", c.say, r.log.String())
			}
			if _, err := os.Stat(filepath.Join(r.workspace, "acpconform-reports")); err == nil {
				t.Errorf("acpconform ran and wrote reports\n%s", r.log.String())
			}
		})
	}
}

// TestActionComparesWithABaseReport: with base-report, the action diffs
// the run with it: the diff's table joins the job summary and diff.md,
// and a stale baseline entry is a warning annotation at its line.
func TestActionComparesWithABaseReport(t *testing.T) {
	requireTools(t)
	r := newRun(t, map[string]string{"role": "agent", "command": "acpconform reference-agent", "args": "--id TOK-1"})
	base := reports.JSON{Acpconform: reports.FormatVersion, Subject: "agent command acpconform reference-agent", Verdict: reports.NotConformant,
		Selection: &reports.Selection{Catalogue: "agent"},
		Checks:    []reports.Check{{ID: "TOK-1/choice-0", Name: "TOK-1/choice-0", Rules: []string{"TOK-1"}, Level: "MUST", State: reports.StateFailed, Failure: "broken before"}}}
	data, _ := json.Marshal(base)
	if err := os.WriteFile(filepath.Join(r.workspace, "base.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.workspace, "baseline.yaml"), []byte("known:\n  - check: TOK-1/choice-1\n    reason: issue 7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.inputs["base-report"], r.inputs["baseline"] = "base.json", "baseline.yaml"
	r.expectCode(r.steps(), 7) // conformant, but the stale entry fails the run
	if code := r.outputs["diff"]["exit-code"]; code != "0" {
		t.Errorf("diff-exit-code %q, want 0: no new failure\n%s", code, r.log.String())
	}
	summary := r.stepSummary()
	for _, want := range []string{"## acpconform diff: no new failure, 1 fixed, 1 stale baseline entry", "| fixed | TOK-1/choice-0: TOK: ", " | MUST | failed: broken before | passed |\n"} {
		if !strings.Contains(summary, want) {
			t.Errorf("the step summary lacks %q:\n%s", want, summary)
		}
	}
	if diff, err := os.ReadFile(filepath.Join(r.workspace, "acpconform-reports", "diff.md")); err != nil || !strings.Contains(summary, string(diff)) {
		t.Errorf("diff.md (%v) is not in the step summary:\n%s", err, diff)
	}
	if want := "::warning file=baseline.yaml,line=2,title=acpconform%3A stale baseline entry TOK-1/choice-1::stale baseline entry: TOK-1/choice-1 passes now"; !strings.Contains(r.log.String(), want) {
		t.Errorf("the log lacks the annotation %q:\n%s", want, r.log.String())
	}
}

// TestActionFailsOnABaseReportThatIsNone: a conformant run with a
// base-report that names no report.json fails the action with the
// diff's usage code, not silently.
func TestActionFailsOnABaseReportThatIsNone(t *testing.T) {
	requireTools(t)
	r := newRun(t, map[string]string{"role": "agent", "command": "acpconform reference-agent", "args": "--id TOK-1", "base-report": "no-such.json"})
	if code := r.steps(); code != 2 {
		t.Fatalf("the action exited %d, want 2\n%s", code, r.log.String())
	}
	if r.outputs["run"]["exit-code"] != "0" || r.outputs["diff"]["exit-code"] != "2" || !strings.Contains(r.log.String(), "no-such.json: no such file") {
		t.Errorf("outputs %v, want the run's 0 and the diff's 2, the log naming the file:\n%s", r.outputs, r.log.String())
	}
}

// TestActionRefusesAnUnknownVersion: version is a tag or source, and
// anything else fails the install step with its own message.
func TestActionRefusesAnUnknownVersion(t *testing.T) {
	requireTools(t)
	r := newRun(t, map[string]string{"role": "agent", "command": "agent", "version": "latest"})
	if code := r.steps(); code != 2 || !strings.Contains(r.log.String(), "version is a release tag") {
		t.Fatalf("the action exited %d, want 2 from the install step\n%s", code, r.log.String())
	}
	if _, ran := r.outputs["run"]; ran {
		t.Errorf("acpconform's step ran after the install failed\n%s", r.log.String())
	}
}
