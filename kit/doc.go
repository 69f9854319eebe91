// Package kit turns your Go ask_choice into an acpconform probe adapter
// (docs/probe.md) in a few lines, and gives a client's test mode the
// scripted user's answers.
//
// # Agent kit
//
// Hand [Main] (or [ServeAgent], or [Agent.Start]) your ask_choice and
// create_elicitation, and the errors that tell your failures apart:
//
//	func main() {
//		kit.Main(kit.Agent{AskChoice: askChoice, CreateElicitation: createElicitation, Errors: kit.Errors{
//			InvalidArgument: ErrInvalidArgument, Unsupported: ErrUnsupported,
//			InvalidResponse: ErrInvalidResponse, InvalidFallback: ErrInvalidFallback}})
//	}
//
//	func askChoice(c *kit.Call) (any, error) {
//		choices := kit.MapChoices(c.Choices, func(ch kit.Choice) Choice[any] {
//			return Choice[any]{ch.Value, ch.Label, ch.Description, ch.Default}
//		})
//		opts := Options[any]{Fallback: kit.Fallback(c, Accept[any], Decline[any], Cancel[any]),
//			PlainFallback: c.PlainFallback, Equal: c.Equal, Warn: c.Warn}
//		return AskChoice(c.Context(), c.Session, c.Question, choices, opts)
//	}
//
// (kit/example/agent is this adapter whole, with a feature to go with it;
// its README counts the lines.)
//
// The kit does everything of docs/probe.md §1 that is not the feature:
// initialize and session/new; the client capabilities as this connection
// received them; the probe request, parsed and checked by
// [probe.ParseRequest] (-32602 with data.error for a prompt that is none);
// values, JSON null as nil and every other value a *[Value] of its own;
// the fallback the request names, with its delay, ending when the turn
// does; reading on while your function runs; session/cancel and
// $/cancel_request, which end the [Call.Context], then no outcome and
// stopReason "cancelled"; the outcome in one agent_message_chunk, then
// end_turn, with index found by identity (-1 for a value none of the
// offered ones) and the warnings your call gave; and the connection's end.
//
// # Why a session handle
//
// Your ask_choice gets a [*Session]: the session id, the client
// capabilities as received, and [Session.SendElicitation], which sends
// elicitation/create and returns the raw result, a [*RequestError] with
// the client's code, message and data, or [ErrConnectionClosed]; when its
// context ends it tells the client with $/cancel_request. It is no SDK
// type because the Go SDK cannot send this request as the schema wants
// it: acp-go-sdk v0.13.0 models elicitation as unstable, and its typed
// form request has no sessionId, so what AgentSideConnection sends is
// unscoped, and strict clients refuse it (-32602). Its typed answer is
// lenient too, reading an unknown action, {} and even null as an accept.
// The session sends params of your own types, adding the sessionId, and
// gives you the answer as it came, so that your code, not the SDK's
// decoding, decides what an answer means (TOK, RES). The capabilities are
// those of the prompt's own connection (CAP-4), with a malformed mode
// (form: false) read as absent (CAP-2).
//
// # Errors
//
// Your functions fail with your own errors. [Errors] maps them to the
// outcome kinds only your code knows (invalid_argument, unsupported,
// invalid_response, invalid_fallback) with errors.Is and errors.As; the
// kit recognises the rest through the wrap chain: the fallback's
// [*FallbackError] (fallback_error, with its message), a [*RequestError]
// (request_error, code, message and data intact), [ErrConnectionClosed]
// (connection). Anything else is internal, a defect of the adapter, and
// so is a panic.
//
// # Client kit
//
// [ScriptedAnswer] answers an elicitation/create request as its
// scripted-user instruction (docs/probe.md §2) says, or reports that there
// is none, so that your UI answers: a client's test mode in a few lines.
package kit
