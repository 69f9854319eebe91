package reference

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/acpconform/acpconform/internal/elide"
)

// ElicitationResponse is a client's answer to elicitation/create as it came
// over the wire. Unlike the acp-go-sdk union, it does not guess: an unknown or
// missing action stays what it was.
type ElicitationResponse struct {
	Action  string          // "accept", "decline", "cancel", or whatever else the client sent; "" when absent
	Content json.RawMessage // as received; nil when absent
	Raw     json.RawMessage // the whole result as received
}

// decodeResponse reads the result of an elicitation/create request. It fails
// only when the result is not an object or its action is not a string; the
// meaning of the action is left to the caller.
func decodeResponse(raw json.RawMessage) (ElicitationResponse, error) {
	resp := ElicitationResponse{Raw: raw}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return resp, &ResponseError{Reason: "the result is not a JSON object", Result: raw}
	}
	if a, ok := fields["action"]; ok {
		if err := json.Unmarshal(a, &resp.Action); err != nil || isNull(a) {
			return resp, &ResponseError{Reason: "the action is not a string", Result: raw}
		}
	}
	resp.Content = fields["content"]
	return resp, nil
}

// readChoice turns an answer to a form of n choices into an outcome and, when
// accepted, the index of the chosen choice (CONTRACT TOK-1..3, RES-1..4).
func readChoice(resp ElicitationResponse, n int) (Status, int, error) {
	switch resp.Action {
	case "accept":
		i, err := readToken(resp.Content, n)
		if err != nil {
			return "", 0, &ResponseError{Reason: err.Error(), Result: resp.Raw}
		}
		return StatusAccepted, i, nil
	case "decline":
		return StatusDeclined, 0, nil // content, if any, is ignored (RES-4)
	case "cancel":
		return StatusCancelled, 0, nil
	case "":
		return "", 0, &ResponseError{Reason: "the action is missing", Result: resp.Raw}
	default:
		return "", 0, &ResponseError{Reason: fmt.Sprintf("unknown action %q", resp.Action), Result: resp.Raw}
	}
}

// maxQuoted bounds what an error quotes of the client's answer: a
// 100,000-digit token is refused with its first bytes and its length, not
// in full.
const maxQuoted = 200

// readToken finds the offered token in an accept's content. Keys other than
// "choice" are ignored (TOK-3).
func readToken(content json.RawMessage, n int) (int, error) {
	if len(content) == 0 {
		return 0, fmt.Errorf("accept without content")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(content, &fields); err != nil || fields == nil {
		return 0, fmt.Errorf("content is not an object: %s", elide.Head(string(content), maxQuoted))
	}
	raw, ok := fields[ChoiceProperty]
	if !ok {
		return 0, fmt.Errorf("content has no %q", ChoiceProperty)
	}
	var token string
	if err := json.Unmarshal(raw, &token); err != nil || isNull(raw) {
		return 0, fmt.Errorf("%q is not a string: %s", ChoiceProperty, elide.Head(string(raw), maxQuoted))
	}
	i, ok := tokenIndex(token)
	if !ok || i >= n {
		return 0, fmt.Errorf("%q is not one of the %d offered tokens", elide.Head(token, maxQuoted), n)
	}
	return i, nil
}

// tokenIndex parses a canonical token: "choice_" and a non-negative decimal in
// ASCII digits with no sign, no padding and no white space.
func tokenIndex(token string) (int, bool) {
	digits, ok := strings.CutPrefix(token, TokenPrefix)
	if !ok || digits == "" || (digits[0] == '0' && len(digits) > 1) {
		return 0, false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, false
		}
	}
	i, err := strconv.Atoi(digits) // fails on overflow
	return i, err == nil
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }
