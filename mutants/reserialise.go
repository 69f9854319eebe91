package mutants

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/acpconform/acpconform/mocks/relay"
)

// reserialiser rewrites every message as REL-1 allows a relay to: it
// reads it and writes it again, keys sorted, non-ASCII characters as
// \u escapes, numbers in the shortest form of their exact value (1.0 as
// 1, 1e2 as 100), a space after every colon and comma, a line that ends
// in \r\n; and it gives every request an id of its own, a string, in both
// directions, mapping the answers and each $/cancel_request back.
type reserialiser struct {
	next    int
	pending [2]map[string]any // by the direction a request went: the relay's id to its sender's
}

func (r *reserialiser) filter(dir relay.Direction, frame []byte) [][]byte {
	var msg map[string]any
	dec := json.NewDecoder(bytes.NewReader(frame))
	dec.UseNumber()
	if dec.Decode(&msg) != nil || msg == nil {
		return [][]byte{frame}
	}
	if r.pending[dir] == nil {
		r.pending[dir] = map[string]any{}
	}
	id, hasID := msg["id"]
	method, isCall := msg["method"].(string)
	switch {
	case isCall && hasID && id != nil:
		mine := fmt.Sprintf("relay-%d", r.next)
		r.next++
		r.pending[dir][mine] = id
		msg["id"] = mine
	case !isCall && hasID:
		back := r.pending[1-dir]
		if mine, ok := id.(string); ok && back[mine] != nil {
			msg["id"] = back[mine]
			delete(back, mine)
		}
	case method == "$/cancel_request":
		// It names a request that went the same way, by its sender's id.
		if params, ok := msg["params"].(map[string]any); ok {
			for mine, theirs := range r.pending[dir] {
				if sameID(theirs, params["requestId"]) {
					params["requestId"] = mine
				}
			}
		}
	}
	out, err := json.Marshal(exactNumbers(msg))
	if err != nil {
		panic("mutants: " + err.Error())
	}
	return [][]byte{append(append([]byte(" "), spaced(escapeNonASCII(out))...), '\r')}
}

func sameID(a, b any) bool {
	ja, errA := json.Marshal(exactNumbers(a))
	jb, errB := json.Marshal(exactNumbers(b))
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}

// exactNumbers is v with each number written by exactNumber.
func exactNumbers(v any) any {
	return mapNumbers(v, func(n json.Number) any { return json.Number(exactNumber(string(n))) })
}

// mapNumbers is v, decoded with UseNumber, with each number replaced.
func mapNumbers(v any, f func(json.Number) any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			v[k] = mapNumbers(x, f)
		}
	case []any:
		for i, x := range v {
			v[i] = mapNumbers(x, f)
		}
	case json.Number:
		return f(v)
	}
	return v
}

// exactNumber writes the JSON number n in the shortest plain form of its
// exact value: 1.0 as 1, 1e2 as 100, -0.50 as -0.5; a number more than
// 100 places from the point keeps an exponent (1e400, 2.5e-400).
func exactNumber(n string) string {
	sign := ""
	if rest, ok := strings.CutPrefix(n, "-"); ok {
		sign, n = "-", rest
	}
	mantissa, exp, _ := strings.Cut(strings.ReplaceAll(n, "E", "e"), "e")
	e := 0
	if exp != "" {
		var err error
		if e, err = strconv.Atoi(strings.TrimPrefix(exp, "+")); err != nil {
			return sign + n
		}
	}
	whole, fraction, _ := strings.Cut(mantissa, ".")
	digits, point := whole+fraction, len(whole)+e
	for strings.HasPrefix(digits, "0") {
		digits, point = digits[1:], point-1
	}
	digits = strings.TrimRight(digits, "0")
	switch {
	case digits == "":
		return "0"
	case point > 100 || point < -100:
		if len(digits) > 1 {
			digits = digits[:1] + "." + digits[1:]
		}
		return fmt.Sprintf("%s%se%d", sign, digits, point-1)
	case point >= len(digits):
		return sign + digits + strings.Repeat("0", point-len(digits))
	case point <= 0:
		return sign + "0." + strings.Repeat("0", -point) + digits
	}
	return sign + digits[:point] + "." + digits[point:]
}

// escapeNonASCII writes every character of b beyond ASCII as a \u escape
// (a pair for one beyond the BMP); outside strings, JSON is ASCII.
func escapeNonASCII(b []byte) []byte {
	var out bytes.Buffer
	for _, r := range string(b) {
		if r < 0x80 {
			out.WriteRune(r)
			continue
		}
		for _, u := range utf16.Encode([]rune{r}) {
			fmt.Fprintf(&out, `\u%04x`, u)
		}
	}
	return out.Bytes()
}

// spaced puts a space after every colon and comma of b outside strings.
func spaced(b []byte) []byte {
	out := make([]byte, 0, len(b)+len(b)/8)
	inString, escaped := false, false
	for _, c := range b {
		out = append(out, c)
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && (c == ':' || c == ','):
			out = append(out, ' ')
		}
	}
	return out
}

// asFloat64 rewrites a message's numbers as a relay that reads JSON
// numbers as float64 and writes them as JavaScript's JSON.stringify does:
// 9007199254740993 as 9007199254740992, 0.1000000000000000055511151231257827
// as 0.1, 1e400 as null.
func asFloat64(frame []byte) []byte {
	var msg any
	dec := json.NewDecoder(bytes.NewReader(frame))
	dec.UseNumber()
	if dec.Decode(&msg) != nil {
		return frame
	}
	out, err := json.Marshal(mapNumbers(msg, func(n json.Number) any {
		f, err := strconv.ParseFloat(string(n), 64)
		switch {
		case err != nil && !errors.Is(err, strconv.ErrRange):
			return n
		case math.IsInf(f, 0):
			return nil // JSON.stringify(Infinity)
		case f == 0:
			return json.Number("0") // -0 too
		case f == math.Trunc(f) && math.Abs(f) < 1e21:
			return json.Number(strconv.FormatFloat(f, 'f', -1, 64))
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
	}))
	if err != nil {
		panic("mutants: " + err.Error())
	}
	return out
}
