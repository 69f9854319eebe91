package peer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/tidwall/gjson"

	"github.com/acpconform/acpconform/internal/exactjson"
)

// Message is one JSON-RPC message as it came over the wire.
type Message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *Error          `json:"error,omitempty"`

	Raw []byte `json:"-"` // the frame as received; the transcript says when
}

// IsRequest reports whether m is a request: a method and a non-null id.
func (m Message) IsRequest() bool { return m.Method != "" && len(m.ID) > 0 && !isNull(m.ID) }

// IsNotification reports whether m is a notification.
func (m Message) IsNotification() bool { return m.Method != "" && !m.IsRequest() }

// IsResponse reports whether m answers a request.
func (m Message) IsResponse() bool { return m.Method == "" && len(m.ID) > 0 }

// Error is a JSON-RPC error object.
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string {
	s := fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message)
	if len(e.Data) > 0 {
		s += " " + string(e.Data)
	}
	return s
}

// maxDepth is the deepest nesting decode reads: far more than any ACP
// message needs, a tenth of what encoding/json reads. The validator
// recurses once a level: a line of a million brackets cost it 128 MB of
// stack and most of a second.
const maxDepth = 1000

// A frameError says what is wrong with a frame decode refused.
type frameError struct {
	kind   frameErrorKind
	detail string // the parser's reason, the batch's size, the member at fault
}

type frameErrorKind int

const (
	notJSON     frameErrorKind = iota // detail: why
	tooDeep                           // nested more than maxDepth levels
	batch                             // detail: how many messages
	notJSONRPC                        // an object, or not, that cannot be a message; detail: why
	notAMessage                       // an object with none of method, id
)

func (e *frameError) Error() string {
	switch e.kind {
	case notJSON:
		return "not JSON (" + e.detail + ")"
	case tooDeep:
		return "nested too deep"
	case batch:
		return "a JSON-RPC batch of " + e.detail
	case notJSONRPC:
		return "not JSON-RPC (" + e.detail + ")"
	}
	return "neither a request, a notification nor a response"
}

// decode reads the envelope of a frame. It is the mock peers' hot path, so
// it validates once and picks the members out without decoding the rest.
// The members it returns are slices of frame.
func decode(frame []byte) (Message, error) { return decodeNested(frame, maxDepth) }

// Decode reads one frame as a peer reads it, and says in words what makes
// it no JSON-RPC message (not JSON, a batch, a duplicate "id", ...): the
// reading of a recorded frame is the reading of a live one.
func Decode(frame []byte) (Message, string) {
	m, err := decode(frame)
	if err != nil {
		return Message{}, diagnosis("line", err, frame)
	}
	return m, ""
}

// decodeNested is decode of frames nested at most depth levels deep.
func decodeNested(frame []byte, depth int) (Message, error) {
	if nested(frame, depth) > depth {
		return Message{}, &frameError{kind: tooDeep}
	}
	var s scan
	if !s.run(frame) {
		return Message{}, &frameError{kind: notJSON, detail: notJSONReason(frame)}
	}
	switch s.top {
	case '[':
		messages := "messages"
		if s.elements == 1 {
			messages = "message"
		}
		return Message{}, &frameError{kind: batch, detail: fmt.Sprintf("%d %s", s.elements, messages)}
	case '{':
	default:
		return Message{}, &frameError{kind: notJSONRPC, detail: kindOfByte(s.top) + ", where an object is due"}
	}
	m := Message{Raw: frame}
	var seen uint8 // the members met, one bit each
	for _, mb := range s.members[:s.n] {
		if seen&mb.bit != 0 { // which one counts is anyone's guess
			return Message{}, &frameError{kind: notJSONRPC, detail: fmt.Sprintf("%q appears twice", mb.name)}
		}
		seen |= mb.bit
		raw := json.RawMessage(frame[mb.start:mb.end:mb.end])
		switch mb.name {
		case "id":
			m.ID = raw
		case "method":
			method, err := methodName(raw, mb.escapedValue)
			if err != nil {
				return Message{}, err
			}
			m.Method = method
		case "params":
			m.Params = raw
		case "result":
			m.Result = raw
		case "error":
			if string(raw) == "null" {
				break // "error": null is no error
			}
			e, why := decodeError(raw)
			if why != "" {
				return Message{}, &frameError{kind: notJSONRPC, detail: `"error" is not an error object: ` + why}
			}
			m.Error = e
		}
	}
	if m.Method == "" && len(m.ID) == 0 && m.Result == nil && m.Error == nil {
		return Message{}, &frameError{kind: notAMessage}
	}
	return m, nil
}

// notJSONReason says why a frame scan refused is not JSON.
func notJSONReason(frame []byte) string {
	var raw json.RawMessage // scans without building values
	switch err := json.Unmarshal(frame, &raw); {
	case err != nil:
		return err.Error()
	case !utf8.Valid(frame): // JSON is UTF-8 (RFC 8259 §8.1); encoding/json does not check
		return fmt.Sprintf("invalid UTF-8 at byte %d", invalidUTF8At(frame))
	}
	return "it does not parse"
}

// methodName reads the "method" member: a string that is not empty.
func methodName(raw json.RawMessage, escaped bool) (string, error) {
	switch {
	case raw[0] != '"':
		return "", &frameError{kind: notJSONRPC, detail: `"method" is ` + kindOfByte(raw[0]) + ", not a string"}
	case len(raw) == 2:
		return "", &frameError{kind: notJSONRPC, detail: `"method" is an empty string`}
	case !escaped: // the frame is never changed again (the transcript keeps it too): no copy
		return unsafe.String(&raw[1], len(raw)-2), nil
	}
	var method string
	if err := json.Unmarshal(raw, &method); err != nil {
		return "", &frameError{kind: notJSONRPC, detail: `"method" does not read as a string: ` + err.Error()}
	}
	return method, nil
}

// memberBit gives each member of a message, which may appear once, a bit.
func memberBit(key string) uint8 {
	switch key {
	case "jsonrpc":
		return 1
	case "id":
		return 2
	case "method":
		return 4
	case "params":
		return 8
	case "result":
		return 16
	case "error":
		return 32
	}
	return 0
}

// nested returns how deep frame nests, or a bound of it when that is
// already within limit: counting brackets is much cheaper than parsing.
func nested(frame []byte, limit int) int {
	if len(frame) <= limit { // each level takes a byte
		return len(frame)
	}
	if n := bytes.Count(frame, []byte{'['}) + bytes.Count(frame, []byte{'{'}); n <= limit {
		return n
	}
	depth, deepest, inString, escaped := 0, 0, false, false
	for _, c := range frame {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			depth++
			deepest = max(deepest, depth)
		case c == ']' || c == '}':
			depth--
		}
	}
	return deepest
}

func invalidUTF8At(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return len(b)
}

// kindOfByte names the kind of the JSON value that starts with c.
func kindOfByte(c byte) string {
	switch c {
	case '"':
		return "a string"
	case 't':
		return "true"
	case 'f':
		return "false"
	case 'n':
		return "null"
	case '[':
		return "an array"
	case '{':
		return "an object"
	}
	return "a number"
}

// kindOf names the kind of a value gjson found, as kindOfByte does; one
// it did not find has gjson's zero Type, Null.
func kindOf(v gjson.Result) string {
	if v.Raw == "" {
		return "null"
	}
	return kindOfByte(v.Raw[0])
}

// decodeError reads a JSON-RPC error object as ACP's SDKs read it: its
// members by their exact names ("Code" is no "code", and is ignored), an
// integer code, a string message, data as it is written. It says why raw
// is no error object: not an object, a member of the wrong type, or one of
// its members named twice, which like a duplicate envelope member leaves
// which one counts anyone's guess. Data is carried, not read: what it
// holds is the judgement's of whoever compares it.
func decodeError(raw json.RawMessage) (*Error, string) {
	v := gjson.ParseBytes(raw)
	if !v.IsObject() {
		return nil, "it is " + kindOf(v)
	}
	_, dups := exactjson.Readings(raw)
	for _, d := range dups {
		if strings.Count(d.Pointer, "/") == 1 {
			return nil, d.String() + " appears twice"
		}
	}
	var e struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	if err := exactjson.Unmarshal(raw, &e); err != nil {
		for _, m := range []struct{ name, want string }{{"code", "an integer"}, {"message", "a string"}} {
			if got := v.Get(m.name); got.Exists() && got.Type != gjson.Null && !fits(got, m.name) {
				return nil, fmt.Sprintf("%q is %s, not %s", m.name, kindOf(got), m.want)
			}
		}
		return nil, err.Error()
	}
	out := &Error{Code: e.Code, Message: e.Message}
	if d := v.Get("data"); d.Exists() {
		out.Data = json.RawMessage(d.Raw)
	}
	return out, ""
}

// fits reports whether v is of the type member of Error wants: an integer
// code that an int holds, a string message.
func fits(v gjson.Result, member string) bool {
	if member == "message" {
		return v.Type == gjson.String
	}
	var i int
	return v.Type == gjson.Number && json.Unmarshal([]byte(v.Raw), &i) == nil
}

// idKey canonicalises an id: numbers by value, so that 1, 1.0 and 1e0
// match, strings by their text; the number 1 and the string "1" differ, as
// JSON-RPC wants.
func idKey(id json.RawMessage) string {
	raw := bytes.TrimSpace(id)
	if len(raw) > 0 && (raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9')) && len(raw) < 64 && !bytes.ContainsAny(raw, "eE") {
		if r, ok := new(big.Rat).SetString(string(raw)); ok {
			return "n:" + r.RatString()
		}
	}
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return "s:" + s
		}
	}
	return "?:" + string(raw)
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

// quoteBytes is how much of a frame a violation quotes.
const quoteBytes = 120

// Quote quotes the first bytes of a frame for a violation, as Go would
// (%q), and gives the size of a frame it cut: "hello" or
// "{\"jsonrpc\":..."... (5000 bytes in all).
func Quote(b []byte) string {
	if len(b) <= quoteBytes {
		return fmt.Sprintf("%q", b)
	}
	return fmt.Sprintf("%q... (%d bytes in all)", b[:quoteBytes], len(b))
}

// idText writes an id for a violation, cut if it is long.
func idText(id json.RawMessage) string {
	if len(id) <= 40 {
		return string(id)
	}
	return Quote(id[:40]) + "..."
}
