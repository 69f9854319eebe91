// Package exactjson reads JSON a subject sent as ACP's SDKs read it (zod,
// serde, pydantic): a member name matches only itself, case included
// ("Action" is an unknown member, not "action"), and a value keeps its JSON
// type (a number is no string). Go's encoding/json does neither for
// structs: it matches names case-insensitively and lets the last of
// duplicate names win.
//
// An object that names a member twice has no single meaning (RFC 8259 §4):
// JavaScript and Python read the last, serde refuses it, gjson finds the
// first. Readings gives each way to read such a text, so that a judgement
// can run on every one and no reading hides a failure; Unmarshal, for what
// the harness only acts on (a session id, a stop reason), reads the last.
package exactjson

import (
	"bytes"
	encjson "encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// options read as the SDKs do. Invalid UTF-8 and lone surrogates are let
// through, as JSON.parse lets them, so that exactness costs nothing but
// the names; an encoding/json Number takes a JSON number only. They are
// built at first use: agents link this package through probe, and their
// start is timed.
var options = sync.OnceValue(func() json.Options {
	return json.JoinOptions(
		jsontext.AllowInvalidUTF8(true),
		json.WithUnmarshalers(json.UnmarshalFunc(func(b []byte, n *encjson.Number) error {
			if len(b) == 0 || (b[0] != '-' && (b[0] < '0' || b[0] > '9')) {
				return fmt.Errorf("%s is no JSON number", kindOf(b))
			}
			*n = encjson.Number(b)
			return nil
		})),
	)
})

// Unmarshal decodes data into v with member names matched exactly, as the
// SDKs match them: a struct field takes only the member its json tag names
// (or, untagged, its Go name as spelt), and a member whose name differs by
// case is unknown, and ignored. A value of another JSON type than the
// field's is an error, as with encoding/json, and so is a JSON string in
// an encoding/json Number. Types with an UnmarshalJSON method decode
// themselves. When an object names a member twice, Unmarshal reads the
// last, as JavaScript and Python do: judge such a text on each of its
// Readings instead.
func Unmarshal(data []byte, v any) error {
	err := json.Unmarshal(data, v, options())
	if errors.Is(err, jsontext.ErrDuplicateName) {
		readings, _ := Readings(data)
		err = json.Unmarshal(readings[len(readings)-1], v, options())
	}
	return err
}

// A Dup is a member name an object of a text repeats.
type Dup struct {
	// Pointer is the JSON Pointer (RFC 6901) of the member: "/content", or
	// "/content/choice" for a member of the object at "/content".
	Pointer string
}

// Name is the member name that appears twice.
func (d Dup) Name() string {
	i := strings.LastIndexByte(d.Pointer, '/')
	return strings.NewReplacer("~1", "/", "~0", "~").Replace(d.Pointer[i+1:])
}

// String names the member for a sentence: "content" at the top level,
// "choice" in /content deeper down.
func (d Dup) String() string {
	i := strings.LastIndexByte(d.Pointer, '/')
	if i <= 0 {
		return strconv.Quote(d.Name())
	}
	return fmt.Sprintf("%q in %s", d.Name(), d.Pointer[:i])
}

// Say writes dups for a sentence: `"content"`, `"content" and "action"`.
func Say(dups []Dup) string {
	s := make([]string, len(dups))
	for i, d := range dups {
		s[i] = d.String()
	}
	switch len(s) {
	case 0:
		return ""
	case 1:
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// Readings returns the ways to read the JSON text data. When no object in
// it names a member twice (or it is not JSON at all), that is data alone
// and dups is empty. Otherwise there are two, each a text in which every
// object names each member once: the first keeps the first of each
// duplicate, the second the last, in the place of the first; dups names
// the duplicates in the order they appear. A judgement that runs on every
// reading cannot be fooled by {"action":"decline","content":{...},
// "content":null}.
func Readings(data []byte) (readings [][]byte, dups []Dup) {
	if jsontext.Value(data).IsValid(jsontext.AllowInvalidUTF8(true)) || !jsontext.Value(data).IsValid(jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true)) {
		return [][]byte{data}, nil
	}
	first, dups, err := dedupe(bytes.TrimSpace(data), "", true, nil)
	if err != nil {
		return [][]byte{data}, nil
	}
	last, _, err := dedupe(bytes.TrimSpace(data), "", false, nil)
	if err != nil {
		return [][]byte{data}, nil
	}
	return [][]byte{first, last}, dups
}

// dedupe writes the JSON value v with each object's duplicate members
// dropped but one, the first or the last, and adds to dups those it met;
// at is v's JSON Pointer. Each level reads its values whole and reads
// them again one level down: a message of a few levels costs a few scans.
func dedupe(v jsontext.Value, at string, keepFirst bool, dups []Dup) ([]byte, []Dup, error) {
	var open byte
	switch v.Kind() {
	case '{', '[':
		open = byte(v.Kind())
	default:
		return v, dups, nil
	}
	dec := jsontext.NewDecoder(bytes.NewReader(v), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if _, err := dec.ReadToken(); err != nil {
		return nil, dups, err
	}
	type member struct {
		name  []byte // as written, quoted
		value []byte
	}
	var members []member
	index := map[string]int{} // a name's place in members
	for i := 0; dec.PeekKind() != '}' && dec.PeekKind() != ']'; i++ {
		var name []byte
		key := strconv.Itoa(i)
		if open == '{' {
			raw, err := dec.ReadValue()
			if err != nil {
				return nil, dups, err
			}
			name = bytes.Clone(raw)
			unquoted, _ := jsontext.AppendUnquote(nil, raw) // invalid UTF-8 is replaced, as a reader would
			key = string(unquoted)
		}
		raw, err := dec.ReadValue()
		if err != nil {
			return nil, dups, err
		}
		here := at + "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(key)
		value, d, err := dedupe(bytes.Clone(raw), here, keepFirst, dups)
		if err != nil {
			return nil, dups, err
		}
		dups = d
		if j, seen := index[key]; seen && open == '{' {
			if !containsDup(dups, here) {
				dups = append(dups, Dup{Pointer: here})
			}
			if !keepFirst {
				members[j].value = value
			}
			continue
		}
		index[key] = len(members)
		members = append(members, member{name, value})
	}
	var b bytes.Buffer
	b.WriteByte(open)
	for i, m := range members {
		if i > 0 {
			b.WriteByte(',')
		}
		if m.name != nil {
			b.Write(m.name)
			b.WriteByte(':')
		}
		b.Write(m.value)
	}
	b.WriteByte(open + 2) // '{'+2 is '}', '['+2 is ']'
	return b.Bytes(), dups, nil
}

func containsDup(dups []Dup, pointer string) bool {
	for _, d := range dups {
		if d.Pointer == pointer {
			return true
		}
	}
	return false
}

// kindOf names the kind of the JSON value b.
func kindOf(b []byte) string {
	switch jsontext.Value(b).Kind() {
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	case '{':
		return "an object"
	case '[':
		return "an array"
	}
	return "no JSON value"
}

// OnEveryReading runs judge on each reading of a subject's JSON text (see
// Readings) and returns what it found: so that no reading hides a failure.
// A finding of one reading alone says which reading, and which duplicate,
// it rests on; a finding of both is given once.
func OnEveryReading(text []byte, judge func(reading []byte) []string) []string {
	readings, dups := Readings(text)
	if len(readings) == 1 {
		return judge(readings[0])
	}
	first, last := judge(readings[0]), judge(readings[1])
	var out []string
	for _, f := range first {
		if slices.Contains(last, f) {
			out = append(out, f)
		} else {
			out = append(out, fmt.Sprintf("%s (reading the first of the duplicate %s)", f, Say(dups)))
		}
	}
	for _, f := range last {
		if !slices.Contains(first, f) {
			out = append(out, fmt.Sprintf("%s (reading the last of the duplicate %s)", f, Say(dups)))
		}
	}
	return out
}
