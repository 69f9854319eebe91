package script

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/tidwall/gjson"
	"go.yaml.in/yaml/v3"
)

// Answer is how a mock client answers one elicitation/create. The zero
// Answer is an accept without content; the builders below make the rest.
//
// In a script:
//
//	answer: {action: accept, pick: 1}          # the const of oneOf[1]
//	answer: {action: accept, pick: default}    # the schema's default token
//	answer: {action: accept, label: Production}
//	answer: {action: accept, choice: choice_01} # any JSON as content.choice
//	answer: {action: accept, content: null}     # any JSON as the content
//	answer: {action: decline}
//	answer: {action: _defer}                    # an unknown action
//	answer: {result: {}}                        # any JSON as the whole result
//	answer: {error: {code: -32603, message: Internal error, data: {x: 1}}}
//	answer: {action: cancel, delay: 200ms}      # answer late
//	answer: {never: true}                       # never answer
//	answer: {close: true}                       # close the connection instead
//	answer: {action: decline, twice: true}      # answer twice
//	answer: {action: decline, wrongId: true}    # answer another id
type Answer struct {
	Action  string    `yaml:"action,omitempty"`
	Pick    *Pick     `yaml:"pick,omitempty"`
	Label   *string   `yaml:"label,omitempty"`
	Choice  JSON      `yaml:"choice,omitempty"`
	Content JSON      `yaml:"content,omitempty"`
	Result  JSON      `yaml:"result,omitempty"`
	Error   *RPCError `yaml:"error,omitempty"`

	Delay Duration `yaml:"delay,omitempty"`
	// Until holds the answer back until the channel is closed (Go only):
	// a check that needs a request pending while something else happens
	// says when, instead of guessing a delay.
	Until   <-chan struct{} `yaml:"-"`
	Never   bool            `yaml:"never,omitempty"`
	Close   bool            `yaml:"close,omitempty"`
	Twice   bool            `yaml:"twice,omitempty"`
	WrongID bool            `yaml:"wrongId,omitempty"`
}

// Pick names an offered option by its position, or the schema's default.
type Pick struct {
	Index   int
	Default bool
}

// UnmarshalYAML reads `pick: 1` or `pick: default`.
func (p *Pick) UnmarshalYAML(n *yaml.Node) error {
	if n.Value == "default" {
		*p = Pick{Default: true}
		return nil
	}
	i, err := strconv.Atoi(n.Value)
	if err != nil || i < 0 || n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: pick is an option's index or \"default\", not %q", n.Line, n.Value)
	}
	*p = Pick{Index: i}
	return nil
}

// RPCError is a JSON-RPC error object.
type RPCError struct {
	Code    int    `yaml:"code"`
	Message string `yaml:"message"`
	Data    JSON   `yaml:"data,omitempty"`
}

// Accept picks the option at index: the const the request offers there.
func Accept(index int) Answer { return Answer{Action: "accept", Pick: &Pick{Index: index}} }

// AcceptDefault picks the schema's default.
func AcceptDefault() Answer { return Answer{Action: "accept", Pick: &Pick{Default: true}} }

// AcceptLabel picks the first option with this title.
func AcceptLabel(label string) Answer { return Answer{Action: "accept", Label: &label} }

// AcceptChoice accepts with content {"choice": choice}, choice being any JSON
// value: a bogus token, a number, null.
func AcceptChoice(choice any) Answer { return Answer{Action: "accept", Choice: JSON(mustJSON(choice))} }

// AcceptContent accepts with content as given (any JSON, null included).
func AcceptContent(content any) Answer {
	return Answer{Action: "accept", Content: JSON(mustJSON(content))}
}

// AcceptWithoutContent accepts with no content at all.
func AcceptWithoutContent() Answer { return Answer{Action: "accept"} }

// Decline declines.
func Decline() Answer { return Answer{Action: "decline"} }

// Cancel cancels.
func Cancel() Answer { return Answer{Action: "cancel"} }

// WithAction answers with any action string, known or not.
func WithAction(action string) Answer { return Answer{Action: action} }

// Result answers with result as the whole result.
func Result(result any) Answer { return Answer{Result: JSON(mustJSON(result))} }

// Fail answers with a JSON-RPC error; data may be nil.
func Fail(code int, message string, data any) Answer {
	e := &RPCError{Code: code, Message: message}
	if data != nil {
		e.Data = JSON(mustJSON(data))
	}
	return Answer{Error: e}
}

// Never leaves the request unanswered.
func Never() Answer { return Answer{Never: true} }

// CloseConnection closes the connection instead of answering.
func CloseConnection() Answer { return Answer{Close: true} }

// After delays the answer by d.
func (a Answer) After(d time.Duration) Answer { a.Delay = Duration(d); return a }

// When holds the answer back until release is closed, then sends it (after
// its delay, if it has one).
func (a Answer) When(release <-chan struct{}) Answer { a.Until = release; return a }

// AnsweredTwice sends the answer twice.
func (a Answer) AnsweredTwice() Answer { a.Twice = true; return a }

// ToWrongID sends the answer for an id that was never asked.
func (a Answer) ToWrongID() Answer { a.WrongID = true; return a }

// WithContent adds content, as to a decline or cancel (RES-4).
func (a Answer) WithContent(content any) Answer { a.Content = JSON(mustJSON(content)); return a }

// Resolve builds what answers an elicitation/create with params: a result,
// or a JSON-RPC error. It fails when the pick or label names no option of
// the request.
func (a Answer) Resolve(params json.RawMessage) (json.RawMessage, *RPCError, error) {
	switch {
	case a.Error != nil:
		return nil, a.Error, nil
	case a.Result != nil:
		return json.RawMessage(a.Result), nil, nil
	}
	// Built by hand: this is the mock client's hot path, and every piece is
	// JSON already.
	result := make([]byte, 0, 64+len(a.Action)+len(a.Content)+len(a.Choice))
	result = append(appendString(append(result, `{"action":`...), a.Action), `,"content":`...)
	switch {
	case a.Content != nil:
		result = append(result, a.Content...)
	case a.Choice != nil:
		result = append(append(append(result, `{"choice":`...), a.Choice...), '}')
	case a.Pick != nil || a.Label != nil:
		token, err := a.token(params)
		if err != nil {
			return nil, nil, err
		}
		result = append(append(append(result, `{"choice":`...), token...), '}')
	default:
		result = result[:len(result)-len(`,"content":`)]
	}
	return append(result, '}'), nil, nil
}

// token finds the const a Pick or Label names. It looks the path up in
// place, without decoding or copying the request: this is the mock
// client's hot path, and params is never changed while it runs.
func (a Answer) token(params json.RawMessage) (json.RawMessage, error) {
	switch {
	case a.Pick != nil && a.Pick.Default:
		def := lookup(params, "requestedSchema", "properties", "choice", "default")
		if def == nil {
			return nil, fmt.Errorf("cannot pick the default: the request has none")
		}
		return def, nil
	case a.Pick != nil:
		if c := lookup(params, "requestedSchema", "properties", "choice", "oneOf", strconv.Itoa(a.Pick.Index), "const"); c != nil {
			return c, nil
		}
		return nil, fmt.Errorf("cannot pick option %d: the request offers %d", a.Pick.Index, gjson.GetBytes(params, oneOfPath+".#").Int())
	default:
		for _, o := range gjson.GetBytes(params, oneOfPath).Array() {
			if t := o.Get("title"); t.Type == gjson.String && t.Str == *a.Label {
				return json.RawMessage(o.Get("const").Raw), nil
			}
		}
		return nil, fmt.Errorf("cannot pick label %q: the request does not offer it", *a.Label)
	}
}

const oneOfPath = "requestedSchema.properties.choice.oneOf"

// appendString appends s as a JSON string: by hand when it needs no
// escaping, as every action but a deliberately strange one does.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return append(b, mustJSON(s)...)
		}
	}
	return append(append(append(b, '"'), s...), '"')
}

func mustJSON(v any) json.RawMessage {
	switch raw := v.(type) {
	case json.RawMessage:
		return raw
	case JSON:
		return json.RawMessage(raw)
	}
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("script: %T is not JSON: %v", v, err)) // a programmer error in test setup
	}
	return b
}
