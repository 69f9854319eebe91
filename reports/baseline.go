package reports

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Baseline lists known failures, each with its reason, so that a pull
// request fails only on new ones. Like connect-conformance's known-failing
// lists, it goes stale loudly: a listed check that passes fails the run, and
// so does an entry that names no check.
//
//	# acpconform baseline: known failures of my-agent
//	known:
//	  - check: "TOK: reading the answer refuses ... a leading zero"
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

// yamlLine is the decoder's "line N: " in front of a reason.
var yamlLine = regexp.MustCompile(`^line (\d+): `)

// LoadBaseline reads a baseline file, reporting every problem with file,
// line and reason.
func LoadBaseline(path string) (*Baseline, error) {
	data, err := os.ReadFile(path)
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
	Known   []Check // failed, listed
	Stale   []Known // listed, but the check passed
	Unknown []Known // listed, but no such check ran or was skipped
}

// Judge compares checks with the baseline; a nil baseline knows nothing.
func (b *Baseline) Judge(checks []Check) Judgement {
	var v Judgement
	listed := map[string]bool{}
	if b != nil {
		for _, k := range b.Known {
			listed[k.Check] = true
		}
	}
	state := map[string]string{}
	for _, c := range checks {
		state[c.Name] = c.State
		switch {
		case c.Failed() && listed[c.Name]:
			v.Known = append(v.Known, c)
		case c.Failed():
			v.New = append(v.New, c)
		}
	}
	if b != nil {
		for _, k := range b.Known {
			switch st, ok := state[k.Check]; {
			case !ok:
				v.Unknown = append(v.Unknown, k)
			case st == "passed":
				v.Stale = append(v.Stale, k)
			}
		}
	}
	return v
}

// Problems describes what fails the run: new MUST failures, stale and
// unknown entries. SHOULD failures never fail it.
func (v Judgement) Problems(file string) []string {
	var out []string
	for _, c := range v.New {
		if c.Must() {
			out = append(out, fmt.Sprintf("new failure: %s %s", strings.Join(c.Rules, " "), c.Name))
		}
	}
	for _, k := range v.Stale {
		out = append(out, fmt.Sprintf("%s:%d: stale: %q passes now; take it off the baseline", file, k.line, k.Check))
	}
	for _, k := range v.Unknown {
		out = append(out, fmt.Sprintf("%s:%d: %q names no check of this run", file, k.line, k.Check))
	}
	return out
}

// reason is the baseline's reason for a known failure of check.
func (b *Baseline) reason(check string) string {
	for _, k := range b.Known {
		if k.Check == check {
			return k.Reason
		}
	}
	return ""
}

// File is where the baseline was read from; "" for none.
func (b *Baseline) File() string {
	if b == nil {
		return ""
	}
	return b.file
}

// WriteBaseline writes the failures among checks as a baseline, each with
// a reason to fill in.
func WriteBaseline(path, subject string, checks []Check) error {
	var b Baseline
	for _, c := range checks {
		if c.State == StateFailed {
			b.Known = append(b.Known, Known{Check: c.Name, Reason: "TODO: say why " + strings.Join(c.Rules, " ") + " fails"})
		}
	}
	sort.Slice(b.Known, func(i, j int) bool { return b.Known[i].Check < b.Known[j].Check })
	out, err := yaml.Marshal(b)
	if err != nil {
		return err
	}
	header := fmt.Sprintf("# acpconform baseline: known failures of %s.\n# Give each a reason; a listed check that passes fails the run until removed.\n", subject)
	if len(b.Known) == 0 {
		out = []byte("known: []\n")
	}
	return os.WriteFile(path, append([]byte(header), out...), 0o644)
}
