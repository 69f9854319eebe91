package interop_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpconform/acpconform/internal/gobuild"
	"github.com/acpconform/acpconform/internal/needtool"
	"github.com/acpconform/acpconform/internal/proc"
	"github.com/acpconform/acpconform/internal/testbound"
	"github.com/acpconform/acpconform/internal/testcost/budget"
	"github.com/acpconform/acpconform/kit/probeagent"
	"github.com/acpconform/acpconform/mocks/agent"
	"github.com/acpconform/acpconform/mocks/client"
	"github.com/acpconform/acpconform/mocks/relay"
	"github.com/acpconform/acpconform/mocks/script"
	"github.com/acpconform/acpconform/mocks/wire"
	"github.com/acpconform/acpconform/probe"
	"github.com/acpconform/acpconform/reports"
	"github.com/acpconform/acpconform/suite"
)

var update = flag.Bool("update", false, "regenerate the interop matrix in README.md")

var (
	bin               string // acpconform, built for the tests
	referenceAgent    string // acpconform-reference-agent, built beside it
	node              string
	tsClient          string // the client adapter on the TypeScript SDK
	tsRelay           string // decodes and re-encodes every message through the SDK
	acpxCLI, acpxHost string // acpx 0.19.1's CLI, and the form host on its runtime
	conductorHost     string // the stdio relay on @thinkwell/conductor 0.5.7
	zedClient         string // the client adapter on @zed-industries/agent-client-protocol 0.4.5
	python3, pyAgent  string // the Python kit's example agent (kit/python/example/agent.py)
)

// npmFolders are the folders of node packages the tests run, each with a
// committed lockfile, and a file that is there once npm ci has run.
var npmFolders = []struct{ dir, installed string }{
	{"ts", "node_modules/acpconform-kit/package.json"}, // the kit: installed by the npm ci that installs the SDK
	{"acpx", "node_modules/acpx/package.json"},
	{"conductor", "node_modules/@thinkwell/conductor/package.json"},
	{"zed", "node_modules/@zed-industries/agent-client-protocol/package.json"},
}

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		fmt.Println("interop: -short leaves out every interop test: they install and run Node, Python and acpconform for minutes")
		os.Exit(0)
	}
	code, err := setUp()
	if err != nil {
		fmt.Fprintf(os.Stderr, "interop: %v\n", err)
		os.Exit(1)
	}
	defer os.RemoveAll(filepath.Dir(bin))
	code = budget.Main(m)
	os.RemoveAll(filepath.Dir(bin))
	os.Exit(code)
}

// setUp builds acpconform and installs the node packages with npm ci from
// their lockfiles, where .ci/run has not already.
func setUp() (int, error) {
	var err error
	if node, err = exec.LookPath("node"); err != nil {
		return 1, fmt.Errorf("the interop tests need Node.js (node on the PATH): %v", err)
	}
	if python3, err = exec.LookPath("python3"); err != nil {
		return 1, fmt.Errorf("the interop tests need Python 3.9 or newer (python3 on the PATH): %v", err)
	}
	// The tests start Python hundreds of times: not through a shim.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	python3 = needtool.Python3(ctx, python3)
	cancel()
	pyAgent = filepath.Join(pyKit, "example", "agent.py")
	dir, err := os.MkdirTemp("", "acpconform-interop")
	if err != nil {
		return 1, err
	}
	bin, referenceAgent = filepath.Join(dir, "acpconform"), filepath.Join(dir, "acpconform-reference-agent")
	if err := gobuild.Run("", "-o", dir+string(filepath.Separator), "../cmd/acpconform", "../cmd/acpconform-reference-agent"); err != nil {
		return 1, err
	}
	here, err := os.Getwd()
	if err != nil {
		return 1, err
	}
	tsClient, tsRelay = filepath.Join(here, "ts", "client.mjs"), filepath.Join(here, "ts", "relay.mjs")
	acpxCLI, acpxHost = filepath.Join(here, "acpx", "node_modules", ".bin", "acpx"), filepath.Join(here, "acpx", "host.mjs")
	conductorHost = filepath.Join(here, "conductor", "host.mjs")
	zedClient = filepath.Join(here, "zed", "client.mjs")
	for _, f := range npmFolders {
		if _, err := os.Stat(filepath.Join(f.dir, f.installed)); err == nil {
			continue
		}
		npm := exec.Command("npm", "ci", "--no-audit", "--no-fund")
		npm.Dir = f.dir
		if out, err := npm.CombinedOutput(); err != nil {
			return 1, fmt.Errorf("npm ci in interop/%s: %v\n%s", f.dir, err, out)
		}
	}
	return 0, nil
}

// ctxFor bounds a test's waits by go test's -timeout alone: a row that is
// only slow on a loaded machine still passes.
func ctxFor(t *testing.T) context.Context { return testbound.Context(t) }

// start runs argv with its stdio as a wire connection.
func start(t *testing.T, argv ...string) (wire.Conn, *proc.Process) {
	t.Helper()
	p, err := proc.Start(argv)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop() })
	return wire.NewStream(p.Stdout, p.Stdin, wire.Options{}), p
}

func deploy() probe.Request {
	return probe.Request{Acpconform: 1, Op: probe.OpAskChoice, Question: "Choose a deployment target",
		Choices: []probe.Choice{
			{Value: json.RawMessage(`"preview"`), Label: "Preview"},
			{Value: json.RawMessage(`"production"`), Label: "Production", Description: "Deploy to the production environment.", Default: true},
		}}
}

// TestMockClientAgainstThePythonAgent drives the Python agent adapter, the
// Python kit's example (pyAgent), with the Go mock client as the harness does when it shares a connection:
// several sessions one after another on one process, each answered as its
// own, and then the end of stdin, on which the process exits.
func TestMockClientAgainstThePythonAgent(t *testing.T) {
	ctx := ctxFor(t)
	conn, p := start(t, python3, pyAgent)
	mc := client.New(client.Config{Capabilities: client.FormElicitation})
	expect := &script.Expect{Tokens: []string{"choice_0", "choice_1"}, Default: ptr("choice_1")}
	cases := []struct {
		answer script.Answer
		want   string // outcome, or error kind
		index  int
	}{
		{script.AcceptDefault(), "accepted", 1},
		{script.AcceptChoice("choice_1 "), "invalid_response", 0},
		{script.Decline(), "declined", 0},
		{script.AcceptChoice("choice_0"), "accepted", 0},
	}
	for _, tc := range cases {
		mc.Append(script.Elicitation{Expect: expect, Answer: tc.answer})
	}
	mc.Connect(conn)
	defer mc.Close()
	if err := mc.Initialize(ctx); err != nil {
		t.Fatalf("initialize: %v\n%s", testbound.Err(ctx, err), p.Stderr)
	}
	sessions := map[string]bool{}
	for i, tc := range cases {
		id, err := mc.NewSession(ctx)
		if err != nil {
			t.Fatalf("session %d: %v\n%s", i, testbound.Err(ctx, err), p.Stderr)
		}
		if sessions[id] {
			t.Errorf("session %d: session id %q given twice", i, id)
		}
		sessions[id] = true
		out, stop, err := mc.Probe(ctx, deploy())
		if err != nil || stop != "end_turn" {
			t.Fatalf("session %d: probe: %v, %s\n%s", i, testbound.Err(ctx, err), stop, p.Stderr)
		}
		if got := out.Outcome + out.Error; !strings.Contains(got, tc.want) {
			t.Errorf("session %d: outcome %+v, want %s", i, out, tc.want)
		}
		if tc.want == "accepted" && (out.Index == nil || *out.Index != tc.index) {
			t.Errorf("session %d: index %v, want %d", i, out.Index, tc.index)
		}
		el := mc.Elicitations()
		var params struct{ SessionID string }
		if len(el) != i+1 || json.Unmarshal(el[i].Request.Params, &params) != nil || params.SessionID != id {
			t.Errorf("session %d: elicitation/create not scoped to session %q: %d requests, last for %q", i, id, len(el), params.SessionID)
		}
	}
	if v := mc.Violations(); len(v) > 0 {
		t.Errorf("violations: %q", v)
	}
	mc.Close() // the end of the agent's stdin
	select {
	case <-p.Exited():
	case <-ctx.Done():
		t.Fatalf("the Python agent did not exit at the end of its stdin: %v\n%s", testbound.Err(ctx, nil), p.Stderr)
	}
	if err := p.Err(); err != nil {
		t.Errorf("the Python agent exited: %v\n%s", err, p.Stderr)
	}
}

// TestMockAgentAgainstTheTSClients drives both TypeScript client adapters
// with the Go mock agent.
func TestMockAgentAgainstTheTSClients(t *testing.T) {
	steps := []script.Step{
		{Elicit: &script.Elicit{Question: "Choose", Choices: []script.Choice{{Label: "A"}, {Label: "B", Description: "Bee", Default: true}},
			User: &script.User{Action: "accept", Pick: 1.0}, Meta: script.JSON(`{"vendor.example/x":1}`), Expect: &script.AnswerExpect{User: true}}},
		{Elicit: &script.Elicit{Question: "Choose", Choices: []script.Choice{{Label: "A"}}, User: &script.User{Action: "decline"}, Expect: &script.AnswerExpect{User: true}}},
	}
	// Instructions that cannot be followed: refused with -32602 (docs/probe.md §2).
	for _, user := range []probe.User{{Action: "accept", Pick: 1.0}, {Action: "accept", Pick: probe.PickDefault}, {Action: "maybe"}} {
		steps = append(steps, script.Step{Elicit: &script.Elicit{Question: "Choose", Choices: []script.Choice{{Label: "A"}}, User: (*script.User)(&user), Expect: &script.AnswerExpect{User: true}}})
	}
	for _, tc := range []struct {
		name      string
		args      []string
		violation string
	}{
		{"with the handler", nil, ""},
		{"without the handler", []string{"--no-elicitation-handler"}, "CLI-1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := ctxFor(t)
			conn, p := start(t, append([]string{node, tsClient}, tc.args...)...)
			a := agent.New(agent.Config{Timeout: 10 * time.Second})
			a.Append(steps...)
			a.Connect(conn)
			defer a.Close()
			if err := a.WaitTurns(ctx, 1); err != nil {
				t.Fatalf("%v\n%s", testbound.Err(ctx, err), p.Stderr)
			}
			v := strings.Join(a.Violations(), "\n")
			switch {
			case tc.violation == "" && v != "":
				t.Errorf("violations:\n%s", v)
			case tc.violation != "" && !strings.Contains(v, tc.violation):
				t.Errorf("no %s violation:\n%s", tc.violation, v)
			}
			if u := a.Unmet(); tc.violation == "" && len(u) > 0 {
				t.Errorf("answers not as the scripted user said:\n%s", strings.Join(u, "\n"))
			}
		})
	}
}

// TestReferenceAgentAgainstTheTSClient runs the Go reference agent against
// the TypeScript client over stdio and over WebSocket, whose frames carry
// no newline.
func TestReferenceAgentAgainstTheTSClient(t *testing.T) {
	req, _ := json.Marshal(deploy())
	check := func(t *testing.T, stderr string) {
		if !strings.Contains(stderr, `"outcome":"cancelled"`) {
			t.Errorf("the TypeScript client, without a scripted user, should cancel; its stderr:\n%s", stderr)
		}
	}
	t.Run("stdio", func(t *testing.T) {
		ctx := ctxFor(t)
		p, err := proc.Start([]string{node, tsClient, string(req)})
		if err != nil {
			t.Fatal(err)
		}
		agent := probeagent.Serve(p.Stdin, p.Stdout, slog.New(slog.DiscardHandler))
		select {
		case <-p.Exited():
		case <-ctx.Done():
			t.Fatalf("the TypeScript client did not finish: %v\n%s", testbound.Err(ctx, nil), p.Stderr)
		}
		<-agent.Done()
		if err := p.Err(); err != nil {
			t.Errorf("the TypeScript client exited: %v\n%s", err, p.Stderr)
		}
		check(t, p.Stderr.String())
	})
	t.Run("WebSocket", func(t *testing.T) {
		ctx := ctxFor(t)
		srv, err := relay.NewServer("127.0.0.1:0", relay.ReferenceAgent(), relay.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		var stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, node, tsClient, "--websocket", srv.URL, string(req))
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("the TypeScript client over WebSocket: %v\n%s", testbound.Err(ctx, err), stderr.String())
		}
		check(t, stderr.String())
	})
}

// TestTypeScriptClientBrokenVariants runs acpconform against each broken
// variant of the TypeScript client adapter (client.mjs --broken NAME) on one
// check of the rule the variant breaks, and wants it caught: that check
// failed in report.json, and exit 1 for a MUST rule (4, nothing checked,
// for a SHOULD rule's check alone). One check each, as every check starts a
// node process of its own; the catalogue's other checks of the rule are
// shown by the reference client's variants (cmd/acpconform's TestClient)
// and the mutants. It also runs the adapter with --no-url, forms only: the
// URL checks are not applicable, and a URL elicitation is refused (ELI-6).
func TestTypeScriptClientBrokenVariants(t *testing.T) {
	t.Parallel() // beside the matrix: both mostly wait for node
	for _, tc := range []struct {
		args  []string
		check string
	}{
		{[]string{"--broken", "ignores-cancel"}, "ELI-7/cancel-ends-pending"}, // the slowest, first: it fails after --response-timeout
		{[]string{"--broken", "missing-required"}, "ELI-8/every-shape-conforms"},
		{[]string{"--broken", "integer-as-string"}, "ELI-8/every-shape-conforms"},
		{[]string{"--broken", "out-of-bounds"}, "ELI-8/every-shape-conforms"},
		{[]string{"--broken", "outside-enum"}, "ELI-8/every-shape-conforms"},
		{[]string{"--broken", "content-on-decline"}, "ELI-8/every-shape-conforms"},
		{[]string{"--broken", "complete-unhandled"}, "ELI-5/complete-unknown"},
		{[]string{"--no-url"}, "ELI-6/unadvertised-url-refused"},
	} {
		name := strings.Join(tc.args, " ")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// A failed SHOULD check is reported and never fails the run
			// (ELI-7's and ELI-8's, contract revision 5); run alone, it
			// leaves no MUST check run: nothing checked, exit 4.
			want, code := reports.StateFailed, 1
			if r, _, _ := strings.Cut(tc.check, "/"); suite.MustLookup(r).Level == suite.Should {
				code = 4
			}
			checks := []string{"--check", tc.check}
			noURL := tc.args[0] == "--no-url"
			if noURL { // conformant: forms answered, ELI-6 passes, and URL mode is not applicable
				want, code = reports.StatePassed, 0
				checks = append(checks, "--check", "ELI-5/url-answered", "--check", "ELI-4/multi-field")
			}
			s := subject{args: append(append(append([]string{"client"}, checks...), "--", node, tsClient), tc.args...), code: code}
			r, _ := runRow(t, name, s)
			if r == nil {
				return // runRow said why
			}
			for _, c := range r.Checks {
				switch {
				case c.ID == tc.check && c.State != want:
					t.Errorf("%s: %s is %s, want %s", name, c.ID, c.State, want)
				case noURL && c.ID == "ELI-5/url-answered" && (c.State != reports.StateSkipped || !strings.Contains(c.SkipReason, "not applicable")):
					t.Errorf("%s: %s is %s (%q), want skipped as not applicable", name, c.ID, c.State, c.SkipReason)
				}
			}
			if !slices.ContainsFunc(r.Checks, func(c reports.Check) bool { return c.ID == tc.check }) {
				t.Errorf("%s: the report has no %s", name, tc.check)
			}
		})
	}
}

// subject is one row of the interop matrix: an implementation in a role,
// checked by the acpconform CLI.
type subject struct {
	implementation, role, transport string
	args                            []string // after the command and the report flags
	code                            int      // the exit code it must get; verdictExit: the caller judges it
	why                             string   // what the row shows
	// ownHome runs the row with HOME an empty folder of its own: acpx
	// reads ~/.acpx/config.json (default agent, permissions, timeouts),
	// which would make the row depend on whoever runs it.
	ownHome bool
}

func subjects(t testing.TB, wsURL string) []subject {
	return []subject{
		{implementation: "Go reference (acpconform-reference-agent)", role: "agent", transport: "stdio", args: []string{"agent", "--", referenceAgent}},
		{implementation: "Go reference (acpconform)", role: "agent", transport: "WebSocket", args: []string{"agent", "--url", wsURL}},
		{implementation: "Go reference (acpconform)", role: "client", transport: "stdio", args: []string{"client", "--", bin, "reference-client"}},
		{implementation: "Go reference (acpconform)", role: "client", transport: "WebSocket", args: []string{"client", "--", bin, "reference-client", "--websocket", "{url}"}},
		{implementation: "Go mirror (acpconform), --unstable-protocol", role: "relay", transport: "WebSocket to stdio", args: []string{"relay", "--", bin, "mirror", "{url}", "--unstable-protocol"}},
		tsAgentRow(t),
		{implementation: "TypeScript SDK 2.4.0 adapter", role: "client", transport: "stdio", args: []string{"client", "--", node, tsClient}},
		// Over WebSocket, the checks of the transport: the route, one answer
		// and two in flight at once, a cancelled wait, the end of the turn
		// and binary frames. The rest run the same client code as the
		// stdio row above; this row ran them all in a minute of CPU.
		{implementation: "TypeScript SDK 2.4.0 adapter", role: "client", transport: "WebSocket",
			args: []string{"client", "--baseline", "ts/baseline-client-websocket.yaml",
				"--check", "CLI-1/*", "--check", "CLI-2/accept-the-second-option", "--check", "CLI-2/two-requests-answered-once",
				"--check", "CLI-5/exits-after-turn", "--check", "CLI-5/wait-until-cancelled", "--check", "ELI-7/*", "--check", "REM-*",
				"--", node, tsClient, "--websocket", "{url}"},
			why: "the transport's checks (CLI-1, two CLI-2, two CLI-5, ELI-7, REM); 1 known failure, in its baseline: binary frames ignored, not refused (REM-1)"},
		pythonAgentRow(),
		{implementation: "acpx 0.19.1 CLI (`exec`), --no-scripted-user", role: "client", transport: "stdio, spawns {agent}",
			args: []string{"client", "--no-scripted-user", "--baseline", "acpx/baseline-cli.yaml", "--", acpxCLI, "--approve-all", "--agent", "{agent}", "exec", "hello"},
			code: 4, ownHome: true,
			why: "advertises no elicitation, so only CLI-4 and ELI-6 (SHOULD) run; 2 known failures, in its baseline: the form and the URL cancelled, not refused with -32602"},
		{implementation: "acpx 0.19.1 runtime, form host", role: "client", transport: "stdio, spawns {agent}",
			// acpx's runtime starts a node process of its own to look for
			// the agent's descendants, several times a turn: a check that
			// takes 2 s on a quiet machine took over 60 s, the default
			// bound, beside the rest of .ci/run on 2 cores.
			// Its checks are those where acpx itself is on trial: the route
			// registered, a token, two requests in flight at once, _meta
			// passed on, its exit after the turn, a cancelled wait, what it
			// refuses (CLI-4, ELI-6), one form of several shapes, and the
			// transport. The other CLI-2 and CLI-5 checks exercise the host's
			// code, not acpx's (the TypeScript client rows run it all), and
			// each check costs seconds of CPU a loaded runner has not got:
			// with every CLI check, this row alone took five minutes.
			args: []string{"client", "--scenario-timeout", "2m", "--baseline", "acpx/baseline-host.yaml",
				"--check", "CLI-1/*", "--check", "CLI-2/accept-the-default", "--check", "CLI-2/two-requests-answered-once",
				"--check", "CLI-3/*", "--check", "CLI-4/*", "--check", "CLI-5/exits-after-turn", "--check", "CLI-5/wait-until-cancelled",
				"--check", "REM-*", "--check", "ELI-4/multi-field", "--check", "ELI-6/*", "--", node, acpxHost, "{agent}"}, ownHome: true,
			why: "the checks of what acpx does (CLI-1 to CLI-5, REM, ELI-4/multi-field, ELI-6); 1 known failure, in its baseline: a URL elicitation, not advertised, cancelled instead of refused with -32602 (ELI-6, SHOULD)"},
		{implementation: "TypeScript SDK 2.4.0 relay, every message decoded and encoded again", role: "relay", transport: "stdio to stdio, spawns {agent}",
			args: []string{"relay", "--", node, tsRelay, "{agent}"}},
		{implementation: "@thinkwell/conductor 0.5.7, stdio host", role: "relay", transport: "stdio to stdio, spawns {agent}",
			args: []string{"relay", "--baseline", "conductor/baseline.yaml", "--", node, conductorHost, "{agent}"},
			why:  "3 known failures, in its baseline: $/cancel_request passed on with the other side's id, both ways (REL-2); numbers rounded to float64 (REL-1)"},
		{implementation: "Zed ACP SDK 0.4.5 adapter", role: "client", transport: "stdio",
			args: []string{"client", "--baseline", "zed/baseline.yaml", "--", node, zedClient}, code: 4,
			why: "the SDK has no elicitation, so only CLI-4 and ELI-6 (SHOULD) run; 2 known failures, in its baseline: -32601 for a form and a URL, not -32602"},
	}
}

// tsAgentRow and pythonAgentRow are the rows of the agent adapters that
// run on other runtimes than Go's, Node and Python: the kits' examples.
func tsAgentRow(t testing.TB) subject {
	return subject{implementation: "TypeScript SDK 2.4.0 adapter", role: "agent", transport: "stdio", args: []string{"agent", "--", node, tsAgent(t)}}
}

func pythonAgentRow() subject {
	return subject{implementation: "Python 3 standard library adapter", role: "agent", transport: "stdio", args: []string{"agent", "--", python3, pyAgent}}
}

// matrixFiles hold the interop matrix, each between the same two markers.
var matrixFiles = []string{"../README.md", "../docs/interop.md"}

var matrixSection = regexp.MustCompile(`(?s)(<!-- interop matrix: go test ./interop -update -->\n).*?(<!-- end of the interop matrix -->)`)

// TestInteropMatrix checks every implementation in every role with the
// acpconform CLI, as an implementer's CI would, and keeps the matrix in
// README.md and docs/interop.md current: a row whose counts (known
// failures among them), verdict or exit code change fails it. (That
// sharing an agent's connections never changes a verdict, --isolate
// against shared, is TestMutantsAreKilled's to show, for the reference
// and every mutant of it: a process per check of the Node adapter here
// cost 205 Node starts a run and showed nothing more.)
func TestInteropMatrix(t *testing.T) {
	t.Parallel()
	srv, err := relay.NewServer("127.0.0.1:0", relay.ReferenceAgent(), relay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var table strings.Builder
	table.WriteString("| implementation | role | transport | passed | failed (MUST, known) | skipped | verdict (exit) | note |\n|---|---|---|---:|---:|---:|---|---|\n")
	// The rows run side by side, a few at a time: most of a row's time is
	// its subject's, waiting (acpx answers a turn a second late).
	all := subjects(t, srv.URL)
	rows := make([]string, len(all))
	// The slowest first: the third-party rows, last in the table.
	slots := make(chan struct{}, 3)
	var wg sync.WaitGroup
	for i := len(all) - 1; i >= 0; i-- {
		s := all[i]
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			rows[i] = matrixRow(t, s)
		}()
	}
	wg.Wait()
	for _, row := range rows {
		table.WriteString(row)
	}
	for _, file := range matrixFiles {
		doc, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if !matrixSection.Match(doc) {
			t.Fatalf("%s has no interop matrix section", file)
		}
		updated := matrixSection.ReplaceAll(doc, []byte("${1}"+strings.ReplaceAll(table.String(), "$", "$$")+"${2}"))
		switch {
		case *update:
			if err := os.WriteFile(file, updated, 0o644); err != nil {
				t.Fatal(err)
			}
		case !bytes.Equal(updated, doc):
			t.Errorf("the interop matrix in %s is out of date: run go test ./interop -update\nnow:\n%s", file, table.String())
		}
	}
}

// matrixRow runs the CLI against one subject and returns its row of the
// matrix, or "" after reporting why it has none.
func matrixRow(t *testing.T, s subject) string {
	name := fmt.Sprintf("%s as %s over %s", s.implementation, s.role, s.transport)
	r, code := runRow(t, name, s)
	if r == nil {
		return ""
	}
	return fmt.Sprintf("| %s | %s | %s | %d | %d (%d, %d) | %d | %s (%d) | %s |\n", s.implementation, s.role, s.transport,
		r.Totals.Passed, r.Totals.Failed, r.Totals.MustFailed, r.Totals.Known, r.Totals.Skipped, r.Verdict, code, s.why)
}

// runRow runs the CLI against the row's subject, with extra flags, and
// returns its report and exit code; nil after reporting why there is none.
func runRow(t *testing.T, name string, s subject, extra ...string) (*reports.JSON, int) {
	dir := t.TempDir()
	args := append(append([]string{s.args[0], "--json", filepath.Join(dir, "r.json"), "--junit", "", "--summary", ""}, extra...), s.args[1:]...)
	ctx := ctxFor(t)
	cmd := exec.CommandContext(ctx, bin, args...)
	// Once the bound has killed acpconform, what it started may still hold
	// its output open: stop reading soon after.
	cmd.WaitDelay = 5 * time.Second
	if s.ownHome {
		home := filepath.Join(dir, "home")
		if err := os.Mkdir(home, 0o700); err != nil {
			t.Error(err)
			return nil, 0
		}
		cmd.Env = append(os.Environ(), "HOME="+home)
	}
	began := time.Now()
	out, _ := cmd.CombinedOutput()
	code := cmd.ProcessState.ExitCode()
	t.Logf("%s: exit %d in %s", name, code, time.Since(began).Round(10*time.Millisecond))
	if timeout := testbound.TimedOut(ctx); timeout != nil {
		t.Errorf("%s: %v, running acpconform %q\n%s", name, timeout, args, out)
		return nil, code
	}
	if code != s.code && s.code != verdictExit {
		t.Errorf("%s: exit %d, want %d\n%s", name, code, s.code, out)
		return nil, code
	}
	data, err := os.ReadFile(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Errorf("%s: no report: %v\n%s", name, err, out)
		return nil, code
	}
	var r reports.JSON
	if err := json.Unmarshal(data, &r); err != nil {
		t.Errorf("%s: %v", name, err)
		return nil, code
	}
	return &r, code
}

func ptr[T any](v T) *T { return &v }
