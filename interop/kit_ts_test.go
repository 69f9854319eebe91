package interop_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/acpconform/acpconform/internal/testbound"
	"github.com/acpconform/acpconform/reports"
)

// The TypeScript kit (kit/ts, npm package acpconform-kit). Its example
// agent adapter, kit/ts/example/agent.mjs (tsAgent), is what the interop
// matrix's TypeScript agent row and TestMockClientAgainstTheTSAgent run, in
// place: Node finds acpconform-kit there by the package's reference to
// itself, and the SDK in kit/ts/node_modules. These tests check the rest:
// that interop/ts, whose client and relay import the kit, runs the kit as it
// is now, the kit's own unit tests, adapters with a kit user's mistakes,
// and the example client.

// kitTS is kit/ts, installed with npm ci from its lockfile once per run
// where .ci/run has not already: the example agent, the unit tests, the
// broken adapters and the example client run on the kit's own copy of the
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

// TestTypeScriptKitBrokenAdapters runs the example adapter with one mistake
// of a kit user each (kit/ts/test/broken-agent.mjs) on the check that
// catches it, and on a check it does not touch where it has one: the first
// must fail citing its rule, the second pass, and the exit code must be the
// verdict's (expectBroken). The ELI mistakes are the feature's
// createElicitation's, one agent-side ELI rule each: the kit reports what the
// feature returned, so each shows.
func TestTypeScriptKitBrokenAdapters(t *testing.T) {
	t.Parallel()
	broken := filepath.Join(kitTSDir(t), "test", "broken-agent.mjs")
	for _, tc := range []struct{ mistake, check, untouched string }{
		{"forgets-the-signal", "RTE-7/cancel-tells-client", ""}, // the slowest, first: it fails after a 5 s wait
		{"forgets-the-fallback", "FB-3/declined", ""},
		{"forgets-equal", "FB-4/offered-string", ""},
		{"sends-an-unadvertised-mode", "ELI-1/form-to-none", "ELI-2/form-unchanged"},
		{"invents-an-answer", "ELI-1/form-to-none", "ELI-2/form-unchanged"},
		{"changes-the-message", "ELI-2/form-unchanged", "ELI-1/form-to-none"},
		{"changes-the-content", "ELI-2/form-unchanged", "ELI-1/form-to-none"},
		{"leaks-a-declines-content", "ELI-3/decline-without-content", "ELI-2/cancel"},
	} {
		t.Run(tc.mistake, func(t *testing.T) {
			t.Parallel()
			args := []string{"agent", "--check", tc.check}
			if tc.untouched != "" {
				args = append(args, "--check", tc.untouched)
			}
			r, code := runRow(t, tc.mistake, subject{args: append(args, "--", node, broken, tc.mistake), code: verdictExit})
			if r == nil {
				return // runRow said why
			}
			expectBroken(t, tc.mistake, r, code, []string{tc.check}, tc.untouched)
		})
	}
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
