"""ask_choice: the typed-choice elicitation of suite/contract.md, agent side.

It asks the client of an ACP session to pick one of several application
values through one elicitation/create form whose options carry opaque tokens
(choice_0, choice_1, ...) instead of the values, and maps the answer back to
the offered value itself.

    result = ask_choice(session, "Choose a target", [
        Choice(preview, "Preview"),
        Choice(production, "Production", description="...", default=True),
    ], fallback=fallback, ctx=ctx)
    result.status: "accepted" (result.value is the offered value), "declined" or "cancelled"

In order, it
 1. validates the arguments (VAL-1..5): InvalidArgumentError before anything else;
 2. checks that the client advertised form elicitation in initialize on this
    connection (CAP-1/2); without it, runs the fallback if there is one (FB,
    DEP) and otherwise raises ElicitationUnsupportedError, sending nothing;
 3. sends one elicitation/create form scoped to the session (SCH, DEF-2);
 4. maps the answer back strictly (TOK, RES): InvalidElicitationResponseError
    for anything but a known action and, for accept, a token of this request.

A JSON-RPC error answer raises ElicitationRequestError with code, message and
data intact, and no fallback runs (RTE-1/2). A connection that closes while
the choice is pending raises ConnectionClosedError. When ctx ends (the turn is
cancelled), a pending request is cancelled with $/cancel_request and
CancelledError is raised at once (RTE-7).

Only the standard library is used. The session's connection is anything with
request(method, params, ctx) -> result (see agent.py).
"""

import re
import threading
import warnings

__all__ = [
    "Choice", "ChoiceResult", "accepted", "declined", "cancelled", "Context", "ask_choice", "compile_form",
    "token", "is_blank", "InvalidArgumentError", "ElicitationUnsupportedError",
    "InvalidElicitationResponseError", "InvalidElicitationFallbackError", "ElicitationRequestError",
    "ConnectionClosedError", "CancelledError", "PLAIN_VALUE_WARNING",
]

# Wire names of the typed-choice form (CONTRACT SCH-2..5).
CHOICE_PROPERTY = "choice"
CHOICE_TITLE = "Choice"
DESCRIPTION_META_KEY = "acpkit.dev/choice-description"
TOKEN_PREFIX = "choice_"

PLAIN_VALUE_WARNING = (
    "ask_choice: the fallback returned a plain value instead of a result; plain-value "
    "fallbacks are deprecated: return accepted(value), declined() or cancelled()")


class Choice:
    """One offered choice: an application value of any type, and what the user sees."""

    __slots__ = ("value", "label", "description", "default")

    def __init__(self, value, label, description=None, default=False):
        self.value = value
        self.label = label
        self.description = description
        self.default = default


class ChoiceResult:
    """The outcome of a choice. Build it with accepted, declined or cancelled."""

    __slots__ = ("status", "value")

    def __init__(self, status, value=None):
        self.status = status  # "accepted" | "declined" | "cancelled"
        self.value = value  # accepted only; None is a real value there

    def __repr__(self):
        return "ChoiceResult(%r, %r)" % (self.status, self.value)


def accepted(value):
    return ChoiceResult("accepted", value)


def declined():
    return ChoiceResult("declined")


def cancelled():
    return ChoiceResult("cancelled")


class InvalidArgumentError(ValueError):
    """The arguments break VAL-1..4; the message is one of the four of the contract."""


class ElicitationUnsupportedError(Exception):
    """The client did not advertise form elicitation and there is no fallback (CAP-3)."""


class InvalidElicitationResponseError(Exception):
    """The client's answer names no valid choice (TOK-2, RES-2). result is the answer as received."""

    def __init__(self, reason, result):
        super().__init__("invalid elicitation response: no valid choice: " + reason)
        self.result = result


class InvalidElicitationFallbackError(Exception):
    """A fallback's acceptance, or plain value, names no offered choice (FB-4, DEP-2/3)."""


class ElicitationRequestError(Exception):
    """The client answered with a JSON-RPC error, kept intact.

    has_data is False when the error had no data member; data is then None.
    """

    def __init__(self, method, code, rpc_message, data, has_data):
        super().__init__("%s: JSON-RPC error %s: %s" % (method, code, rpc_message))
        self.method, self.code, self.rpc_message, self.data, self.has_data = method, code, rpc_message, data, has_data


class ConnectionClosedError(Exception):
    """The connection ended before the client answered (RTE-7)."""


class CancelledError(Exception):
    """The caller's context ended: the turn was cancelled."""


class Context:
    """A cancellation context: it ends once, with the error that ended it.

    Waiting is event-driven: every wait is on the condition that end()
    notifies, so a cancel wakes whatever waits on the context at once.
    """

    def __init__(self, cond=None):
        self.cond = cond if cond is not None else threading.Condition()
        self._err = None

    def end(self, err):
        with self.cond:
            if self._err is None:
                self._err = err
            self.cond.notify_all()

    def err(self):
        """The error that ended the context, or None while it runs."""
        return self._err

    def check(self):
        if self._err is not None:
            raise self._err

    def sleep(self, seconds):
        """Waits seconds, or raises the context's error as soon as it ends."""
        with self.cond:
            self.cond.wait_for(lambda: self._err is not None, timeout=seconds)
        self.check()


def token(i):
    """The opaque token of the choice at index i (SCH-4)."""
    return TOKEN_PREFIX + str(i)


# Unicode White_Space (CONTRACT VAL-1): str.isspace and str.strip differ
# from it (they also take U+001C..U+001F).
_WHITE_SPACE = frozenset(
    "\u0009\u000a\u000b\u000c\u000d\u0020\u0085\u00a0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000")


def is_blank(s):
    """Not a string, empty, or only Unicode White_Space."""
    return not isinstance(s, str) or all(c in _WHITE_SPACE for c in s)


def _validate(question, choices):
    # VAL-1..4, in the contract's order.
    if is_blank(question):
        raise InvalidArgumentError("question must not be blank")
    if not choices:
        raise InvalidArgumentError("choices must not be empty")
    if any(is_blank(c.label) for c in choices):
        raise InvalidArgumentError("choice labels must not be blank")
    if sum(1 for c in choices if c.default is True) > 1:
        raise InvalidArgumentError("at most one choice may be the default")


def supports_form(client_capabilities):
    """CAP-1: form is advertised only by a JSON object at elicitation.form."""
    elicitation = client_capabilities.get("elicitation") if isinstance(client_capabilities, dict) else None
    return isinstance(elicitation, dict) and isinstance(elicitation.get("form"), dict)


def compile_form(question, choices):
    """The form of SCH-1..7 and DEF-2, without the session scope."""
    one_of = []
    default = None
    for i, c in enumerate(choices):
        option = {"const": token(i), "title": c.label}
        if isinstance(c.description, str) and c.description != "":
            option["description"] = c.description  # the schema's own field (SCH-7)
            option["_meta"] = {DESCRIPTION_META_KEY: c.description}  # ACP Kit's key (SCH-5)
        one_of.append(option)
        if c.default is True and default is None:
            default = token(i)
    prop = {"type": "string", "title": CHOICE_TITLE, "oneOf": one_of}
    if default is not None:
        prop["default"] = default  # absent, not null, without a default (DEF-2)
    return {
        "mode": "form",
        "message": question,
        "requestedSchema": {"type": "object", "properties": {CHOICE_PROPERTY: prop}, "required": [CHOICE_PROPERTY]},
    }


def ask_choice(session, question, choices, fallback=None, equal=None, warn=None, ctx=None):
    """Asks the session's client to pick one of choices; returns a ChoiceResult.

    session: has session_id, client_capabilities (as received in initialize
    on this connection) and connection (request(method, params, ctx)).
    fallback(ctx): runs only when the client lacks form elicitation; it may
    return at once or block, and must return (or raise) when ctx ends. Its
    declined and cancelled results are returned unchanged and its errors
    propagate unchanged. An accepted result, or a plain value (deprecated:
    warns once per call), must match an offered value; the offered value is
    returned.
    equal(offered, candidate): how a fallback's value is matched; default
    ==. Choices are scanned in order, the first match wins, and a comparison
    that raises skips that choice (FB-6).
    warn(message, code): deprecation warnings; default warnings.warn with
    DeprecationWarning. code is "plain-value-fallback".
    """
    choices = list(choices) if choices is not None else []
    _validate(question, choices)
    ctx = ctx if ctx is not None else Context()
    ctx.check()
    if not supports_form(session.client_capabilities):
        if fallback is not None:
            return _run_fallback(choices, fallback, equal, warn, ctx)
        raise ElicitationUnsupportedError(
            "elicitation unsupported by the client: no form elicitation in the client's capabilities and no fallback")
    params = {"sessionId": session.session_id}
    params.update(compile_form(question, choices))
    result = session.connection.request("elicitation/create", params, ctx)
    status, i = _read_choice(result, len(choices))
    return accepted(choices[i].value) if status == "accepted" else ChoiceResult(status)


_TOKEN = re.compile(r"choice_(0|[1-9][0-9]*)")  # ASCII digits only: [0-9], not \d


def _read_choice(result, n):
    # TOK-1..3, RES-1..4; result is the answer as received.
    def invalid(reason):
        return InvalidElicitationResponseError(reason, result)

    if not isinstance(result, dict):
        raise invalid("the result is not a JSON object")
    if "action" not in result:
        raise invalid("the action is missing")
    action = result["action"]
    if action == "accept" and isinstance(action, str):
        return "accepted", _read_token(result.get("content"), "content" in result, n, invalid)
    if action == "decline" and isinstance(action, str):
        return "declined", None  # content, if any, is ignored (RES-4)
    if action == "cancel" and isinstance(action, str):
        return "cancelled", None
    raise invalid("unknown action %s" % _show(action))


def _read_token(content, present, n, invalid):
    # Keys other than "choice" are ignored (TOK-3); no default repairs a bad answer (DEF-3).
    if not present:
        raise invalid("accept without content")
    if not isinstance(content, dict):
        raise invalid("content is not an object: %s" % _show(content))
    if CHOICE_PROPERTY not in content:
        raise invalid('content has no "%s"' % CHOICE_PROPERTY)
    t = content[CHOICE_PROPERTY]
    if not isinstance(t, str):
        raise invalid('"%s" is not a string: %s' % (CHOICE_PROPERTY, _show(t)))
    m = _TOKEN.fullmatch(t)
    # Compare lengths first: int() of a huge digit string is slow, or refused.
    if m is None or len(m.group(1)) > len(str(n)) or int(m.group(1)) >= n:
        raise invalid("%s is not one of the %d offered tokens" % (_show(t), n))
    return int(m.group(1))


def _show(v):
    r = repr(v)
    return r if len(r) <= 80 else r[:77] + "..."


def _run_fallback(choices, fallback, equal, warn, ctx):
    # FB-2..6, DEP-1..3.
    res = fallback(ctx)  # its errors propagate unchanged (FB-5)
    if isinstance(res, ChoiceResult):
        if res.status != "accepted":
            return res  # FB-3, DEF-4
        value = res.value
    else:
        # Once per call, before checking (DEP-1). None is a real value (DEP-3).
        if warn is None:
            warnings.warn(PLAIN_VALUE_WARNING, DeprecationWarning, stacklevel=3)
        else:
            warn(PLAIN_VALUE_WARNING, "plain-value-fallback")
        value = res
    same = equal if equal is not None else (lambda a, b: a == b)
    for c in choices:
        try:
            if same(c.value, value) is True:
                return accepted(c.value)  # the offered value, not the fallback's copy (FB-4)
        except Exception:
            continue  # a comparison that fails skips the choice (FB-6)
    raise InvalidElicitationFallbackError("invalid elicitation fallback: the fallback's value was not offered")
