// Package reports turns a catalogue run into what people and CI read: JUnit
// XML, a JSON report and a Markdown summary fit for a CI job summary, all
// from one [Run], and the verdict that decides the exit code. A run that
// could not start or was interrupted is a Run too, so CI always has a
// report that says what happened.
package reports

import (
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/acpconform/acpconform/internal/elide"
)

// Report entry names the catalogue attaches to specs.
const (
	EntryRules       = "contract"    // the CONTRACT IDs a spec checks, comma-separated
	EntryTranscript  = "transcript"  // the wire transcript, on failure
	EntryDiagnostics = "diagnostics" // the subject's stderr, on failure
	EntryProcess     = "process"     // how the subject's process ended, when it died during the check
	// EntrySES1 marks a check that failed on a connection shared with
	// earlier checks and passed on a fresh one: a failure of SES-1.
	EntrySES1 = "ses-1"
	// EntryNotStarted marks a check whose subject did not start in time
	// (or at all): an error of the check, not a failure of its rules.
	EntryNotStarted = "not started"
	// EntryNotOffered marks a check skipped because its subject does not
	// offer the operation the check exercises, the entry's value
	// ("create_elicitation"): neither passed nor failed (Check.NotOffered).
	EntryNotOffered = "not offered"
)

// Transcript is the value of an EntryTranscript: the wire transcript of
// one connection of a check, and the attempt of the check that made it.
type Transcript struct {
	Attempt int // from 1; a check that failed on a shared connection has two
	Text    string
}

// String is the transcript's text, as Ginkgo shows the entry.
func (t Transcript) String() string { return t.Text }

// Bounds on what a report keeps of text a subject controls; the rest is
// elided with its size.
const (
	MaxFailure    = 16 << 10 // a failure's reason
	MaxTranscript = 64 << 10 // the end of a transcript
	MaxStderr     = 16 << 10 // the end of a subject's stderr
)

// Check states.
const (
	StatePassed      = "passed"
	StateFailed      = "failed"      // failed, panicked or timed out
	StateInterrupted = "interrupted" // the check that was running when the run was interrupted
	StateError       = "error"       // did not run: the subject did not start in time; its failure says why
	StateSkipped     = "skipped"     // selected but not run: its reason says why
	StateDeselected  = "deselected"  // left out by --id or --label-filter
)

// Check is one check of a run, as reports show it.
type Check struct {
	ID         string   `json:"id,omitempty"` // stable: TOK-2/leading-zero
	Name       string   `json:"name"`
	Area       string   `json:"area"`
	Rules      []string `json:"rules"`
	Level      string   `json:"level"` // MUST or SHOULD
	Role       string   `json:"role"`  // agent, client or relay
	State      string   `json:"state"` // passed, failed, interrupted, error, skipped, deselected
	Seconds    float64  `json:"seconds"`
	Failure    string   `json:"failure,omitempty"`
	SkipReason string   `json:"skipReason,omitempty"`
	Known      string   `json:"known,omitempty"`    // the baseline's reason for a known failure
	Location   string   `json:"location,omitempty"` // the check's own line, as explain says it: scenarios/tok.go:56
	// FailedAt is, for a failed check, the line its failure was raised at
	// when that is not Location: an assertion in the scenario's body, or
	// in a helper it calls.
	FailedAt    string `json:"failedAt,omitempty"`
	Process     string `json:"process,omitempty"` // how the subject's process ended, when it died during the check
	Transcript  string `json:"transcript,omitempty"`
	Diagnostics string `json:"diagnostics,omitempty"`
	// Rerun says the check failed on a connection it shared with earlier
	// checks and was run again on a fresh one, whose result it reports.
	Rerun string `json:"rerun,omitempty"`
	// Again is the command line that runs this check alone again, with
	// -v; empty for a check without an ID.
	Again string `json:"again,omitempty"`
	// NotOffered is, for a check skipped because its subject does not
	// offer the operation the check exercises, that operation
	// ("create_elicitation"); SkipReason says what the subject answered.
	NotOffered string `json:"notOffered,omitempty"`
}

// Failed reports whether the check failed in any way (failed, panicked,
// timed out, interrupted).
func (c Check) Failed() bool { return c.State == StateFailed || c.State == StateInterrupted }

// Word is how the reports head a check that did not pass: FAILED, KNOWN
// FAILURE (failed, and in the baseline), INTERRUPTED or COULD NOT RUN.
func (c Check) Word() string {
	switch {
	case c.Known != "":
		return "KNOWN FAILURE"
	case c.State == StateInterrupted:
		return "INTERRUPTED"
	case c.State == StateError:
		return "COULD NOT RUN"
	}
	return "FAILED"
}

// Ran reports whether the check ran to a verdict of its own.
func (c Check) Ran() bool { return c.State == StatePassed || c.State == StateFailed }

// Must reports whether the check decides conformance.
func (c Check) Must() bool { return c.Level != "SHOULD" }

// Run is one run of the catalogue, whatever became of it.
type Run struct {
	Subject  string
	Command  string // the subject's command line, when it is a command
	Version  string // of acpconform: a release's tag, or "devel"
	Commit   string // the commit acpconform was built from; "" when its build does not say (go install of a tag)
	Modified bool   // acpconform was built from files that differed from Commit
	Contract string // the contract revision
	Schema   string // the ACP schema release the contract follows: "1.21.0"
	// Rules are the contract's rules the run's checks cite, each with its
	// level and the source that decides it (contract revision 5).
	Rules []Rule
	Shard Shard // the part of a split run this run is; zero for a whole run
	// Selection is what the run selected; zero in a report of an older
	// acpconform.
	Selection Selection
	// Dealt is, for a shard, the IDs of the checks dealt to it, empty
	// when none were; nil for a whole run, or a shard that stopped before
	// its checks were dealt.
	Dealt   []string
	Verdict Verdict
	Reason  string // one line: why the verdict
	Seconds float64
	Checks  []Check
	// Problems lists what fails the run, a line each: new failures, stale
	// baseline entries, a broken run.
	Problems []string
	// Stale counts the baseline's stale entries among Problems: listed
	// checks that pass, and entries that name no check of the run. Decide
	// sets it; report.json has them as problems.
	Stale int
}

// Rule is one rule of the contract as a report names it: its ID, its
// level, and where the level comes from.
type Rule struct {
	ID     string `json:"id"`
	Level  string `json:"level"`  // MUST or SHOULD
	Role   string `json:"role"`   // agent, client or relay: whose rule it is
	Source string `json:"source"` // the seed, ACP's text or schema with file and line, or the harness's advice
}

// Verdict is what a run means.
type Verdict string

// The verdicts, each with its own exit code (see [Verdict.ExitCode]).
const (
	Conformant     Verdict = "conformant"
	NotConformant  Verdict = "not conformant"
	CouldNotRun    Verdict = "could not run"
	NothingChecked Verdict = "nothing checked"
	Interrupted    Verdict = "interrupted"
)

// Exit codes of the verdicts and of a stale baseline; usage errors (2)
// and output errors (6) are the CLI's own.
const (
	ExitConformant     = 0
	ExitNotConformant  = 1
	ExitUsage          = 2
	ExitCouldNotRun    = 3
	ExitNothingChecked = 4
	ExitInterrupted    = 5
	ExitOutput         = 6
	// ExitStaleBaseline is a conformant run's whose baseline lists checks
	// that pass, or names checks the run does not have.
	ExitStaleBaseline = 7
)

// ExitCode is the process exit code of a verdict.
func (v Verdict) ExitCode() int {
	switch v {
	case Conformant:
		return ExitConformant
	case CouldNotRun:
		return ExitCouldNotRun
	case NothingChecked:
		return ExitNothingChecked
	case Interrupted:
		return ExitInterrupted
	}
	return ExitNotConformant
}

// Headline says the verdict about subject in a few words: "my-agent is
// conformant", "nothing was checked of my-agent". Of an agent, it names
// what a conformant verdict covers, "my-agent is conformant on ask_choice
// (create_elicitation not offered)", and what a run that is not
// conformant found not offered (see [Run.Operations]); of acpconform
// run's, which checks every role, "... is conformant, its agent on
// ask_choice and create_elicitation".
func (r Run) Headline() string {
	switch r.Verdict {
	case Conformant:
		scope := r.scope()
		switch {
		case scope == "":
			return r.Subject + " is conformant"
		case r.everyRole(): // its client and relays too
			return r.Subject + " is conformant, its agent on " + scope
		}
		return r.Subject + " is conformant on " + scope
	case NotConformant:
		return r.Subject + " is NOT conformant" + r.notOfferedNote()
	case CouldNotRun:
		return r.Subject + " could not run"
	case NothingChecked:
		return "nothing was checked of " + r.Subject
	case Interrupted:
		return "the run against " + r.Subject + " was interrupted"
	}
	return r.Subject + ": " + string(r.Verdict)
}

// FromGinkgo reads the checks of a Ginkgo report. selected says which
// checks the run's filters selected; nil selects all. interrupted says
// the run was stopped, so that checks it did not reach say so.
func FromGinkgo(r types.Report, subject string, selected func(labels []string) bool, interrupted bool) Run {
	run := Run{Subject: subject, Seconds: r.RunTime.Seconds()}
	for _, s := range r.SpecReports {
		if s.LeafNodeType == types.NodeTypeIt {
			run.Checks = append(run.Checks, checkOf(s, selected, interrupted))
		}
	}
	return run
}

// checkOf is a check as a run's reports show it, from its spec's report;
// selected and interrupted are FromGinkgo's.
func checkOf(s types.SpecReport, selected func(labels []string) bool, interrupted bool) Check {
	c := Check{
		Name:     Name(s.ContainerHierarchyTexts, s.LeafNodeText),
		Seconds:  s.RunTime.Seconds(),
		Location: relative(s.LeafNodeLocation),
	}
	for _, l := range s.Labels() {
		key, value, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		switch key {
		case "check": // check:TOK-2:leading-zero
			c.ID = strings.Replace(value, ":", "/", 1)
		case "rule":
			c.Rules = append(c.Rules, value)
		case "level":
			c.Level = value
		case "role":
			c.Role = value
		case "area":
			c.Area = value
		}
	}
	switch {
	case s.State == types.SpecStatePassed:
		c.State = StatePassed
	case s.State == types.SpecStateSkipped || s.State == types.SpecStatePending:
		c.State, c.SkipReason = StateSkipped, s.Failure.Message
		switch {
		case selected != nil && !selected(s.Labels()):
			c.State, c.SkipReason = StateDeselected, ""
		case c.SkipReason == "" && interrupted:
			c.SkipReason = "not run: the run was interrupted"
		case c.SkipReason == "":
			c.SkipReason = "not run"
		}
	case s.State == types.SpecStateInterrupted:
		c.State = StateInterrupted
	case DidNotStart(s):
		c.State = StateError
	default:
		c.State = StateFailed
	}
	failure := s.Failure
	ses1 := hasEntry(s, EntrySES1)
	if s.NumAttempts > 1 && len(s.AdditionalFailures) > 0 {
		first := s.AdditionalFailures[0].Failure
		first.Message = WithoutAttempt(first.Message)
		switch {
		case ses1:
			c.Rules = append(c.Rules, "SES-1")
			c.Level = "MUST" // whatever the check's own level: SES-1 is a MUST
			c.Rerun = rerunPassed
		case s.State.Is(types.SpecStateFailureStates) && s.Failure.Message == first.Message && !ranAgain(s):
			failure = first // a fresh first attempt's failure, repeated: not run again
		case s.State.Is(types.SpecStateFailureStates) && s.Failure.Message == first.Message:
			c.Rerun = rerunFailedAlike
		case s.State.Is(types.SpecStateFailureStates):
			c.Rerun = rerunFailed + elide.Head(firstLine(first.Message), 500)
		}
	}
	if s.State.Is(types.SpecStateFailureStates) { // an error's failure says why it did not run
		s.Failure = failure
		c.Failure = s.Failure.Message
		if s.Failure.ForwardedPanic != "" {
			c.Failure += ": " + s.Failure.ForwardedPanic
		}
		if s.State == types.SpecStateTimedout {
			c.Failure += timedOut(s)
		}
		c.Failure = elide.Head(c.Failure, MaxFailure)
		if at := relative(s.Failure.Location); s.Failure.Location.FileName != "" && !ses1 && at != c.Location {
			c.FailedAt = at
		}
	}
	var transcripts []Transcript
	for _, e := range s.ReportEntries {
		switch e.Name {
		case EntryTranscript:
			t, ok := e.GetRawValue().(Transcript)
			if !ok {
				t = Transcript{Attempt: 1, Text: e.StringRepresentation()}
			}
			transcripts = append(transcripts, t)
		case EntryDiagnostics:
			c.Diagnostics = elide.Tail(e.StringRepresentation(), MaxStderr)
		case EntryProcess:
			c.Process = elide.Head(e.StringRepresentation(), MaxFailure)
		case EntryNotOffered:
			if c.State == StateSkipped {
				c.NotOffered = elide.Head(e.StringRepresentation(), MaxFailure)
			}
		}
	}
	c.Transcript = joinTranscripts(transcripts, c.Rerun != "")
	return c
}

// What Check.Rerun says of a check that failed on a connection shared
// with earlier checks, and so ran again on a fresh one: report.html tells
// the attempt that failed by them.
const (
	rerunPassed      = "it failed on a connection shared with earlier checks, and passed on a fresh one: a failure of SES-1, not a pass"
	rerunFailedAlike = "it failed on a connection shared with earlier checks, and failed again, alike, on a fresh one (below)"
	rerunFailed      = "it failed on a connection shared with earlier checks, and failed again on a fresh one (below); on the shared one: "
)

// ranAgain reports whether a check's second attempt ran on a connection
// of its own: it kept a transcript. A second attempt after a fresh first
// one only repeats the first's failure, and keeps none.
func ranAgain(s types.SpecReport) bool {
	for _, e := range s.ReportEntries {
		if t, ok := e.GetRawValue().(Transcript); ok && e.Name == EntryTranscript && t.Attempt > 1 {
			return true
		}
	}
	return false
}

// timedOut says what Ginkgo's "A spec timeout occurred" leaves out: which
// bound the check ran past, after how long, and where in acpconform's code
// it was waiting, so that a subject too slow for the bound is told from a
// subject that stopped answering.
func timedOut(s types.SpecReport) string {
	msg := fmt.Sprintf(": the check ran past its bound in all after %s (--scenario-timeout, plus --startup-timeout for its subject's start: a subject that is slow but correct wants them wider)", seconds(s.RunTime))
	// The deepest frame of ours says what it waited for; the deepest of
	// the scenarios, which step of the check that was.
	var frames []string
	for _, call := range s.Failure.ProgressReport.SpecGoroutine().Stack {
		rel, ours := strings.CutPrefix(call.Filename, sourceRoot+"/")
		if !ours {
			continue
		}
		scenario := strings.HasPrefix(rel, "scenarios/")
		if len(frames) == 0 || scenario {
			frames = append(frames, fmt.Sprintf("%s (%s:%d)", shortFunction(call.Function), rel, call.Line))
		}
		if scenario {
			break
		}
	}
	if len(frames) == 0 {
		return msg
	}
	return msg + "; it was waiting in " + strings.Join(frames, ", called from ")
}

// shortFunction is a stack frame's function without its module path and
// arguments: scenarios.(*env).receive.
func shortFunction(f string) string {
	if i := strings.LastIndex(f, "("); i > 0 && strings.HasSuffix(f, ")") {
		f = f[:i]
	}
	if i := strings.LastIndex(f, "/"); i >= 0 {
		f = f[i+1:]
	}
	return f
}

// DidNotStart reports whether a check's subject did not start in time, so
// that the check did not run (EntryNotStarted).
func DidNotStart(s types.SpecReport) bool { return hasEntry(s, EntryNotStarted) }

// hasEntry reports whether the spec has a report entry of that name.
func hasEntry(s types.SpecReport, name string) bool {
	return slices.ContainsFunc(s.ReportEntries, func(e types.ReportEntry) bool { return e.Name == name })
}

// joinTranscripts is the transcripts of a check as one text, each bounded
// so that all of them fit MaxTranscript. The transcripts of a check that
// ran again after failing on a shared connection (rerun) each say which
// attempt, on which connection, they are of.
func joinTranscripts(ts []Transcript, rerun bool) string {
	if len(ts) == 0 {
		return ""
	}
	if !rerun && len(ts) == 1 {
		return elide.Tail(ts[0].Text, MaxTranscript)
	}
	var b strings.Builder
	for i, t := range ts {
		if i > 0 {
			b.WriteString("\n")
		}
		switch {
		case rerun && t.Attempt <= 1:
			b.WriteString("attempt 1, on a connection shared with earlier checks:\n")
		case rerun:
			fmt.Fprintf(&b, "attempt %d, on a fresh connection:\n", t.Attempt)
		}
		b.WriteString(elide.Tail(t.Text, MaxTranscript/len(ts)))
	}
	return b.String()
}

// Name is a check's name in reports: the texts of its containers and its
// own, each container's ended by a colon unless it ends with one, so that
// an area's description and the check's own words do not run together
// ("SCH: what ask_choice sends: sends one form request ..."); the
// containers without text (the run's, each catalogue's) leave no trace.
func Name(containers []string, leaf string) string {
	var b strings.Builder
	prev := ""
	for _, t := range append(slices.Clone(containers), leaf) {
		if t == "" {
			continue
		}
		if prev != "" {
			b.WriteString(after(prev))
		}
		b.WriteString(t)
		prev = t
	}
	return b.String()
}

// after is what Name puts between a container's text and the next: a
// colon and a space, or a space after text that ends with a colon ("its
// scripted user says:").
func after(text string) string {
	if strings.HasSuffix(text, ":") {
		return " "
	}
	return ": "
}

// Within reports whether a check's name, as [Name] makes it, starts with
// container's text, and returns the rest of the name after it.
func Within(name, container string) (rest string, ok bool) {
	if rest, ok := strings.CutPrefix(name, container+after(container)); ok {
		return rest, true
	}
	return "", false
}

// WithoutAttempt is the failure of a check's earlier attempt as Ginkgo keeps
// it, without the words Ginkgo puts before it.
func WithoutAttempt(msg string) string {
	if _, rest, ok := strings.Cut(msg, ":\n"); ok && strings.HasPrefix(msg, "Failure recorded during attempt ") {
		return rest
	}
	return msg
}

// Key is how baselines and --check name the check: its ID, or its name
// when it has none (the start-up check).
func (c Check) Key() string {
	if c.ID != "" {
		return c.ID
	}
	return c.Name
}

// Heading names a check for people: its ID (between quote marks, such as
// "`" in Markdown), the rules and level it checks, and its title:
// `TOK-2/leading-zero` (TOK-2 MUST): TOK: reading the answer: refuses ...
func (c Check) Heading(quote string) string { return c.heading(quoted(quote), plain) }

// heading is Heading with the ID shown by id, and the rest by text.
func (c Check) heading(id, text func(string) string) string {
	rules := strings.Join(c.Rules, " ")
	if rules == "" {
		rules = c.Area
	}
	h := fmt.Sprintf("(%s %s): %s", text(rules), text(c.Level), text(c.Name))
	if c.ID != "" {
		h = id(c.ID) + " " + h
	}
	return h
}

// quoted shows a text between quote marks.
func quoted(quote string) func(string) string {
	return func(s string) string { return quote + s + quote }
}

// plain shows a text as it is.
func plain(s string) string { return s }

// sourceRoot is the repository's root as this package was built: a path
// on the build machine, or the module path in a -trimpath build.
var sourceRoot = func() string {
	_, file, _, _ := runtime.Caller(0) // .../reports/reports.go
	return filepath.Dir(filepath.Dir(file))
}()

// relative is a code location relative to the repository root, such as
// scenarios/tok.go:42, wherever the binary was built.
func relative(l types.CodeLocation) string {
	if l.FileName == "" {
		return ""
	}
	file := l.FileName
	if rel, ok := strings.CutPrefix(file, sourceRoot+"/"); ok {
		file = rel
	}
	return fmt.Sprintf("%s:%d", file, l.LineNumber)
}

// Totals counts checks by state.
type Totals struct {
	Passed      int `json:"passed"`
	Failed      int `json:"failed"`     // failed and interrupted
	MustFailed  int `json:"mustFailed"` // failed checks of MUST rules: these decide conformance
	Known       int `json:"known"`      // failed, and listed in the baseline
	Skipped     int `json:"skipped"`    // selected, not run: never counted as passed
	Deselected  int `json:"deselected"` // left out by the run's filters
	MustRan     int `json:"mustRan"`    // MUST checks that ran to a verdict
	Interrupted int `json:"interrupted"`
	Errors      int `json:"errors"` // did not run: the subject did not start in time
}

// Count totals a list of checks.
func Count(checks []Check) Totals {
	var t Totals
	for _, c := range checks {
		switch c.State {
		case StatePassed:
			t.Passed++
		case StateFailed, StateInterrupted:
			t.Failed++
			if c.Must() {
				t.MustFailed++
			}
			if c.Known != "" {
				t.Known++
			}
			if c.State == StateInterrupted {
				t.Interrupted++
			}
		case StateDeselected:
			t.Deselected++
		case StateError:
			t.Errors++
		default:
			t.Skipped++
		}
		if c.Ran() && c.Must() {
			t.MustRan++
		}
	}
	return t
}

// ByArea groups checks by contract area, areas sorted as given, leaving
// out deselected checks.
func ByArea(checks []Check, order []string) []Area {
	index := map[string]int{}
	for i, a := range order {
		index[a] = i
	}
	groups := map[string]*Area{}
	for _, c := range checks {
		if c.State == StateDeselected {
			continue
		}
		g := groups[c.Area]
		if g == nil {
			g = &Area{Name: c.Area}
			groups[c.Area] = g
		}
		g.Checks = append(g.Checks, c)
	}
	out := make([]Area, 0, len(groups))
	for _, g := range groups {
		g.Totals = Count(g.Checks)
		out = append(out, *g)
	}
	sort.SliceStable(out, func(i, j int) bool {
		oi, iok := index[out[i].Name]
		oj, jok := index[out[j].Name]
		if iok != jok {
			return iok
		}
		if oi != oj {
			return oi < oj
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Area is the checks of one contract area.
type Area struct {
	Name   string
	Totals Totals
	Checks []Check
}

// StartUp is the one check of a run that could not start: the diagnosis of
// the subject's start as a failure, so that every report says why.
func StartUp(subject, role, diagnosis string) Check {
	does := map[string]string{"client": "sends", "relay": "relays"}[role]
	if does == "" {
		does = "answers"
	}
	return Check{
		Name:    "start-up: " + subject + " starts and " + does + " initialize",
		Area:    "start-up",
		Level:   "MUST",
		Role:    role,
		State:   StateFailed,
		Failure: elide.Head(diagnosis, MaxFailure),
	}
}

// NothingAsked is the one check of a run of an agent without a probe
// adapter that did not ask for a typed choice when given the run's
// prompt: skipped, with why.
func NothingAsked(subject, why string) Check {
	return Check{
		Name:       "start-up: " + subject + " asks a typed choice when given the --prompt",
		Area:       "start-up",
		Level:      "MUST",
		Role:       "agent",
		State:      StateSkipped,
		SkipReason: elide.Head(why, MaxFailure),
	}
}

// Decide settles the run's verdict and reason. It is the one place that
// does: interrupted when interruption is set (it says how); could not run
// when the run's verdict already says so; not conformant when a MUST check
// failed that the baseline does not list, or the run itself broke; could
// not run when a check did not run because its subject did not start;
// nothing checked when no MUST check ran; conformant otherwise, its
// reason counting the MUST rules no check reached ([Run.Unreached]). SHOULD
// failures never change it, and neither do the baseline's stale entries
// (a listed check that passes, an entry that names no check of the run):
// they are the baseline's to fix, not the subject's, so the reason of a
// conformant run counts them and [Run.ExitCode] fails the job for them
// with an exit code of their own. It marks the known failures and fills
// Problems and Stale.
func Decide(run *Run, b *Baseline, interruption string, broke bool) {
	v := b.Judge(run.Checks)
	known := map[string]string{}
	for _, k := range v.Known {
		known[k.Name] = k.Known
	}
	for i := range run.Checks {
		if r, ok := known[run.Checks[i].Name]; ok {
			run.Checks[i].Known = r
		}
	}
	run.Problems = v.Problems(b.File())
	run.Stale = len(v.Stale) + len(v.Unknown)
	if run.Verdict == CouldNotRun {
		run.Problems, run.Stale = nil, 0 // its one check says it all
	}
	if broke {
		run.Problems = append(run.Problems, ProblemBroke)
	}
	t := Count(run.Checks)
	newMust := 0
	for _, c := range v.New {
		if c.Must() {
			newMust++
		}
	}
	switch {
	case interruption != "":
		run.Verdict, run.Reason = Interrupted, interruption
	case run.Verdict == CouldNotRun:
	case run.Verdict == NothingChecked && run.Reason != "": // said already: the agent asked nothing
	case newMust > 0 || broke:
		run.Verdict = NotConformant
		run.Reason = fmt.Sprintf("%d MUST %s failed", newMust, plural(newMust, "check", "checks"))
		if newMust == 0 {
			run.Reason = ProblemBroke
		}
	case t.Errors > 0:
		run.Verdict, run.Reason = CouldNotRun, didNotStart(run.Checks, t)
	case t.MustRan == 0:
		run.Verdict, run.Reason = NothingChecked, nothingChecked(run.Checks, t)
	default:
		run.Verdict = Conformant
		passed := t.MustRan - t.MustFailed
		run.Reason = fmt.Sprintf("%d MUST %s passed", passed, plural(passed, "check", "checks"))
		if t.Known > 0 {
			run.Reason += fmt.Sprintf(", %d known %s in the baseline", t.Known, plural(t.Known, "failure", "failures"))
		}
		if run.Stale > 0 {
			run.Reason += fmt.Sprintf(", %d stale baseline %s to take off", run.Stale, plural(run.Stale, "entry", "entries"))
		}
		// What the verdict does not cover, so that a narrow run does not
		// pass for a wide one: the reports list each.
		if n := len(run.Unreached()); n > 0 {
			run.Reason += fmt.Sprintf(", %d MUST %s not reached", n, plural(n, "rule", "rules"))
		}
	}
}

// ExitCode is the process exit code of a settled run (see [Decide]): its
// verdict's, but ExitStaleBaseline for a conformant run whose baseline
// has stale entries, so that CI fails until they are taken off, without
// calling the subject what it is not.
func (r Run) ExitCode() int {
	if r.Verdict == Conformant && r.Stale > 0 {
		return ExitStaleBaseline
	}
	return r.Verdict.ExitCode()
}

// didNotStart says why a run with checks that could not run is never
// conformant: how many, and the first one's reason.
func didNotStart(checks []Check, t Totals) string {
	for _, c := range checks {
		if c.State == StateError {
			return fmt.Sprintf("%d %s could not run: %s", t.Errors, plural(t.Errors, "check", "checks"), elide.Head(firstLine(c.Failure), 300))
		}
	}
	return fmt.Sprintf("%d checks could not run", t.Errors)
}

// nothingChecked says why no MUST check ran.
func nothingChecked(checks []Check, t Totals) string {
	switch {
	case len(checks) == 0:
		return "the catalogue has no check for this subject"
	case t.Deselected == len(checks):
		return fmt.Sprintf("no check matches the selection (%d checks deselected)", t.Deselected)
	case t.Passed+t.Failed > 0:
		return "only SHOULD checks ran; no MUST check did"
	}
	reasons := map[string]int{}
	best := ""
	for _, c := range checks {
		if c.State == StateSkipped {
			reasons[c.SkipReason]++
			if reasons[c.SkipReason] > reasons[best] {
				best = c.SkipReason
			}
		}
	}
	return fmt.Sprintf("every selected check was skipped (%d): %s", t.Skipped, best)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.2fs", d.Seconds()) }

// StateDifferences compares two runs of one catalogue check by check, by
// ID and name, and says where their states differ, a line each: "TOK-2/x:
// passed, then failed". A check in one run only is a difference too.
func StateDifferences(a, b []Check) []string {
	key := func(c Check) string { return c.Key() + "\x00" + c.Name }
	states := map[string]string{}
	for _, c := range a {
		states[key(c)] = c.State
	}
	var diffs []string
	for _, c := range b {
		k := key(c)
		was, ok := states[k]
		delete(states, k)
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("%s: only in the second run (%s)", c.Key(), c.State))
		case was != c.State:
			diffs = append(diffs, fmt.Sprintf("%s: %s, then %s", c.Key(), was, c.State))
		}
	}
	for _, c := range a {
		if _, left := states[key(c)]; left {
			diffs = append(diffs, fmt.Sprintf("%s: only in the first run (%s)", c.Key(), c.State))
		}
	}
	return diffs
}
