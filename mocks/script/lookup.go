package script

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// lookup returns the value at path in doc, a slice of doc, or nil. Each
// step names a member of an object or, on an array, an index; the first
// member of a name counts, as gjson has it. It trusts doc to be JSON, as
// the mock peers have checked every frame they hand on, and skips what is
// off the path without reading it: the mock client looks up the picked
// option this way on every answer, in two thirds of gjson's time
// (BenchmarkLookup). On what is not JSON it stays in bounds and may find
// nothing.
func lookup(doc []byte, path ...string) json.RawMessage {
	i := skipSpace(doc, 0)
	for _, step := range path {
		switch {
		case i >= len(doc):
			return nil
		case doc[i] == '{':
			i = member(doc, i, step)
		case doc[i] == '[':
			n, err := strconv.Atoi(step)
			if err != nil || n < 0 {
				return nil
			}
			i = element(doc, i, n)
		default:
			return nil
		}
		if i < 0 {
			return nil
		}
	}
	end := skipValue(doc, i)
	if end < 0 {
		return nil
	}
	return doc[i:end:end]
}

// member returns where the value of the member named name starts in the
// object at doc[i], or -1.
func member(doc []byte, i int, name string) int {
	i = skipSpace(doc, i+1)
	for i < len(doc) && doc[i] == '"' {
		end := skipString(doc, i)
		if end < 0 {
			return -1
		}
		key := doc[i+1 : end-1]
		match := string(key) == name || (bytes.IndexByte(key, '\\') >= 0 && unquoted(doc[i:end]) == name)
		i = skipSpace(doc, end)
		if i >= len(doc) || doc[i] != ':' {
			return -1
		}
		i = skipSpace(doc, i+1)
		if match {
			return i
		}
		if i = next(doc, i); i < 0 {
			return -1
		}
	}
	return -1
}

// element returns where element n of the array at doc[i] starts, or -1.
func element(doc []byte, i, n int) int {
	i = skipSpace(doc, i+1)
	for k := 0; i < len(doc) && doc[i] != ']'; k++ {
		if k == n {
			return i
		}
		if i = next(doc, i); i < 0 {
			return -1
		}
	}
	return -1
}

// next skips the value at doc[i] and the comma after it, if one is
// there, and returns where what follows starts, or -1.
func next(doc []byte, i int) int {
	if i = skipValue(doc, i); i < 0 {
		return -1
	}
	if i = skipSpace(doc, i); i < len(doc) && doc[i] == ',' {
		i = skipSpace(doc, i+1)
	}
	return i
}

// skipValue returns where the value at doc[i] ends, or -1.
func skipValue(doc []byte, i int) int {
	if i >= len(doc) {
		return -1
	}
	switch doc[i] {
	case '"':
		return skipString(doc, i)
	case '{', '[':
		depth := 0
		for i < len(doc) {
			switch doc[i] {
			case '"':
				if i = skipString(doc, i); i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	}
	start := i
	for i < len(doc) {
		switch doc[i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return i
		}
		i++
	}
	if i == start {
		return -1
	}
	return i
}

// skipString returns where the string at doc[i] ends, past its quote, or -1.
func skipString(doc []byte, i int) int {
	for i++; i < len(doc); i++ {
		switch doc[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

func skipSpace(doc []byte, i int) int {
	for i < len(doc) && (doc[i] == ' ' || doc[i] == '\t' || doc[i] == '\r' || doc[i] == '\n') {
		i++
	}
	return i
}

// unquoted is the string a quoted JSON string means, or "" if it means
// none.
func unquoted(raw []byte) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}
