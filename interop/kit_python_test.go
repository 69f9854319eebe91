package interop_test

import (
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/acpconform/acpconform/reports"
)

// The Python kit (kit/python) is checked end to end by the Python agent
// row and TestMockClientAgainstThePythonAgent, which run its example agent,
// kit/python/example/agent.py: the kit with the feature (askchoice.py
// beside it) and 15 lines. The tests here add the kit's unit tests, its
// example client against the client catalogue, and deliberately broken
// copies of its example agent, which must fail naming the rule.

var pyKit, _ = filepath.Abs(filepath.Join("..", "kit", "python"))

// TestPythonKitUnitTests runs the kit's unittest suite.
func TestPythonKitUnitTests(t *testing.T) {
	t.Parallel()
	cmd := exec.CommandContext(ctxFor(t), python3, "-B", "-W", "error::ResourceWarning", "-m", "unittest", "discover", "-s", pyKit, "-p", "test_*.py")
	cmd.Dir = pyKit
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("python3 -m unittest in kit/python: %v\n%s", err, out)
	}
}

// TestPythonKitClientExample checks kit/python/example/client.py, a
// minimal client on the client kit's test mode, with the whole client
// catalogue: conformant, exit 0.
func TestPythonKitClientExample(t *testing.T) {
	t.Parallel()
	s := subject{args: []string{"client", "--", python3, filepath.Join(pyKit, "example", "client.py")}}
	r, _ := runRow(t, "the Python kit's example client", s)
	if r == nil {
		return // runRow said why
	}
	for _, c := range r.Checks {
		if c.Failed() {
			t.Errorf("%s failed: %s", c.ID, c.Failure)
		}
	}
	if !slices.ContainsFunc(r.Checks, func(c reports.Check) bool { return c.ID == "CLI-5/exits-after-turn" && c.State == reports.StatePassed }) {
		t.Errorf("CLI-5/exits-after-turn did not pass: %+v", r.Checks)
	}
}

// TestPythonKitBrokenVariants copies the kit and its example agent to a
// folder of their own, as a user starting from the example would, breaks
// the copy in one place, and runs acpconform on the checks the break breaks
// and one it does not touch: each broken check must fail citing the rule its
// ID names, the untouched check must pass, so the copy itself runs, and the
// exit code must be the verdict's (expectBroken). The ELI variants break the
// feature's create_elicitation as a user might, one agent-side ELI rule each:
// the kit passes what the feature returned to the outcome, so each shows.
func TestPythonKitBrokenVariants(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		file      string // in the copy: example/agent.py or example/askchoice.py
		old, new  string // the break: old replaced by new, exactly once
		broken    []string
		untouched string // a check that must still pass
	}{
		{
			name: "forgets-the-fallback", file: "agent.py",
			old: ", fallback=call.fallback)", new: ")",
			broken: []string{"FB-3/declined", "FB-4/offered-string"}, untouched: "TOK-1/choice-0",
		},
		{
			name: "sends-values-not-tokens", file: "askchoice.py",
			old: `option = {"const": token(i), "title": c.label}`, new: `option = {"const": c.value, "title": c.label}`,
			broken: []string{"SCH-4/no-value-on-the-wire"}, untouched: "VAL-2/no-choices",
		},
		{
			name: "sends-an-unadvertised-mode", file: "askchoice.py", // ELI-1: never asks supports_elicitation
			old: "    if not session.supports_elicitation(mode):\n", new: "    if False:\n",
			broken: []string{"ELI-1/form-to-none"}, untouched: "ELI-2/form-unchanged",
		},
		{
			name: "invents-an-answer", file: "askchoice.py", // ELI-1: sends nothing, yet answers
			old:    "raise ElicitationUnsupportedError(\n            \"elicitation unsupported by the client: mode %s was not advertised\" % _show_json(mode))",
			new:    `return ElicitationResult("declined")`,
			broken: []string{"ELI-1/form-to-none"}, untouched: "ELI-2/form-unchanged",
		},
		{
			name: "changes-the-message", file: "askchoice.py", // ELI-2: the message trimmed
			old: `"mode": mode, "message": message}`, new: `"mode": mode, "message": message.strip()}`,
			broken: []string{"ELI-2/form-unchanged"}, untouched: "ELI-1/form-to-none",
		},
		{
			name: "changes-the-content", file: "askchoice.py", // ELI-2: every value made a string
			old:    `return ElicitationResult("accepted", content)`,
			new:    `return ElicitationResult("accepted", {k: v if isinstance(v, str) else str(v) for k, v in content.items()})`,
			broken: []string{"ELI-2/form-unchanged"}, untouched: "ELI-1/form-to-none",
		},
		{
			name: "leaks-a-declines-content", file: "askchoice.py", // ELI-3: the decline returned with the client's content
			old:    `return ElicitationResult("declined" if action == "decline" else "cancelled")`,
			new:    `return ElicitationResult("declined" if action == "decline" else "cancelled", result.get("content"))`,
			broken: []string{"ELI-3/decline-without-content"}, untouched: "ELI-2/cancel",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			copyFile(t, filepath.Join(pyKit, "acpconform_kit.py"), filepath.Join(dir, "acpconform_kit.py"))
			for _, f := range []string{"agent.py", "askchoice.py"} {
				copyFile(t, filepath.Join(pyKit, "example", f), filepath.Join(dir, "example", f))
			}
			replaceOnce(t, filepath.Join(dir, "example", tc.file), tc.old, tc.new)
			args := []string{"agent"}
			for _, id := range append(slices.Clone(tc.broken), tc.untouched) {
				args = append(args, "--check", id)
			}
			r, code := runRow(t, tc.name, subject{args: append(args, "--", python3, filepath.Join(dir, "example", "agent.py")), code: verdictExit})
			if r == nil {
				return // runRow said why
			}
			expectBroken(t, tc.name, r, code, tc.broken, tc.untouched)
		})
	}
}
