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
// agent adapter is interop/ts/agent.mjs, which the interop matrix checks on
// the whole catalogue; these tests check the rest: that the two are one
// file, that interop/ts runs the kit as it is now, the kit's own unit tests,
// adapters with a kit user's mistakes, and the example client.

// kitTS is kit/ts, installed with npm ci from its lockfile once per run
// where .ci/run has not already: the unit tests, the broken adapters and the
// example client run there, on the kit's own copy of the SDK.
var kitTS struct {
	once sync.Once
	dir  string
	err  error
}

func kitTSDir(t *testing.T) string {
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

// TestTypeScriptKitIsWhatInteropRuns: interop/ts/agent.mjs is the kit's
// example adapter, byte for byte, so the matrix's catalogue run checks the
// example; and interop/ts/node_modules holds the kit as it is in kit/ts
// (npm installs it as a copy, which an edit of kit/ts leaves behind).
func TestTypeScriptKitIsWhatInteropRuns(t *testing.T) {
	kit, err := filepath.Abs(filepath.Join("..", "kit", "ts"))
	if err != nil {
		t.Fatal(err)
	}
	same := func(a, b string) bool {
		x, errA := os.ReadFile(a)
		y, errB := os.ReadFile(b)
		if errA != nil || errB != nil {
			t.Errorf("reading: %v; %v", errA, errB)
			return true
		}
		return bytes.Equal(x, y)
	}
	if !same(filepath.Join("ts", "agent.mjs"), filepath.Join(kit, "example", "agent.mjs")) {
		t.Errorf("interop/ts/agent.mjs differs from kit/ts/example/agent.mjs: it must be the example adapter, unchanged")
	}
	files, err := filepath.Glob(filepath.Join(kit, "*.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	examples, _ := filepath.Glob(filepath.Join(kit, "example", "*.mjs"))
	files = append(append(files, examples...), filepath.Join(kit, "package.json"))
	for _, f := range files {
		rel, _ := filepath.Rel(kit, f)
		if !same(f, filepath.Join("ts", "node_modules", "acpconform-kit", rel)) {
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
