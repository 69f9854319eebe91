package reports

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/acpconform/acpconform/internal/elide"
	"github.com/acpconform/acpconform/internal/inputfile"
)

// Baseline lists known failures, each with its reason, so that a pull
// request fails only on new ones. Like connect-conformance's known-failing
// lists, it goes stale loudly: a listed check that passes fails the job,
// and so does an entry that names no check; the verdict stays the
// subject's (see [Run.ExitCode]).
//
//	# acpconform baseline: known failures of my-agent
//	known:
//	  - check: TOK-2/leading-zero
//	    reason: "we accept choice_01 until 2.0 (issue 123)"
type Baseline struct {
	Known []Known `yaml:"known"`
	file  string
}

// Known is one known failure.
type Known struct {
	Check  string `yaml:"check"`
	Reason string `yaml:"reason"`
	line   int
}

// todo starts the reason --write-baseline writes for a failure the
// baseline did not know: LoadBaseline refuses it until someone says why
// the check may fail, so that a baseline is never a list of failures
// nobody looked at.
const todo = "TODO:"

// yamlLine is the decoder's "line N: " in front of a reason.
var yamlLine = regexp.MustCompile(`^line (\d+): `)

// maxBaseline bounds a baseline file: a list of check IDs with reasons,
// far smaller than this.
const maxBaseline = 16 << 20

// LoadBaseline reads a baseline file (a regular file of at most
// maxBaseline bytes, never waiting on a FIFO), reporting every problem with file,
// line and reason: an entry without a check or a reason, a check listed
// twice, and a reason still "TODO: ...", as --write-baseline writes it.
func LoadBaseline(path string) (*Baseline, error) {
	data, err := inputfile.Read(path, maxBaseline)
	if err != nil {
		return nil, err
	}
	var b Baseline
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&b); err != nil && !errors.Is(err, io.EOF) {
		// One line, file:line first, whatever the decoder quoted.
		msg := strings.Join(strings.Fields(strings.TrimPrefix(err.Error(), "yaml: ")), " ")
		if m := yamlLine.FindStringSubmatch(msg); m != nil {
			return nil, fmt.Errorf("%s:%s: not a baseline: %s", path, m[1], msg[len(m[0]):])
		}
		return nil, fmt.Errorf("%s: not a baseline: %s", path, msg)
	}
	b.file = path
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) == nil && len(doc.Content) > 0 {
		for i := 0; i+1 < len(doc.Content[0].Content); i += 2 {
			if k := doc.Content[0].Content[i]; k.Value == "known" {
				for j, item := range doc.Content[0].Content[i+1].Content {
					if j < len(b.Known) {
						b.Known[j].line = item.Line
					}
				}
			}
		}
	}
	var errs []error
	seen := map[string]int{}
	for _, k := range b.Known {
		switch {
		case strings.TrimSpace(k.Check) == "":
			errs = append(errs, fmt.Errorf("%s:%d: an entry without a check", path, k.line))
		case strings.TrimSpace(k.Reason) == "":
			errs = append(errs, fmt.Errorf("%s:%d: %q has no reason: say why it is allowed to fail", path, k.line, k.Check))
		case strings.HasPrefix(strings.TrimSpace(k.Reason), todo):
			errs = append(errs, fmt.Errorf("%s:%d: %q has the reason --write-baseline left to replace, %q: say why it is allowed to fail", path, k.line, k.Check, elide.Head(k.Reason, 200)))
		case seen[k.Check] > 0:
			errs = append(errs, fmt.Errorf("%s:%d: %q is listed already on line %d", path, k.line, k.Check, seen[k.Check]))
		}
		seen[k.Check] = k.line
	}
	return &b, errors.Join(errs...)
}

// Judgement is what a run's checks mean against a baseline.
type Judgement struct {
	New     []Check // failed, not listed: these fail a pull request
	Known   []Check // failed, listed: each with its entry's reason in Known
	Stale   []Known // listed, but the check passed
	Unknown []Known // listed, but no such check ran or was skipped
	// Renamed lists entries that name a check by its full name, as
	// baselines did before checks had IDs: they still count, and say so.
	Renamed []Renamed
}

// Renamed is a baseline entry that names its check by name, not ID.
type Renamed struct {
	Known
	ID string // what the entry should say
}

// Judge compares checks with the baseline; a nil baseline knows nothing.
// An entry names a check by its ID (TOK-2/leading-zero) or, as older
// baselines do, by its full name.
func (b *Baseline) Judge(checks []Check) Judgement {
	var v Judgement
	entry, byName := map[string]Known{}, map[string]Known{}
	if b != nil {
		for _, k := range b.Known {
			entry[k.Check] = k
			byName[spacedName(k.Check)] = k
		}
	}
	matched := map[string]string{} // entry -> the state of its check
	for _, c := range checks {
		k, listed := entry[c.Key()]
		if !listed {
			k, listed = byName[spacedName(c.Name)]
			if listed && c.ID != "" {
				v.Renamed = append(v.Renamed, Renamed{Known: k, ID: c.ID})
			}
		}
		if listed {
			matched[k.Check] = c.State
		}
		switch {
		case c.Failed() && listed:
			c.Known = k.Reason
			v.Known = append(v.Known, c)
		case c.Failed():
			v.New = append(v.New, c)
		}
	}
	if b != nil {
		for _, k := range b.Known {
			switch st, ok := matched[k.Check]; {
			case !ok:
				v.Unknown = append(v.Unknown, k)
			case st == StatePassed:
				v.Stale = append(v.Stale, k)
			}
		}
	}
	return v
}

// Migration says, in one line, which entries name their checks by the old
// full names and what to write instead; "" when none does.
func (v Judgement) Migration(file string) string {
	if len(v.Renamed) == 0 {
		return ""
	}
	var ids []string
	for _, r := range v.Renamed {
		ids = append(ids, fmt.Sprintf("line %d: %s", r.line, r.ID))
	}
	return fmt.Sprintf("%s: %d %s the check by its full name, which still works; name %s by ID instead (%s), or write a new baseline with --write-baseline",
		file, len(v.Renamed), plural(len(v.Renamed), "entry names", "entries name"), plural(len(v.Renamed), "it", "them"), strings.Join(ids, ", "))
}

// Problems describes what is wrong, a line each: new MUST failures, which
// are the subject's, then stale and unknown entries, which are the
// baseline's (see [Decide]). SHOULD failures are never a problem.
func (v Judgement) Problems(file string) []string {
	var out []string
	for _, c := range v.New {
		if c.Must() {
			out = append(out, "new failure: "+c.Heading(""))
		}
	}
	for _, k := range v.Stale {
		out = append(out, fmt.Sprintf("%s:%d: stale: %s passes now; take it off the baseline", file, k.line, k.Check))
	}
	for _, k := range v.Unknown {
		out = append(out, fmt.Sprintf("%s:%d: %s names no check of this run", file, k.line, k.Check))
	}
	return out
}

// spacedName is a check's full name as baselines wrote it before a colon
// ended each of its containers' texts ([Name]): "SCH: what ask_choice
// sends: sends one form" and "SCH: what ask_choice sends sends one form"
// are one check's. Both become "SCH what ask_choice sends sends one form".
func spacedName(name string) string { return strings.ReplaceAll(name, ": ", " ") }

// File is where the baseline was read from; "" for none.
func (b *Baseline) File() string {
	if b == nil {
		return ""
	}
	return b.file
}

// WriteBaseline writes the failures among checks as a baseline, keyed by
// check ID with the check's title as a comment: a known failure with its
// reason (Check.Known), a new one with a reason to replace ("TODO: ...",
// which LoadBaseline refuses until it is).
func WriteBaseline(path, subject string, checks []Check) error {
	var failed []Check
	for _, c := range checks {
		if c.State == StateFailed {
			failed = append(failed, c)
		}
	}
	sort.Slice(failed, func(i, j int) bool { return failed[i].Key() < failed[j].Key() })
	list := &yaml.Node{Kind: yaml.SequenceNode}
	for _, c := range failed {
		item := &yaml.Node{Kind: yaml.MappingNode, HeadComment: c.Name}
		reason := c.Known
		if reason == "" {
			reason = todo + " say why " + strings.Join(c.Rules, " ") + " fails"
		}
		for _, kv := range [][2]string{{"check", c.Key()}, {"reason", reason}} {
			item.Content = append(item.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: kv[0]}, &yaml.Node{Kind: yaml.ScalarNode, Value: kv[1]})
		}
		list.Content = append(list.Content, item)
	}
	if len(failed) == 0 {
		list.Style = yaml.FlowStyle
	}
	doc := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: "known"}, list}}
	out, err := yaml.Marshal(doc)
	if err != nil {
		return err
	}
	header := fmt.Sprintf("# acpconform baseline: known failures of %s.\n# Replace each TODO with why the check may fail: acpconform refuses a\n# baseline with a TODO left. A listed check that passes fails the job\n# (exit 7) until it is taken off.\n", subject)
	return WriteFile(path, func(w io.Writer) error {
		_, err := io.WriteString(w, header+string(out))
		return err
	})
}
