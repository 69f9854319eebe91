package scenarios

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/onsi/gomega/format"

	"github.com/acpconform/acpconform/mocks/peer"
	"github.com/acpconform/acpconform/mocks/script"
	"github.com/acpconform/acpconform/probe"
)

// sentence is what an assertion core said: "" for nil.
func sentence(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestAssertionSentences(t *testing.T) {
	closed := fmt.Errorf("session/new: %w", errors.New("the connection ended before the answer: the subject closed it (end of file)"))
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"a failed step", failed("session/new", closed),
			"session/new failed: the connection ended before the answer: the subject closed it (end of file)"},
		{"a step that passed", failed("session/new", nil), ""},
		{"a declined accept", outcomeIs(probe.Outcome{Outcome: "declined"}, accepted(1, "production")),
			"the agent reported declined, want accepted with choice 1 (\"production\")\n" +
				"-want +got:\n" +
				"- index: 1\n" +
				"+ index: absent\n" +
				"- outcome: \"accepted\"\n" +
				"+ outcome: \"declined\"\n" +
				"- value: \"production\"\n" +
				"+ value: absent"},
		{"an accept where the answer was invalid, with no error kind", outcomeIs(accepted(0, "preview"), invalidResponse),
			"the agent reported accepted with choice 0 (\"preview\"), want error invalid_response\n" +
				"-want +got:\n" +
				"- error: \"invalid_response\"\n" +
				"+ error: absent\n" +
				"- outcome: \"error\"\n" +
				"+ outcome: \"accepted\""},
		{"a request error without its data", outcomeIs(requestError(-32601, nil), requestError(-32601, map[string]string{"method": "elicitation/create"})),
			"the agent reported error request_error (code -32601), want error request_error (code -32601, data {\"method\":\"elicitation/create\"})\n" +
				"-want +got:\n" +
				"- data: {\"method\":\"elicitation/create\"}\n" +
				"+ data: absent"},
		{"no outcome at all", outcomeIs(probe.Outcome{}, invalidResponse),
			"the agent reported no outcome, want error invalid_response\n" +
				"-want +got:\n" +
				"- error: \"invalid_response\"\n" +
				"+ error: absent\n" +
				"- outcome: \"error\"\n" +
				"+ outcome: absent"},
		{"a null value where a value was wanted", outcomeIs(probe.Outcome{Outcome: "accepted", Value: json.RawMessage("null")}, accepted(1, "production")),
			"the agent reported accepted with the value null, want accepted with choice 1 (\"production\")\n" +
				"-want +got:\n" +
				"- index: 1\n" +
				"+ index: absent\n" +
				"- value: \"production\"\n" +
				"+ value: null"},
		{"an equal outcome", outcomeIs(accepted(1, "production"), accepted(1, "production")), ""},
		{"a client's problems", clientProblems([]string{
			`elicitation/create #1: CLI-2: the accepted choice "choice_1_x" is none of the offered consts ["choice_0" "choice_1"]`,
			`elicitation/create #2: the action is "decline", want "accept"`,
		}, 2),
			"the client answered 2 requests out of 2 with problems:\n" +
				`- elicitation/create #1: CLI-2: the accepted choice "choice_1_x" is none of the offered consts ["choice_0" "choice_1"]` + "\n" +
				`- elicitation/create #2: the action is "decline", want "accept"`},
		{"one problem of a client, and another", clientProblems([]string{
			`elicitation/create #2: CLI-2: unknown action "maybe"`,
			`unexpected request fs/read_text_file: {"jsonrpc":"2.0"}`,
		}, 2),
			"the client answered 1 request out of 2 with problems, and did more wrong:\n" +
				`- elicitation/create #2: CLI-2: unknown action "maybe"` + "\n" +
				`- unexpected request fs/read_text_file: {"jsonrpc":"2.0"}`},
		{"one violation", none("the agent did what no client script allowed", []string{"unexpected request session/request_permission: {}"}),
			"the agent did what no client script allowed: unexpected request session/request_permission: {}"},
		{"an empty string", equal("the agent sent the message %s, want %s", "", "Pick"),
			`the agent sent the message "", want "Pick"`},
		{"two lists", equal("the agent sent the requests %s, want %s", []string{"elicitation/create", "session/request_permission"}, []string{"elicitation/create"}),
			`the agent sent the requests ["elicitation/create" "session/request_permission"], want ["elicitation/create"]` + "\n" +
				"-want +got:\n" +
				`+ [1]: "session/request_permission"`},
		{"no requests at all", equal("the agent sent the requests %s, want %s", []string(nil), []string{"elicitation/create"}),
			`the agent sent the requests none, want ["elicitation/create"]` + "\n" +
				"-want +got:\n" +
				`- ["elicitation/create"]` + "\n" +
				"+ none"},
		{"a schema with a trimmed label and a new member", sameJSON("the agent sent a requestedSchema other than the typed-choice schema",
			json.RawMessage(`{"type":"object","required":["choice"],"note":{"type":"string"},"properties":{"choice":{"oneOf":[{"const":"choice_0","title":"Preview"}]}}}`),
			json.RawMessage(`{"properties":{"choice":{"oneOf":[{"title":" Preview ","const":"choice_0"}]}},"required":["choice"],"type":"object"}`)),
			"the agent sent a requestedSchema other than the typed-choice schema\n" +
				"-want +got:\n" +
				`+ note: {"type":"string"}` + "\n" +
				`- properties.choice.oneOf[0].title: " Preview "` + "\n" +
				`+ properties.choice.oneOf[0].title: "Preview"`},
		{"a description key", sameJSON("the agent sent other option metadata than the description",
			json.RawMessage(`{"description":"Bee"}`), json.RawMessage(`{"acpkit.dev/choice-description":"Bee"}`)),
			"the agent sent other option metadata than the description\n" +
				"-want +got:\n" +
				`- ["acpkit.dev/choice-description"]: "Bee"` + "\n" +
				`+ description: "Bee"`},
		{"JSON equal in another order and spelling", sameJSON("differs", json.RawMessage(`{"b":[1.0],"a":"x"}`), json.RawMessage(`{"a":"x","b":[1]}`)), ""},
		{"a capitalised member", sameJSON("the agent sent other option metadata than the description",
			json.RawMessage(`{"Description":"Bee"}`), json.RawMessage(`{"description":"Bee"}`)),
			"the agent sent other option metadata than the description\n" +
				"-want +got:\n" +
				`+ Description: "Bee"` + "\n" +
				`- description: "Bee"`},
		{"a member twice, the first reading different", sameJSON("the agent sent other option metadata than the description",
			json.RawMessage(`{"description":"Bea","description":"Bee"}`), json.RawMessage(`{"description":"Bee"}`)),
			`the agent sent other option metadata than the description (what came names "description" twice; read with the first of each)` + "\n" +
				"-want +got:\n" +
				`- description: "Bee"` + "\n" +
				`+ description: "Bea"`},
		{"no JSON where JSON was wanted", sameJSON("the agent sent other option metadata than the description", nil, json.RawMessage(`{}`)),
			"the agent sent other option metadata than the description: there is none"},
		{"no error where one was wanted", isError("AskChoice returned %s once its context was cancelled, want %s", nil, context.Canceled),
			`AskChoice returned no error once its context was cancelled, want "context canceled"`},
		{"the wanted error, wrapped", isError("AskChoice returned %s, want %s", fmt.Errorf("ask: %w", context.Canceled), context.Canceled), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := sentence(tc.err); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestSlugOf(t *testing.T) {
	for text, want := range map[string]string{
		"a leading zero":                "leading-zero",
		"an Arabic-Indic digit":         "arabic-indic-digit",
		"the token as a key":            "token-as-a-key",
		"a fallback's decline":          "fallbacks-decline",
		"choice_0":                      "choice-0",
		"url, and form null":            "url-and-form-null",
		"-32601 in another SDK's words": "32601-in-another-sdks-words",
		"a":                             "a",
	} {
		if got := slugOf(text); got != want {
			t.Errorf("slugOf(%q) = %q, want %q", text, got, want)
		}
	}
}

// TestErrorsFormatAsText holds the safety net to its word: Gomega shows an
// error as its text, not as a dump of its fields.
func TestErrorsFormatAsText(t *testing.T) {
	err := &peer.CallError{What: "session/new", Reason: "the connection ended before the answer"}
	got := format.Object(err, 1)
	if !strings.Contains(got, "session/new: the connection ended before the answer") || strings.Contains(got, "What:") {
		t.Errorf("Gomega formats a *peer.CallError as\n%s", got)
	}
}

// TestOutcomeFailureQuotesTheAnswer: a failure of BeOutcomeAfter says
// which answer the agent got wrong, after what it reported: TOK-2's
// token, escaped where it could pass for another, cut where it is huge.
func TestOutcomeFailureQuotesTheAnswer(t *testing.T) {
	huge := "choice_1" + strings.Repeat("0", 99999)
	hugeAnswer := `{"action":"accept","content":{"choice":"` + huge + `"}}`
	for _, tc := range []struct {
		name   string
		answer script.Answer
		got    probe.Outcome
		want   string
	}{
		{"a leading zero", script.AcceptChoice("choice_01"), accepted(1, "production"),
			"the agent reported accepted with choice 1 (\"production\"), want error invalid_response\n" +
				`the client answered elicitation/create with {"action":"accept","content":{"choice":"choice_01"}}` + "\n" +
				"-want +got:\n" +
				"- error: \"invalid_response\"\n" +
				"+ error: absent\n" +
				"- outcome: \"error\"\n" +
				"+ outcome: \"accepted\""},
		{"an Arabic-Indic digit", script.AcceptChoice("choice_\u0660"), accepted(0, "preview"),
			"the agent reported accepted with choice 0 (\"preview\"), want error invalid_response\n" +
				`the client answered elicitation/create with {"action":"accept","content":{"choice":"choice_\u0660"}}` + "\n" +
				"-want +got:\n" +
				"- error: \"invalid_response\"\n" +
				"+ error: absent\n" +
				"- outcome: \"error\"\n" +
				"+ outcome: \"accepted\""},
		{"no content", script.AcceptWithoutContent(), accepted(0, "preview"),
			"the agent reported accepted with choice 0 (\"preview\"), want error invalid_response\n" +
				`the client answered elicitation/create with {"action":"accept"}` + "\n" +
				"-want +got:\n" +
				"- error: \"invalid_response\"\n" +
				"+ error: absent\n" +
				"- outcome: \"error\"\n" +
				"+ outcome: \"accepted\""},
		{"100000 digits", script.AcceptChoice(huge), accepted(1, "production"),
			"the agent reported accepted with choice 1 (\"production\"), want error invalid_response\n" +
				`the client answered elicitation/create with {"action":"accept","content":{"choice":"choice_1` + strings.Repeat("0", 160-len(`{"action":"accept","content":{"choice":"choice_1`)) +
				fmt.Sprintf(" … [%d bytes in all] … ", len(hugeAnswer)) + strings.Repeat("0", 80-len(`"}}`)) + `"}}` + "\n" +
				"-want +got:\n" +
				"- error: \"invalid_response\"\n" +
				"+ error: absent\n" +
				"- outcome: \"error\"\n" +
				"+ outcome: \"accepted\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := BeOutcomeAfter(tc.answer, invalidResponse)
			if ok, err := m.Match(tc.got); ok || err != nil {
				t.Fatalf("Match(%v) = %v, %v; want a mismatch", tc.got, ok, err)
			}
			if got := m.FailureMessage(tc.got); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}
