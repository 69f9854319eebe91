// Package jsonscan reads the shape of a JSON text without building it and
// without a bound on its nesting: how deep it nests, and the names of a
// top-level object's members.
//
// encoding/json refuses a text nested deeper than 10000 levels with the
// same error as a text that is not JSON, so a caller that must tell the two
// apart (an outcome too deep to read is still an outcome) scans first. The
// scan keeps its place in a stack of one bit a level, never recursing, so
// no nesting can exhaust a goroutine's stack, and takes time linear in the
// text's length.
package jsonscan

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Shape is what Scan found of a JSON text.
type Shape struct {
	// Depth is how deep the text nests, each object or array a level:
	// 0 for a string, a number or a literal, 1 for [] and {"a": 1}, 2 for
	// {"a": []}.
	Depth int
	// Object reports whether the text is an object.
	Object bool
	// Names are an object's member names in the order they appear, as
	// JSON means them (escapes read); a name given twice is listed twice.
	Names []string
}

// Scan reads text as one JSON value (RFC 8259), white space around it
// allowed, as encoding/json does apart from its bound on nesting: it does
// not check that strings are UTF-8. It fails with the offset of the first
// byte that is not JSON.
func Scan(text string) (Shape, error) {
	var (
		sh    Shape
		stack containers
		i     = space(text, 0)
	)
	fail := func(at int) (Shape, error) {
		if at >= len(text) {
			return Shape{}, fmt.Errorf("not JSON: unexpected end at byte %d", len(text))
		}
		return Shape{}, fmt.Errorf("not JSON: unexpected %q at byte %d", text[at], at)
	}
	sh.Object = i < len(text) && text[i] == '{'
	for {
		// A value starts at i.
		if i >= len(text) {
			return fail(i)
		}
		switch c := text[i]; {
		case c == '{' || c == '[':
			stack.push(c)
			sh.Depth = max(sh.Depth, stack.depth)
			i = space(text, i+1)
			if i < len(text) && text[i] == c+2 { // '}' is '{'+2, ']' is '['+2
				stack.depth--
				i++
				break
			}
			if c == '[' {
				continue // to its first element
			}
			var ok bool
			if i, ok = sh.member(text, i, stack.depth); !ok {
				return fail(i)
			}
			continue // to its first member's value
		case c == '"':
			i = str(text, i)
		case c == 't':
			i = literal(text, i, "true")
		case c == 'f':
			i = literal(text, i, "false")
		case c == 'n':
			i = literal(text, i, "null")
		default:
			i = number(text, i)
		}
		if i < 0 {
			return fail(-i - 1)
		}
		// A value ended before i: what follows it closes containers or
		// starts the next value.
		for {
			i = space(text, i)
			if stack.depth == 0 {
				if i < len(text) {
					return fail(i)
				}
				return sh, nil
			}
			if i >= len(text) {
				return fail(i)
			}
			open := stack.top()
			if text[i] == open+2 {
				stack.depth--
				i++
				continue
			}
			if text[i] != ',' {
				return fail(i)
			}
			i = space(text, i+1)
			if open == '{' {
				var ok bool
				if i, ok = sh.member(text, i, stack.depth); !ok {
					return fail(i)
				}
			}
			break
		}
	}
}

// containers is the stack of open objects and arrays, a bit each: a
// frame of ten million levels costs it 1.25 MB.
type containers struct {
	bits  []uint64 // of level n at bit n%64 of bits[n/64]: 1 for an object
	depth int
}

func (s *containers) push(c byte) {
	word, bit := s.depth/64, uint(s.depth%64)
	if word == len(s.bits) {
		s.bits = append(s.bits, 0)
	}
	if c == '{' {
		s.bits[word] |= 1 << bit
	} else {
		s.bits[word] &^= 1 << bit
	}
	s.depth++
}

// top is the innermost open container's opening byte.
func (s *containers) top() byte {
	n := s.depth - 1
	if s.bits[n/64]&(1<<uint(n%64)) != 0 {
		return '{'
	}
	return '['
}

// member reads a member's name and its colon at text[i], noting the name
// when the object is the top level, and returns where its value starts;
// false and the offset at fault when there is no name and colon.
func (sh *Shape) member(text string, i, depth int) (int, bool) {
	end := str(text, i)
	if end < 0 {
		return -end - 1, false
	}
	if depth == 1 {
		sh.Names = append(sh.Names, name(text[i:end]))
	}
	i = space(text, end)
	if i >= len(text) || text[i] != ':' {
		return i, false
	}
	return space(text, i+1), true
}

// name is what the JSON string quoted means, as encoding/json reads it:
// escapes read, bytes that are not UTF-8 as U+FFFD.
func name(quoted string) string {
	plain := quoted[1 : len(quoted)-1]
	if strings.IndexByte(plain, '\\') < 0 && utf8.ValidString(plain) {
		return plain
	}
	var s string
	_ = json.Unmarshal([]byte(quoted), &s) // str has read it as a string
	return s
}

// The scanning functions return where what they read ends, or, when it is
// not JSON, -1 minus the offset at fault.

// str reads the string at text[i].
func str(text string, i int) int {
	if i >= len(text) || text[i] != '"' {
		return -i - 1
	}
	for i++; i < len(text); i++ {
		switch c := text[i]; {
		case c == '"':
			return i + 1
		case c < 0x20:
			return -i - 1
		case c == '\\':
			n := EscapeLen(text[i:])
			if n == 0 {
				return -i - 1
			}
			i += n - 1
		}
	}
	return -len(text) - 1
}

// EscapeLen is the length of the JSON string escape s starts with (a
// backslash and what follows it), or 0 if it is none.
func EscapeLen[T ~string | ~[]byte](s T) int {
	if len(s) < 2 {
		return 0
	}
	switch s[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if len(s) < 6 {
			return 0
		}
		for i := 2; i < 6; i++ {
			if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return 0
			}
		}
		return 6
	}
	return 0
}

// number reads the number at text[i]: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func number(text string, i int) int {
	if i < len(text) && text[i] == '-' {
		i++
	}
	switch {
	case i < len(text) && text[i] == '0':
		i++
	case i < len(text) && '1' <= text[i] && text[i] <= '9':
		i = digits(text, i)
	default:
		return -i - 1
	}
	if i < len(text) && text[i] == '.' {
		if i = digits(text, i+1); i < 0 {
			return i
		}
	}
	if i < len(text) && (text[i] == 'e' || text[i] == 'E') {
		i++
		if i < len(text) && (text[i] == '+' || text[i] == '-') {
			i++
		}
		return digits(text, i)
	}
	return i
}

// digits reads one digit or more at text[i].
func digits(text string, i int) int {
	start := i
	for i < len(text) && '0' <= text[i] && text[i] <= '9' {
		i++
	}
	if i == start {
		return -i - 1
	}
	return i
}

func literal(text string, i int, word string) int {
	for j := 0; j < len(word); j++ {
		if i+j >= len(text) || text[i+j] != word[j] {
			return -(i + j) - 1
		}
	}
	return i + len(word)
}

// space returns where the white space at text[i] ends.
func space(text string, i int) int {
	for i < len(text) && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r') {
		i++
	}
	return i
}
