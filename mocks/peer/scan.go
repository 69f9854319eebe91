package peer

import (
	"encoding/json"
	"unicode/utf8"
)

// scan reads a frame once: it checks that the frame is one JSON text (RFC
// 8259) in UTF-8, and notes, of a top-level object, where each JSON-RPC
// member lies. It replaces a validator's pass, a UTF-8 pass and a walk of
// the members, which took a quarter of the mock client's time per answer.
//
// The caller bounds the nesting (see nested) before scan recurses.
type scan struct {
	frame []byte
	i     int

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

// run scans frame and reports whether it is JSON.
func (s *scan) run(frame []byte) bool {
	*s = scan{frame: frame}
	s.space()
	if s.i == len(frame) {
		return false
	}
	s.top = frame[s.i]
	var ok bool
	switch s.top {
	case '{':
		ok = s.topObject()
	case '[':
		ok = s.array(true)
	default:
		ok = s.value()
	}
	if !ok {
		return false
	}
	s.space()
	return s.i == len(frame)
}

// topObject scans the top-level object, noting its members.
func (s *scan) topObject() bool {
	s.i++ // {
	s.space()
	if s.at('}') {
		s.i++
		return true
	}
	var seen uint8 // the members noted, one bit each
	twice := false
	for {
		keyStart := s.i
		escaped, ok := s.string()
		if !ok {
			return false
		}
		name := keyName(s.frame[keyStart:s.i], escaped)
		s.space()
		if !s.at(':') {
			return false
		}
		s.i++
		s.space()
		start := s.i
		valueEscaped := false
		if s.at('"') {
			escaped, ok := s.string()
			if !ok {
				return false
			}
			valueEscaped = escaped
		} else if !s.value() {
			return false
		}
		if bit := memberBit(name); bit != 0 && !twice {
			s.members[s.n] = member{bit: bit, name: name, start: start, end: s.i, escapedValue: valueEscaped}
			s.n++
			twice = seen&bit != 0 // decode stops at it: nothing after it is noted
			seen |= bit
		}
		s.space()
		switch {
		case s.at(','):
			s.i++
			s.space()
		case s.at('}'):
			s.i++
			return true
		default:
			return false
		}
	}
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
		return "" // cannot happen: scan has read raw as a string
	}
	return name
}

// value scans one JSON value.
func (s *scan) value() bool {
	if s.i == len(s.frame) {
		return false
	}
	switch c := s.frame[s.i]; {
	case c == '{':
		return s.object()
	case c == '[':
		return s.array(false)
	case c == '"':
		_, ok := s.string()
		return ok
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	}
	return false
}

func (s *scan) object() bool {
	s.i++ // {
	s.space()
	if s.at('}') {
		s.i++
		return true
	}
	for {
		if _, ok := s.string(); !ok {
			return false
		}
		s.space()
		if !s.at(':') {
			return false
		}
		s.i++
		s.space()
		if !s.value() {
			return false
		}
		s.space()
		switch {
		case s.at(','):
			s.i++
			s.space()
		case s.at('}'):
			s.i++
			return true
		default:
			return false
		}
	}
}

// array scans an array; at the top level it counts the elements.
func (s *scan) array(top bool) bool {
	s.i++ // [
	s.space()
	if s.at(']') {
		s.i++
		return true
	}
	for {
		if !s.value() {
			return false
		}
		if top {
			s.elements++
		}
		s.space()
		switch {
		case s.at(','):
			s.i++
			s.space()
		case s.at(']'):
			s.i++
			return true
		default:
			return false
		}
	}
}

// string scans a string, its quotes included, and reports whether it
// holds escapes. Its bytes must be UTF-8 and no control characters.
func (s *scan) string() (escaped, ok bool) {
	if !s.at('"') {
		return false, false
	}
	b := s.frame
	for i := s.i + 1; i < len(b); {
		c := b[i]
		if plain[c] {
			i++
			continue
		}
		switch {
		case c == '"':
			s.i = i + 1
			return escaped, true
		case c == '\\':
			escaped = true
			n := escapeLen(b[i:])
			if n == 0 {
				return false, false
			}
			i += n
		case c < 0x20:
			return false, false
		default: // c >= 0x80
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				return false, false
			}
			i += size
		}
	}
	return false, false
}

// plain marks the bytes a string holds as they are: printable ASCII but
// the quote and the backslash.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// escapeLen is the length of the escape b starts with, or 0 if it is none.
func escapeLen(b []byte) int {
	if len(b) < 2 {
		return 0
	}
	switch b[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if len(b) < 6 {
			return 0
		}
		for _, c := range b[2:6] {
			if !isHex(c) {
				return 0
			}
		}
		return 6
	}
	return 0
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// number scans -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scan) number() bool {
	if s.at('-') {
		s.i++
	}
	switch {
	case s.at('0'):
		s.i++
	case s.i < len(s.frame) && s.frame[s.i] >= '1' && s.frame[s.i] <= '9':
		s.digits()
	default:
		return false
	}
	if s.at('.') {
		s.i++
		if !s.digits() {
			return false
		}
	}
	if s.at('e') || s.at('E') {
		s.i++
		if s.at('+') || s.at('-') {
			s.i++
		}
		if !s.digits() {
			return false
		}
	}
	return true
}

// digits scans one or more digits.
func (s *scan) digits() bool {
	start := s.i
	for s.i < len(s.frame) && s.frame[s.i] >= '0' && s.frame[s.i] <= '9' {
		s.i++
	}
	return s.i > start
}

func (s *scan) literal(word string) bool {
	if len(s.frame)-s.i < len(word) || string(s.frame[s.i:s.i+len(word)]) != word {
		return false
	}
	s.i += len(word)
	return true
}

func (s *scan) space() {
	for s.i < len(s.frame) {
		switch s.frame[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scan) at(c byte) bool { return s.i < len(s.frame) && s.frame[s.i] == c }
