package probe

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/acpconform/acpconform/internal/exactjson"
)

// SameValue reports whether two JSON texts are the same value: equal as JSON,
// structurally. Object key order and white space do not matter, member
// names are compared exactly (case included), numbers are compared exactly
// by value (1, 1.0 and 1e0 are the same; 2^53 and 2^53+1 are not), and
// invalid JSON equals nothing. A text in which an object names a member
// twice is the same as another only when each of its readings is (the
// first of each duplicate, and the last): {"a":1,"a":1} is {"a":1}, and
// {"a":1,"a":2}, which has no single meaning, is the same as no text, not
// even itself.
func SameValue(a, b json.RawMessage) bool {
	readingsA, _ := exactjson.Readings(a)
	readingsB, _ := exactjson.Readings(b)
	for _, ra := range readingsA {
		for _, rb := range readingsB {
			va, okA := decode(ra)
			vb, okB := decode(rb)
			if !okA || !okB || !sameJSON(va, vb) {
				return false
			}
		}
	}
	return true
}

func decode(raw json.RawMessage) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return nil, false
	}
	return v, true
}

func sameJSON(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, va := range a {
			vb, ok := b[k]
			if !ok || !sameJSON(va, vb) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !sameJSON(a[i], b[i]) {
				return false
			}
		}
		return true
	case json.Number:
		b, ok := b.(json.Number)
		if !ok {
			return false
		}
		da, okA := decimalOf(a)
		db, okB := decimalOf(b)
		if !okA || !okB {
			return a == b // an exponent beyond what an int holds
		}
		return da == db
	default: // string, bool, nil
		return a == b
	}
}

// decimal is a JSON number by value: its significant digits, without
// leading or trailing zeros, and the place of the decimal point among
// them, so that 12.50e1 is {digits: "125", point: 3} and 0.05 is {"5", -1}.
// Two numbers are equal exactly when their decimals are; zero is
// {"", 0}. Reading one takes time linear in the number's length, where
// exact arithmetic on a number of a million digits took seconds.
type decimal struct {
	negative bool
	digits   string
	point    int
}

// decimalOf reads n, a JSON number; ok is false when its exponent does
// not fit an int and its digits are not all zeros (0e99999999999 is 0).
func decimalOf(n json.Number) (d decimal, ok bool) {
	s := string(n)
	d.negative = strings.HasPrefix(s, "-")
	mantissa, exp, hasExp := strings.Cut(strings.TrimPrefix(s, "-"), "e")
	if !hasExp {
		mantissa, exp, hasExp = strings.Cut(mantissa, "E")
	}
	whole, fraction, _ := strings.Cut(mantissa, ".")
	digits := strings.TrimLeft(whole+fraction, "0")
	if digits == "" {
		return decimal{}, true // zero, -0 and 0e5 included
	}
	e := 0
	if hasExp {
		var err error
		if e, err = strconv.Atoi(strings.TrimPrefix(exp, "+")); err != nil || e > 1<<40 || e < -1<<40 {
			return d, false
		}
	}
	leadingZeros := len(whole) + len(fraction) - len(digits)
	d.point = len(whole) + e - leadingZeros
	d.digits = strings.TrimRight(digits, "0")
	return d, true
}

// integer reports whether d has no fraction.
func (d decimal) integer() bool { return d.point >= len(d.digits) }

// int64 returns d as an int64, when it is an integer that fits one.
func (d decimal) int64() (int64, bool) {
	if d.digits == "" {
		return 0, true // zero, which has no digits to parse
	}
	if !d.integer() || d.point > 19 {
		return 0, false
	}
	s := d.digits + strings.Repeat("0", d.point-len(d.digits))
	if d.negative {
		s = "-" + s
	}
	i, err := strconv.ParseInt(s, 10, 64)
	return i, err == nil
}
