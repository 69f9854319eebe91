package interop_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/acpconform/acpconform/internal/testbound"
	"github.com/acpconform/acpconform/reports"
)

// The TypeScript kit (kit/ts, npm package acpconform-kit). Its example
// agent adapter, kit/ts/example/agent.mjs (tsAgent), is what the interop
// matrix's TypeScript agent row runs, in
// place: Node finds acpconform-kit there by the package's reference to
// itself, and the SDK in kit/ts/node_modules. These tests check the rest:
// that interop/ts, whose client and relay import the kit, runs the kit as it
// is now, the kit's own unit tests, copies of the example with a kit user's
// mistakes, and the example client.

// kitTS is kit/ts, installed with npm ci from its lockfile once per run
// where .ci/run has not already: the example agent, the unit tests, the
// broken copies and the example client run on the kit's own copy of the
// SDK.
var kitTS struct {
	once sync.Once
	dir  string
	err  error
}

func kitTSDir(t testing.TB) string {
	t.Helper()
	kitTS.once.Do(func() {
		kitTS.dir, kitTS.err = filepath.Abs(filepath.Join("..", "kit", "ts"))
		if kitTS.err != nil {
			return
		}
		if _, err := os.Stat(filepath.Join(kitTS.dir, "node_modules", "@agentclientprotocol", "sdk", "package.json")); err == nil {
			return
		}
		npm := exec.Command("npm", "ci", "--no-audit", "--no-fund")
		npm.Dir = kitTS.dir
		if out, err := npm.CombinedOutput(); err != nil {
			kitTS.err = fmt.Errorf("%v\n%s", err, out)
		}
	})
	if kitTS.err != nil {
		t.Fatalf("npm ci in kit/ts: %v", kitTS.err)
	}
	return kitTS.dir
}

// tsAgent is the TypeScript agent adapter: the kit's example, in kit/ts,
// installed.
func tsAgent(t testing.TB) string {
	return filepath.Join(kitTSDir(t), "example", "agent.mjs")
}

// TestTypeScriptKitIsWhatInteropRuns: interop/ts/node_modules holds the
// kit as it is in kit/ts, the files that interop/ts's client and relay
// import (npm installs it as a copy, which an edit of kit/ts leaves behind).
func TestTypeScriptKitIsWhatInteropRuns(t *testing.T) {
	kit, err := filepath.Abs(filepath.Join("..", "kit", "ts"))
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(kit, "*.mjs"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no kit/ts/*.mjs: %v", err)
	}
	for _, f := range append(files, filepath.Join(kit, "package.json")) {
		rel, _ := filepath.Rel(kit, f)
		x, errA := os.ReadFile(f)
		y, errB := os.ReadFile(filepath.Join("ts", "node_modules", "acpconform-kit", rel))
		switch {
		case errA != nil || errB != nil:
			t.Errorf("reading: %v; %v", errA, errB)
		case !bytes.Equal(x, y):
			t.Errorf("interop/ts/node_modules/acpconform-kit/%s is not kit/ts/%s: run npm ci in interop/ts to install the kit again", rel, rel)
		}
	}
}

// TestTypeScriptKitUnitTests runs the kit's own tests (node --test).
func TestTypeScriptKitUnitTests(t *testing.T) {
	t.Parallel()
	dir := kitTSDir(t)
	tests, err := filepath.Glob(filepath.Join(dir, "test", "*.test.mjs"))
	if err != nil || len(tests) == 0 {
		t.Fatalf("no kit/ts/test/*.test.mjs: %v", err)
	}
	ctx := ctxFor(t)
	cmd := exec.CommandContext(ctx, node, append([]string{"--test"}, tests...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("node --test: %v\n%s", testbound.Err(ctx, err), out)
	}
}

// TestTypeScriptKitBrokenAdapters copies the kit's example agent
// (kit/ts/example: agent.mjs and its feature, askChoice.mjs) to a folder of
// its own, as a user starting from the example would, with a node_modules
// that holds the kit and the kit's SDK, breaks the copy in one place, and
// runs it on the check that catches the mistake and on a check it does not
// touch: the first must fail citing its rule, the second pass, so the copy
// itself runs, and the exit code must be the verdict's (expectBroken). The
// adapter's mistakes are a kit user's (an option of the call not passed on
// to the feature); the ELI mistakes are the feature's createElicitation's,
// one agent-side ELI rule each: the kit reports what the feature returned,
// so each shows.
func TestTypeScriptKitBrokenAdapters(t *testing.T) {
	t.Parallel()
	kit := kitTSDir(t)
	for _, tc := range []struct {
		mistake          string
		file             string // in the copy: agent.mjs or askChoice.mjs
		old, new         string // the break: old replaced by new, exactly once
		check, untouched string
	}{
		{
			mistake: "forgets-the-signal", file: "agent.mjs", // the slowest, first: it fails after a 5 s wait
			old: "call.choices, call)", new: "call.choices, { fallback: call.fallback, equal: call.equal, warn: call.warn })",
			check: "RTE-7/cancel-tells-client", untouched: "TOK-1/choice-0",
		},
		{
			mistake: "forgets-the-fallback", file: "agent.mjs", // no fallback runs: the choice is "unsupported"
			old: "call.choices, call)", new: "call.choices, { signal: call.signal, equal: call.equal, warn: call.warn })",
			check: "FB-3/declined", untouched: "TOK-1/choice-0",
		},
		{
			mistake: "forgets-equal", file: "agent.mjs", // a fallback's value matched with ===, never offered
			old: "call.choices, call)", new: "call.choices, { fallback: call.fallback, signal: call.signal, warn: call.warn })",
			check: "FB-4/offered-string", untouched: "TOK-1/choice-0",
		},
		{
			mistake: "sends-an-unadvertised-mode", file: "askChoice.mjs", // ELI-1: never asks what the client advertised
			old:   `if (!(mode === "form" || mode === "url") || !isObject(session.clientCapabilities?.elicitation?.[mode])) {`,
			new:   `if (!(mode === "form" || mode === "url")) {`,
			check: "ELI-1/form-to-none", untouched: "ELI-2/form-unchanged",
		},
		{
			mistake: "invents-an-answer", file: "askChoice.mjs", // ELI-1: sends nothing, yet declines
			old:   "throw new ElicitationUnsupportedError(`elicitation unsupported by the client: ${why}`);",
			new:   `return { status: "declined" };`,
			check: "ELI-1/form-to-none", untouched: "ELI-2/form-unchanged",
		},
		{
			mistake: "changes-the-message", file: "askChoice.mjs", // ELI-2: the message sent trimmed
			old:   "const result = await send(session, request, signal);",
			new:   "const result = await send(session, { ...request, message: request.message.trim() }, signal);",
			check: "ELI-2/form-unchanged", untouched: "ELI-1/form-to-none",
		},
		{
			mistake: "changes-the-content", file: "askChoice.mjs", // ELI-2: every accepted value made a string
			old:   `{ status: "accepted", content: result.content };`,
			new:   `{ status: "accepted", content: Object.fromEntries(Object.entries(result.content).map(([k, v]) => [k, String(v)])) };`,
			check: "ELI-2/form-unchanged", untouched: "ELI-1/form-to-none",
		},
		{
			mistake: "leaks-a-declines-content", file: "askChoice.mjs", // ELI-3: a decline returned with the client's content
			old:   `return { status: "declined" };`,
			new:   `return { status: "declined", content: result.content };`,
			check: "ELI-3/decline-without-content", untouched: "ELI-2/cancel",
		},
	} {
		t.Run(tc.mistake, func(t *testing.T) {
			t.Parallel()
			dir := exampleCopy(t, kit)
			replaceOnce(t, filepath.Join(dir, tc.file), tc.old, tc.new)
			args := []string{"agent", "--check", tc.check, "--check", tc.untouched}
			r, code := runRow(t, tc.mistake, subject{args: append(args, "--", node, filepath.Join(dir, "agent.mjs")), code: verdictExit})
			if r == nil {
				return // runRow said why
			}
			expectBroken(t, tc.mistake, r, code, []string{tc.check}, tc.untouched)
		})
	}
}

// exampleCopy copies the kit's example agent and its feature to a folder of
// the test's own, with node_modules as a user's: acpconform-kit (a link to
// kit) and a link to each package of kit/node_modules, so that the copy and
// the kit share one SDK, and returns the folder.
func exampleCopy(t *testing.T, kit string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"agent.mjs", "askChoice.mjs"} {
		copyFile(t, filepath.Join(kit, "example", f), filepath.Join(dir, f))
	}
	modules := filepath.Join(dir, "node_modules")
	if err := os.Mkdir(modules, 0o755); err != nil {
		t.Fatal(err)
	}
	installed, err := os.ReadDir(filepath.Join(kit, "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	links := map[string]string{"acpconform-kit": kit}
	for _, e := range installed {
		if !strings.HasPrefix(e.Name(), ".") { // .bin, .package-lock.json
			links[e.Name()] = filepath.Join(kit, "node_modules", e.Name())
		}
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(modules, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestTypeScriptKitExampleClient runs the kit's example client, test mode
// in a handler of one line, on the checks of every instruction: the typed
// choice, every other form shape, a URL, and a wait its agent cancels.
func TestTypeScriptKitExampleClient(t *testing.T) {
	t.Parallel()
	checks := []string{"CLI-5/accept-the-default", "CLI-5/every-shape-as-instructed", "ELI-5/url-answered", "ELI-7/cancel-ends-pending"}
	args := []string{"client"}
	for _, c := range checks {
		args = append(args, "--check", c)
	}
	args = append(args, "--", node, filepath.Join(kitTSDir(t), "example", "client.mjs"))
	r, _ := runRow(t, "example client", subject{args: args, code: 0})
	if r == nil {
		return // runRow said why
	}
	for _, want := range checks {
		i := slices.IndexFunc(r.Checks, func(c reports.Check) bool { return c.ID == want })
		if i < 0 || r.Checks[i].State != reports.StatePassed {
			t.Errorf("%s did not pass: %+v", want, r.Checks)
		}
	}
}
