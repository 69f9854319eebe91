"""ask_choice: the typed-choice elicitation of suite/contract.md, agent side, on asyncio.

It asks the client of an ACP session to pick one of several application
values through one elicitation/create form whose options carry opaque tokens
(choice_0, choice_1, ...) instead of the values, and maps the answer back to
the offered value itself.

    result = await ask_choice(session, "Choose a target", [
        Choice(preview, "Preview"),
        Choice(production, "Production", description="...", default=True),
    ], fallback=fallback)
    result.status: "accepted" (result.value is the offered value), "declined" or "cancelled"

In order, it
 1. validates the arguments (VAL-1..5): InvalidArgumentError before anything else;
 2. checks that the client advertised form elicitation in initialize on this
    connection (CAP-1/2); without it, runs the fallback if there is one (FB,
    DEP) and otherwise raises ElicitationUnsupportedError, sending nothing;
 3. sends one elicitation/create form scoped to the session (SCH, DEF-2);
 4. maps the answer back strictly (TOK, RES): InvalidElicitationResponseError
    for anything but a known action and, for accept, a token of this request.

Beside it, create_elicitation is the low-level API for every other form and
for URL elicitation (CONTRACT ELI-1..3): it sends one elicitation/create as
given, if the client advertised its mode, and checks an accepted form's
content against the requested schema with acpconform_kit.content_problems.

    result = await create_elicitation(session, "form", message, requested_schema=schema)
    result = await create_elicitation(session, "url", message, url=url, elicitation_id=id_)
    result.status: "accepted" (result.content: a form's content as received, or None), "declined" or "cancelled"

The session is anything with session_id, supports_elicitation(mode) and an
awaitable request(method, params) -> result. Its errors, a JSON-RPC error
answer (RTE-1/2) or the connection's end (RTE-7), propagate unchanged, and no
fallback runs after them. Cancelling the calling task cancels the call: a
pending request is the session's to cancel (RTE-7), a waiting fallback is
cancelled with the task.

Only the standard library is used, and acpconform_kit's judge of a form's content.
"""

import inspect
import json
import re
import warnings

import acpconform_kit as kit  # its content_problems, the judge of a form's content (ELI-3)

__all__ = [
    "Choice", "ChoiceResult", "accepted", "declined", "cancelled", "ask_choice", "compile_form",
    "ElicitationResult", "create_elicitation",
    "token", "is_blank", "InvalidArgumentError", "ElicitationUnsupportedError",
    "InvalidElicitationResponseError", "InvalidElicitationFallbackError", "PLAIN_VALUE_WARNING",
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
    """The client did not advertise form elicitation and there is no fallback (CAP-3),
    or the mode of a create_elicitation (ELI-1)."""


class InvalidElicitationResponseError(Exception):
    """The client's answer names no valid choice (TOK-2, RES-2), or an accepted
    form's content does not satisfy its schema (ELI-3). result is the answer as received."""

    def __init__(self, reason, result):
        super().__init__("invalid elicitation response: " + reason)
        self.result = result


class InvalidElicitationFallbackError(Exception):
    """A fallback's acceptance, or plain value, names no offered choice (FB-4, DEP-2/3)."""


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


async def ask_choice(session, question, choices, fallback=None):
    """Asks the session's client to pick one of choices; returns a ChoiceResult.

    fallback(): runs only when the client lacks form elicitation; a plain
    function or a coroutine function. Its declined and cancelled results are
    returned unchanged and its errors propagate unchanged. An accepted
    result, or a plain value (deprecated: a DeprecationWarning once per
    call), must be == an offered value, scanning in order, the first match
    winning and a comparison that raises skipping that choice (FB-4, FB-6);
    the offered value is returned.
    """
    choices = list(choices) if choices is not None else []
    _validate(question, choices)
    if not session.supports_elicitation("form"):
        if fallback is not None:
            return await _run_fallback(choices, fallback)
        raise ElicitationUnsupportedError(
            "elicitation unsupported by the client: no form elicitation in the client's capabilities and no fallback")
    params = {"sessionId": session.session_id}
    params.update(compile_form(question, choices))
    result = await session.request("elicitation/create", params)
    status, i = _read_choice(result, len(choices))
    return accepted(choices[i].value) if status == "accepted" else ChoiceResult(status)


_TOKEN = re.compile(r"choice_(0|[1-9][0-9]*)")  # ASCII digits only: [0-9], not \d


def _read_choice(result, n):
    # TOK-1..3, RES-1..4; result is the answer as received.
    def invalid(reason):
        return InvalidElicitationResponseError("no valid choice: " + reason, result)

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


async def _run_fallback(choices, fallback):
    # FB-2..6, DEP-1..3.
    res = fallback()  # its errors propagate unchanged (FB-5)
    if inspect.isawaitable(res):
        res = await res
    if isinstance(res, ChoiceResult):
        if res.status != "accepted":
            return res  # FB-3, DEF-4
        value = res.value
    else:
        # Once per call, before checking (DEP-1). None is a real value (DEP-3).
        warnings.warn(PLAIN_VALUE_WARNING, DeprecationWarning, stacklevel=3)
        value = res
    for c in choices:
        try:
            if (c.value == value) is True:
                return accepted(c.value)  # the offered value, not the fallback's copy (FB-4)
        except Exception:
            continue  # a comparison that fails skips the choice (FB-6)
    raise InvalidElicitationFallbackError("invalid elicitation fallback: the fallback's value was not offered")


# --- create_elicitation: the low-level API (CONTRACT ELI-1..3)


class ElicitationResult:
    """The answer to a create_elicitation: status, and an accepted form's content (or None)."""

    __slots__ = ("status", "content")

    def __init__(self, status, content=None):
        self.status = status  # "accepted" | "declined" | "cancelled"
        self.content = content

    def __repr__(self):
        return "ElicitationResult(%r, %r)" % (self.status, self.content)


async def create_elicitation(session, mode, message, requested_schema=None, url=None, elicitation_id=None):
    """Sends one elicitation/create, scoped to the session; returns an ElicitationResult.

    mode "form" sends message and requested_schema, mode "url" message, url
    and elicitation_id, all as given. It raises ElicitationUnsupportedError,
    having sent nothing, when the client did not advertise mode, and
    InvalidElicitationResponseError for an answer that is not an object of a
    known action or an accepted form's content that does not satisfy
    requested_schema (content_problems). The content of a decline, a cancel
    or an accepted URL means nothing and is dropped. JSON-RPC errors, the
    connection's end and a cancel end it as they end ask_choice.
    """
    if not session.supports_elicitation(mode):
        raise ElicitationUnsupportedError(
            "elicitation unsupported by the client: mode %s was not advertised" % _show_json(mode))
    params = {"sessionId": session.session_id, "mode": mode, "message": message}
    if mode == "form":
        params["requestedSchema"] = requested_schema
    else:
        params.update(url=url, elicitationId=elicitation_id)
    result = await session.request("elicitation/create", params)

    def invalid(reason):
        return InvalidElicitationResponseError(reason, result)

    if not isinstance(result, dict):
        raise invalid("the result is not a JSON object")
    action = result.get("action")
    if action == "accept" and isinstance(action, str):
        if mode == "url":
            return ElicitationResult("accepted")
        content = result.get("content")
        problems = kit.content_problems(requested_schema, content)  # the kit's judge, as the catalogue's
        if problems:
            raise invalid("the accepted content does not satisfy the requested schema: " + "; ".join(problems))
        return ElicitationResult("accepted", content)
    if action in ("decline", "cancel") and isinstance(action, str):
        return ElicitationResult("declined" if action == "decline" else "cancelled")
    raise invalid("the action is missing" if "action" not in result else "unknown action %s" % _show_json(action))


def _show_json(v):
    try:
        r = json.dumps(v, ensure_ascii=False)
    except (TypeError, ValueError):  # not JSON data
        r = repr(v)
    return r if len(r) <= 80 else r[:77] + "..."
