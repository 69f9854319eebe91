package jsonscan_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/internal/jsonscan"
)

// nest is a valid declined outcome with an unknown member nested depth
// levels deep, the outcome itself the first.
func nest(depth int) string {
	return `{"acpconform":1,"outcome":"declined","x":` + strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + "}"
}

func TestScan(t *testing.T) {
	for _, tc := range []struct {
		text   string
		depth  int
		object bool
		names  []string
	}{
		{`1`, 0, false, nil},
		{` "x" `, 0, false, nil},
		{`[]`, 1, false, nil},
		{`[[], {"a": [1, {"b": null}]}]`, 4, false, nil},
		{`{}`, 1, true, nil},
		{"\t{\"acpconform\": 1.0, \"a\\u0062\": {\"c\": [true, false]}, \"op\": \"\\\"\"}\r\n", 3, true, []string{"acpconform", "ab", "op"}},
		{`{"a":1,"a":2}`, 1, true, []string{"a", "a"}},
		{nest(10000), 10000, true, []string{"acpconform", "outcome", "x"}},
	} {
		sh, err := jsonscan.Scan(tc.text)
		if err != nil || sh.Depth != tc.depth || sh.Object != tc.object || !slices.Equal(sh.Names, tc.names) {
			t.Errorf("Scan(%.80s) = %+.80v, %v; want depth %d, object %v, names %q", tc.text, sh, err, tc.depth, tc.object, tc.names)
		}
	}
	for _, text := range []string{``, ` `, `[`, `[1,]`, `{"a":1,}`, `{"a"}`, `{1:2}`, `[1 2]`, `01`, `-`, `1.`, `1e`, `.5`, `tru`, `nul`, `"\x"`, "\"\x01\"", `"\u12g4"`, `{} {}`, `]`, `[}`, `{]`, `"`} {
		if sh, err := jsonscan.Scan(text); err == nil {
			t.Errorf("Scan(%q) = %+v, want an error: it is not JSON", text, sh)
		}
	}
}

// TestScanHasNoBoundOnNesting: a million levels, which would cost a
// recursive scanner hundreds of megabytes of stack, scan to their depth.
// (probe/schema's tests go to ten million.)
func TestScanHasNoBoundOnNesting(t *testing.T) {
	const depth = 1_000_000
	sh, err := jsonscan.Scan(nest(depth))
	if err != nil || sh.Depth != depth || !slices.Equal(sh.Names, []string{"acpconform", "outcome", "x"}) {
		t.Errorf("Scan of %d levels = %+v, %v", depth, sh, err)
	}
	if _, err := jsonscan.Scan(nest(depth)[1:]); err == nil {
		t.Errorf("Scan of %d levels without its first brace is no error", depth)
	}
}

// FuzzScan holds Scan to encoding/json wherever encoding/json reads: the
// same texts are JSON, and a top-level object has the same names.
func FuzzScan(f *testing.F) {
	for _, seed := range []string{`{"acpconform":1,"outcome":"declined"}`, `[1,-0.5e+3,"\u00e9\n",true,false,null,{}]`, `{"a\"b":{"c":[[]]}}`, ` {"x":1} x`, `"\ud800"`, "\"\xff\""} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		sh, err := jsonscan.Scan(text)
		if valid := json.Valid([]byte(text)); valid != (err == nil) {
			t.Fatalf("Scan(%q): %v; encoding/json says valid %v", text, err, valid)
		}
		if err != nil {
			return
		}
		dec := json.NewDecoder(strings.NewReader(text))
		dec.UseNumber()
		var got []string
		depth, deepest, expectName := 0, 0, false
		for {
			tok, err := dec.Token()
			if err != nil {
				break
			}
			switch tok {
			case json.Delim('{'), json.Delim('['):
				expectName = expectName || (depth == 0 && tok == json.Delim('{'))
				depth++
				deepest = max(deepest, depth)
			case json.Delim('}'), json.Delim(']'):
				depth--
				expectName = depth == 1
			default:
				if depth == 1 && sh.Object && expectName {
					got = append(got, tok.(string))
				}
				expectName = depth == 1 && sh.Object && !expectName
			}
		}
		if sh.Depth != deepest || !slices.Equal(got, sh.Names) || sh.Object != strings.HasPrefix(strings.TrimLeft(text, " \t\r\n"), "{") {
			t.Fatalf("Scan(%q) = %+v; encoding/json reads depth %d, names %q", text, sh, deepest, got)
		}
	})
}

// BenchmarkScanNested: how long ten million levels take, 20 MB of brackets.
func BenchmarkScanNested(b *testing.B) {
	for _, depth := range []int{100_000, 10_000_000} {
		text := nest(depth)
		b.Run(fmt.Sprint(depth), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if _, err := jsonscan.Scan(text); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
