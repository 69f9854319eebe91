package trace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// Redactor replaces secrets with handles in what a trace records: the
// values of named environment variables, and whatever matches given
// patterns. The zero Redactor replaces nothing.
type Redactor struct {
	values   []secretValue
	patterns []secretPattern
}

type secretValue struct {
	forms  [][]byte // the value, and its form inside a JSON string when that differs
	handle []byte
	from   string
}

type secretPattern struct {
	re     *regexp.Regexp
	handle []byte
	from   string
}

// MinSecretLength is the shortest value a Redactor replaces: a shorter
// one would turn up inside unrelated text and make the trace unreadable.
const MinSecretLength = 4

// NewRedactor returns a Redactor for the values of the environment
// variables envNames (looked up with getenv) and for the regular
// expressions patterns (Go's syntax). A variable that is unset or shorter
// than MinSecretLength is an error: a secret that is not replaced must not
// look as if it were.
func NewRedactor(envNames, patterns []string, getenv func(string) string) (*Redactor, error) {
	r := &Redactor{}
	for _, name := range envNames {
		value := getenv(name)
		if len(value) < MinSecretLength {
			return nil, fmt.Errorf("--secret-env %s: the variable is unset or shorter than %d bytes, so nothing would be kept out of the trace", name, MinSecretLength)
		}
		forms := [][]byte{[]byte(value)}
		if quoted := jsonStringBody(value); quoted != value {
			forms = append(forms, []byte(quoted))
		}
		r.values = append(r.values, secretValue{forms: forms, handle: []byte("${secret:" + name + "}"), from: "env " + name})
	}
	for i, p := range patterns {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("--secret-pattern %q: %w", p, err)
		}
		if re.MatchString("") {
			return nil, fmt.Errorf("--secret-pattern %q matches the empty string", p)
		}
		n := fmt.Sprint(i + 1)
		r.patterns = append(r.patterns, secretPattern{re: re, handle: []byte("${secret:pattern-" + n + "}"), from: "pattern " + n})
	}
	return r, nil
}

// jsonStringBody is s as it appears between the quotes of a JSON string,
// as encoders write it.
func jsonStringBody(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	out := strings.TrimSuffix(b.String(), "\n")
	return out[1 : len(out)-1]
}

// Secrets lists the handles r writes and where each value came from.
func (r *Redactor) Secrets() []Secret {
	out := []Secret{}
	for _, v := range r.values {
		out = append(out, Secret{Handle: string(v.handle), From: v.from})
	}
	for _, p := range r.patterns {
		out = append(out, Secret{Handle: string(p.handle), From: p.from})
	}
	return out
}

// Redact returns b with each secret replaced by its handle; b itself is
// not changed.
func (r *Redactor) Redact(b []byte) []byte {
	if r == nil {
		return b
	}
	for _, v := range r.values {
		for _, form := range v.forms {
			if bytes.Contains(b, form) {
				b = bytes.ReplaceAll(b, form, v.handle)
			}
		}
	}
	for _, p := range r.patterns {
		b = p.re.ReplaceAllLiteral(b, p.handle)
	}
	return b
}
