package interop_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/acpconform/acpconform/internal/bridge"
	"github.com/acpconform/acpconform/internal/gobuild"
	"github.com/acpconform/acpconform/internal/testbound"
	"github.com/acpconform/acpconform/reports"
	"github.com/acpconform/acpconform/trace"
)

// realSession is a session between two peers nobody on the team wrote
// the ACP side of, recorded through acpconform record: a client of acpx
// or an ACP SDK, an agent on one of the kits.
type realSession struct {
	name string // the golden trace is traces/NAME.jsonl
	// play runs the client with agent, the recorder's command line in
	// front of the agent, and returns when the session is over.
	play func(t *testing.T, ctx context.Context, agent string)
	// agent is the agent's command (the kit's example).
	agent func(t *testing.T) []string
	// judged are judge's exit codes for the agent and the client.
	judged map[string]int
	why    string
}

// probePrompt is the prompt that makes a kit's example agent ask: a probe
// request of ask_choice (docs/probe.md §1).
func probePrompt(t *testing.T) string {
	b, err := json.Marshal(deploy())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func realSessions() []realSession {
	return []realSession{
		{name: "ts-sdk-client_ts-kit-agent", why: "a typed choice the TypeScript SDK client cancels (no scripted user): both sides judged on it",
			agent: func(t *testing.T) []string { return []string{node, tsAgent(t)} },
			play: func(t *testing.T, ctx context.Context, agent string) {
				pipeTo(t, ctx, exec.CommandContext(ctx, node, tsClient, probePrompt(t)), agent)
			},
			judged: map[string]int{"agent": reports.ExitConformant, "client": reports.ExitConformant}},
		{name: "acpx-runtime_go-kit-agent", why: "acpx's runtime advertises forms and cancels the typed choice the Go kit's agent sends",
			agent: func(t *testing.T) []string { return []string{goKitAgent(t)} },
			play: func(t *testing.T, ctx context.Context, agent string) {
				cmd := exec.CommandContext(ctx, node, acpxHost, agent)
				cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "ACPX_HOST_PROMPT="+probePrompt(t))
				run(t, cmd)
			},
			judged: map[string]int{"agent": reports.ExitConformant, "client": reports.ExitConformant}},
		{name: "acpx-cli_python-kit-agent", why: "acpx's CLI advertises no form elicitation, so the agent rightly asks nothing: nothing to judge either side on, never a pass",
			agent: func(t *testing.T) []string { return []string{python3, pyAgent} },
			play: func(t *testing.T, ctx context.Context, agent string) {
				cmd := exec.CommandContext(ctx, acpxCLI, "--approve-all", "--agent", agent, "exec", probePrompt(t))
				cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
				run(t, cmd)
			},
			judged: map[string]int{"agent": reports.ExitNothingChecked, "client": reports.ExitNothingChecked}},
		{name: "zed-sdk-client_go-kit-agent", why: "Zed's SDK has no elicitation: the agent asks nothing, and nothing is judged",
			agent: func(t *testing.T) []string { return []string{goKitAgent(t)} },
			play: func(t *testing.T, ctx context.Context, agent string) {
				pipeTo(t, ctx, exec.CommandContext(ctx, node, zedClient, probePrompt(t)), agent)
			},
			judged: map[string]int{"agent": reports.ExitNothingChecked, "client": reports.ExitNothingChecked}},
	}
}

// TestRealSessionsRecordedJudgedAndReplayed records each real session
// through acpconform record, judges it for both sides, and replays the
// golden recording of it (traces/) to the agent, which must send what it
// sent then: the golden traces are real sessions, judged in CI, and stay
// true to the peers. go test ./interop -run TestRealSessions -args -update
// records them again.
func TestRealSessionsRecordedJudgedAndReplayed(t *testing.T) {
	t.Parallel()
	for _, s := range realSessions() {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			ctx := ctxFor(t)
			agent := s.agent(t)
			live := filepath.Join(t.TempDir(), s.name+".jsonl")
			s.play(t, ctx, bridge.CommandLine(append([]string{bin, "record", "--trace", live, "--"}, agent...)))
			golden := filepath.Join("traces", s.name+".jsonl")
			if *update {
				data, err := os.ReadFile(live)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, portable(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for _, path := range []string{live, golden} {
				for role, want := range s.judged {
					out, code := acpconformOut(t, ctx, "judge", "--role", role, "--json", "", "--junit", "", "--summary", "", "--html", "", path)
					if code != want {
						t.Errorf("judge --role %s %s: exit %d, want %d (%s):\n%s", role, path, code, want, s.why, out)
					}
				}
			}
			out, code := acpconformOut(t, ctx, append([]string{"replay", golden, "--"}, agent...)...)
			if code != 0 {
				t.Errorf("the golden %s replayed to its agent: exit %d, want 0:\n%s", golden, code, out)
			}
		})
	}
}

// pipeTo runs client, a client that speaks ACP on its own stdio, with
// agent's command line (run by sh) at the other end of its stdio.
func pipeTo(t *testing.T, ctx context.Context, client *exec.Cmd, agent string) {
	t.Helper()
	toAgent, fromClient, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	toClient, fromAgent, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	a := exec.CommandContext(ctx, "sh", "-c", "exec "+agent)
	a.Stdin, a.Stdout = toAgent, fromAgent
	client.Stdin, client.Stdout = toClient, fromClient
	var aErr, cErr bytes.Buffer
	a.Stderr, client.Stderr = &aErr, &cErr
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	if err := client.Start(); err != nil {
		t.Fatal(err)
	}
	for _, f := range []*os.File{toAgent, fromClient, toClient, fromAgent} {
		f.Close() // theirs now
	}
	if err := client.Wait(); err != nil {
		t.Errorf("the client: %v\n%s", testbound.Err(ctx, err), cErr.String())
	}
	if err := a.Wait(); err != nil {
		t.Errorf("the recorder and agent: %v\n%s", testbound.Err(ctx, err), aErr.String())
	}
}

// run runs a client that starts its agent itself.
func run(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("%s: %v\n%s", filepath.Base(cmd.Path), err, out)
	}
}

// acpconformOut runs acpconform and returns its output and exit code.
func acpconformOut(t *testing.T, ctx context.Context, args ...string) (string, int) {
	t.Helper()
	cmd := exec.CommandContext(ctx, bin, args...)
	out, _ := cmd.CombinedOutput()
	if err := testbound.TimedOut(ctx); err != nil {
		t.Fatalf("acpconform %q: %v\n%s", args, err, out)
	}
	return string(out), cmd.ProcessState.ExitCode()
}

// goKit is the Go kit's example agent's build, once for the package.
var goKit struct {
	once sync.Once
	err  error
}

// goKitAgent is the Go kit's example agent, built once.
func goKitAgent(t *testing.T) string {
	t.Helper()
	path := filepath.Join(filepath.Dir(bin), "go-kit-agent")
	goKit.once.Do(func() { goKit.err = gobuild.Run("", "-o", path, "../kit/example/agent") })
	if goKit.err != nil {
		t.Fatal(goKit.err)
	}
	return path
}

// portable is a recorded trace with this machine's paths out of its
// header: the command names the agent by its file's name.
func portable(data []byte) []byte {
	header, rest, _ := bytes.Cut(data, []byte("\n"))
	var h trace.Header
	if json.Unmarshal(header, &h) != nil {
		return data
	}
	for i, a := range h.Command {
		h.Command[i] = filepath.Base(a)
	}
	h.Recorder = "acpconform"
	b, err := json.Marshal(h)
	if err != nil {
		return data
	}
	return append(append(b, '\n'), rest...)
}
