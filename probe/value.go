package probe

import (
	"bytes"
	"encoding/json"
	"math/big"
	"strconv"
	"strings"
)

// SameValue reports whether two JSON texts are the same value: equal as JSON,
// structurally. Object key order and white space do not matter, numbers are
// compared exactly by value (1, 1.0 and 1e0 are the same; 2^53 and 2^53+1
// are not), and invalid JSON equals nothing.
func SameValue(a, b json.RawMessage) bool {
	va, okA := decode(a)
	vb, okB := decode(b)
	return okA && okB && sameJSON(va, vb)
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
		if hugeExponent(a) || hugeExponent(b) {
			return a == b // exact arithmetic on such numbers would cost unbounded memory
		}
		ra, okA := new(big.Rat).SetString(string(a))
		rb, okB := new(big.Rat).SetString(string(b))
		return okA && okB && ra.Cmp(rb) == 0
	default: // string, bool, nil
		return a == b
	}
}

// hugeExponent reports whether n has an exponent beyond ±1000.
func hugeExponent(n json.Number) bool {
	i := strings.IndexAny(string(n), "eE")
	if i < 0 {
		return false
	}
	exp, err := strconv.Atoi(strings.TrimPrefix(string(n[i+1:]), "+"))
	return err != nil || exp > 1000 || exp < -1000
}
