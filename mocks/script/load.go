package script

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/acpconform/acpconform/reference"
)

// Load reads and validates the script file at path, YAML or JSON.
func Load(path string) (*Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse reads and validates a script; file names it in errors. JSON is read
// as the YAML it also is. Unknown fields are errors, and every error names
// file and line: "file:7: unknown field answr".
func Parse(file string, data []byte) (*Script, error) {
	var s Script
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil {
		return nil, yamlError(file, data, err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err == nil && len(doc.Content) > 0 {
		setLines(doc.Content[0], s.Steps)
		keepNulls(doc.Content[0], &s)
	}
	s.File = file
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

var lineRef = regexp.MustCompile(`^line (\d+): `)

// yamlError rewrites the decoder's errors as "file:line: reason", one a line.
// An error the decoder gives without a line is placed where its cause is
// found in data, or at the end of the file, where the decoder stopped.
func yamlError(file string, data []byte, err error) error {
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("%s:1: the file holds no script", file)
	}
	var te *yaml.TypeError
	msgs := []string{strings.TrimPrefix(err.Error(), "yaml: ")}
	if errors.As(err, &te) {
		msgs = te.Errors
	}
	var errs []error
	for _, m := range msgs {
		m = strings.Join(strings.Fields(m), " ") // one line, whatever the decoder quoted
		line := ""
		if loc := lineRef.FindStringSubmatch(m); loc != nil {
			line, m = loc[1], m[len(loc[0]):]
		} else {
			line = strconv.Itoa(lineOf(data, m))
		}
		errs = append(errs, fmt.Errorf("%s:%s: %s", file, line, clean(m)))
	}
	return errors.Join(errs...)
}

// lineOf finds the line of data a decoder error without a line is about.
func lineOf(data []byte, msg string) int {
	at := len(data) // by default the end: where the decoder gave up
	switch {
	case strings.Contains(msg, "control characters") || strings.Contains(msg, "invalid") || strings.Contains(msg, "UTF"):
		for i, r := range string(data) {
			if r == utf8.RuneError || (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || r == 0x7f {
				at = i
				break
			}
		}
	case strings.HasPrefix(msg, "unknown anchor '"):
		name, _, _ := strings.Cut(strings.TrimPrefix(msg, "unknown anchor '"), "'")
		if i := bytes.Index(data, []byte("*"+name)); i >= 0 {
			at = i
		}
	}
	line := 1 + bytes.Count(data[:at], []byte("\n"))
	if at == len(data) && at > 0 && data[at-1] == '\n' {
		line-- // the end of the last line, not the empty one after it
	}
	return line
}

// clean shortens the decoder's Go-flavoured wording.
func clean(m string) string {
	m = lineRef.ReplaceAllString(m, "")
	if f, t, ok := strings.Cut(m, " not found in type "); ok {
		return fmt.Sprintf("unknown %s in %s", f, strings.TrimPrefix(t, "script."))
	}
	return m
}

// setLines records each step's line from the document's node tree.
func setLines(top *yaml.Node, steps []Step) {
	if seq := child(top, "steps"); seq != nil && seq.Kind == yaml.SequenceNode {
		for j, item := range seq.Content {
			if j < len(steps) {
				steps[j].Line = item.Line
			}
		}
	}
}

// keepNulls sets the JSON fields written as null to JSON null: the decoder
// skips null values, which would otherwise read as absent.
func keepNulls(top *yaml.Node, s *Script) {
	null := JSON("null")
	set := func(n *yaml.Node, key string, field *JSON) {
		if v := child(n, key); v != nil && v.Tag == "!!null" {
			*field = null
		}
	}
	set(top, "capabilities", &s.Capabilities)
	seq := child(top, "steps")
	if seq == nil {
		return
	}
	for i, item := range seq.Content {
		if i >= len(s.Steps) {
			break
		}
		st := &s.Steps[i]
		if st.Initialize != nil {
			set(child(item, "initialize"), "capabilities", &st.Initialize.Capabilities)
		}
		if e := st.Elicitation; e != nil {
			n := child(item, "elicitation")
			a := child(n, "answer")
			set(a, "choice", &e.Answer.Choice)
			set(a, "content", &e.Answer.Content)
			set(a, "result", &e.Answer.Result)
			if e.Answer.Error != nil {
				set(child(a, "error"), "data", &e.Answer.Error.Data)
			}
			if e.Expect != nil {
				set(child(n, "expect"), "params", &e.Expect.Params)
			}
		}
		if e := st.Elicit; e != nil {
			set(child(item, "elicit"), "params", &e.Params)
			set(child(item, "elicit"), "form", &e.Form)
		}
	}
}

// child is the value of key in a mapping node, or nil.
func child(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

var (
	kebab  = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	ruleID = regexp.MustCompile(`^[A-Z]{2,3}-\d+$`)
)

// Validate checks what decoding cannot: names, one action per step, steps
// that fit the peer, answers that make sense. It returns every problem.
func (s *Script) Validate() error {
	var errs []error
	at := func(line int, format string, args ...any) {
		loc := s.File
		if line > 0 {
			loc = fmt.Sprintf("%s:%d", s.File, line)
		}
		errs = append(errs, fmt.Errorf("%s: %s", loc, fmt.Sprintf(format, args...)))
	}
	if !kebab.MatchString(s.Name) {
		at(0, "name %q is not kebab-case (like accept-second-choice)", s.Name)
	}
	for _, r := range s.Rules {
		if !ruleID.MatchString(r) {
			at(0, "rule %q is not a CONTRACT ID (like TOK-2)", r)
		}
	}
	if s.Peer != Client && s.Peer != Agent {
		at(0, "peer is %q, want client or agent", s.Peer)
	}
	if s.Peer == Agent && (s.Capabilities != nil || s.Unregistered) {
		at(0, "capabilities and unregistered are for the client peer")
	}
	if len(s.Steps) == 0 {
		at(0, "no steps")
	}
	for i, st := range s.Steps {
		kinds := st.kinds()
		switch {
		case len(kinds) == 0:
			at(st.Line, "step %d does nothing", i+1)
			continue
		case len(kinds) > 1:
			at(st.Line, "step %d does %s at once; one step does one thing", i+1, strings.Join(kinds, " and "))
			continue
		}
		if peer := stepPeer[kinds[0]]; peer != "" && peer != s.Peer {
			at(st.Line, "%s is a %s step, and this script plays the %s", kinds[0], peer, s.Peer)
		}
		for _, p := range st.problems() {
			at(st.Line, "%s", p)
		}
	}
	return errors.Join(errs...)
}

// stepPeer says which peer may take each kind of step; "" means both.
var stepPeer = map[string]Peer{
	"initialize": Client, "newSession": Client, "prompt": Client, "probe": Client, "cancel": Client,
	"elicitation": Client, "outcome": Client, "stop": Client,
	"elicit": Agent, "say": Agent, "endTurn": Agent,
	"raw": "", "close": "",
}

// kinds names the fields a step sets.
func (st Step) kinds() []string {
	var k []string
	add := func(set bool, name string) {
		if set {
			k = append(k, name)
		}
	}
	add(st.Initialize != nil, "initialize")
	add(st.NewSession != nil, "newSession")
	add(st.Prompt != nil, "prompt")
	add(st.Probe != nil, "probe")
	add(st.Cancel != nil, "cancel")
	add(st.Elicitation != nil, "elicitation")
	add(st.Outcome != nil, "outcome")
	add(st.Stop != "", "stop")
	add(st.Elicit != nil, "elicit")
	add(st.Say != nil, "say")
	add(st.Complete != nil, "complete")
	add(st.EndTurn != "", "endTurn")
	add(st.Raw != nil, "raw")
	add(st.Close, "close")
	return k
}

// Kind names what the step does: "initialize", "elicitation", ...
func (st Step) Kind() string {
	if k := st.kinds(); len(k) == 1 {
		return k[0]
	}
	return "invalid"
}

func (st Step) problems() []string {
	switch {
	case st.Elicitation != nil:
		return st.Elicitation.Answer.problems()
	case st.Elicit != nil:
		return st.Elicit.problems()
	}
	return nil
}

func (a Answer) problems() []string {
	var p []string
	modes := 0
	for _, set := range []bool{a.Error != nil, a.Result != nil, a.Never, a.Close} {
		if set {
			modes++
		}
	}
	if modes > 1 || (modes == 1 && a.Action != "") {
		p = append(p, "an answer is one of: an action, a result, an error, never, close")
	}
	if modes == 0 && a.Action == "" {
		p = append(p, "the answer has no action (accept, decline, cancel or any other string)")
	}
	picks := 0
	for _, set := range []bool{a.Pick != nil, a.Label != nil, a.Choice != nil, a.Content != nil} {
		if set {
			picks++
		}
	}
	if picks > 1 {
		p = append(p, "pick, label, choice and content exclude each other")
	}
	if (a.Pick != nil || a.Label != nil || a.Choice != nil) && a.Action != "accept" {
		p = append(p, "pick, label and choice go with action accept")
	}
	if (a.Never || a.Close) && (a.Twice || a.WrongID || a.Delay > 0) {
		p = append(p, "never and close take no delay, twice or wrongId")
	}
	return p
}

func (e *Elicit) problems() []string {
	kinds := 0
	for _, set := range []bool{e.Params != nil, e.Form != nil, e.URL != "" || e.ElicitationID != "", e.Choices != nil} {
		if set {
			kinds++
		}
	}
	switch {
	case kinds > 1:
		return []string{"elicit takes one of: params; question and choices; question and form; question, url and elicitationId"}
	case e.Params != nil:
		if e.Question != "" {
			return []string{"elicit takes params or a question, not both"}
		}
		return nil
	case e.Form != nil:
		var schema map[string]any
		if json.Unmarshal(e.Form, &schema) != nil || schema == nil {
			return []string{"elicit: form is a requestedSchema, a JSON object"}
		}
		return nil
	case e.URL != "" || e.ElicitationID != "":
		if e.URL == "" || e.ElicitationID == "" {
			return []string{"elicit: a URL elicitation has both url and elicitationId"}
		}
		return nil
	}
	choices := make([]reference.Choice[int], len(e.Choices))
	for i, c := range e.Choices {
		choices[i] = reference.Choice[int]{Value: i, Label: c.Label, Description: c.Description, Default: c.Default}
	}
	if _, err := reference.Compile(e.Question, choices); err != nil {
		return []string{fmt.Sprintf("elicit: %v (send such a form with params)", err)}
	}
	return nil
}
