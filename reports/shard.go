package reports

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// MaxShards bounds the number of shards a run is split into: more would
// leave most shards a check or two, each paying for the subject's start.
const MaxShards = 64

// Shard is part Index (from 1) of a run split into Count parts, each run
// on its own machine; the zero Shard is a whole run.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// ParseShard reads a shard as written on the command line: 2/4.
func ParseShard(s string) (Shard, error) {
	i, n, ok := strings.Cut(strings.TrimSpace(s), "/")
	index, ierr := strconv.Atoi(i)
	count, nerr := strconv.Atoi(n)
	if !ok || ierr != nil || nerr != nil {
		return Shard{}, fmt.Errorf("%q is not a shard such as 2/4 (the second of four)", s)
	}
	sh := Shard{Index: index, Count: count}
	return sh, sh.valid()
}

func (s Shard) valid() error {
	switch {
	case s.Count < 1 || s.Count > MaxShards:
		return fmt.Errorf("%d shards: the count is from 1 to %d", s.Count, MaxShards)
	case s.Index < 1 || s.Index > s.Count:
		return fmt.Errorf("shard %d of %d: the index is from 1 to the count", s.Index, s.Count)
	}
	return nil
}

// String is the shard as the command line takes it: 2/4.
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// ShardNote is " (shard 2 of 4)" for a shard's run, "" for a whole run:
// said after its headline.
func (r Run) ShardNote() string {
	if r.Shard.Count == 0 {
		return ""
	}
	return fmt.Sprintf(" (shard %d of %d)", r.Shard.Index, r.Shard.Count)
}

// ProblemBroke is the problem Decide records for a run that did not
// complete, such as a suite node that failed outside every check.
const ProblemBroke = "the run itself did not complete"

// ReadJSON reads a JSON report as WriteJSON writes it, of this format;
// reports written before Shard existed read as whole runs, and those
// written before Selection with none. Its text is held to what a run
// keeps of its subject's (see bounded).
func ReadJSON(r io.Reader) (Run, error) {
	var j JSON
	dec := json.NewDecoder(r)
	if err := dec.Decode(&j); err != nil {
		var syntax *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.Is(err, io.EOF):
			return Run{}, errors.New("empty, not a JSON report")
		case errors.Is(err, io.ErrUnexpectedEOF):
			return Run{}, errors.New("truncated: the JSON ends early")
		case errors.As(err, &syntax):
			return Run{}, fmt.Errorf("not JSON: %w", err)
		case errors.As(err, &typ):
			return Run{}, fmt.Errorf("not an acpconform JSON report: %w", err)
		}
		return Run{}, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Run{}, errors.New("not one JSON report: more follows it")
	}
	switch {
	case j.Acpconform == 0:
		return Run{}, errors.New(`not an acpconform JSON report: it has no "acpconform" format`)
	case j.Acpconform != FormatVersion:
		return Run{}, fmt.Errorf("a JSON report of format %d; this acpconform reads format %d", j.Acpconform, FormatVersion)
	}
	switch j.Verdict {
	case Conformant, NotConformant, CouldNotRun, NothingChecked, Interrupted:
	default:
		return Run{}, fmt.Errorf("verdict %q is none of acpconform's", j.Verdict)
	}
	for i, c := range j.Checks {
		switch c.State {
		case StatePassed, StateFailed, StateInterrupted, StateError, StateSkipped, StateDeselected:
		default:
			return Run{}, fmt.Errorf("check %d (%s): state %q is none of acpconform's", i+1, c.Key(), c.State)
		}
	}
	run := Run{
		Subject: j.Subject, Command: j.Command, Version: j.Version, Commit: j.Commit, Modified: j.Modified, Contract: j.Contract, Schema: j.Schema, Rules: j.Rules,
		Verdict: j.Verdict, Reason: j.Reason, Seconds: j.Seconds, Checks: j.Checks, Problems: j.Problems,
	}
	if j.Selection != nil {
		run.Selection = *j.Selection
	}
	if j.Dealt != nil {
		run.Dealt = append([]string{}, *j.Dealt...) // never nil: dealt, if none
	}
	if j.Shard != nil {
		if err := j.Shard.valid(); err != nil {
			return Run{}, fmt.Errorf("shard: %w", err)
		}
		run.Shard = *j.Shard
	}
	return bounded(run), nil
}

// Selection is what a run of the catalogue selected: the catalogue it
// ran and the label filter over it. The shards of one run have one, and
// merge deals their shares again from it.
type Selection struct {
	// Catalogue is the command whose catalogue ran: run (every role,
	// against the reference peers), agent, client or relay.
	Catalogue string `json:"catalogue"`
	// Filter is the Ginkgo label filter the run's --check, --id and
	// --label-filter make, with the command's own (run's scope, agent
	// --no-probe's wire-only), before a shard's share narrows it; ""
	// selects every check.
	Filter string `json:"filter"`
}

// ShardRun is the run of one shard, and the file it was read from.
type ShardRun struct {
	File string
	Run  Run
}

// Expect is what merge knows of a shard on its own, from its own
// catalogue: the checks a run of sel lists, in order (their ID, name,
// area, role, level and rules), and the IDs of those it deals to shard.
// Its error says why it knows no such selection.
type Expect func(sel Selection, shard Shard) (checks []Check, dealt []string, err error)

// Merge combines the runs of every shard of one run into the run they
// are together, for Decide to settle: each check takes its state from the
// shard it was dealt to, and a check no shard was dealt stays deselected.
// A shard that could not run makes the whole run so, with that shard's
// checks; one that was nothing checked before it ran its share makes it
// nothing checked; interruption says which shard was interrupted, for
// Decide.
//
// The shards must be all of one Count, each index once, of the same
// subject, command, acpconform version, contract revision and selection.
// Each must have been dealt what expect deals it, list the checks of
// expect's catalogue, no other and none relabelled, and have run every
// check dealt to it and no other, unless it could not run, was
// interrupted or was nothing checked: an error names the file and what
// is wrong.
func Merge(shards []ShardRun, expect Expect) (run Run, interruption string, err error) {
	if len(shards) == 0 {
		return Run{}, "", errors.New("no report to merge")
	}
	for _, s := range shards {
		switch {
		case s.Run.Shard.Count == 0:
			return Run{}, "", fmt.Errorf("%s: not the report of a shard (one written with --shard)", s.File)
		case s.Run.Selection.Catalogue == "":
			return Run{}, "", fmt.Errorf("%s: a shard's report without its selection and dealt checks, from an acpconform older than this merge: run the shards again with this one", s.File)
		}
	}
	first := shards[0]
	n := first.Run.Shard.Count
	byIndex := make([]*ShardRun, n+1)
	for i := range shards {
		s := &shards[i]
		if err := sameRun(first, *s); err != nil {
			return Run{}, "", err
		}
		if d := byIndex[s.Run.Shard.Index]; d != nil {
			return Run{}, "", fmt.Errorf("%s: shard %d of %d, and so is %s", s.File, s.Run.Shard.Index, n, d.File)
		}
		byIndex[s.Run.Shard.Index] = s
	}
	var missing []string
	for i := 1; i <= n; i++ {
		if byIndex[i] == nil {
			missing = append(missing, strconv.Itoa(i))
		}
	}
	switch {
	case len(missing) == 1:
		return Run{}, "", fmt.Errorf("shard %s of %d is missing", missing[0], n)
	case len(missing) > 1:
		return Run{}, "", fmt.Errorf("shards %s and %s of %d are missing", strings.Join(missing[:len(missing)-1], ", "), missing[len(missing)-1], n)
	}
	ordered := byIndex[1:]
	complete := make([]bool, len(ordered)) // each shard ran all its share
	for i, s := range ordered {
		want, dealt, err := expect(s.Run.Selection, s.Run.Shard)
		if err != nil {
			return Run{}, "", fmt.Errorf("%s: %w", s.File, err)
		}
		if complete[i], err = checkShare(*s, want, dealt); err != nil {
			return Run{}, "", err
		}
	}

	run = Run{Subject: first.Run.Subject, Command: first.Run.Command, Version: first.Run.Version, Commit: first.Run.Commit, Modified: first.Run.Modified, Contract: first.Run.Contract, Schema: first.Run.Schema, Rules: first.Run.Rules, Selection: first.Run.Selection}
	for _, s := range ordered {
		run.Seconds = max(run.Seconds, s.Run.Seconds) // the shards ran side by side
		if s.Run.Verdict == Interrupted && interruption == "" {
			interruption = fmt.Sprintf("shard %d of %d: %s", s.Run.Shard.Index, n, s.Run.Reason)
		}
		if slices.Contains(s.Run.Problems, ProblemBroke) {
			run.Problems = append(run.Problems, ProblemBroke)
		}
	}
	for _, s := range ordered {
		if s.Run.Verdict == CouldNotRun {
			run.Verdict = CouldNotRun
			run.Reason = fmt.Sprintf("shard %d of %d: %s", s.Run.Shard.Index, n, s.Run.Reason)
			run.Checks = slices.Clone(s.Run.Checks)
			return run, "", nil
		}
	}
	for i, s := range ordered {
		if s.Run.Verdict == NothingChecked && !complete[i] { // such as an agent that asked nothing
			run.Verdict = NothingChecked
			run.Reason = fmt.Sprintf("shard %d of %d: %s", s.Run.Shard.Index, n, s.Run.Reason)
			run.Checks = slices.Clone(s.Run.Checks)
			return run, interruption, nil
		}
	}
	for _, s := range ordered {
		if !ranCatalogue(s.Run) {
			continue // interrupted while its subject started
		}
		if run.Checks == nil {
			run.Checks = slices.Clone(s.Run.Checks)
			continue
		}
		for i, c := range s.Run.Checks { // checkShare: one shard ran each
			if c.State != StateDeselected {
				run.Checks[i] = c
			}
		}
	}
	catalogue := run.Selection.Catalogue
	for i := range run.Checks {
		c := &run.Checks[i]
		c.Known = "" // the merge's own baseline judges them
		c.Again = ""
		if c.State != StateDeselected {
			c.Again = againOf(catalogue, run.Command, c.ID) // never a shard's own text (again.go)
		}
	}
	return run, interruption, nil
}

// ranCatalogue reports whether r ran its catalogue: checks were dealt to
// it, or it lists checks of the catalogue. A shard that could not run, or
// was interrupted, while its subject started did not.
func ranCatalogue(r Run) bool {
	return r.Dealt != nil || slices.ContainsFunc(r.Checks, func(c Check) bool { return c.ID != "" })
}

// checkShare reports how shard s did not run the share merge deals it:
// want is the checks of its catalogue, dealt the IDs of its share.
// complete says it ran every check dealt to it; a shard that could not
// run, was interrupted or was nothing checked may not have, and its
// verdict is the merged run's.
func checkShare(s ShardRun, want []Check, dealt []string) (complete bool, err error) {
	r := s.Run
	of := fmt.Sprintf("shard %d of %d", r.Shard.Index, r.Shard.Count)
	stoppedShort := r.Verdict == CouldNotRun || r.Verdict == Interrupted || r.Verdict == NothingChecked
	if !ranCatalogue(r) {
		if !stoppedShort {
			return false, fmt.Errorf("%s: %s, %s, yet it lists none of the %d checks dealt to it: a shard reports each check of its share", s.File, of, r.Verdict, len(dealt))
		}
		return len(dealt) == 0, nil
	}
	if r.Dealt == nil {
		return false, fmt.Errorf("%s: %s lists checks, but not the IDs of those dealt to it", s.File, of)
	}
	if !slices.Equal(r.Dealt, dealt) {
		return false, fmt.Errorf("%s: %s was dealt %s, and merge deals it %s from its own catalogue and the shard's selection", s.File, of, idList(r.Dealt), idList(dealt))
	}
	if len(r.Checks) == len(want) { // else said below, after a missing check of its share
		for i, c := range r.Checks {
			if err := sameCheck(c, want[i]); err != nil {
				return false, fmt.Errorf("%s: check %d: %w", s.File, i+1, err)
			}
		}
	}
	mine := map[string]bool{}
	for _, id := range dealt {
		mine[id] = true
	}
	ran := map[string]bool{}
	for _, c := range r.Checks {
		if c.State != StateDeselected {
			ran[c.ID] = true
		}
	}
	complete = true
	for _, id := range dealt {
		if !ran[id] {
			if !stoppedShort {
				return false, fmt.Errorf("%s: %s was dealt %s and does not report it run (it is missing, or deselected): a shard reports each check of its share", s.File, of, id)
			}
			complete = false
		}
	}
	if len(r.Checks) != len(want) {
		return false, fmt.Errorf("%s: %d checks, and merge's own catalogue has %d for this selection", s.File, len(r.Checks), len(want))
	}
	for _, c := range r.Checks {
		if c.State != StateDeselected && !mine[c.ID] {
			return false, fmt.Errorf("%s: %s reports %q %s, which was not dealt to it: another shard's, or none selected it", s.File, of, c.ID, c.State)
		}
	}
	return complete, nil
}

// sameCheck reports how got, a shard's check, is not want, the check of
// merge's own catalogue in its place. A check that failed SES-1 cites
// SES-1 as well, a MUST whatever its own level.
func sameCheck(got, want Check) error {
	switch {
	case got.ID != want.ID:
		return fmt.Errorf("%q, and merge's own catalogue has %s there: a check of no catalogue, or of another acpconform", got.ID, want.ID)
	case got.Name != want.Name || got.Area != want.Area || got.Role != want.Role:
		return fmt.Errorf("%s is %q (area %q, role %q), and merge's own catalogue has %q (area %s, role %s)", want.ID, got.Name, got.Area, got.Role, want.Name, want.Area, want.Role)
	}
	ses1 := append(slices.Clone(want.Rules), "SES-1")
	switch {
	case slices.Equal(got.Rules, want.Rules) && got.Level == want.Level:
	case slices.Equal(got.Rules, ses1) && got.Level == "MUST" && !slices.Contains(want.Rules, "SES-1"):
	default:
		return fmt.Errorf("%s cites %q at level %q, and merge's own catalogue %s at %s", want.ID, got.Rules, got.Level, strings.Join(want.Rules, ", "), want.Level)
	}
	return nil
}

// idList says a list of check IDs, bounded.
func idList(ids []string) string {
	switch {
	case len(ids) == 0:
		return "no check"
	case len(ids) > 5:
		return fmt.Sprintf("%q and %d more", ids[:5], len(ids)-5)
	}
	return fmt.Sprintf("%q", ids)
}

// commitOf is the commit of the acpconform that made r, as sameRun
// compares them: a build from changed files is another build.
func commitOf(r Run) string {
	if r.Modified {
		return r.Commit + " (modified)"
	}
	return r.Commit
}

// sameRun reports how shard s is not a part of the same run as first.
func sameRun(first, s ShardRun) error {
	a, b := first.Run, s.Run
	for _, f := range []struct{ what, a, b string }{
		{"shards", strconv.Itoa(a.Shard.Count), strconv.Itoa(b.Shard.Count)},
		{"subject", a.Subject, b.Subject},
		{"command", a.Command, b.Command},
		{"acpconform version", a.Version, b.Version},
		{"acpconform commit", commitOf(a), commitOf(b)},
		{"contract revision", a.Contract, b.Contract},
		{"ACP schema", a.Schema, b.Schema},
		{"catalogue", a.Selection.Catalogue, b.Selection.Catalogue},
		{"selection", a.Selection.Filter, b.Selection.Filter},
	} {
		if f.a == f.b {
			continue
		}
		of := "merge takes the shards of one run"
		if f.what == "selection" {
			of += ", each run with the same --check, --id, --label-filter and --no-probe"
		}
		return fmt.Errorf("%s: %s %q, and %s has %q: %s", s.File, f.what, f.b, first.File, f.a, of)
	}
	return nil
}
