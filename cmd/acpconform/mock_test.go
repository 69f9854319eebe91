package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/internal/testbound"
	"github.com/acpconform/acpconform/kit/probeagent"
)

// writeScript writes a script file and returns its path.
func writeScript(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// withProbeAgent runs `acpconform args...` with its stdio joined to a
// reference probe agent in this process.
func withProbeAgent(t *testing.T, args ...string) (int, string) {
	t.Helper()
	ctx := testbound.Context(t)
	agentIn, toAgent := io.Pipe()
	fromAgent, agentOut := io.Pipe()
	conn := probeagent.Serve(agentOut, agentIn, slog.New(slog.DiscardHandler))
	defer func() { toAgent.Close(); <-conn.Done() }()
	var stderr bytes.Buffer
	code := run(ctx, args, fromAgent, toAgent, &stderr)
	if timeout := testbound.TimedOut(ctx); timeout != nil {
		t.Fatalf("acpconform %q: %v\n%s", args, timeout, stderr.String())
	}
	return code, stderr.String()
}

const acceptSecond = `
name: accept-second
peer: client
capabilities: {elicitation: {form: {}}}
steps:
  - initialize: {}
  - newSession: {}
  - probe: {question: Q, choices: [{value: a, label: A}, {value: b, label: B}]}
  - elicitation: {answer: {action: accept, pick: 1}}
  - outcome: {outcome: accepted, index: %d}
  - stop: end_turn
`

func TestMockClientOverStdio(t *testing.T) {
	good := writeScript(t, "good.yaml", strings.Replace(acceptSecond, "%d", "1", 1))
	if code, stderr := withProbeAgent(t, "mock", "client", "--script", good); code != exitOK || !strings.Contains(stderr, "accept-second: ok") {
		t.Errorf("good script: exit %d, stderr:\n%s", code, stderr)
	}
	bad := writeScript(t, "bad.yaml", strings.Replace(acceptSecond, "%d", "0", 1))
	code, stderr := withProbeAgent(t, "mock", "client", "--script", bad)
	if code != exitFailed {
		t.Errorf("bad script: exit %d, want %d", code, exitFailed)
	}
	for _, want := range []string{"accept-second: FAILED", "bad.yaml:10: step 5 (outcome)", "index is 1, want 0", "transcript of accept-second:", `"method":"elicitation/create"`} {
		if !strings.Contains(stderr, want) {
			t.Errorf("bad script: stderr lacks %q:\n%s", want, stderr)
		}
	}
}

func TestMockUsageErrors(t *testing.T) {
	invalid := writeScript(t, "invalid.yaml", "name: x\npeer: client\nsteps:\n  - elicitation: {answr: {}}\n")
	agentScript := writeScript(t, "agent.yaml", "name: x\npeer: agent\nsteps:\n  - say: hi\n")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"mock"}, exitUsage, "acpconform mock: name the peer to play: client or agent"},
		{[]string{"mock", "editor"}, exitUsage, `unknown peer "editor"`},
		{[]string{"mock", "client"}, exitUsage, "--script is required"},
		{[]string{"mock", "client", "--script", invalid}, exitUsage, invalid + ":4: unknown field answr in Elicitation"},
		{[]string{"mock", "client", "--script", agentScript}, exitUsage, "is a agent script, not a client script"},
		{[]string{"mock", "client", "--script", filepath.Join(t.TempDir(), "none.yaml")}, exitUsage, "no such file"},
		{[]string{"mock", "agent", "--script", agentScript, "--listen", "x", "--connect", "y"}, exitUsage, "exclude each other"},
		{[]string{"mock", "agent", "--bogus"}, exitUsage, "unknown flag: --bogus"},
		{[]string{"mock", "agent", "--script", agentScript, "--connect", "ws://127.0.0.1:1/acp/ws"}, exitNoConnection, "dial ws://127.0.0.1:1/acp/ws"},
		{[]string{"mock", "agent", "--script", agentScript, "--listen", "127.0.0.1:0", "--accept-timeout", "50ms"}, exitNoConnection, "no peer connected"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), tc.args, strings.NewReader(""), &stdout, &stderr)
		if code != tc.code || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("acpconform %q: exit %d, stderr %q; want %d and %q", tc.args, code, stderr.String(), tc.code, tc.want)
		}
	}
}

// TestMockAgentAndClientOverWebSocket plays a mock agent with --listen and a
// mock client with --connect against each other.
func TestMockAgentAndClientOverWebSocket(t *testing.T) {
	agentScript := writeScript(t, "agent.yaml", `
name: pick-production
peer: agent
timeout: 2s
steps:
  - elicit:
      question: Choose
      choices: [{label: Preview}, {label: Production, default: true}]
      user: {action: accept, pick: 1}
      expect: {user: true}
  - endTurn: end_turn
`)
	clientScript := writeScript(t, "client.yaml", `
name: obey
peer: client
capabilities: {elicitation: {form: {}}}
steps:
  - initialize: {}
  - newSession: {}
  - prompt: go
  - elicitation:
      expect: {tokens: [choice_0, choice_1], default: choice_1, sessionId: mock-session-1}
      answer: {action: accept, pick: 1}
  - stop: end_turn
`)
	ctx := testbound.Context(t)
	urls, agentOut := io.Pipe()
	agentDone := make(chan int, 1)
	var agentErr bytes.Buffer
	go func() {
		agentDone <- run(ctx, []string{"mock", "agent", "--script", agentScript, "--listen", "127.0.0.1:0"}, strings.NewReader(""), agentOut, &agentErr)
		agentOut.Close()
	}()
	url, err := bufio.NewReader(urls).ReadString('\n')
	if err != nil {
		t.Fatalf("no URL printed: %v", err)
	}
	go io.Copy(io.Discard, urls)
	var clientErr bytes.Buffer
	if code := run(ctx, []string{"mock", "client", "--script", clientScript, "--connect", strings.TrimSpace(url)}, strings.NewReader(""), io.Discard, &clientErr); code != exitOK {
		t.Errorf("mock client: exit %d:\n%s", code, clientErr.String())
	}
	code := <-agentDone
	if timeout := testbound.TimedOut(ctx); timeout != nil {
		t.Fatalf("the mock agent and client: %v\n%s\n%s", timeout, agentErr.String(), clientErr.String())
	}
	if code != exitOK {
		t.Errorf("mock agent: exit %d:\n%s", code, agentErr.String())
	}
}
