package judge

// Check is one thing the judge decides: one rule, or the part of it that
// shows on the wire.
type Check struct {
	ID    string // RULE/slug, as the catalogue's check IDs
	Rule  string // the CONTRACT ID it decides
	Role  string // whose conformance: "agent" or "client"
	Title string // what it checks, as reports name it
	// Whole says that nothing of the rule is out of a trace's sight: a
	// session that breaks the rule fails this check. A check that is not
	// whole decides what the frames show, and its title says what that
	// is; the rest of its rule only a live check sees.
	Whole bool
	// Occasion is what a session must hold for the check to be exercised,
	// said when it held none.
	Occasion string
}

// Checks are the judge's checks, agent's first.
var Checks = []Check{
	{ID: "CAP-2/trace-form-only-when-advertised", Rule: "CAP-2", Role: "agent",
		Title:    "sends a typed-choice form only on a connection whose client advertised elicitation.form as an object (what the application was told is not on the wire)",
		Occasion: "the agent sent no typed-choice form"},
	{ID: "CAP-2/trace-malformed-capability-answered", Rule: "CAP-2", Role: "agent",
		Title:    "answers an initialize whose elicitation or form capability is neither an object nor null with a result (no form elicitation) or -32602",
		Occasion: "no initialize carried a malformed elicitation capability"},
	{ID: "ELI-1/trace-mode-advertised", Rule: "ELI-1", Role: "agent",
		Title:    "sends any other elicitation only of a mode the client advertised on the connection (whether it invented an answer is not on the wire)",
		Occasion: "the agent sent no elicitation other than a typed choice"},
	{ID: "ELI-2/trace-request-well-formed", Rule: "ELI-2", Role: "agent",
		Title:    "sends any other elicitation as a request of the schema, scoped to a session of the connection (whether it is the application's, unchanged, is not on the wire)",
		Occasion: "the agent sent no elicitation other than a typed choice"},
	{ID: "VAL-1/trace-question-not-blank", Rule: "VAL-1", Role: "agent",
		Title:    "sends no typed-choice form whose question is blank: a blank question is refused before anything is sent (the refusals themselves are not on the wire)",
		Occasion: "the agent sent no typed-choice form"},
	{ID: "VAL-2/trace-some-choice", Rule: "VAL-2", Role: "agent",
		Title:    "sends no typed-choice form without options: no choices is refused before anything is sent (the refusals themselves are not on the wire)",
		Occasion: "the agent sent no typed-choice form"},
	{ID: "VAL-3/trace-labels-not-blank", Rule: "VAL-3", Role: "agent",
		Title:    "sends no typed-choice form with a blank label: a blank label is refused before anything is sent (the refusals themselves are not on the wire)",
		Occasion: "the agent sent no typed-choice form"},
	{ID: "SCH-1/trace-form-scoped-to-session", Rule: "SCH-1", Role: "agent",
		Title:    "sends each typed choice as one form request with a question, scoped to a session of the connection (whether the question is the application's, as given, is not on the wire)",
		Occasion: "the agent sent no typed-choice form"},
	{ID: "SCH-2/trace-one-required-property", Rule: "SCH-2", Role: "agent",
		Title:    "gives each typed-choice form an object schema with the one required property choice",
		Occasion: "the agent sent no typed-choice form"},
	{ID: "SCH-3/trace-string-choice-with-labels", Rule: "SCH-3", Role: "agent",
		Title:    "makes the choice a string titled Choice with a titled option per choice (whether the labels are the application's, as given, is not on the wire)",
		Occasion: "the agent sent no typed-choice form"},
	{ID: "SCH-4/trace-tokens-in-order", Rule: "SCH-4", Role: "agent",
		Title:    "numbers the options choice_0, choice_1, ... in plain decimal (whether an application value reached the wire is not known without the values)",
		Occasion: "the agent sent no typed-choice form"},
	{ID: "SCH-5/trace-description-metadata", Rule: "SCH-5", Role: "agent",
		Title:    "puts an option's description only under the _meta key acpkit.dev/choice-description (whether it is the application's is not on the wire)",
		Occasion: "the agent sent no typed-choice form"},
	{ID: "SCH-6/trace-invents-nothing", Rule: "SCH-6", Role: "agent",
		Title:    "adds nothing to a typed-choice form: no other keyword of the choice, no other member of an option",
		Occasion: "the agent sent no typed-choice form"},
	{ID: "SCH-7/trace-standard-description", Rule: "SCH-7", Role: "agent",
		Title:    "repeats each option's _meta description in its standard description field",
		Occasion: "the agent sent no typed-choice option with a description"},
	{ID: "DEF-2/trace-default-is-a-token", Rule: "DEF-2", Role: "agent",
		Title:    "sends a typed choice's default as one of its tokens (which choice the application made the default is not on the wire)",
		Occasion: "the agent sent no typed-choice form with a default"},
	{ID: "ELI-9/trace-cancelled-turn-ends", Rule: "ELI-9", Role: "agent",
		Title:    "ends a turn whose session/cancel came while its elicitation was pending with stopReason cancelled, within 2 s (whether the application got an answer is not on the wire)",
		Occasion: "no session/cancel came while an elicitation of its session was pending, with the record going on 2 s after it"},
	{ID: "RTE-7/trace-cancel-tells-client", Rule: "RTE-7", Role: "agent",
		Title:    "tells the client with $/cancel_request, within 2 s, of a typed choice pending when its turn was cancelled (a closed connection's end is not judged from a trace)",
		Occasion: "no session/cancel came while a typed choice of its session was pending, with the record going on 2 s after it"},
	{ID: "RTE-7/trace-cancelled-choice-ends-turn", Rule: "RTE-7", Role: "agent",
		Title:    "ends a turn whose typed choice was pending at its session/cancel within 2 s",
		Occasion: "no session/cancel came while a typed choice of its session was pending, with the record going on 2 s after it"},
	{ID: "RTE-7/trace-input-end-ends-agent", Rule: "RTE-7", Role: "agent",
		Title:    "ends within 2 s once its client ends with a typed choice pending (a record of acpconform record shows both ends)",
		Occasion: "no client ended with a typed choice pending, with the record going on 2 s after it"},
	{ID: "ELI-10/trace-cancel-tells-client", Rule: "ELI-10", Role: "agent", Whole: true,
		Title:    "tells the client with $/cancel_request, within 2 s, of any other elicitation pending when its turn was cancelled",
		Occasion: "no session/cancel came while another elicitation of its session was pending, with the record going on 2 s after it"},
	{ID: "SES-2/trace-cancel-leaves-other-sessions", Rule: "SES-2", Role: "agent",
		Title:    "leaves the elicitations and turns of other sessions pending when one session is cancelled, for 2 s (whether each gets its own answer is not on the wire)",
		Occasion: "no session/cancel came while an elicitation of another session was pending, with the record going on 2 s after it"},

	{ID: "CLI-1/trace-advertised-form-handled", Rule: "CLI-1", Role: "client", Whole: true,
		Title:    "answers a typed-choice form, having advertised form elicitation, with no -32601",
		Occasion: "the client answered no typed-choice form"},
	{ID: "CLI-2/trace-offered-choice-once", Rule: "CLI-2", Role: "client", Whole: true,
		Title:    "accepts a typed choice only with one of the offered consts, and answers each elicitation once",
		Occasion: "the client answered no typed-choice form"},
	{ID: "CLI-4/trace-unadvertised-form-refused", Rule: "CLI-4", Role: "client", Whole: true,
		Title:    "answers a form request it did not advertise with -32602",
		Occasion: "no form request came to a client that did not advertise form elicitation"},
	{ID: "ELI-4/trace-form-answer-valid", Rule: "ELI-4", Role: "client", Whole: true,
		Title:    "answers every other form of an advertised mode with a valid response: accept, decline or cancel, content of the schema's value types, never a JSON-RPC error",
		Occasion: "the client answered no form other than a typed choice"},
	{ID: "ELI-5/trace-url-answer-valid", Rule: "ELI-5", Role: "client",
		Title:    "answers a URL request of an advertised mode with accept, decline or cancel (how it takes elicitation/complete is not judged from a trace)",
		Occasion: "the client answered no URL request"},
	{ID: "ELI-5/trace-complete-taken", Rule: "ELI-5", Role: "client",
		Title:    "takes elicitation/complete and goes on: its side does not end before the turn pending then ends",
		Occasion: "no elicitation/complete came while a turn was pending, with the record going on until that turn or the client ended"},
	{ID: "ELI-6/trace-unadvertised-url-refused", Rule: "ELI-6", Role: "client", Whole: true,
		Title:    "answers a URL request it did not advertise with -32602",
		Occasion: "no URL request came to a client that did not advertise URL elicitation"},
	{ID: "ELI-7/trace-cancel-answered", Rule: "ELI-7", Role: "client",
		Title:    "answers an elicitation the agent cancelled with $/cancel_request, within the response timeout as a live check waits (whether a stale prompt stays on screen is not on the wire)",
		Occasion: "the agent cancelled no pending elicitation with the record going on for the response timeout after it"},
	{ID: "ELI-8/trace-content-conforms", Rule: "ELI-8", Role: "client", Whole: true,
		Title:    "accepts with content that satisfies the requested schema, and declines and cancels without content",
		Occasion: "the client answered no elicitation"},
}
