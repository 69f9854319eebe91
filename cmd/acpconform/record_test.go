package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/acpconform/acpconform/internal/testbound"
	"github.com/acpconform/acpconform/trace"
)

// The recorder is a relay: between a relay check's two ends it passes the
// whole relay catalogue (REL-1..7), as it must to stand in for any agent.
func TestRecorderIsAConformantRelay(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the relay catalogue")
	}
	t.Parallel()
	bin, _ := binaries(t)
	path := filepath.Join(t.TempDir(), "t.jsonl")
	r := acpconform(t, nil, "relay", "--", bin, "record", "--trace", path, "--", "{agent}")
	expectCode(t, r, 0)
	if r.report.Totals.Failed != 0 || r.report.Totals.Passed == 0 {
		t.Errorf("the recorder as a relay: %+v\n%s", r.report.Totals, r.stdout)
	}
}

// An editor (the reference client) starts its agent through the recorder:
// the session is the same as without it, and the trace holds each message
// both ways, byte for byte as it passed, the agent's stderr, and the end
// of both sides, and no secret.
func TestRecorderRecordsAnEditorsSession(t *testing.T) {
	t.Parallel()
	bin, _ := binaries(t)
	agent, _ := slim(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "t.jsonl")
	const secret = "sk-test-0123456789"
	line := shellQuote(bin) + " record --trace " + shellQuote(path) + " --secret-env API_KEY --secret-pattern 'tok_[0-9]+' -- sh -c " +
		shellQuote("echo starting with $API_KEY >&2; exec "+shellQuote(agent))
	ctx := testbound.Context(t)
	prompt := `{"acpconform":1,"op":"ask_choice","question":"Which key, ` + secret + ` or tok_42?","choices":[{"value":1,"label":"One"},{"value":2,"label":"Two","default":true}]}`
	cmd := exec.CommandContext(ctx, bin, "reference-client", "--agent", line, "--prompt", prompt)
	cmd.Env = append(os.Environ(), "API_KEY="+secret)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the reference client through the recorder: %v\n%s", err, out)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{secret, "tok_42"} {
		if strings.Contains(string(data), s) {
			t.Errorf("the trace holds the secret %q", s)
		}
	}
	tr, err := trace.Read(strings.NewReader(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	from := map[trace.Side][]string{}
	for _, m := range tr.Messages() {
		from[m.From] = append(from[m.From], string(m.Bytes()))
	}
	if len(from[trace.Client]) < 3 || !strings.Contains(from[trace.Client][0], `"method":"initialize"`) {
		t.Errorf("the client's messages: %q, want initialize, session/new and a prompt at least", from[trace.Client])
	}
	if !strings.Contains(strings.Join(from[trace.Client], "\n"), "Which key, ${secret:API_KEY} or ${secret:pattern-1}?") {
		t.Errorf("the prompt is not recorded with its secrets' handles: %q", from[trace.Client])
	}
	if !strings.Contains(strings.Join(from[trace.Agent], "\n"), `"method":"elicitation/create"`) {
		t.Errorf("the agent's messages hold no elicitation/create: %q", from[trace.Agent])
	}
	var stderr string
	ends := map[trace.Side]string{}
	for _, e := range tr.Events {
		switch e.Kind {
		case trace.KindStderr:
			stderr += e.Text
		case trace.KindEnd:
			ends[e.Side] += e.Why + "; "
		}
	}
	if stderr != "starting with ${secret:API_KEY}\n" {
		t.Errorf("the agent's stderr recorded as %q", stderr)
	}
	if !strings.Contains(ends[trace.Client], "closed its output") || !strings.Contains(ends[trace.Agent], "exited with status 0") {
		t.Errorf("the ends recorded: %q", ends)
	}
	if info, err := os.Stat(path); err == nil && info.Mode().Perm()&0o077 != 0 {
		t.Errorf("the trace is mode %v, want its owner's alone", info.Mode().Perm())
	}
}

// Bad input is a usage error that says what is wrong; an agent that
// cannot start exits 3 with the reason in the trace; the agent's exit
// status is the recorder's.
func TestRecorderExits(t *testing.T) {
	t.Parallel()
	bin, _ := binaries(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "t.jsonl")
	for _, tc := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"record", "--", "agent"}, exitUsage, "--trace: name the file"},
		{[]string{"record", "--trace", path}, exitUsage, "the command after -- is empty"},
		{[]string{"record", "--trace", path, "--secret-env", "ACPCONFORM_UNSET_FOR_TEST", "--", "agent"}, exitUsage, "--secret-env ACPCONFORM_UNSET_FOR_TEST: the variable is unset"},
		{[]string{"record", "--trace", path, "--secret-pattern", "(", "--", "agent"}, exitUsage, `--secret-pattern "("`},
		{[]string{"record", "--trace", filepath.Join(dir, "no", "such", "dir", "t.jsonl"), "--", "sh"}, exitNoConnection, "no such file or directory"},
		{[]string{"record", "--trace", path, "--", filepath.Join(dir, "no-such-agent")}, exitNoConnection, "no-such-agent"},
		{[]string{"record", "--trace", path, "--", "sh", "-c", "exit 7"}, 7, ""},
	} {
		cmd := exec.CommandContext(testbound.Context(t), bin, tc.args...)
		cmd.Stdin = strings.NewReader("")
		out, _ := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != tc.code || !strings.Contains(string(out), tc.says) {
			t.Errorf("%q: exit %d, %q; want exit %d saying %q", tc.args, code, out, tc.code, tc.says)
		}
	}
	tr, err := readTrace(path)
	if err != nil {
		t.Fatal(err)
	}
	if last := tr.Events[len(tr.Events)-1]; last.Why != "exited with status 7" {
		t.Errorf("the trace ends %+v, want the agent's exit status", last)
	}
}

func readTrace(path string) (trace.Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return trace.Trace{}, err
	}
	defer f.Close()
	return trace.Read(f)
}

// shellQuote quotes s for sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// An agent that ignores the end of its input and SIGTERM does not keep
// the recorder: after the client has gone it is killed, nothing of it is
// left, and the trace says how it ended.
func TestRecorderEndsAnAgentThatWillNotEnd(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("acpconform record starts no process on Windows")
	}
	t.Parallel()
	bin, _ := binaries(t)
	dir := t.TempDir()
	path, pidFile := filepath.Join(dir, "t.jsonl"), filepath.Join(dir, "pid")
	cmd := exec.CommandContext(testbound.Context(t), bin, "record", "--trace", path, "--",
		"sh", "-c", `trap "" TERM; echo $$ > `+shellQuote(pidFile)+`; while :; do read -r line || sleep 1; done`)
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}` + "\n")
	out, _ := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != exitFailed {
		t.Errorf("the recorder exited %d, want 1 for an agent it had to kill:\n%s", code, out)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("the agent (pid %d) outlived the recorder", pid)
	}
	tr, err := readTrace(path)
	if err != nil {
		t.Fatal(err)
	}
	if last := tr.Events[len(tr.Events)-1]; last.Kind != trace.KindEnd || !strings.Contains(last.Why, "SIGKILL") {
		t.Errorf("the trace ends %+v, want the agent killed", last)
	}
	if m := tr.Messages(); len(m) != 1 || m[0].From != trace.Client {
		t.Errorf("messages %+v, want the client's initialize", m)
	}
}

// A recorder killed mid-session (SIGKILL: no chance to finish) leaves a
// trace that reads, holding every message it had passed on but the one
// it may have been writing.
func TestATraceSurvivesTheRecordersDeath(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("acpconform record starts no process on Windows")
	}
	t.Parallel()
	bin, _ := binaries(t)
	path := filepath.Join(t.TempDir(), "t.jsonl")
	cmd := exec.CommandContext(testbound.Context(t), bin, "record", "--trace", path, "--",
		"sh", "-c", `while read -r line; do echo "$line"; done`) // an agent that echoes
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	echoes := bufio.NewReader(out)
	const sent = 4
	for i := range sent {
		msg := fmt.Sprintf(`{"jsonrpc":"2.0","method":"note","params":{"n":%d}}`, i)
		if _, err := io.WriteString(in, msg+"\n"); err != nil {
			t.Fatal(err)
		}
		if echo, err := echoes.ReadString('\n'); err != nil || echo != msg+"\n" {
			t.Fatalf("echo %d: %q, %v; want %q unchanged", i, echo, err, msg)
		}
	}
	// The last echo came back: it and every message before it are in the
	// file, each recorded before it was passed on.
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	tr, err := readTrace(path)
	if err != nil {
		t.Fatalf("the trace of a killed recorder does not read: %v", err)
	}
	msgs := tr.Messages()
	if len(msgs) != 2*sent {
		t.Fatalf("%d messages recorded, want %d: %+v", len(msgs), 2*sent, msgs)
	}
	for i, m := range msgs {
		want := fmt.Sprintf(`{"jsonrpc":"2.0","method":"note","params":{"n":%d}}`, i/2)
		if side := []trace.Side{trace.Client, trace.Agent}[i%2]; m.From != side || string(m.Bytes()) != want {
			t.Errorf("message %d: from %s %q, want from %s %q", i, m.From, m.Bytes(), side, want)
		}
	}
}
