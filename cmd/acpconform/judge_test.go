package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acpconform/acpconform/internal/testbound"
	"github.com/acpconform/acpconform/judge"
	"github.com/acpconform/acpconform/reports"
	"github.com/acpconform/acpconform/trace"
)

// writeTrace writes a trace of frames, each "c FRAME" or "a FRAME" (the
// client's or the agent's), a tenth of a second apart.
func writeTrace(t *testing.T, frames ...string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"acpconformTrace":1,"recorder":"test","command":["my-agent"],"began":"2026-12-05T00:00:00Z","secrets":[]}` + "\n")
	for i, f := range frames {
		who, frame, _ := strings.Cut(f, " ")
		from := "client"
		if who == "a" {
			from = "agent"
		}
		e := trace.Event{T: float64(i) / 10, Kind: trace.KindMessage, From: trace.Side(from), Frame: frame}
		line, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(line, '\n'))
	}
	path := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

const (
	judgeInit    = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`
	judgeNew     = `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}`
	judgeSession = `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s"}}`
	judgeForm    = `{"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{"sessionId":"s","mode":"form","message":"Q","requestedSchema":{"type":"object","required":["choice"],"properties":{"choice":{"type":"string","title":"Choice","oneOf":[{"const":"choice_0","title":"A"}]}}}}}`
)

// recordSession records an editor's session, the reference client's with
// prompt, through acpconform record in front of the reference agent, and
// returns the trace's path.
func recordSession(t *testing.T, prompt string) string {
	t.Helper()
	bin, _ := binaries(t)
	agent, _ := slim(t)
	path := filepath.Join(t.TempDir(), "t.jsonl")
	cmd := exec.CommandContext(testbound.Context(t), bin, "reference-client", "--prompt", prompt,
		"--agent", shellQuote(bin)+" record --trace "+shellQuote(path)+" -- "+shellQuote(agent))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the reference client through the recorder: %v\n%s", err, out)
	}
	return path
}

// A user records an editor's session (the reference client and agent)
// and judges it: every rule a trace shows passes, in every report, and the
// rules it cannot show are listed as such, never passed.
func TestJudgeARecordedSession(t *testing.T) {
	t.Parallel()
	path := recordSession(t, `{"acpconform":1,"op":"ask_choice","question":"Deploy where?","choices":[{"value":"staging","label":"Staging"},{"value":"prod","label":"Production","description":"The real one"}]}`)
	for _, role := range []string{"agent", "client"} {
		r := acpconform(t, nil, "judge", "--role", role, path)
		expectCode(t, r, 0)
		passed, notVisible := 0, 0
		for _, c := range r.report.Checks {
			switch {
			case c.State == reports.StatePassed:
				passed++
				if !strings.Contains(c.ID, "/trace-") {
					t.Errorf("%s passed, which is no check of the judge's", c.ID)
				}
			case strings.HasSuffix(c.ID, "/not-visible-in-a-trace"):
				notVisible++
				if c.State != reports.StateSkipped {
					t.Errorf("%s is %s, want skipped", c.ID, c.State)
				}
			}
		}
		if passed < 2 || notVisible < 2 {
			t.Errorf("the %s: %d checks passed and %d rules not visible, want some of each\n%s", role, passed, notVisible, r.stdout)
		}
		for _, f := range []string{"junit.xml", "summary.md", "report.html"} {
			if _, err := os.Stat(filepath.Join(r.dir, f)); err != nil {
				t.Errorf("the %s: %v", role, err)
			}
		}
	}
}

// A failure names its trace and line and quotes the frame, and fails the
// run as a live check does; the HTML report draws the frames.
func TestJudgeQuotesTheFrame(t *testing.T) {
	t.Parallel()
	path := writeTrace(t, "c "+judgeInit, "c "+judgeNew, "a "+judgeSession, "a "+judgeForm)
	r := acpconform(t, nil, "judge", path)
	expectCode(t, r, 1)
	if !strings.Contains(r.stdout, "FAILED CAP-2/trace-form-only-when-advertised") || !strings.Contains(r.stdout, path+":5: the agent sent a typed-choice form") {
		t.Errorf("the failure does not name CAP-2's check and t.jsonl:5:\n%s", r.stdout)
	}
	for _, c := range r.report.Checks {
		if c.ID == "CAP-2/trace-form-only-when-advertised" && (!strings.Contains(c.Transcript, `<- {"jsonrpc":"2.0","id":7,"method":"elicitation/create"`) || c.Location != path+":5") {
			t.Errorf("the failure's transcript and location: %q, %q", c.Transcript, c.Location)
		}
	}
	html, err := os.ReadFile(filepath.Join(r.dir, "report.html"))
	if err != nil || !strings.Contains(string(html), "elicitation/create") {
		t.Errorf("report.html (%v) draws no frame", err)
	}
}

// A trace that exercises nothing is nothing checked, never a pass.
func TestJudgeNeverPassesOnNothing(t *testing.T) {
	t.Parallel()
	r := acpconform(t, nil, "judge", writeTrace(t, "c "+judgeInit))
	expectCode(t, r, reports.ExitNothingChecked)
}

// What a trace holds is data: a subject's escapes, newlines and CI
// commands reach no terminal or log as such.
func TestJudgeEscapesTheSubject(t *testing.T) {
	t.Parallel()
	hostile := strings.Replace(judgeForm, `"sessionId":"s"`, `"sessionId":"\u001b[2J\n::error::pwned\n# heading"`, 1)
	r := acpconform(t, []string{"GITHUB_ACTIONS=true"}, "judge", writeTrace(t, "c "+judgeInit, "a "+hostile))
	expectCode(t, r, 1)
	for _, bad := range []string{"\x1b", "\n::error::pwned", "\n# heading"} {
		if strings.Contains(r.stdout, bad) || strings.Contains(r.stderr, bad) {
			t.Errorf("the output holds %q raw:\n%s", bad, r.stdout)
		}
	}
}

// Bad input is a usage error that says which file and line, and why.
func TestJudgeUsage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	good := writeTrace(t, "c "+judgeInit)
	data, _ := os.ReadFile(good)
	if err := os.WriteFile(bad, append(data, []byte("{\"t\":1,\"kind\":\"weather\"}\n")...), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"judge", "--role", "relay", good}, `--role "relay"`},
		{[]string{"judge"}, "name the traces to judge"},
		{[]string{"judge", filepath.Join(dir, "none.jsonl")}, "none.jsonl"},
		{[]string{"judge", bad}, `bad.jsonl:line 3: an event of kind "weather"`},
		{[]string{"judge", t.TempDir()}, "a directory without a trace of the agent"},
	} {
		r := acpconform(t, nil, tc.args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("acpconform %q: exit %d, want %d with %q:\n%s", tc.args, r.code, exitUsage, tc.want, r.stderr)
		}
	}
}

// A session recorded through the recorder replays to the agent it came
// from, and to the client: both send every recorded message alike; an
// edited recording is a difference, named by message, line and member.
func TestReplay(t *testing.T) {
	t.Parallel()
	bin, _ := binaries(t)
	agent, _ := slim(t)
	ctx := testbound.Context(t)
	prompt := `{"acpconform":1,"op":"ask_choice","question":"Deploy where?","choices":[{"value":"staging","label":"Staging"},{"value":"prod","label":"Production"}]}`
	client := []string{bin, "reference-client", "--prompt", prompt}
	path := recordSession(t, prompt)
	run := func(args ...string) (int, string) {
		cmd := exec.CommandContext(ctx, bin, args...)
		out, _ := cmd.CombinedOutput()
		if timeout := testbound.TimedOut(ctx); timeout != nil {
			t.Fatalf("acpconform %q: %v\n%s", args, timeout, out)
		}
		return cmd.ProcessState.ExitCode(), string(out)
	}
	if code, out := run("replay", path, "--", agent); code != 0 || !strings.Contains(out, "the agent sent the 5 messages recorded of it alike") {
		t.Errorf("replay to the agent: exit %d:\n%s", code, out)
	}
	if code, out := run(append([]string{"replay", "--role", "client", path, "--"}, append(client, "--agent", "{agent}")...)...); code != 0 || !strings.Contains(out, "the client sent the 4 messages recorded of it alike") {
		t.Errorf("replay to the client: exit %d:\n%s", code, out)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	edited := filepath.Join(t.TempDir(), "edited.jsonl")
	if err := os.WriteFile(edited, []byte(strings.Replace(string(data), `\"message\":\"Deploy where?\"`, `\"message\":\"Deploy where? \\u001b[2J\"`, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out := run("replay", edited, "--", agent)
	if code != 1 || !strings.Contains(out, "the agent's message 3 (trace line 7) differs: params.message: recorded ") || strings.Contains(out, "\x1b") {
		t.Errorf("replay of an edited trace: exit %d, want 1 naming message 3 and its message, escaped:\n%s", code, out)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"replay", path}, exitUsage, "name the trace, then the command"},
		{[]string{"replay", "--role", "relay", path, "--", agent}, exitUsage, `--role "relay"`},
		{[]string{"replay", filepath.Join(t.TempDir(), "none.jsonl"), "--", agent}, exitUsage, "none.jsonl"},
		{[]string{"replay", path, "--", filepath.Join(t.TempDir(), "no-such-agent")}, exitNoConnection, "the agent did not start"},
		// A subject that dies, or says nothing, differs: it is never an
		// error of acpconform's, and it leaves no process behind.
		// (before or after it was sent initialize: line 2 or 3)
		{[]string{"replay", path, "--", "sh", "-c", "exit 7"}, exitFailed, "differs: the subject's connection ended"},
		{[]string{"replay", "--startup-timeout", "1s", "--response-timeout", "1s", path, "--", "sleep", "60"}, exitFailed, "the subject sent nothing within 1s, where the recording has the answer to request 1"},
	} {
		if code, out := run(tc.args...); code != tc.code || !strings.Contains(out, tc.want) {
			t.Errorf("acpconform %q: exit %d, want %d with %q:\n%s", tc.args, code, tc.code, tc.want, out)
		}
	}
}

// --traces writes each connection of a run's checks as a trace named for
// the subject's role, readable by its owner alone, and judge reads the
// directory for one role: the catalogue's own sessions judge as the live
// run judged them (mutants/judge_test.go shows it over every mutant).
func TestTracesOfARun(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "traces")
	r := acpconform(t, nil, "run", "--traces", dir, "--id", "SCH-2,CLI-2")
	expectCode(t, r, 0)
	for _, role := range []string{"agent", "client"} {
		files, _ := filepath.Glob(filepath.Join(dir, role+"-*.jsonl"))
		if len(files) == 0 {
			t.Fatalf("no trace of the %s in %s", role, dir)
		}
		if info, err := os.Stat(files[0]); err != nil || info.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, mode %v, want 0600", files[0], err, info.Mode().Perm())
		}
		j := acpconform(t, nil, "judge", "--role", role, dir)
		expectCode(t, j, 0)
	}
	blocked := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocked, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	r = acpconform(t, nil, "run", "--traces", filepath.Join(blocked, "traces"), "--id", "SCH-2")
	if r.code != exitUsage || !strings.Contains(r.stderr, "--traces") {
		t.Errorf("--traces under a file: exit %d, want %d naming --traces:\n%s", r.code, exitUsage, r.stderr)
	}
}

// A failure that rests on the end of a side shows it in the transcript as
// a live one shows a close, not as an empty frame.
func TestTranscriptOfAnEnd(t *testing.T) {
	r := judge.Result{Frames: []judge.Frame{
		{From: "agent", At: 100 * time.Millisecond, Data: []byte(`{"jsonrpc":"2.0","method":"elicitation/complete","params":{}}`)},
		{From: "client", At: 200 * time.Millisecond, Ended: true, Why: "exited with status 2"},
	}}
	want := "+0.1000s -> {\"jsonrpc\":\"2.0\",\"method\":\"elicitation/complete\",\"params\":{}}\n+0.2000s <-  (closed: exited with status 2)\n"
	if got := transcriptOf(r, "client"); got != want {
		t.Errorf("transcript %q, want %q", got, want)
	}
}
