package script

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/acpconform/acpconform/internal/exactjson"
	"github.com/acpconform/acpconform/probe"
)

// Peer names which mock plays a script.
type Peer string

// The two scripted peers.
const (
	Client Peer = "client" // plays the editor: drives an agent, answers its elicitations
	Agent  Peer = "agent"  // plays the agent: serves a client, sends it elicitations
)

// DefaultTimeout bounds every wait of a script that names no timeout.
const DefaultTimeout = 5 * time.Second

// Script is one scripted conversation. The zero value of every optional field
// is the well-behaved default.
type Script struct {
	Name  string   `yaml:"name"`            // kebab-case
	Rules []string `yaml:"rules,omitempty"` // CONTRACT IDs it shows
	Doc   string   `yaml:"doc,omitempty"`   // what it is for
	Peer  Peer     `yaml:"peer"`

	// Client peer: the clientCapabilities sent in initialize (absent: none at
	// all; null and {} are sent as they are).
	Capabilities JSON `yaml:"capabilities,omitempty"`
	// Client peer: answer every elicitation/create with -32601, as a client
	// that has not registered the route does.
	Unregistered bool `yaml:"unregistered,omitempty"`

	// Timeout bounds each wait; zero means DefaultTimeout.
	Timeout Duration `yaml:"timeout,omitempty"`

	Steps []Step `yaml:"steps"`

	// Where the script came from, for error messages.
	File string `yaml:"-"`
}

// Wait is the bound of each wait of the script.
func (s *Script) Wait() time.Duration {
	if s.Timeout > 0 {
		return time.Duration(s.Timeout)
	}
	return DefaultTimeout
}

// Step is one thing a peer does or waits for. Exactly one field is set.
type Step struct {
	// Client peer: things to send.
	Initialize *Initialize   `yaml:"initialize,omitempty"` // initialize; waits for the answer
	NewSession *Empty        `yaml:"newSession,omitempty"` // session/new; waits for the answer
	Prompt     *string       `yaml:"prompt,omitempty"`     // session/prompt with this text; does not wait
	Probe      *ProbeRequest `yaml:"probe,omitempty"`      // session/prompt with this probe request
	Cancel     *Empty        `yaml:"cancel,omitempty"`     // session/cancel for the session
	// Client peer: things to wait for.
	Elicitation *Elicitation `yaml:"elicitation,omitempty"` // the next elicitation/create, and its answer
	Outcome     *Outcome     `yaml:"outcome,omitempty"`     // a probe outcome reported by the agent (fields given must match)
	Stop        string       `yaml:"stop,omitempty"`        // the prompt ends with this stopReason

	// Agent peer, during a prompt turn.
	Elicit *Elicit `yaml:"elicit,omitempty"` // send elicitation/create; wait for and check the answer
	Say    *string `yaml:"say,omitempty"`    // an agent_message_chunk
	// Complete sends the notification elicitation/complete with this
	// elicitationId, known to the client or not.
	Complete *string `yaml:"complete,omitempty"`
	EndTurn  string  `yaml:"endTurn,omitempty"` // answer the prompt with this stopReason
	// Hold keeps the turn open until the channel is closed (Go only): a
	// client under test waits for the prompt's answer meanwhile.
	Hold <-chan struct{} `yaml:"-"`

	// Both peers.
	Raw   *string `yaml:"raw,omitempty"`   // bytes to write as they are
	Close bool    `yaml:"close,omitempty"` // close the connection

	Line int `yaml:"-"` // line in the script file; 0 when built in Go
}

// Empty is a step that takes no arguments: `newSession: {}`.
type Empty struct{}

// Initialize overrides the script's capabilities for one initialize.
type Initialize struct {
	Capabilities JSON `yaml:"capabilities,omitempty"`
}

// Elicitation is what a mock client expects of the next elicitation/create
// and how it answers it.
type Elicitation struct {
	Expect *Expect `yaml:"expect,omitempty"`
	Answer Answer  `yaml:"answer"`
}

// Expect lists what an elicitation/create must carry; fields left out are
// not checked.
type Expect struct {
	Message   *string  `yaml:"message,omitempty"`
	Mode      string   `yaml:"mode,omitempty"`
	SessionID *string  `yaml:"sessionId,omitempty"`
	Tokens    []string `yaml:"tokens,omitempty"`
	Labels    []string `yaml:"labels,omitempty"`
	Default   *string  `yaml:"default,omitempty"` // "" expects no default
	// Params must equal the request's params as JSON.
	Params JSON `yaml:"params,omitempty"`
}

// Elicit is an elicitation/create a mock agent sends: a typed-choice form
// compiled by the reference from Question and Choices; a form of any shape,
// its requestedSchema given as Form and its message as Question; a URL
// elicitation of URL and ElicitationID with Question as its message; or
// raw Params. All but raw Params are scoped to the turn's session and carry
// User and Meta in their _meta.
type Elicit struct {
	Question      string   `yaml:"question,omitempty"`
	Choices       []Choice `yaml:"choices,omitempty"`
	Form          JSON     `yaml:"form,omitempty"`          // a requestedSchema of any shape
	URL           string   `yaml:"url,omitempty"`           // URL mode: the url
	ElicitationID string   `yaml:"elicitationId,omitempty"` // URL mode: its id
	Params        JSON     `yaml:"params,omitempty"`        // sent as they are
	User          *User    `yaml:"user,omitempty"`          // the scripted-user instruction, put in _meta
	Meta          JSON     `yaml:"meta,omitempty"`          // more request _meta keys
	// Cancel sends $/cancel_request for the request as soon as it is
	// written; the answer must then be a cancel or error -32800 (ELI-7).
	Cancel bool `yaml:"cancel,omitempty"`
	// Expect is what the answer must be, beyond being valid (CLI-2, ELI-4).
	Expect *AnswerExpect `yaml:"expect,omitempty"`
}

// User is a scripted-user instruction (probe.User) written inline: read as
// JSON, so that its content may be any JSON object.
type User probe.User

// UnmarshalYAML reads the instruction as JSON; members it does not know
// are kept out, as a client ignores them.
func (u *User) UnmarshalYAML(n *yaml.Node) error {
	var j JSON
	if err := j.UnmarshalYAML(n); err != nil {
		return err
	}
	if err := json.Unmarshal(j, (*probe.User)(u)); err != nil {
		return fmt.Errorf("line %d: user: %v", n.Line, strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}

// Choice is a choice of an Elicit form.
type Choice struct {
	Label       string `yaml:"label"`
	Description string `yaml:"description,omitempty"`
	Default     bool   `yaml:"default,omitempty"`
}

// AnswerExpect is what a mock agent expects of a client's answer.
type AnswerExpect struct {
	Action string `yaml:"action,omitempty"` // accept, decline or cancel
	Choice string `yaml:"choice,omitempty"` // the accepted token
	Error  int    `yaml:"error,omitempty"`  // a JSON-RPC error with this code
	// User: the answer must follow the request's scripted-user instruction.
	User bool `yaml:"user,omitempty"`
}

// JSON is a JSON value written inline in YAML. Absent is nil; null is
// "null".
type JSON json.RawMessage

// MarshalJSON writes the value as it is; nil is null.
func (j JSON) MarshalJSON() ([]byte, error) {
	if j == nil {
		return []byte("null"), nil
	}
	return j, nil
}

// UnmarshalYAML converts the YAML value to JSON.
func (j *JSON) UnmarshalYAML(n *yaml.Node) error {
	var v any
	if err := n.Decode(&v); err != nil {
		return fmt.Errorf("line %d: %v", n.Line, err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("line %d: not expressible as JSON: %v", n.Line, err)
	}
	*j = b
	return nil
}

// Duration is a time.Duration written as "200ms" or "2s".
type Duration time.Duration

// UnmarshalYAML parses a duration.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(n.Value)
	if err != nil || v < 0 {
		return fmt.Errorf("line %d: %q is not a duration such as 200ms or 2s", n.Line, n.Value)
	}
	*d = Duration(v)
	return nil
}

// ProbeRequest is a probe request written inline (PROBE.md §1);
// "acpconform" and "op" may be left out.
type ProbeRequest probe.Request

// UnmarshalYAML reads the request strictly, as JSON.
func (r *ProbeRequest) UnmarshalYAML(n *yaml.Node) error {
	if err := decodeStrict(n, (*probe.Request)(r)); err != nil {
		return err
	}
	if r.Acpconform == 0 {
		r.Acpconform = probe.Version
	}
	if r.Op == "" {
		r.Op = probe.OpAskChoice
	}
	return nil
}

// Outcome is an expected probe outcome: the fields given must match, those
// left out are not checked. An empty "warnings" list expects none.
type Outcome probe.Outcome

// UnmarshalYAML reads the outcome strictly, as JSON.
func (o *Outcome) UnmarshalYAML(n *yaml.Node) error {
	if err := decodeStrict(n, (*probe.Outcome)(o)); err != nil {
		return err
	}
	if o.Acpconform == 0 {
		o.Acpconform = probe.Version
	}
	return nil
}

// decodeStrict decodes a YAML value into a JSON-tagged type, refusing
// unknown fields.
func decodeStrict(n *yaml.Node, v any) error {
	var j JSON
	if err := j.UnmarshalYAML(n); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("line %d: %v", n.Line, strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}

// AdvertisesForm reports whether clientCapabilities, as a client sent them
// in initialize, advertise form elicitation: see Advertises.
func AdvertisesForm(caps json.RawMessage) bool { return Advertises(caps, "form") }

// Advertises reports whether clientCapabilities, as a client sent them in
// initialize, advertise the elicitation mode ("form" or "url"): only an
// elicitation.<mode> that is a JSON object does ({"form": false}, "yes",
// [] and null advertise nothing; CONTRACT CAP-1/2, ELI-1). Names are
// exact, as ACP's SDKs read them ("Form" advertises nothing). Capabilities
// that name a member twice advertise the mode when any reading does
// (exactjson.Readings): the rules of a client that advertises it then
// apply, and no reading escapes them.
func Advertises(caps json.RawMessage, mode string) bool {
	readings, _ := exactjson.Readings(caps)
	for _, r := range readings {
		var c struct {
			Elicitation map[string]json.RawMessage `json:"elicitation"`
		}
		var m map[string]json.RawMessage
		if exactjson.Unmarshal(r, &c) == nil && json.Unmarshal(c.Elicitation[mode], &m) == nil && m != nil {
			return true
		}
	}
	return false
}
