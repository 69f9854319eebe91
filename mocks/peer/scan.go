package peer

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/acpconform/acpconform/internal/jsonscan"
)

// scan is what one read of a frame finds: scan.run checks that the frame
// is one JSON text (RFC 8259) in UTF-8 and notes, of a top-level object,
// where each JSON-RPC member lies. It replaces a validator's pass, a UTF-8
// pass and a walk of the members, which took a quarter of the mock
// client's time per answer.
//
// The caller bounds the nesting (see nested) before it recurses.
type scan struct {
	top      byte // the first byte of the top-level value
	elements int  // of a top-level array
	members  [maxMembers]member
	n        int // members noted, in the order they appear
}

// member is where one JSON-RPC member of a top-level object lies. Each is
// noted where it first appears; one that appears again is noted once more,
// and nothing after it is.
type member struct {
	bit          uint8 // memberBit of its name
	name         string
	start, end   int  // its value, frame[start:end]
	escapedValue bool // a string value with escapes in it
}

// maxMembers is the six members, and one of them again.
const maxMembers = 7

// run scans frame and reports whether it is JSON. The scanning functions
// pass the position along and return where they stopped, -1 when what
// they read is not JSON.
func (s *scan) run(frame []byte) bool {
	*s = scan{}
	i := jsonSpace(frame, 0)
	if i == len(frame) {
		return false
	}
	s.top = frame[i]
	switch s.top {
	case '{':
		i = s.topObject(frame, i)
	case '[':
		i, s.elements = jsonArray(frame, i)
	default:
		i = jsonValue(frame, i)
	}
	return i >= 0 && jsonSpace(frame, i) == len(frame)
}

// topObject scans the top-level object at b[i], noting its members, and
// returns where it ends, or -1.
func (s *scan) topObject(b []byte, i int) int {
	i = jsonSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1
	}
	var seen uint8 // the members noted, one bit each
	twice := false
	for {
		keyEnd, keyEscaped := jsonString(b, i)
		if keyEnd < 0 {
			return -1
		}
		name := keyName(b[i:keyEnd], keyEscaped)
		i = jsonSpace(b, keyEnd)
		if i >= len(b) || b[i] != ':' {
			return -1
		}
		start := jsonSpace(b, i+1)
		valueEscaped := false
		if start < len(b) && b[start] == '"' {
			i, valueEscaped = jsonString(b, start)
		} else {
			i = jsonValue(b, start)
		}
		if i < 0 {
			return -1
		}
		if bit := memberBit(name); bit != 0 && !twice {
			s.members[s.n] = member{bit: bit, name: name, start: start, end: i, escapedValue: valueEscaped}
			s.n++
			twice = seen&bit != 0 // decode stops at it: nothing after it is noted
			seen |= bit
		}
		if i = separator(b, i, '}'); i < 0 || b[i-1] == '}' {
			return i
		}
	}
}

// separator reads what follows a member or an element at b[i]: a comma
// and the space after it, or closer. It returns where the next one starts,
// or where the object or array ends (b[result-1] is closer then), or -1.
func separator(b []byte, i int, closer byte) int {
	if i = jsonSpace(b, i); i >= len(b) {
		return -1
	}
	switch b[i] {
	case ',':
		return jsonSpace(b, i+1)
	case closer:
		return i + 1
	}
	return -1
}

// keyName is a member's name as JSON means it: raw holds its quotes.
func keyName(raw []byte, escaped bool) string {
	if !escaped {
		switch string(raw[1 : len(raw)-1]) { // no copy: a switch compares in place
		case "jsonrpc":
			return "jsonrpc"
		case "id":
			return "id"
		case "method":
			return "method"
		case "params":
			return "params"
		case "result":
			return "result"
		case "error":
			return "error"
		}
		return "" // a member JSON-RPC does not define
	}
	var name string
	if json.Unmarshal(raw, &name) != nil {
		return "" // cannot happen: the scan has read raw as a string
	}
	return name
}

// jsonValue returns where the JSON value at b[i] ends, or -1 if there is
// none.
func jsonValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch c := b[i]; {
	case c == '"':
		end, _ := jsonString(b, i)
		return end
	case c == '{':
		return jsonObject(b, i)
	case c == '[':
		end, _ := jsonArray(b, i)
		return end
	case c == 't':
		return jsonLiteral(b, i, "true")
	case c == 'f':
		return jsonLiteral(b, i, "false")
	case c == 'n':
		return jsonLiteral(b, i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		return jsonNumber(b, i)
	}
	return -1
}

func jsonObject(b []byte, i int) int {
	i = jsonSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1
	}
	for {
		end, _ := jsonString(b, i)
		if end < 0 {
			return -1
		}
		if i = jsonSpace(b, end); i >= len(b) || b[i] != ':' {
			return -1
		}
		if i = jsonValue(b, jsonSpace(b, i+1)); i < 0 {
			return -1
		}
		if i = separator(b, i, '}'); i < 0 || b[i-1] == '}' {
			return i
		}
	}
}

// jsonArray returns where the array at b[i] ends, or -1, and how many
// elements it has.
func jsonArray(b []byte, i int) (end, elements int) {
	i = jsonSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, 0
	}
	for {
		if i = jsonValue(b, i); i < 0 {
			return -1, elements
		}
		elements++
		if i = separator(b, i, ']'); i < 0 || b[i-1] == ']' {
			return i, elements
		}
	}
}

// jsonString returns where the string at b[i] ends, past its closing
// quote, or -1, and whether it holds escapes. Its bytes must be UTF-8 and
// no control characters.
func jsonString(b []byte, i int) (end int, escaped bool) {
	if i >= len(b) || b[i] != '"' {
		return -1, false
	}
	for i++; i < len(b); {
		for i < len(b) && plain[b[i]] {
			i++
		}
		if i == len(b) {
			break
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, escaped
		case c == '\\':
			escaped = true
			n := jsonscan.EscapeLen(b[i:])
			if n == 0 {
				return -1, false
			}
			i += n
		case c < 0x20:
			return -1, false
		default: // c >= 0x80
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				return -1, false
			}
			i += size
		}
	}
	return -1, false
}

// plain marks the bytes a string holds as they are: printable ASCII but
// the quote and the backslash.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// jsonNumber returns where the number at b[i] ends, or -1:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func jsonNumber(b []byte, i int) int {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(b, i)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		if i = digits(b, i+1); i < 0 {
			return -1
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i = digits(b, i); i < 0 {
			return -1
		}
	}
	return i
}

// digits returns where the digits at b[i] end, or -1 if there are none.
func digits(b []byte, i int) int {
	start := i
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	if i == start {
		return -1
	}
	return i
}

func jsonLiteral(b []byte, i int, word string) int {
	if len(b)-i < len(word) || string(b[i:i+len(word)]) != word {
		return -1
	}
	return i + len(word)
}

// jsonSpace returns where the white space at b[i] ends.
func jsonSpace(b []byte, i int) int {
	for i < len(b) && b[i] <= ' ' && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}
