package mutants

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	junit "github.com/joshdk/go-junit"

	"github.com/acpconform/acpconform/internal/killmatrix"
	"github.com/acpconform/acpconform/internal/testbound"
	"github.com/acpconform/acpconform/internal/testcost/budget"
	"github.com/acpconform/acpconform/internal/waitbound"
	"github.com/acpconform/acpconform/reports"
	"github.com/acpconform/acpconform/suite"
)

var update = flag.Bool("update", false, "rewrite the kill matrix: docs/mutants.md, and internal/killmatrix/matrix.json for acpconform explain")

// kill is what one mutant's run showed.
type kill struct {
	mutant Mutant
	specs  []string // the checks that failed
}

// TestMain lets more mutants run at once than there are CPUs: a mutant's
// build computes, but its runs mostly wait, some for the bound its defect
// makes a check wait out. The relay child runs Ginkgo, which refuses a
// -parallel other than its default.
func TestMain(m *testing.M) {
	if os.Getenv(relayMutantEnv) == "" {
		waitbound.Parallel(2)
	}
	code := budget.Main(m)
	for _, dir := range []string{relayChildDir, togetherDir} {
		if dir != "" {
			os.RemoveAll(dir)
		}
	}
	os.Exit(code)
}

// binary is an acpconform that runs as one mutant, or as the reference:
// the path of a build and the environment that chooses the mutant in it.
type binary struct {
	path string
	env  []string
}

// agent and client are the reference agent's and client's binaries of the
// same build (Build and BuildTogether make them beside acpconform): a
// subject started once per check starts in a fifth of the CLI's CPU time.
func (b binary) agent() string  { agent, _ := Slim(b.path); return agent }
func (b binary) client() string { _, client := Slim(b.path); return client }

// command is the binary run with args in ctx.
func (b binary) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, b.path, args...)
	cmd.Env = b.env
	return cmd
}

// togetherBuild is BuildTogether's build, once for the package's tests.
type togetherBuild struct {
	path  string
	apart map[string]bool // the mutants it does not hold
}

// togetherDir holds the build of together; TestMain removes it.
var togetherDir string

var together = sync.OnceValues(func() (togetherBuild, error) {
	root, err := filepath.Abs("..")
	if err != nil {
		return togetherBuild{}, err
	}
	if togetherDir, err = os.MkdirTemp("", "acpconform-mutants"); err != nil {
		return togetherBuild{}, err
	}
	path, apart, err := BuildTogether(root, togetherDir, append(slices.Clone(All), Variants...))
	b := togetherBuild{path: path, apart: map[string]bool{}}
	for _, m := range apart {
		b.apart[m.Name] = true
	}
	return b, err
})

// withoutMutant is the test's environment, with no mutant chosen.
func withoutMutant() []string {
	return slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, MutantEnv+"=") })
}

// reference is the shared build running as the reference.
func reference(t *testing.T) binary {
	b, err := together()
	if err != nil {
		t.Fatal(err)
	}
	return binary{b.path, withoutMutant()}
}

// binaryOf is an acpconform that runs as m: the shared build, or one of
// m's own when the shared build cannot hold it.
func binaryOf(t *testing.T, root string, m Mutant) binary {
	b, err := together()
	if err != nil {
		t.Fatal(err)
	}
	if !b.apart[m.Name] {
		return binary{b.path, append(withoutMutant(), MutantEnv+"="+m.Name)}
	}
	path, err := m.Build(root, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return binary{path, withoutMutant()}
}

// TestMutantsAreKilled runs the catalogue against each mutant of the
// reference (one build holds them, BuildTogether): every mutant must fail
// at least one check, and the run's JUnit report must say the same as its
// JSON.
func TestMutantsAreKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the catalogue once per mutant")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	areas := map[string]bool{}
	names := map[string]bool{}
	for _, m := range All {
		r, ok := suite.Lookup(m.Rule)
		if !ok {
			t.Errorf("mutant %s breaks %s, which is not a CONTRACT ID", m.Name, m.Rule)
			continue
		}
		areas[r.Area] = true
		if names[m.Name] || !regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`).MatchString(m.Name) {
			t.Errorf("mutant name %q is reused or not kebab-case", m.Name)
		}
		names[m.Name] = true
	}
	for _, m := range Relays {
		if r, ok := suite.Lookup(m.Rule); ok {
			areas[r.Area] = true
		} else {
			t.Errorf("relay mutant %s breaks %s, which is not a CONTRACT ID", m.Name, m.Rule)
		}
		if names[m.Name] || !regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`).MatchString(m.Name) {
			t.Errorf("mutant name %q is reused or not kebab-case", m.Name)
		}
		names[m.Name] = true
	}
	for _, area := range []string{"SCH", "VAL", "DEF", "TOK", "RES", "CAP", "FB", "DEP", "RTE", "CLI", "REL", "ELI"} {
		if !areas[area] {
			t.Errorf("no mutant breaks a rule of %s", area)
		}
	}
	if len(All) < 20 {
		t.Errorf("%d mutants, want at least 20", len(All))
	}

	// The shared build, running as no mutant, is the reference: what it
	// adds to each mutated function changes nothing until one is chosen.
	ref := reference(t)
	refTraces := t.TempDir()
	if out, err := ref.command(testbound.Context(t), "run", "--traces", refTraces, "--json", "", "--junit", "", "--summary", "", "--html", "").CombinedOutput(); err != nil {
		t.Fatalf("the build of every mutant, as no mutant, is not conformant (%v):\n%s", err, tail(out))
	}
	for _, role := range []string{"agent", "client"} {
		judgeAgrees(t, ref, "the reference", role, refTraces, reports.JSON{})
	}

	var mu sync.Mutex
	var kills []kill
	began := time.Now()
	t.Run("each", func(t *testing.T) {
		// The relays first: one of them waits longest (two starts that
		// time out), and what starts last ends the test.
		for _, m := range Relays {
			t.Run(m.Name, func(t *testing.T) {
				t.Parallel()
				failed := runRelay(t, m)
				var names []string
				killed := false
				should := suite.MustLookup(m.Rule).Level == suite.Should
				for _, c := range failed {
					names = append(names, c.ID)
					killed = killed || (c.ID == m.Kills && slices.Contains(c.Rules, m.Rule))
					// A relay that breaks only a SHOULD rule stays conformant.
					for _, rule := range c.Rules {
						if should && suite.MustLookup(rule).Level == suite.Must {
							t.Errorf("relay mutant %s breaks only %s, a SHOULD rule, and failed %s, a MUST check:\n%s", m.Name, m.Rule, c.ID, c.Failure)
						}
					}
					if bad := unreadable(c.Failure); len(bad) > 0 {
						t.Errorf("the failure of %s reads like a matcher dump (%s):\n%s", c.ID, strings.Join(bad, "; "), c.Failure)
					}
				}
				if !killed {
					t.Errorf("relay mutant %s (%s) was not killed by %s, citing %s; the checks that failed: %v", m.Name, m.Rule, m.Kills, m.Rule, names)
				}
				t.Logf("killed by %d: %s", len(names), strings.Join(names, "; "))
				mu.Lock()
				kills = append(kills, kill{relayRow(m), names})
				mu.Unlock()
			})
		}
		for _, m := range All {
			t.Run(m.Name, func(t *testing.T) {
				t.Parallel()
				failed, bin := run(t, root, m)
				if len(failed) == 0 {
					t.Errorf("mutant %s (%s) survived: no check failed", m.Name, m.Rule)
				}
				if breaksShould(m) && !slices.ContainsFunc(failed, func(c reports.Check) bool { return slices.Contains(c.Rules, m.Rule) }) {
					t.Errorf("mutant %s breaks only %s, a SHOULD rule, and no check of it failed", m.Name, m.Rule)
				}
				var names []string
				for _, c := range failed {
					names = append(names, c.Key()) // the ID: short, and what people type
					// The client checks are reported apart: a client mutant
					// fails only the checks of the rule it breaks.
					if m.Role() == suite.ClientRole && !slices.Contains(c.Rules, m.Rule) {
						t.Errorf("client mutant %s (%s) failed %s, a check of %v", m.Name, m.Rule, c.ID, c.Rules)
					}
					if bad := unreadable(c.Failure); len(bad) > 0 {
						t.Errorf("the failure of %q reads like a matcher dump (%s):\n%s", c.Name, strings.Join(bad, "; "), c.Failure)
					}
				}
				if expr, ok := killsEvery[m.Name]; ok {
					for _, id := range listChecks(t, bin.path, expr) {
						if !slices.Contains(names, id) {
							t.Errorf("mutant %s passed %s, which %s selects: a success passed a check that expects an error", m.Name, id, expr)
						}
					}
				}
				t.Logf("killed by %d: %s", len(names), strings.Join(names, "; "))
				mu.Lock()
				kills = append(kills, kill{m, names})
				mu.Unlock()
			})
		}
	})
	// The figure issue 30 measures: it was about 2.5 s a mutant on two
	// quiet cores with a build each (wall time of the whole test).
	if !t.Failed() {
		everyJudgeCheckKills(t)
	}
	took := time.Since(began)
	t.Logf("%d mutants in %s: %s a mutant", len(kills), took.Round(time.Second), (took / time.Duration(max(len(kills), 1))).Round(10*time.Millisecond))
	if *update && !t.Failed() {
		if err := os.WriteFile(filepath.Join(root, "docs", "mutants.md"), []byte(matrix(kills)), 0o644); err != nil {
			t.Fatal(err)
		}
		var rows []killmatrix.Mutant
		for _, k := range kills {
			rows = append(rows, killmatrix.Mutant{Name: k.mutant.Name, Breaks: k.mutant.Rule, KilledBy: k.specs})
		}
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(killmatrix.File)), killmatrix.Encode(rows), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// relayRow is a mutant of our relays as a row of the kill matrix.
func relayRow(m RelayMutant) Mutant {
	return Mutant{Name: m.Name, Rule: m.Rule, File: "mocks/relay (the " + m.Relay + ", tampered)"}
}

// ruleOnly are the client mutants that stand for a broken variant of the
// reference client (probeclient.Brokens: unregistered, wrong-token,
// accepts-unadvertised), which cmd/acpconform's TestClient already runs
// against the checks of the rules it breaks: what they add is their
// traces, for the judge, and the checks of their rule make those. They
// run those checks alone, a client catalogue's worth of processes each
// spared.
var ruleOnly = map[string]bool{"route-unregistered": true, "token-not-offered": true, "unadvertised-form-answered": true}

// killsEvery holds the mutants that must fail every check a label
// expression selects, not merely one: a success in place of each error
// the checks expect (scenarios' expects:error). The agent's, and our
// relays' in-process ones, whose outcome is the reference agent's; the
// clients' are killed as killedElsewhere says.
var killsEvery = map[string]string{
	"errors-answered-as-success":             "expects: containsAny error && !role: containsAny client && !area: containsAny ELI",
	"elicitation-errors-answered-as-success": "expects: containsAny error && !role: containsAny client && area: containsAny ELI",
}

// killedElsewhere are the checks of expects:error of the client's role,
// each with the test that shows a success fails it.
var killedElsewhere = map[string]string{
	"CLI-4/unadvertised-form-refused": "acpconform client -- acpconform reference-client --broken accepts-unadvertised, in cmd/acpconform's TestClient",
	"ELI-6/unadvertised-url-refused":  "the mutant url-advertised-not (mutants/client.go), in TestMutantsAreKilled; and --broken accepts-unadvertised-url in cmd/acpconform's TestClient",
}

// TestEveryExpectedErrorIsKilledBySuccess: each check that expects an
// error is failed by a subject that answers success there, either by a
// mutant of killsEvery (TestMutantsAreKilled) or as killedElsewhere says.
func TestEveryExpectedErrorIsKilledBySuccess(t *testing.T) {
	bin := reference(t).path // list runs no mutant
	others := listChecks(t, bin, "expects: containsAny error && role: containsAny client")
	for _, id := range others {
		if killedElsewhere[id] == "" {
			t.Errorf("%s expects an error, and nothing shows that a success fails it: add a mutant or a broken variant that answers success there, and name it in killedElsewhere", id)
		}
	}
	for id := range killedElsewhere {
		if !slices.Contains(others, id) {
			t.Errorf("killedElsewhere names %s, which is not a check of expects:error of the client's role", id)
		}
	}
	if agents := listChecks(t, bin, killsEvery["errors-answered-as-success"]); len(agents) < 50 {
		t.Errorf("%d agent checks expect an error, want at least 50: is the label lost?", len(agents))
	}
}

// listChecks is the IDs of the checks acpconform list selects with expr.
func listChecks(t *testing.T, bin, expr string) []string {
	t.Helper()
	out, err := exec.Command(bin, "list", "--label-filter", expr).Output()
	if err != nil {
		t.Fatalf("acpconform list --label-filter %q: %v", expr, err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var ids []string
	for _, l := range lines[1:] { // after "N of M checks ..."
		if f := strings.Fields(l); len(f) > 0 {
			ids = append(ids, f[0])
		}
	}
	return ids
}

// TestVariantsAreConformant builds acpconform once per variant of the
// reference and runs the agent's catalogue against it, shared and with
// --isolate: a variant takes a path the contract allows, so no check may
// fail it.
func TestVariantsAreConformant(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the catalogue twice per variant")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range Variants {
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			if _, ok := suite.Lookup(v.Rule); !ok || v.Role() != suite.AgentRole {
				t.Fatalf("variant %s: %s is not a CONTRACT ID, or it is no variant of the reference agent", v.Name, v.Rule)
			}
			dir := t.TempDir()
			bin := binaryOf(t, root, v)
			ctx := testbound.Context(t)
			for _, isolate := range []string{"--isolate=false", "--isolate"} {
				path := filepath.Join(dir, "report.json")
				cmd := bin.command(ctx, "run", isolate, "--json", path, "--junit", "", "--summary", "",
					"--response-timeout", "2s", "--scenario-timeout", "5s", "--label-filter", "role: containsAny agent")
				out, err := cmd.CombinedOutput()
				if timeout := testbound.TimedOut(ctx); timeout != nil {
					t.Fatalf("acpconform run %s: %v\n%s", isolate, timeout, tail(out))
				}
				doc, jsonErr := readJSON(path)
				if jsonErr != nil {
					t.Fatalf("acpconform run %s (%v): %v\n%s", isolate, err, jsonErr, tail(out))
				}
				for _, c := range doc.Checks {
					if c.Failed() {
						t.Errorf("variant %s, run %s: %s failed: %s", v.Name, isolate, c.ID, c.Failure)
					}
				}
				if code := cmd.ProcessState.ExitCode(); code != 0 {
					t.Errorf("variant %s: acpconform run %s exited %d, want 0 (conformant):\n%s", v.Name, isolate, code, tail(out))
				}
			}
		})
	}
}

// breaksShould reports whether m breaks a SHOULD rule: such a mutant
// fails a check of its rule and leaves the subject conformant.
func breaksShould(m Mutant) bool { return suite.MustLookup(m.Rule).Level == suite.Should }

// run builds the mutant and runs the catalogue; it returns the checks that
// failed.
func run(t *testing.T, root string, m Mutant) (failed []reports.Check, bin binary) {
	dir := t.TempDir()
	bin = binaryOf(t, root, m)
	ctx := testbound.Context(t)
	// The command, and its flags and subject, the same for both runs but
	// for the reports.
	// A Go binary starts in milliseconds: 10 s for a start (and for a
	// client's exit after its turn, which stays-after-turn waits out) is
	// ample however busy the machine, and a third of the default.
	// --keep-going: the kill matrix is every check a mutant fails, also
	// after one cause has failed several rules in a row.
	command, subject := "run", []string{"--response-timeout", "2s", "--scenario-timeout", "5s", "--startup-timeout", "10s", "--keep-going"}
	switch ids, stdio := overStdio[m.Name]; {
	case stdio:
		command = "agent"
		subject = append(subject, "--id", strings.Join(ids, ","), "--", bin.agent())
	case m.Role() == suite.ClientRole: // the mutated reference client, as a command
		command = "client"
		if m.FreeUser() {
			subject = append(subject, "--no-scripted-user")
		}
		if ruleOnly[m.Name] {
			subject = append(subject, "--id", m.Rule)
		}
		subject = append(subject, "--", bin.client())
		if m.NoForm() {
			subject = append(subject, "--no-form")
		}
	default:
		// run checks every role; an agent mutant is judged by the agent's
		// checks: the harness's mock agent compiles forms with the
		// reference too, and a client check that broke would say nothing.
		filter := "role: containsAny agent"
		if expr, ok := killsEvery[m.Name]; ok {
			filter += " || " + expr // the in-process checks of our relays too
		}
		subject = append(subject, "--label-filter", filter)
	}
	// The mutants run over stdio, those built to keep something between
	// the sessions of one process, run again with --isolate, side by side
	// (both mostly wait): sharing must not change their verdicts. That it
	// does not is also shown for the reference (TestSharingKeepsTheVerdicts,
	// in cmd/acpconform) and each variant (TestVariantsAreConformant). The
	// in-process mutants run shared only: a second run of every check for
	// each of them was half the checks the mutants' test executed.
	isolated := make(chan isolatedRun, 1)
	_, isolate := overStdio[m.Name]
	if isolate {
		go func() { isolated <- runIsolated(ctx, bin, dir, command, subject) }()
	}
	jsonPath, junitPath, traces := filepath.Join(dir, "report.json"), filepath.Join(dir, "junit.xml"), filepath.Join(dir, "traces")
	args := append([]string{command, "--traces", traces, "--json", jsonPath, "--junit", junitPath, "--summary", "", "--html", ""}, subject...)
	cmd := bin.command(ctx, args...)
	out, err := cmd.CombinedOutput()
	if timeout := testbound.TimedOut(ctx); timeout != nil {
		t.Fatalf("acpconform %s: %v\n%s", args[0], timeout, tail(out))
	}
	// A mutant that breaks only a SHOULD rule stays conformant: exit 0.
	wantCode, why := 1, "a MUST check failed"
	if breaksShould(m) {
		wantCode, why = 0, "the mutant breaks only "+m.Rule+", a SHOULD rule"
	}
	if m.NoForm() {
		wantCode, why = reports.ExitNothingChecked, "a client without form elicitation is checked on SHOULD rules alone"
	}
	if code := cmd.ProcessState.ExitCode(); code != wantCode {
		t.Fatalf("acpconform %s exited %d (%v), want %d (%s):\n%s", args[0], code, err, wantCode, why, tail(out))
	}
	doc, err := readJSON(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range doc.Checks {
		if c.Failed() {
			failed = append(failed, c)
		}
		// A failure of SES-1 found by the rerun shows both attempts.
		if c.Failed() && strings.HasPrefix(c.Failure, "SES-1: ") {
			for _, want := range []string{"attempt 1, on a connection shared with earlier checks:", "attempt 2, on a fresh connection:"} {
				if !strings.Contains(c.Transcript, want) {
					t.Errorf("%s failed SES-1, but its transcript lacks %q:\n%s", c.ID, want, c.Transcript)
				}
			}
		}
	}
	sameInJUnit(t, junitPath, doc)
	// The reference's build judges: a mutant's own could judge with its
	// edit (mocks/agent.Check reads content with reference code).
	judgeKills(m.Name, judgeAgrees(t, reference(t), "mutant "+m.Name, string(m.Role()), traces, doc))
	if isolate {
		r := <-isolated
		if r.err != nil {
			t.Fatal(r.err)
		}
		// Sharing may fail what --isolate passes only as SES-1: a check
		// that failed on a shared connection and passed on a fresh one.
		ses1 := map[string]bool{}
		for _, c := range doc.Checks {
			ses1[c.Key()] = c.Failed() && slices.Contains(c.Rules, "SES-1")
		}
		for _, d := range reports.StateDifferences(r.checks, doc.Checks) {
			if id, _, _ := strings.Cut(d, ":"); !ses1[id] || !strings.HasSuffix(d, ": passed, then failed") {
				t.Errorf("isolated, then shared: %s", d)
			}
		}
		if r.code != wantCode && !onlySES1(failed) {
			t.Errorf("acpconform %s --isolate exited %d, want %d as shared:\n%s", command, r.code, wantCode, r.out)
		}
	}
	return failed, bin
}

// isolatedRun is a mutant's run with --isolate: each check on a
// connection of its own. Its checks' states must be the shared run's:
// sharing must never change a verdict, nor so the kill matrix.
type isolatedRun struct {
	checks []reports.Check
	code   int    // its exit code
	out    string // the end of its output
	err    error
}

// onlySES1 reports whether every failed check failed SES-1: sharing found
// what a run with --isolate cannot.
func onlySES1(failed []reports.Check) bool {
	for _, c := range failed {
		if !slices.Contains(c.Rules, "SES-1") {
			return false
		}
	}
	return len(failed) > 0
}

// runIsolated runs the command on subject with --isolate, reporting to
// a file of its own.
func runIsolated(ctx context.Context, bin binary, dir, command string, subject []string) isolatedRun {
	path := filepath.Join(dir, "isolated.json")
	// No report.html: the run beside it writes the reports of this folder.
	cmd := bin.command(ctx, append([]string{command, "--isolate", "--json", path, "--junit", "", "--summary", "", "--html", ""}, subject...)...)
	out, _ := cmd.CombinedOutput()
	code := cmd.ProcessState.ExitCode()
	if timeout := testbound.TimedOut(ctx); timeout != nil {
		return isolatedRun{err: fmt.Errorf("acpconform %s --isolate: %v\n%s", command, timeout, tail(out))}
	}
	if code != 0 && code != 1 {
		return isolatedRun{err: fmt.Errorf("acpconform %s --isolate exited %d, want 0 or 1:\n%s", command, code, tail(out))}
	}
	doc, err := readJSON(path)
	return isolatedRun{checks: doc.Checks, code: code, out: tail(out), err: err}
}

// readJSON reads a run's report.json.
func readJSON(path string) (reports.JSON, error) {
	var doc reports.JSON
	data, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(data, &doc)
	}
	return doc, err
}

// forbidden are what a failure must never show: a failure says in
// sentences what the subject did wrong, not how a matcher saw it.
var forbidden = []struct {
	what string
	re   *regexp.Regexp
}{
	{"a Go pointer", regexp.MustCompile(`0x[0-9a-f]{6,}`)},
	{"a Gomega type dump", regexp.MustCompile(`<[*\[\]\w./]+(?: \| [^>]*)?>`)},
	{"matcher wording", regexp.MustCompile(`(?m)^\s*Expected\b|\bUnexpected error\b|\bto (?:equal|match JSON|be empty|be true|be false|have len|succeed|be nil|be closed|contain|have occurred)\b|first mismatched key`)},
	{"a formatting error", regexp.MustCompile(`%!`)},
	{"an empty value unquoted", regexp.MustCompile(`\b(?:is|are|was) , `)},
}

// unreadable says which forbidden patterns text shows.
func unreadable(text string) []string {
	var bad []string
	for _, f := range forbidden {
		if m := f.re.FindString(text); m != "" {
			bad = append(bad, fmt.Sprintf("%s: %q", f.what, m))
		}
	}
	return bad
}

// sameInJUnit reads the JUnit report with go-junit and compares it with
// the JSON report of the same run.
func sameInJUnit(t *testing.T, path string, doc reports.JSON) {
	t.Helper()
	suites, err := junit.IngestFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var tests, failed, skipped int
	failedNames := map[string]bool{}
	for _, s := range suites {
		for _, tc := range s.Tests {
			tests++
			switch tc.Status {
			case junit.StatusFailed, junit.StatusError:
				failed++
				failedNames[tc.Name] = true
			case junit.StatusSkipped:
				skipped++
			}
		}
	}
	if tests != len(doc.Checks)-doc.Totals.Deselected || failed != doc.Totals.Failed || skipped != doc.Totals.Skipped { // JUnit lists the selected checks
		t.Errorf("JUnit: %d tests, %d failed, %d skipped; JSON: %d checks, %+v", tests, failed, skipped, len(doc.Checks), doc.Totals)
	}
	for _, c := range doc.Checks {
		if c.Failed() && !failedNames[c.ID+": "+c.Name] { // JUnit names lead with the check's ID
			t.Errorf("JSON says %q failed, JUnit does not", c.Name)
		}
	}
}

// matrix renders the kill matrix.
func matrix(kills []kill) string {
	sort.Slice(kills, func(i, j int) bool { return kills[i].mutant.Name < kills[j].mutant.Name })
	var b strings.Builder
	b.WriteString("# Mutants of the reference and the checks that kill them\n\n")
	b.WriteString("Generated by `go test ./mutants -update`; do not edit. Each mutant is one edit of\n")
	b.WriteString("`reference/` that breaks one CONTRACT rule (package `mutants`); each must make at\n")
	b.WriteString("least one check of the catalogue fail, or a check is missing. The mutants of our\n")
	b.WriteString("relays (`mocks/relay`, tampered with `relay.Tamper`) must each fail the REL check\n")
	b.WriteString("named for them (`mutants.Relays`). One build of acpconform holds every mutant\n")
	b.WriteString("of the reference, each chosen by `ACPCONFORM_MUTANT` when the process starts\n")
	b.WriteString("(`mutants.BuildTogether`); a mutant whose edit is not within one function is built\n")
	b.WriteString("alone. The table shows four checks a row; internal/killmatrix/matrix.json,\n")
	b.WriteString("written with it, has them all, and `acpconform explain` says from it which\n")
	b.WriteString("mutants each check kills.\n\n")
	b.WriteString("No check that expects an error can pass a success. Every check labelled\n")
	b.WriteString("`expects:error` (a check that asserts an expected error without the label fails)\n")
	b.WriteString("must fail `errors-answered-as-success`, which turns every error of ask_choice into\n")
	b.WriteString("an acceptance of the first choice (a decline when there is none), or, in area ELI,\n")
	b.WriteString("`elicitation-errors-answered-as-success`, which turns every error of\n")
	b.WriteString("create_elicitation into an acceptance; the client's, CLI-4/unadvertised-form-refused\n")
	b.WriteString("and ELI-6/unadvertised-url-refused, fail the broken reference clients\n")
	b.WriteString("`accepts-unadvertised` and `accepts-unadvertised-url` (and the second the mutant\n")
	b.WriteString("`url-advertised-not`); and a relay that turns an error answer into a success\n")
	b.WriteString("fails REL-1 (`error-answer-made-success`). TestEveryExpectedErrorIsKilledBySuccess\n")
	b.WriteString("and TestMutantsAreKilled hold this.\n\n")
	fmt.Fprintf(&b, "%d mutants, all killed.\n\n", len(kills))
	b.WriteString("| mutant | breaks | file | killed by |\n|---|---|---|---|\n")
	for _, k := range kills {
		shown := k.specs
		more := ""
		if len(shown) > 4 {
			more = fmt.Sprintf(" and %d more", len(shown)-4)
			shown = shown[:4]
		}
		file := k.mutant.File
		if ids, ok := overStdio[k.mutant.Name]; ok {
			file += " (over stdio, the checks of " + strings.Join(ids, ", ") + ")"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d: %s%s |\n", k.mutant.Name, k.mutant.Rule, file, len(k.specs), strings.Join(shown, "; "), more)
	}
	return b.String()
}

func tail(out []byte) string {
	lines := strings.Split(string(out), "\n")
	if len(lines) > 40 {
		lines = lines[len(lines)-40:]
	}
	return strings.Join(lines, "\n")
}

// TestMatrixIsCurrent keeps docs/mutants.md and the matrix acpconform
// explain reads (internal/killmatrix) naming every mutant, and saying the
// same: both are written by one run of go test ./mutants -update.
func TestMatrixIsCurrent(t *testing.T) {
	doc, err := os.ReadFile("../docs/mutants.md")
	if err != nil {
		t.Fatalf("%v: run go test ./mutants -update", err)
	}
	for _, m := range All {
		if !strings.Contains(string(doc), "| "+m.Name+" | "+m.Rule+" |") {
			t.Errorf("docs/mutants.md lacks mutant %s: run go test ./mutants -update", m.Name)
		}
	}
	for _, m := range Relays {
		if !strings.Contains(string(doc), "| "+m.Name+" | "+m.Rule+" |") {
			t.Errorf("docs/mutants.md lacks relay mutant %s: run go test ./mutants -update", m.Name)
		}
	}

	rows := map[string]Mutant{}
	for _, m := range All {
		rows[m.Name] = m
	}
	for _, m := range Relays {
		rows[m.Name] = relayRow(m)
	}
	var kills []kill
	for _, r := range killmatrix.Matrix() {
		m, ok := rows[r.Name]
		switch {
		case !ok:
			t.Errorf("%s has mutant %s, which is no more: run go test ./mutants -update", killmatrix.File, r.Name)
		case m.Rule != r.Breaks:
			t.Errorf("%s says mutant %s breaks %s; it breaks %s: run go test ./mutants -update", killmatrix.File, r.Name, r.Breaks, m.Rule)
		}
		delete(rows, r.Name)
		kills = append(kills, kill{m, r.KilledBy})
	}
	for _, name := range slices.Sorted(maps.Keys(rows)) {
		t.Errorf("%s lacks mutant %s: run go test ./mutants -update", killmatrix.File, name)
	}
	if !t.Failed() && matrix(kills) != string(doc) {
		t.Errorf("docs/mutants.md is not the matrix of %s: run go test ./mutants -update, which writes both", killmatrix.File)
	}
}

// TestForbiddenPatterns holds the patterns to the failures they are for,
// and lets plain sentences through.
func TestForbiddenPatterns(t *testing.T) {
	for _, text := range []string{
		"session/new\nUnexpected error:\n    <*peer.CallError | 0x17b751b18320>: \n    session/new: the connection ended",
		"Expected\n    <string>: a\nto equal\n    <string>: b",
		"Expected\n    <[]string | len:1, cap:1>: [\"x\"]\nto be empty",
		`the subject reported {"outcome":"accepted"}, but error is , want invalid_response`,
		"the value is %!v(MISSING)",
		"params differ: first mismatched key: \"mode\"",
	} {
		if len(unreadable(text)) == 0 {
			t.Errorf("no forbidden pattern catches %q", text)
		}
	}
	for _, text := range []string{
		`session/new failed: the connection ended before the answer: the subject closed it (end of file)`,
		"the agent reported declined, want accepted with choice 1 (\"production\")\n-want +got:\n  probe.Outcome{\n- \tOutcome: \"accepted\",\n+ \tOutcome: \"declined\",\n  }",
		`the client answered 2 requests out of 2 with problems: elicitation/create #1: CLI-2: the accepted choice "choice_1_x" is none of the offered consts ["choice_0" "choice_1"]`,
		`the agent sent {"s":"caf\u00e9 <&>"}, expected by no script`,
	} {
		if bad := unreadable(text); len(bad) > 0 {
			t.Errorf("%q reads as forbidden: %s", text, bad)
		}
	}
}
