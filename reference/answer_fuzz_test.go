package reference

import (
	"encoding/json"
	"errors"
	"testing"
)

// FuzzReadAnswer feeds arbitrary results and choice counts to the answer
// parser: every input must give a valid outcome or an invalid-response error,
// never a panic, and an acceptance must name an offered index by its one
// canonical token.
func FuzzReadAnswer(f *testing.F) {
	for _, seed := range []string{
		`{"action":"accept","content":{"choice":"choice_0"}}`,
		`{"action":"accept","content":{"choice":"choice_1","other":1}}`,
		`{"action":"accept","content":{"choice":"choice_01"}}`,
		`{"action":"accept","content":{"choice":"choice_\u0660"}}`,
		`{"action":"accept","content":{"choice":"choice_99999999999999999999"}}`,
		`{"action":"accept","content":{"choice":null}}`,
		`{"action":"accept","content":null}`,
		`{"action":"accept"}`,
		`{"action":"decline","content":{"choice":"choice_0"}}`,
		`{"action":"cancel"}`,
		`{"action":"_defer"}`,
		`{"action":null}`,
		`{}`,
		`null`,
		`[]`,
		`"accept"`,
		`{"action":"accept","content":{"choice":"choice_0"},"action":"decline"}`,
		`{"action":"acc`,
	} {
		f.Add([]byte(seed), 2)
	}
	f.Fuzz(func(t *testing.T, raw []byte, n int) {
		if n < 1 || n > 1<<16 {
			n = 1 + (n&0xffff+0x10000)%0x10000 // any positive count, as AskChoice never offers none
		}
		resp, err := decodeResponse(json.RawMessage(raw))
		if err != nil {
			if !errors.Is(err, ErrInvalidResponse) {
				t.Fatalf("decodeResponse(%q) = %v, not an invalid response", raw, err)
			}
			return
		}
		status, i, err := readChoice(resp, n)
		switch {
		case err != nil:
			if !errors.Is(err, ErrInvalidResponse) || status != "" {
				t.Fatalf("readChoice(%q, %d) = %q, %v", raw, n, status, err)
			}
		case !status.Valid():
			t.Fatalf("readChoice(%q, %d) = invalid status %q without an error", raw, n, status)
		case status == StatusAccepted:
			if i < 0 || i >= n {
				t.Fatalf("readChoice(%q, %d) accepted index %d", raw, n, i)
			}
			var content map[string]any
			if json.Unmarshal(resp.Content, &content) != nil || content[ChoiceProperty] != Token(i) {
				t.Fatalf("readChoice(%q, %d) accepted index %d for a token other than %q", raw, n, i, Token(i))
			}
		}
	})
}
