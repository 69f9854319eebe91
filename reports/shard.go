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
// reports written before Shard existed read as whole runs. Its text is
// held to what a run keeps of its subject's (see bounded).
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
		case StatePassed, StateFailed, StateInterrupted, StateSkipped, StateDeselected:
		default:
			return Run{}, fmt.Errorf("check %d (%s): state %q is none of acpconform's", i+1, c.Key(), c.State)
		}
	}
	run := Run{
		Subject: j.Subject, Command: j.Command, Version: j.Version, Contract: j.Contract,
		Verdict: j.Verdict, Reason: j.Reason, Seconds: j.Seconds, Checks: j.Checks, Problems: j.Problems,
	}
	if j.Shard != nil {
		if err := j.Shard.valid(); err != nil {
			return Run{}, fmt.Errorf("shard: %w", err)
		}
		run.Shard = *j.Shard
	}
	return bounded(run), nil
}

// ShardRun is the run of one shard, and the file it was read from.
type ShardRun struct {
	File string
	Run  Run
}

// Merge combines the runs of every shard of one run into the run they
// are together, for Decide to settle: each check takes its state from the
// shard that selected it, and a check no shard selected stays deselected.
// A shard that could not run makes the whole run so, with that shard's
// start-up check as its one check; interruption says which shard was
// interrupted, for Decide. The shards must be all of one Count, each
// index once, of the same subject, command, acpconform version and
// contract revision; an error names the file and what differs.
func Merge(shards []ShardRun) (run Run, interruption string, err error) {
	if len(shards) == 0 {
		return Run{}, "", errors.New("no report to merge")
	}
	for _, s := range shards {
		if s.Run.Shard.Count == 0 {
			return Run{}, "", fmt.Errorf("%s: not the report of a shard (one written with --shard)", s.File)
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

	run = Run{Subject: first.Run.Subject, Command: first.Run.Command, Version: first.Run.Version, Contract: first.Run.Contract}
	for _, s := range ordered {
		run.Seconds = max(run.Seconds, s.Run.Seconds) // the shards ran side by side
	}
	for _, s := range ordered {
		if s.Run.Verdict == CouldNotRun {
			run.Verdict = CouldNotRun
			run.Reason = fmt.Sprintf("shard %d of %d: %s", s.Run.Shard.Index, n, s.Run.Reason)
			run.Checks = slices.Clone(s.Run.Checks)
			return run, "", nil
		}
	}
	var from []*ShardRun // the shard each merged check came from
	for _, s := range ordered {
		if s.Run.Verdict == Interrupted && interruption == "" {
			interruption = fmt.Sprintf("shard %d of %d: %s", s.Run.Shard.Index, n, s.Run.Reason)
		}
		if slices.Contains(s.Run.Problems, ProblemBroke) {
			run.Problems = append(run.Problems, ProblemBroke)
		}
		if len(s.Run.Checks) == 0 {
			continue // interrupted while its subject started
		}
		if run.Checks == nil {
			run.Checks = slices.Clone(s.Run.Checks)
			from = make([]*ShardRun, len(run.Checks))
			for i := range from {
				from[i] = s
			}
			continue
		}
		if len(s.Run.Checks) != len(run.Checks) {
			return Run{}, "", fmt.Errorf("%s: %d checks, and %s has %d: shards of one run list the same catalogue", s.File, len(s.Run.Checks), from[0].File, len(run.Checks))
		}
		for i, c := range s.Run.Checks {
			m := &run.Checks[i]
			if c.ID != m.ID || c.Name != m.Name {
				return Run{}, "", fmt.Errorf("%s: check %d is %s, and in %s it is %s: shards of one run list the same catalogue", s.File, i+1, c.Key(), from[i].File, m.Key())
			}
			switch {
			case c.State == StateDeselected:
			case m.State != StateDeselected:
				return Run{}, "", fmt.Errorf("%s and %s both ran %s: shards of one run share its checks, so run them with the same selection", from[i].File, s.File, c.Key())
			default:
				*m, from[i] = c, s
			}
		}
	}
	for i := range run.Checks {
		run.Checks[i].Known = "" // the merge's own baseline judges them
	}
	return run, interruption, nil
}

// sameRun reports how shard s is not a part of the same run as first.
func sameRun(first, s ShardRun) error {
	a, b := first.Run, s.Run
	for _, f := range []struct{ what, a, b string }{
		{"shards", strconv.Itoa(a.Shard.Count), strconv.Itoa(b.Shard.Count)},
		{"subject", a.Subject, b.Subject},
		{"command", a.Command, b.Command},
		{"acpconform version", a.Version, b.Version},
		{"contract revision", a.Contract, b.Contract},
	} {
		if f.a != f.b {
			return fmt.Errorf("%s: %s %q, and %s has %q: merge takes the shards of one run", s.File, f.what, f.b, first.File, f.a)
		}
	}
	return nil
}
