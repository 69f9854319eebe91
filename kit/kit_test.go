package kit_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/acpconform/acpconform/internal/gobuild"
	"github.com/acpconform/acpconform/internal/testbound"
	"github.com/acpconform/acpconform/internal/testcost/budget"
	"github.com/acpconform/acpconform/reports"
)

// The example agent and client (kit/example) are checked as a user checks
// theirs: built, then run by the acpconform command. A deliberately
// broken variant of the agent, made with go build -overlay so that
// nothing of it is in the tree, must fail the checks of the rule it
// breaks.

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// built builds acpconform and the examples once for the package's tests,
// and returns the folder that holds them.
func built(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds acpconform and the examples")
	}
	buildOnce.Do(func() {
		if binDir, buildErr = os.MkdirTemp("", "acpconform-kit"); buildErr != nil {
			return
		}
		buildErr = goBuild(filepath.Join(binDir, "acpconform"), "../cmd/acpconform", "")
		if buildErr == nil {
			buildErr = goBuild(filepath.Join(binDir, "example-agent"), "./example/agent", "")
		}
		if buildErr == nil {
			buildErr = goBuild(filepath.Join(binDir, "example-client"), "./example/client", "")
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binDir
}

func TestMain(m *testing.M) {
	code := budget.Main(m)
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// goBuild builds pkg into bin, with overlay when it is not "".
func goBuild(bin, pkg, overlay string) error {
	args := []string{"-o", bin}
	if overlay != "" {
		args = append(args, "-overlay", overlay)
	}
	return gobuild.Run("", append(args, pkg)...)
}

// checked runs acpconform in role (agent or client) with args against
// subject and returns its exit code, its output and its JSON report.
func checked(t *testing.T, role, subject string, args ...string) (int, string, reports.JSON) {
	t.Helper()
	dir := built(t)
	report := filepath.Join(t.TempDir(), "report.json")
	argv := append([]string{role, "--json", report, "--junit", "", "--summary", "", "--html", ""}, args...)
	ctx := testbound.Context(t)
	cmd := exec.CommandContext(ctx, filepath.Join(dir, "acpconform"), append(argv, "--", subject)...)
	out, _ := cmd.CombinedOutput()
	if timeout := testbound.TimedOut(ctx); timeout != nil {
		t.Fatalf("acpconform %q: %v\n%s", argv, timeout, out)
	}
	var r reports.JSON
	data, err := os.ReadFile(report)
	if err == nil {
		err = json.Unmarshal(data, &r)
	}
	if err != nil {
		t.Fatalf("acpconform %q wrote no report: %v\n%s", argv, err, out)
	}
	return cmd.ProcessState.ExitCode(), string(out), r
}

// TestExampleAgentPassesTheCatalogue runs the whole agent catalogue
// against the example agent: the feature plus the kit plus 15 lines.
func TestExampleAgentPassesTheCatalogue(t *testing.T) {
	code, out, r := checked(t, "agent", filepath.Join(built(t), "example-agent"))
	if code != 0 || !r.Succeeded || r.Totals.Failed != 0 || r.Totals.Passed < 150 {
		t.Fatalf("exit %d, totals %+v, want exit 0 and every check passed:\n%s", code, r.Totals, out)
	}
}

// TestExampleClientPassesTheCatalogue runs the whole client catalogue,
// test mode included, against the example client.
func TestExampleClientPassesTheCatalogue(t *testing.T) {
	code, out, r := checked(t, "client", filepath.Join(built(t), "example-client"))
	if code != 0 || !r.Succeeded || r.Totals.Failed != 0 || r.Totals.Passed < 20 {
		t.Fatalf("exit %d, totals %+v, want exit 0 and every check passed:\n%s", code, r.Totals, out)
	}
}

// TestBrokenExampleAgentsFail breaks the example in ways a user might,
// and wants each caught: the checks it breaks fail naming the rule, a check
// it does not touch passes, and the exit code is the verdict's (1 exactly
// when a MUST check failed: ELI-3 may be a SHOULD rule), while the example
// itself passes the same checks. The create_elicitation variants break one
// agent-side ELI rule each in the feature: the kit reports what the
// feature returned, so each shows.
func TestBrokenExampleAgentsFail(t *testing.T) {
	dir := built(t)
	for _, tc := range []struct {
		name, file string
		edits      []string // from, to, from, to, ...
		checks     []string
		rule       string
		untouched  string // a check the break does not touch, or ""
	}{
		{
			name: "an adapter that forgets the fallback", file: "main.go",
			edits:  []string{"Fallback: kit.Fallback(c, Accept[any], Decline[any], Cancel[any]), ", ""},
			checks: []string{"FB-3/declined", "FB-3/cancelled"}, rule: "FB-3",
		},
		{
			name: "an ask_choice that sends its values instead of tokens", file: "askchoice.go",
			edits:  []string{`map[string]any{"const": token(i), "title": c.Label}`, `map[string]any{"const": fmt.Sprint(c.Value), "title": c.Label}`},
			checks: []string{"SCH-4/no-value-on-the-wire", "TOK-1/choice-1"}, rule: "SCH-4",
		},
		{
			name: "a create_elicitation that sends a mode the client did not advertise", file: "askchoice.go",
			edits:  []string{"if !s.SupportsElicitation(req.Mode) {", "if false {"},
			checks: []string{"ELI-1/form-to-none"}, rule: "ELI-1", untouched: "ELI-2/form-unchanged",
		},
		{
			name: "a create_elicitation that sends nothing and invents an answer", file: "askchoice.go",
			edits:  []string{`return ElicitationResult{}, fmt.Errorf("%w: mode %q was not advertised", ErrUnsupported, req.Mode)`, `return ElicitationResult{Action: "decline"}, nil`},
			checks: []string{"ELI-1/form-to-none"}, rule: "ELI-1", untouched: "ELI-2/form-unchanged",
		},
		{
			name: "a create_elicitation that trims the message", file: "askchoice.go",
			edits:  []string{`"message": req.Message}`, `"message": strings.TrimSpace(req.Message)}`},
			checks: []string{"ELI-2/form-unchanged"}, rule: "ELI-2", untouched: "ELI-1/form-to-none",
		},
		{
			name: "a create_elicitation that makes every value of the content a string", file: "askchoice.go",
			edits: []string{"ErrInvalidResponse, strings.Join(problems, \"; \"))\n\t\t}\n",
				"ErrInvalidResponse, strings.Join(problems, \"; \"))\n\t\t}\n\t\tvar m map[string]any\n\t\t_ = json.Unmarshal(res.Content, &m)\n" +
					"\t\tfor k, v := range m {\n\t\t\tm[k] = fmt.Sprint(v)\n\t\t}\n\t\tres.Content, _ = json.Marshal(m)\n"},
			checks: []string{"ELI-2/form-unchanged"}, rule: "ELI-2", untouched: "ELI-1/form-to-none",
		},
		{
			name: "a create_elicitation that returns a decline with the client's content", file: "askchoice.go",
			edits:  []string{"res.Content = nil // means nothing", "// the content kept, whatever the action"},
			checks: []string{"ELI-3/decline-without-content"}, rule: "ELI-3", untouched: "ELI-2/cancel",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var args []string
			for _, c := range append(slices.Clone(tc.checks), tc.untouched) {
				if c != "" {
					args = append(args, "--check", c)
				}
			}
			if code, out, r := checked(t, "agent", filepath.Join(dir, "example-agent"), args...); code != 0 || r.Totals.Passed != len(args)/2 {
				t.Fatalf("the example itself: exit %d, totals %+v, want exit 0 and %d passed:\n%s", code, r.Totals, len(args)/2, out)
			}
			broken := brokenExample(t, tc.file, tc.edits...)
			code, out, r := checked(t, "agent", broken, args...)
			for _, id := range tc.checks {
				i := slices.IndexFunc(r.Checks, func(c reports.Check) bool { return c.ID == id })
				if i < 0 {
					t.Errorf("the report has no %s:\n%s", id, out)
				}
			}
			failed := slices.ContainsFunc(r.Checks, func(c reports.Check) bool { return c.Failed() && slices.Contains(c.Rules, tc.rule) })
			if !failed || !strings.Contains(out, tc.rule) {
				t.Errorf("no failure names %s:\n%s", tc.rule, out)
			}
			if i := slices.IndexFunc(r.Checks, func(c reports.Check) bool { return c.ID == tc.untouched }); tc.untouched != "" && (i < 0 || r.Checks[i].State != reports.StatePassed) {
				t.Errorf("%s, which the break does not touch, did not pass:\n%s", tc.untouched, out)
			}
			want := 0
			if slices.ContainsFunc(r.Checks, func(c reports.Check) bool { return c.Failed() && c.Level == "MUST" }) {
				want = 1
			}
			if code != want {
				t.Errorf("exit %d, want %d: 1 exactly when a MUST check failed:\n%s", code, want, out)
			}
		})
	}
}

// brokenExample builds the example agent with file edited, each from of
// edits (from, to, from, to, ...) replaced by its to, and returns the
// binary.
func brokenExample(t *testing.T, file string, edits ...string) string {
	t.Helper()
	return exampleVariant(t, append([]string{file}, edits...))
}

// TestTheExampleAdapterIsTheREADMEsAndAtMost15Lines keeps the README's
// promise: its adapter block is the example's main.go, whole, and that has
// at most 15 lines that are neither blank nor comments.
func TestTheExampleAdapterIsTheREADMEsAndAtMost15Lines(t *testing.T) {
	adapter, err := os.ReadFile(filepath.Join("example", "agent", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "```go\n"+string(adapter)+"```\n") {
		t.Error("README.md shows no go block that is example/agent/main.go, whole: copy the file into it")
	}
	code := 0
	for _, line := range strings.Split(string(adapter), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "//") {
			code++
		}
	}
	if code > 15 {
		t.Errorf("the example adapter has %d lines of code, more than the 15 the README promises", code)
	}
}
