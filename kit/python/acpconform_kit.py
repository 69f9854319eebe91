"""acpconform_kit: probe adapters for acpconform, in one module of the standard library.

acpconform checks an ACP agent's typed-choice elicitation (ask_choice) through
a small *probe adapter* (docs/probe.md in the acpconform repository). This
module is everything of that adapter that is not your feature, so that your
adapter is a few lines:

    import acpconform_kit as kit
    from myagent import ask_choice, Choice, InvalidArgumentError   # your feature

    async def probe_ask_choice(call):
        choices = [Choice(c.value, c.label, c.description, c.default) for c in call.choices]
        return await ask_choice(call.session, call.question, choices, fallback=call.fallback)

    kit.run_agent(ask_choice=probe_ask_choice, errors={InvalidArgumentError: "invalid_argument"})

The agent kit (run_agent) speaks ACP as an agent on stdin and stdout:
newline-delimited JSON-RPC 2.0 on asyncio, initialize and session/new, each
prompt read as a probe request (-32602 for one that is not), the fallback the
request names, session/cancel and $/cancel_request cancelling your coroutine
(and, through it, a pending elicitation/create with $/cancel_request), the
outcome as one agent_message_chunk, and the process's end within 2 s of the
end of stdin. Probe values are Value objects whose == is the probe's equality
(docs/probe.md §1.7: true is not 1, 1 is 1.0, 9007199254740993 is not
9007199254740992), one per offered choice, so the outcome's index is found by
identity. JSON null is None.

The client kit (test_mode_answer, answer_in_test_mode) turns an
elicitation/create request into the answer its scripted-user instruction
(_meta["acpconform/user"], docs/probe.md §2) asks for.

It works beside the Python ACP SDK without importing it: Session has what an
SDK-based ask_choice needs (session_id, supports_elicitation(mode) and an
awaitable create_elicitation(message, mode), which takes the SDK's mode models
as well as dicts), and the adapter runs the kit's own stdio server.

Python 3.9 or newer; nothing but the standard library.
"""

import asyncio
import contextvars
import inspect
import json
import os
import re
import sys
import threading
import traceback
import warnings
from decimal import Decimal

__all__ = [
    # JSON with exact numbers, and probe equality
    "loads", "dumps", "same_value", "Value", "ExactInt", "ExactFloat",
    # JSON-RPC
    "Connection", "RequestError", "ConnectionClosedError", "JSONRPCError", "invalid_params",
    # the agent kit
    "run_agent", "serve_agent", "parse_request", "Session", "Choice", "ChoiceCall", "ElicitationCall",
    "Accepted", "Declined", "Cancelled", "FallbackError", "ERROR_KINDS", "PLAIN_VALUE_FALLBACK",
    # the judge of a form's content, for your create_elicitation to call
    "content_problems",
    # the client kit
    "test_mode_answer", "answer_in_test_mode", "InstructionError", "WAIT", "USER_META_KEY",
]

PROTOCOL_VERSION = 1
EXIT_GRACE_SECONDS = 0.5  # at stdin's end, how long running turns get to finish and log
PLAIN_VALUE_FALLBACK = "plain-value-fallback"  # the outcome's warning for a DeprecationWarning
USER_META_KEY = "acpconform/user"


def _log(message):
    try:
        sys.stderr.write("acpconform_kit: %s\n" % message)
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


# --- JSON with exact numbers (docs/probe.md §1.7)


class ExactInt(int):
    """A JSON integer that keeps its text, so that it is written back as it came."""

    def __repr__(self):
        return getattr(self, "text", None) or int.__repr__(self)


class ExactFloat(float):
    """A JSON number with a fraction or an exponent that keeps its text.

    It is a float for arithmetic and comparison, but its exact value is its
    text: 9007199254740993.0 and 1e400 are written back unchanged.
    """

    def __repr__(self):
        return getattr(self, "text", None) or float.__repr__(self)


# int() refuses more than 4300 digits (sys.get_int_max_str_digits); Decimal does not.
_LONG_INT_DIGITS = 4000


def _parse_int(text):
    n = ExactInt(int(text) if len(text) <= _LONG_INT_DIGITS else int(Decimal(text)))
    n.text = text
    return n


def _parse_float(text):
    n = ExactFloat(text)
    n.text = text
    return n


def _no_constant(name):
    raise ValueError("%s is not JSON" % name)  # json.loads takes NaN and Infinity


def loads(text):
    """Parses JSON text; numbers become ExactInt or ExactFloat, which keep their text.

    Raises ValueError for text that is not JSON (too deep a nesting included).
    """
    try:
        return json.loads(text, parse_int=_parse_int, parse_float=_parse_float, parse_constant=_no_constant)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None


def dumps(v):
    """Writes JSON data compactly; numbers of loads as their text, a Value as its JSON."""
    if isinstance(v, Value):
        return dumps(v.json)
    if v is None or isinstance(v, (bool, str)):
        return json.dumps(v)
    text = getattr(v, "text", None)
    if isinstance(v, (int, float)) and isinstance(text, str):
        return text
    if isinstance(v, int):
        return _int_text(v)
    if isinstance(v, float):
        if v != v or v in (float("inf"), float("-inf")):
            raise ValueError("%r is not a JSON number" % v)
        return repr(v)
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(dumps(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ",".join(json.dumps(str(k)) + ":" + dumps(x) for k, x in v.items()) + "}"
    dump = getattr(v, "model_dump", None)  # a pydantic model, as the ACP SDK's
    if callable(dump):
        return dumps(dump(by_alias=True, exclude_none=True, mode="json"))
    raise TypeError("not JSON data: %s" % type(v).__name__)


def _int_text(i):
    try:
        return str(i)
    except ValueError:  # more digits than str() gives
        return str(Decimal(i))


_EXPONENT = re.compile(r"[eE]([+-]?[0-9]+)\Z")


def _huge_exponent(text):
    # As in the Go reference: numbers with an exponent beyond ±1000 compare
    # as text, so that no comparison costs unbounded work.
    m = _EXPONENT.search(text)
    return m is not None and (len(m.group(1)) > 6 or abs(int(m.group(1))) > 1000)


def _number_key(n):
    # A number's exact value (a Decimal), or its text when its exponent is huge.
    text = getattr(n, "text", None)
    if isinstance(text, str):
        return text if _huge_exponent(text) else Decimal(text)
    return Decimal(n)  # an int, or a float's exact binary value


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def same_value(a, b):
    """Reports whether a and b are the same JSON value (docs/probe.md §1.7).

    Objects by keys in any order, arrays element by element, numbers by exact
    value (1 is 1.0, 10e-1 is 1), strings by code points, and true, false and
    null equal only themselves (true is not 1). Value objects compare as
    their JSON.
    """
    if isinstance(a, Value):
        a = a.json
    if isinstance(b, Value):
        b = b.json
    if a is None or b is None or isinstance(a, bool) or isinstance(b, bool):
        return a is b or (isinstance(a, bool) and isinstance(b, bool) and a == b)
    if _is_number(a) or _is_number(b):
        if not (_is_number(a) and _is_number(b)):
            return False
        ka, kb = _number_key(a), _number_key(b)
        return type(ka) is type(kb) and ka == kb
    if isinstance(a, str) or isinstance(b, str):
        return isinstance(a, str) and isinstance(b, str) and a == b
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return (isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and len(a) == len(b)
                and all(same_value(x, y) for x, y in zip(a, b)))
    if isinstance(a, dict) and isinstance(b, dict):
        return len(a) == len(b) and all(k in b and same_value(a[k], b[k]) for k in a)
    return False


def _value_hash(v):
    # Equal values (same_value) hash equal: numbers by their exact value.
    if isinstance(v, Value):
        v = v.json
    if v is None or isinstance(v, (bool, str)):
        return hash(v)
    if _is_number(v):
        return hash(_number_key(v))
    if isinstance(v, (list, tuple)):
        return hash(tuple(_value_hash(x) for x in v))
    if isinstance(v, dict):
        return hash(frozenset((k, _value_hash(x)) for k, x in v.items()))
    return hash(type(v))


class Value:
    """A probe value other than null, as the kit hands it to your ask_choice.

    Each offered choice gets a Value of its own, so that the value your
    ask_choice returns is found among the offered ones by identity (is).
    == and hash follow the probe's equality (same_value): Value(true) is not
    Value(1), Value(1) is Value(1.0). .json is the value as parsed: dicts,
    lists, str, bool, None, ExactInt and ExactFloat.
    """

    __slots__ = ("json",)

    def __init__(self, json_value):
        self.json = json_value

    def __eq__(self, other):
        return same_value(self, other)

    def __ne__(self, other):
        return not same_value(self, other)

    def __hash__(self):
        return _value_hash(self.json)

    def __repr__(self):
        text = dumps(self.json)
        return "Value(%s)" % (text if len(text) <= 80 else text[:77] + "...")


def _box(v):
    return None if v is None else Value(v)


def _unbox(v):
    return v.json if isinstance(v, Value) else v


# --- JSON-RPC 2.0, newline-delimited, on asyncio


class JSONRPCError(Exception):
    """Raise it from a request handler to answer with a JSON-RPC error."""

    def __init__(self, code, message, data=None):
        super().__init__("JSON-RPC error %s: %s" % (code, message))
        self.code, self.message, self.data = code, message, data


def invalid_params(reason):
    """The -32602 answer, with the reason in data.error (docs/probe.md §1.6)."""
    return JSONRPCError(-32602, "Invalid params", {"error": reason})


class RequestError(Exception):
    """The peer answered one of our requests with a JSON-RPC error.

    code, message and data are as the peer sent them; has_data is False when
    the error had no data member (data is then None).
    """

    def __init__(self, method, code, message, data=None, has_data=False):
        super().__init__("%s: JSON-RPC error %s: %s" % (method, code, message))
        self.method, self.code, self.message, self.data, self.has_data = method, code, message, data, has_data


class ConnectionClosedError(Exception):
    """The connection ended before the peer answered."""


class Connection:
    """One JSON-RPC 2.0 connection: one compact JSON message per line.

    handle_request(id, method, params) answers a request: it returns the
    result, raises JSONRPCError, or returns an awaitable whose result is the
    answer; such an answer runs as a task that $/cancel_request for its id
    cancels (the answer is then what the task returns, or -32800 if it ends
    cancelled). handle_notification(method, params) takes notifications.
    Both run in the event loop's thread, in the order the messages came.
    Outgoing requests are numbered from 0.
    """

    def __init__(self, write, handle_request=None, handle_notification=None):
        self._write = write
        self.handle_request = handle_request
        self.handle_notification = handle_notification
        self.closed = False
        self._next_id = 0
        self._pending = {}  # id of our request -> (method, future of its response frame)
        self._incoming = {}  # dumps(id) of a request being answered -> its task
        self._cancellers = {}  # dumps(id) -> what $/cancel_request for it calls, if not task.cancel

    # -- writing

    def send(self, msg):
        try:
            self._write((dumps(msg) + "\n").encode("utf-8", "surrogatepass"))
        except (OSError, ValueError) as err:
            _log("writing: %s" % err)

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def respond(self, id_, result=None, error=None):
        msg = {"jsonrpc": "2.0", "id": id_}
        if error is not None:
            msg["error"] = {"code": error.code, "message": error.message}
            if error.data is not None:
                msg["error"]["data"] = error.data
        else:
            msg["result"] = result
        self.send(msg)

    async def request(self, method, params):
        """Sends a request and returns its result.

        Raises RequestError for an error answer, ConnectionClosedError when
        the connection ends first. Cancelling the awaiting task sends
        $/cancel_request for the request.
        """
        if self.closed:
            raise ConnectionClosedError("%s: the connection is closed" % method)
        id_ = self._next_id
        self._next_id += 1
        future = asyncio.get_running_loop().create_future()
        self._pending[id_] = (method, future)
        self.send({"jsonrpc": "2.0", "id": id_, "method": method, "params": params})
        try:
            frame = await future
        except asyncio.CancelledError:
            if not self.closed:
                self.notify("$/cancel_request", {"requestId": id_})
            raise
        finally:
            self._pending.pop(id_, None)
        if "error" in frame:
            error = frame["error"]
            code = error.get("code") if isinstance(error, dict) else None
            message = error.get("message") if isinstance(error, dict) else None
            if not isinstance(code, int) or isinstance(code, bool) or not isinstance(message, str):
                raise RuntimeError("%s: a malformed JSON-RPC error: %s" % (method, dumps(error)))
            raise RequestError(method, code, message, error.get("data"), "data" in error)
        if "result" not in frame:
            raise RuntimeError("%s: a response with neither result nor error" % method)
        return frame["result"]

    # -- reading

    def feed(self, line):
        """Takes one line of input (bytes or str) and dispatches its message."""
        if isinstance(line, bytes):
            line = line.decode("utf-8", "surrogateescape")
        if not line.strip():
            return
        try:
            msg = loads(line)
        except ValueError as err:
            self.send({"jsonrpc": "2.0", "id": None,
                       "error": {"code": -32700, "message": "Parse error", "data": {"error": str(err)}}})
            return
        if not isinstance(msg, dict):
            self.send({"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid request"}})
            return
        method = msg.get("method")
        if method is None and "id" in msg:
            self._take_response(msg)
        elif not isinstance(method, str):
            self.send({"jsonrpc": "2.0", "id": msg.get("id"), "error": {"code": -32600, "message": "Invalid request"}})
        elif "id" not in msg:
            self._take_notification(method, msg.get("params"))
        else:
            self._take_request(msg["id"], method, msg.get("params"))

    def _take_response(self, msg):
        id_ = msg["id"]
        entry = self._pending.get(id_) if _is_number(id_) else None
        if entry is None or entry[1].done():
            _log("dropped a response with an unknown id: %s" % dumps(id_))
            return
        entry[1].set_result(msg)

    def _take_notification(self, method, params):
        if method == "$/cancel_request":
            key = dumps(params.get("requestId")) if isinstance(params, dict) else None
            if key in self._incoming:
                self.cancel_incoming(key)
                return
        if self.handle_notification is not None:
            try:
                self.handle_notification(method, params)
            except Exception as err:  # noqa: BLE001: a notification has no one to answer
                _log("notification %s: %r" % (method, err))

    def _take_request(self, id_, method, params):
        if self.handle_request is None:
            self.respond(id_, error=JSONRPCError(-32601, "Method not found", {"method": method}))
            return
        try:
            answer = self.handle_request(id_, method, params)
        except JSONRPCError as err:
            self.respond(id_, error=err)
            return
        except Exception as err:  # noqa: BLE001: a defect of the handler, said to the peer
            self.respond(id_, error=JSONRPCError(-32603, "Internal error", {"error": repr(err)}))
            return
        if not inspect.isawaitable(answer):
            self.respond(id_, answer)
            return
        key = dumps(id_)
        task = asyncio.ensure_future(answer)
        self._incoming[key] = task
        task.add_done_callback(lambda t: self._answered(id_, key, t))

    def _answered(self, id_, key, task):
        self._incoming.pop(key, None)
        self._cancellers.pop(key, None)
        if self.closed:
            return
        if task.cancelled():
            self.respond(id_, error=JSONRPCError(-32800, "Request cancelled"))
            return
        err = task.exception()
        if isinstance(err, JSONRPCError):
            self.respond(id_, error=err)
        elif err is not None:
            _log("answering %s: %r" % (key, err))
            self.respond(id_, error=JSONRPCError(-32603, "Internal error", {"error": repr(err)}))
        else:
            self.respond(id_, task.result())

    def on_cancel(self, key, cancel):
        """Makes $/cancel_request for the request of key (dumps of its id) call cancel()
        instead of cancelling the task answering it; for the request being handled."""
        self._cancellers[key] = cancel

    def cancel_incoming(self, key):
        """Cancels the answer to the request whose id is dumps(id) == key, if it is running."""
        task = self._incoming.get(key)
        if task is not None:
            self._cancellers.get(key, task.cancel)()

    def close(self):
        """Ends the connection: our pending requests fail with ConnectionClosedError."""
        self.closed = True
        for method, future in list(self._pending.values()):
            if not future.done():
                future.set_exception(ConnectionClosedError("%s: the connection closed before the peer answered" % method))

    def running(self):
        """The tasks answering requests."""
        return list(self._incoming.values())

    async def serve(self, rfile, at_end=None):
        """Reads lines from a binary file in a thread of its own until it ends, then closes.

        at_end, if given, is called in the reading thread when the input
        ends: it runs even while a callback blocks the event loop.

        A file with a descriptor is read with os.read, which holds no lock of
        Python's: a thread blocked in a buffered read would abort the
        interpreter's exit (_enter_buffered_busy).
        """
        loop = asyncio.get_running_loop()
        ended = loop.create_future()
        try:
            fd = rfile.fileno()
        except (AttributeError, OSError, ValueError):
            fd = None

        def chunks():
            while True:
                data = os.read(fd, 1 << 16) if fd is not None else rfile.readline()
                if not data:
                    return
                yield data

        def feed_all(lines):
            for line in lines:
                self.feed(line)

        def read():
            partial = []  # the pieces of a line not yet ended, joined once it ends
            try:
                for data in chunks():
                    lines = data.split(b"\n")
                    partial.append(lines.pop(0))
                    ended_lines = []
                    for line in lines:
                        ended_lines.append(b"".join(partial))
                        partial = [line]
                    # partial now holds the unfinished last line (maybe b"").
                    # The lines of one read are fed in one step of the loop:
                    # a cancel read with its prompt is seen before the turn
                    # the prompt starts has run, however busy the machine.
                    if ended_lines:
                        loop.call_soon_threadsafe(feed_all, ended_lines)
                if any(partial):
                    loop.call_soon_threadsafe(self.feed, b"".join(partial))
            except (OSError, ValueError) as err:
                _log("reading: %s" % err)
            except RuntimeError:  # the loop is closed: nobody reads any more
                return
            finally:
                if at_end is not None:
                    at_end()
                try:
                    loop.call_soon_threadsafe(lambda: ended.done() or ended.set_result(None))
                except RuntimeError:  # the loop is closed: nobody waits
                    pass

        threading.Thread(target=read, name="acpconform_kit-stdin", daemon=True).start()
        await ended
        self.close()


def _stdout_writer():
    # The protocol's own stdout; print() in your code goes to stderr instead,
    # where it cannot break a frame.
    out = sys.stdout.buffer
    sys.stdout = sys.stderr

    def write(data):
        out.write(data)
        out.flush()
    return write


# --- the agent kit (docs/probe.md §1)


class Session:
    """The ACP session of the prompt: what your ask_choice needs to send elicitation/create.

    session_id, client_capabilities (as the client sent them in initialize on
    this connection), supports_elicitation(mode), and two awaitable ways to
    ask: request(method, params), any JSON-RPC request, and
    create_elicitation(message, mode, **fields), elicitation/create scoped to
    the session. Both return the client's result as parsed JSON (numbers
    keep their text), raise RequestError for a JSON-RPC error answer and
    ConnectionClosedError when the connection ends, and send $/cancel_request
    when the turn is cancelled.
    """

    def __init__(self, connection, session_id, client_capabilities):
        self.connection = connection
        self.session_id = session_id
        self.client_capabilities = client_capabilities

    def supports_elicitation(self, mode):
        """Whether the client advertised mode ("form" or "url"): a JSON object at elicitation.<mode> (CAP-1).

        mode may also be a mode object or dict with a mode member, as the ACP
        SDK's ElicitationFormSessionMode.
        """
        mode = _mode_name(mode)
        caps = self.client_capabilities
        elicitation = caps.get("elicitation") if isinstance(caps, dict) else None
        return mode in ("form", "url") and isinstance(elicitation, dict) and isinstance(elicitation.get(mode), dict)

    async def request(self, method, params):
        return await self.connection.request(method, _jsonable(params))

    async def create_elicitation(self, message, mode, **fields):
        """Sends elicitation/create on this session and returns the client's result.

        mode is "form" or "url" with the mode's fields as keywords
        (requestedSchema=..., or url=... and elicitationId=...), or a dict or an
        ACP SDK mode model that carries them. Nothing is checked: call
        supports_elicitation first.
        """
        params = {"sessionId": self.session_id}
        if isinstance(mode, str):
            params["mode"] = mode
        else:
            params.update(_jsonable(mode))
        params["message"] = message
        params.update(_jsonable(fields))
        return await self.request("elicitation/create", params)


def _mode_name(mode):
    if isinstance(mode, str):
        return mode
    if isinstance(mode, dict):
        return mode.get("mode")
    return getattr(mode, "mode", None)


def _jsonable(v):
    # A pydantic model (the ACP SDK's) as its JSON; anything else as it is.
    dump = getattr(v, "model_dump", None)
    return dump(by_alias=True, exclude_none=True, mode="json") if callable(dump) else v


class Choice:
    """One offered choice of a probe request: value (a Value, or None for null), label, description, default."""

    __slots__ = ("value", "label", "description", "default")

    def __init__(self, value, label, description=None, default=False):
        self.value, self.label, self.description, self.default = value, label, description, default

    def __repr__(self):
        return "Choice(%r, %r, description=%r, default=%r)" % (self.value, self.label, self.description, self.default)


class Accepted:
    """The kit's own acceptance, for a fallback when run_agent has no results mapping."""

    status = "accepted"

    def __init__(self, value):
        self.value = value


class Declined:
    status = "declined"


class Cancelled:
    status = "cancelled"


class FallbackError(Exception):
    """The error an "error" fallback raises: its message is the request's (fallback_error)."""


class ChoiceCall:
    """What your ask_choice callback gets: one probe request of op ask_choice.

    session     the prompt's Session
    question    str, exactly as sent (may be blank)
    choices     list of Choice, in order; each value a Value of its own, or None
    fallback    the fallback the request names, or None: a plain function
                when the request has no fallbackDelayMs, a coroutine function
                (it awaits the delay) when it has one, so both kinds of
                fallback the seed allows are exercised. It returns your
                results mapping's accepted/declined/cancelled, raises
                FallbackError, or returns a Value (the deprecated plain value)
    cancelled   an asyncio.Event set when the turn is cancelled (the kit also
                cancels your coroutine)
    equal(a, b) the probe's equality, for an ask_choice that takes one
    warn(code)  adds a warning to the outcome; a DeprecationWarning raised
                during the call is added as "plain-value-fallback" by itself
    """

    def __init__(self, session, question, choices, fallback, cancelled, warn):
        self.session, self.question, self.choices, self.fallback = session, question, choices, fallback
        self.cancelled, self.warn = cancelled, warn
        self.equal = same_value


class ElicitationCall:
    """What your create_elicitation callback gets: one probe request of op create_elicitation (§1.9).

    session, mode ("form" or "url"), message, requested_schema (form),
    url and elicitation_id (url), each as sent (numbers keep their text),
    cancelled and warn as in ChoiceCall.
    """

    def __init__(self, session, mode, message, requested_schema, url, elicitation_id, cancelled, warn):
        self.session, self.mode, self.message = session, mode, message
        self.requested_schema, self.url, self.elicitation_id = requested_schema, url, elicitation_id
        self.cancelled, self.warn = cancelled, warn


ERROR_KINDS = ("invalid_argument", "unsupported", "invalid_response", "invalid_fallback")

_FALLBACK_KINDS = ("accepted", "declined", "cancelled", "error", "plain")


class _ProbeRequest:
    def __init__(self, **fields):
        self.__dict__.update(fields)


def _integer(v):
    # A JSON number's integer value (1.0 is 1), or None.
    if not _is_number(v):
        return None
    key = _number_key(v)
    if not isinstance(key, Decimal) or not key.is_finite() or key != key.to_integral_value():
        return None
    return int(key)


def parse_request(text):
    """Reads a probe request (docs/probe.md §1.3, §1.9), or raises ValueError saying why text is not one."""
    def fail(what):
        raise ValueError("not an acpconform probe request: " + what)

    try:
        r = loads(text)
    except ValueError as err:
        fail(str(err))
    if not isinstance(r, dict):
        fail("not a JSON object")
    if _integer(r.get("acpconform")) != 1:
        fail("acpconform is %s, want 1" % dumps(r["acpconform"]) if "acpconform" in r else "no acpconform member")
    op = r.get("op")
    if op == "create_elicitation":
        return _parse_create_elicitation(r, fail)
    if op != "ask_choice":
        fail("unknown op %s (want \"ask_choice\" or \"create_elicitation\")" % dumps(op) if "op" in r else "no op member")
    if not isinstance(r.get("question"), str):
        fail("question is not a string")
    if "choices" not in r:
        fail("no choices member")
    raw = r["choices"] if r["choices"] is not None else []
    if not isinstance(raw, list):
        fail("choices is neither an array nor null")
    choices = []
    for i, c in enumerate(raw):
        where = "choices[%d]" % i
        if not isinstance(c, dict):
            fail(where + " is not an object")
        if "value" not in c:
            fail(where + " has no value")
        if not isinstance(c.get("label"), str):
            fail(where + ".label is not a string")
        if "description" in c and (not isinstance(c["description"], str) or c["description"] == ""):
            fail(where + ".description is not a non-empty string")
        if not isinstance(c.get("default", False), bool):
            fail(where + ".default is not a boolean")
        choices.append((c["value"], c["label"], c.get("description"), c.get("default", False)))
    fallback = r.get("fallback")
    if fallback is not None:
        if not isinstance(fallback, dict):
            fail("fallback is not an object")
        kind = fallback.get("kind")
        if not isinstance(kind, str) or kind not in _FALLBACK_KINDS:
            fail("unknown fallback kind %s" % dumps(kind))
        if kind in ("accepted", "plain") and "value" not in fallback:
            fail("a %s fallback without a value" % kind)
        if kind == "error" and not isinstance(fallback.get("message"), str):
            fail("an error fallback without a message string")
    delay = _integer(r.get("fallbackDelayMs", 0))
    if delay is None or delay < 0:
        fail("fallbackDelayMs is not an integer >= 0")
    return _ProbeRequest(op="ask_choice", question=r["question"], choices=choices, fallback=fallback, delay_ms=delay)


def _parse_create_elicitation(r, fail):
    mode, message = r.get("mode"), r.get("message")
    if mode not in ("form", "url"):
        fail("mode is %s, want \"form\" or \"url\"" % dumps(mode) if "mode" in r else "no mode member")
    if not isinstance(message, str):
        fail("message is not a string")
    if mode == "url" and not (isinstance(r.get("url"), str) and isinstance(r.get("elicitationId"), str)):
        fail("a URL elicitation without a url and an elicitationId string")
    if mode == "form" and not isinstance(r.get("requestedSchema"), dict):
        fail("a form without a requestedSchema object")
    return _ProbeRequest(op="create_elicitation", mode=mode, message=message, requested_schema=r.get("requestedSchema"),
                         url=r.get("url"), elicitation_id=r.get("elicitationId"))


def _make_fallback(f, delay_ms, results):
    """The fallback a probe request names: sync without a delay, async with one."""
    def answer():
        kind = f["kind"]
        if kind == "accepted":
            return results["accepted"](value=_box(f["value"]))
        if kind in ("declined", "cancelled"):
            return results[kind]()
        if kind == "error":
            raise FallbackError(f["message"])
        return _box(f["value"])  # "plain": the deprecated path

    if delay_ms <= 0:
        return answer

    async def delayed():
        await asyncio.sleep(delay_ms / 1000.0)  # ends at once when the turn is cancelled
        return answer()
    return delayed


# The warnings of the call running in this task; see _capture_deprecations.
_call_warnings = contextvars.ContextVar("acpconform_kit_call_warnings", default=None)


def _capture_deprecations():
    # Every DeprecationWarning raised during a call is one warning of its
    # outcome. warnings' filters are process-wide, so the kit shows every
    # DeprecationWarning ("always": none is deduplicated by its place) and
    # takes those raised inside a call, by the context of the call's task.
    if getattr(warnings.showwarning, "_acpconform_kit", False):
        return
    warnings.filterwarnings("always", category=DeprecationWarning)
    shown = warnings.showwarning

    def showwarning(message, category, filename, lineno, file=None, line=None):
        collected = _call_warnings.get()
        if collected is not None and issubclass(category, DeprecationWarning):
            collected.append(PLAIN_VALUE_FALLBACK)
            return
        shown(message, category, filename, lineno, file, line)
    showwarning._acpconform_kit = True
    warnings.showwarning = showwarning


_MISSING = object()  # a member a result does not have


def _field(result, name, default=None):
    if isinstance(result, dict):
        return result.get(name, default)
    return getattr(result, name, default)


# A create_elicitation's status or action, in the seed's words or ACP's.
_OUTCOME_OF = {"accepted": "accepted", "declined": "declined", "cancelled": "cancelled",
               "accept": "accepted", "decline": "declined", "cancel": "cancelled"}


def _elicitation_outcome(res):
    """The outcome of what a create_elicitation returned, exactly as it returned it.

    Its status (or action) and its content, whatever the status: content
    returned with a decline, a cancel or a URL's accept is reported, so that
    acpconform judges it (ELI-2, ELI-3); the kit validates nothing for you.
    None content is none. An action no outcome can say (not accept, decline
    or cancel) is reported as invalid_response, naming it, as the Go kit does.
    """
    said, member = _field(res, "status"), "status"
    if said is None:
        said, member = _field(res, "action"), "action"
    if said is None or said == "":
        raise _Internal("create_elicitation returned %s, which has no status or action" % _show(res))
    if not isinstance(said, str):
        raise _Internal("create_elicitation returned %s, whose %s is no string" % (_show(res), member))
    outcome = next((o for word, o in _OUTCOME_OF.items() if said == word), None)
    if outcome is None:
        return {"outcome": "error", "error": "invalid_response",
                "message": "create_elicitation returned the %s %s, none of accept, decline and cancel: no outcome "
                           "reports it as it is" % (member, _show(said))}
    out = {"outcome": outcome}
    content = _field(res, "content")
    if content is not None:
        content = _jsonable(content)
        try:
            dumps(content)
        except (TypeError, ValueError):
            raise _Internal("create_elicitation returned the content %s, which is not JSON" % _show(content)) from None
        out["content"] = content
    return out


class _Turn:
    """One prompt turn: a probe request running in its session."""

    def __init__(self, key, session, req):
        self.key, self.session, self.req = key, session, req
        self.cancelled = False
        self.event = asyncio.Event()  # the call's cancelled
        self.task = None  # the task running the callback, once started

    def cancel(self):
        self.cancelled = True
        self.event.set()
        if self.task is not None:
            self.task.cancel()


class _Agent:
    """The probe agent of one connection."""

    def __init__(self, connection, ask_choice, create_elicitation, errors, results):
        self.conn = connection
        self.ask_choice, self.create_elicitation = ask_choice, create_elicitation
        self.errors, self.results = errors, results
        self.client_capabilities = {}
        self.sessions = 0
        self.turns = {}  # session id -> its running _Turn
        connection.handle_request = self.on_request
        connection.handle_notification = self.on_notification

    def on_request(self, id_, method, params):
        params = params if isinstance(params, dict) else {}
        if method == "initialize":
            caps = params.get("clientCapabilities")
            self.client_capabilities = caps if isinstance(caps, dict) else {}
            return {"protocolVersion": PROTOCOL_VERSION, "agentCapabilities": {},
                    "agentInfo": {"name": "acpconform-kit-python", "version": "1"}, "authMethods": []}
        if method == "session/new":
            self.sessions += 1
            return {"sessionId": "probe-%d" % self.sessions}
        if method == "session/prompt":
            return self.start_turn(id_, params)
        raise JSONRPCError(-32601, "Method not found", {"method": method})

    def on_notification(self, method, params):
        if method == "session/cancel" and isinstance(params, dict):
            turn = self.turns.get(params.get("sessionId"))
            if turn is not None:
                turn.cancel()

    def start_turn(self, id_, params):
        session_id = params.get("sessionId")
        if not isinstance(session_id, str):
            raise invalid_params("session/prompt without a sessionId")
        blocks = params.get("prompt") if isinstance(params.get("prompt"), list) else []
        text = "".join(b["text"] for b in blocks
                       if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str))
        try:
            req = parse_request(text)
        except ValueError as err:
            raise invalid_params(str(err))
        turn = _Turn(dumps(id_), Session(self.conn, session_id, self.client_capabilities), req)
        older = self.turns.get(session_id)
        if older is not None:  # a newer prompt of the session ends the older turn
            older.cancel()
        # Registered before the next message is read, so that a cancel finds
        # it even before the turn's task has run a step.
        self.turns[session_id] = turn
        self.conn.on_cancel(turn.key, turn.cancel)  # $/cancel_request for the prompt
        return self.run_turn(turn)

    async def run_turn(self, turn):
        try:
            if turn.cancelled:
                return {"stopReason": "cancelled"}
            turn.task = asyncio.ensure_future(self.outcome(turn))
            try:
                outcome = await turn.task
            except asyncio.CancelledError:
                if turn.cancelled:
                    return {"stopReason": "cancelled"}
                raise
            if turn.cancelled:  # the callback swallowed the cancel: still no outcome
                return {"stopReason": "cancelled"}
            text = dumps(outcome)
            if self.conn.closed:
                _log("the connection closed; outcome not sent: %s" % text)
                return {"stopReason": "end_turn"}
            self.conn.notify("session/update", {"sessionId": turn.session.session_id, "update": {
                "sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}})
            return {"stopReason": "end_turn"}
        finally:
            if self.turns.get(turn.session.session_id) is turn:
                del self.turns[turn.session.session_id]

    async def outcome(self, turn):
        collected = []
        _call_warnings.set(collected)  # this task's context: the call's DeprecationWarnings land here
        out = {"acpconform": 1}
        try:
            if turn.req.op == "create_elicitation":
                out.update(await self.run_create_elicitation(turn, collected.append))
            else:
                out.update(await self.run_ask_choice(turn, collected.append))
        except asyncio.CancelledError:
            if turn.cancelled:
                raise
            out.update(outcome="error", error="internal", message="CancelledError, but the turn was not cancelled")
        except Exception as err:  # noqa: BLE001: every error is an outcome
            out.update(self.error_outcome(err))
        if collected:
            out["warnings"] = list(collected)
        return out

    async def run_ask_choice(self, turn, warn):
        if self.ask_choice is None:
            raise _Internal("this adapter has no ask_choice")
        req = turn.req
        choices = [Choice(_box(v), label, description, default) for v, label, description, default in req.choices]
        fallback = _make_fallback(req.fallback, req.delay_ms, self.results) if req.fallback is not None else None
        call = ChoiceCall(turn.session, req.question, choices, fallback, turn.event, warn)
        res = await _maybe_await(self.ask_choice(call))
        status = _field(res, "status")
        if status in ("declined", "cancelled"):
            return {"outcome": status}
        if status != "accepted":
            raise _Internal("ask_choice returned %s, which has no status accepted, declined or cancelled" % _show(res))
        value = _field(res, "value", _MISSING)
        if value is _MISSING:  # not None, the null choice: nothing is filled in for you
            raise _Internal("ask_choice returned %s, accepted without a value" % _show(res))
        index = next((i for i, c in enumerate(choices) if c.value is value), -1)  # -1: none of the offered
        try:
            dumps(value)
        except (TypeError, ValueError):
            raise _Internal("ask_choice accepted %s, which is not JSON" % _show(value)) from None
        return {"outcome": "accepted", "index": index, "value": _unbox(value)}

    async def run_create_elicitation(self, turn, warn):
        if self.create_elicitation is None:  # the agent does not offer the op (docs/probe.md §1.9)
            return {"outcome": "error", "error": "not_offered",
                    "message": "this adapter does not offer create_elicitation: it runs ask_choice only"}
        req = turn.req
        call = ElicitationCall(turn.session, req.mode, req.message, req.requested_schema, req.url, req.elicitation_id,
                               turn.event, warn)
        return _elicitation_outcome(await _maybe_await(self.create_elicitation(call)))

    def error_outcome(self, err):
        for e in _cause_chain(err):
            kind = next((k for cls, k in self.errors.items() if isinstance(e, cls)), None)
            if kind is not None:
                return {"outcome": "error", "error": kind, "message": str(e)}
            if isinstance(e, FallbackError):
                return {"outcome": "error", "error": "fallback_error", "message": str(e)}
            if isinstance(e, RequestError):
                out = {"outcome": "error", "error": "request_error", "code": e.code, "message": e.message}
                if e.has_data and e.data is not None:
                    out["data"] = e.data
                return out
            if isinstance(e, ConnectionClosedError):
                return {"outcome": "error", "error": "connection", "message": str(e)}
        if isinstance(err, _Internal):
            return {"outcome": "error", "error": "internal", "message": str(err)}
        return {"outcome": "error", "error": "internal", "message": "%s: %s" % (type(err).__name__, err)}


class _Internal(Exception):
    """A defect of the adapter that the kit found: an internal outcome."""


def _cause_chain(err):
    seen = []
    while err is not None and len(seen) < 32 and all(err is not s for s in seen):
        seen.append(err)
        err = err.__cause__
    return seen


async def _maybe_await(v):
    return await v if inspect.isawaitable(v) else v


def _show(v):
    try:
        r = dumps(v)
    except (TypeError, ValueError):
        r = repr(v)
    return r if len(r) <= 80 else r[:77] + "..."


# The judge of an accepted form's content (content_problems), opt-in.


def content_problems(schema, content):
    """Says how an accepted form's content fails its requested schema, as acpconform's catalogue judges it.

    The judge ACP schema 1.21.0 gives a form, as the Go reference's
    ContentProblems reads it (docs/probe.md section 1.9): content is an object
    (or None, the same as absent) whose properties hold content values, each
    required one present, each declared one of its property's type and within
    its bounds, formats and offered values; a property the form does not
    declare is valid if it holds a content value (contract revision 5).
    Integers are judged by value (36.0 is 36), bounds are inclusive, lengths
    in code points. Returns [] when the content satisfies the schema, else one
    problem per property. Opt-in: the kit never calls it for you; call it from
    your create_elicitation where ACP says an agent SHOULD validate again
    (ELI-3), and raise your invalid_response error with what it finds.
    """
    schema = schema if isinstance(schema, dict) else {}
    properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    required = schema.get("required") if isinstance(schema.get("required"), list) else []
    content = {} if content is None else content  # absent and null are the same
    if not isinstance(content, dict):
        return ["the content is not a JSON object: " + _show(content)]
    problems = []
    for name in sorted(content):
        if name in properties:
            problem = _c_property_problem(properties[name], content[name])
        elif _c_is_content_value(content[name]):
            problem = ""
        else:
            problem = "is %s, a property the form does not declare holding no elicitation content value" % _show(content[name])
        if problem:
            problems.append("%s %s" % (_show(name), problem))
    problems += ["the required property %s is missing" % _show(name) for name in required
                 if isinstance(name, str) and name not in content]
    return problems


def _c_property_problem(p, value):
    # How value fails the property p; "" when it does not.
    if not isinstance(p, dict):
        return ""  # a property we cannot read constrains nothing
    kind = p.get("type")
    shown = "is " + _show(value)
    if kind == "string":
        return _c_string_problem(p, value) if isinstance(value, str) else shown + ", want a string"
    if kind in ("number", "integer"):
        d = _c_decimal(value)
        if d is None or (kind == "integer" and d != d.to_integral_value()):  # 36.0 is an integer
            return shown + (", want an integer" if kind == "integer" else ", want a number")
        low, high = _c_decimal(p.get("minimum")), _c_decimal(p.get("maximum"))
        if low is not None and d < low:
            return "%s, below the minimum %s" % (shown, _show(p["minimum"]))
        if high is not None and d > high:
            return "%s, above the maximum %s" % (shown, _show(p["maximum"]))
        return ""
    if kind == "boolean":
        return "" if isinstance(value, bool) else shown + ", want a boolean"
    if kind == "array":
        if not _c_is_string_array(value):
            return shown + ", want an array of strings"
        low, high = _c_decimal(p.get("minItems")), _c_decimal(p.get("maxItems"))
        if low is not None and len(value) < low:
            return "has %d items, fewer than minItems %s" % (len(value), _show(p["minItems"]))
        if high is not None and len(value) > high:
            return "has %d items, more than maxItems %s" % (len(value), _show(p["maxItems"]))
        allowed = _c_offered(p.get("items"))
        other = [item for item in value if allowed is not None and item not in allowed]
        if other:
            return "has the item %s, none of the offered %s" % (_show(other[0]), _show(allowed))
        return ""
    # A custom or future type: any content value.
    if _c_is_content_value(value):
        return ""
    return shown + ", which is no elicitation content value (string, number, boolean or array of strings)"


def _c_string_problem(p, s):
    # How s fails a string property's offered values, bounds, pattern and format.
    allowed = _c_offered(p)
    if allowed is not None and s not in allowed:
        return "is %s, none of the offered %s" % (_show(s), _show(allowed))
    low, high = _c_decimal(p.get("minLength")), _c_decimal(p.get("maxLength"))
    if low is not None and len(s) < low:  # len counts code points, as JSON Schema does
        return "is %d characters long, shorter than minLength %s" % (len(s), _show(p["minLength"]))
    if high is not None and len(s) > high:
        return "is %d characters long, longer than maxLength %s" % (len(s), _show(p["maxLength"]))
    pattern = p.get("pattern")
    if isinstance(pattern, str) and _c_matches(pattern, s) is False:
        return "is %s, which does not match the pattern %s" % (_show(s), _show(pattern))
    check = _c_FORMATS.get(p.get("format")) if isinstance(p.get("format"), str) else None
    if check is not None and not check(s):
        return "is %s, not of the format %s" % (_show(s), _show(p["format"]))
    return ""


def _c_offered(p):
    # The values a single-select (enum, or oneOf consts) or the items of a
    # multi-select (enum, or anyOf consts) allow; None when it lists none.
    if not isinstance(p, dict):
        return None
    if isinstance(p.get("enum"), list):
        return p["enum"]
    options = next((p[k] for k in ("oneOf", "anyOf") if isinstance(p.get(k), list)), None)
    return None if options is None else [o.get("const") if isinstance(o, dict) else None for o in options]


def _c_matches(pattern, s):
    # An ECMA-262 pattern, unanchored as JSON Schema reads it, run with
    # Python's re (the same for the patterns forms use); one that does not
    # compile is not held against the value: None.
    try:
        return re.search(pattern, s) is not None
    except re.error:
        return None


_c_ATOM = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_c_EMAIL = re.compile(r"{0}(?:\.{0})*@{0}(?:\.{0})*".format(_c_ATOM))  # an RFC 5322 addr-spec of dot-atoms
_c_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:[^\x00-\x20\x7f]*")  # a scheme, and no space or control character
_c_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
_c_DATE_TIME = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.[0-9]+)?"
                        r"(?:Z|[+-]([0-9]{2}):([0-9]{2}))")  # RFC 3339
_c_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _c_is_date(y, m, d):
    leap = y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)
    return 1 <= m <= 12 and 1 <= d <= _c_DAYS[m - 1] + (1 if m == 2 and leap else 0)


def _c_is_date_string(s):
    m = _c_DATE.fullmatch(s)
    return m is not None and _c_is_date(*(int(g) for g in m.groups()))


def _c_is_date_time(s):
    m = _c_DATE_TIME.fullmatch(s)
    if m is None:
        return False
    y, mo, d, h, mi, sec, oh, om = (int(g or 0) for g in m.groups())
    return _c_is_date(y, mo, d) and h < 24 and mi < 60 and sec < 60 and oh < 24 and om < 60


# The string formats of schema 1.21.0, read as the Go reference reads them; a
# format not named here holds any string.
_c_FORMATS = {
    "email": lambda s: _c_EMAIL.fullmatch(s) is not None,
    "uri": lambda s: _c_URI.fullmatch(s) is not None,
    "date": _c_is_date_string,
    "date-time": _c_is_date_time,
}


def _c_decimal(v):
    # A JSON number's exact value, or None for anything else, booleans
    # included. A number that keeps its JSON text (as the kit's do) is read
    # from it, so that 9007199254740993.0 is not rounded to a float.
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    text = getattr(v, "text", None)
    if isinstance(text, str):
        return Decimal(text)
    if isinstance(v, float) and (v != v or abs(v) == float("inf")):
        return None
    return Decimal(v)


def _c_is_string_array(v):
    return isinstance(v, list) and all(isinstance(item, str) for item in v)


def _c_is_content_value(v):
    return isinstance(v, (str, bool)) or _c_decimal(v) is not None or _c_is_string_array(v)


def _check_options(errors, results):
    errors = dict(errors or {})
    for cls, kind in errors.items():
        if not (isinstance(cls, type) and issubclass(cls, BaseException)) or kind not in ERROR_KINDS:
            raise ValueError("errors maps exception classes to one of %s; got %r: %r" % (", ".join(ERROR_KINDS), cls, kind))
    merged = {"accepted": Accepted, "declined": Declined, "cancelled": Cancelled}
    for status, make in (results or {}).items():
        if status not in merged or not callable(make):
            raise ValueError("results maps accepted, declined and cancelled to constructors; got %r: %r" % (status, make))
        merged[status] = make
    return errors, merged


async def serve_agent(ask_choice=None, create_elicitation=None, errors=None, results=None, rfile=None, write=None,
                      at_end=None):
    """Serves the probe agent on one connection until its input ends; run_agent's coroutine.

    rfile (a binary file to read lines from) and write (a function taking
    bytes) default to stdin and stdout. At the input's end, pending requests
    fail with ConnectionClosedError, running turns get EXIT_GRACE_SECONDS
    to finish and log their outcome to stderr, and the rest are cancelled.
    at_end is called in the reading thread when the input ends.
    """
    errors, results = _check_options(errors, results)
    _capture_deprecations()
    conn = Connection(write if write is not None else _stdout_writer())
    _Agent(conn, ask_choice, create_elicitation, errors, results)
    await conn.serve(rfile if rfile is not None else sys.stdin.buffer, at_end)
    running = conn.running()
    if running:
        _, late = await asyncio.wait(running, timeout=EXIT_GRACE_SECONDS)
        for task in late:
            task.cancel()


def run_agent(ask_choice=None, create_elicitation=None, errors=None, results=None):
    """Runs a probe agent on stdin and stdout, and exits the process when stdin ends.

    ask_choice(call)          your callback for op ask_choice: call is a
                              ChoiceCall; it returns a result with .status
                              "accepted" (with .value), "declined" or
                              "cancelled", as your ask_choice returns it.
                              Sync or async.
    create_elicitation(call)  for op create_elicitation: call is an
                              ElicitationCall; it returns a result with
                              .status (or .action: accept, decline, cancel)
                              and, for an accepted form, .content. Dicts work
                              too. Sync or async. The outcome is the result
                              as returned: content beside a decline, say, is
                              reported, not dropped. Without it, the agent does
                              not offer the op: each request of it is answered
                              with the error outcome not_offered.
    errors                    maps your exception classes to the outcome's
                              error kinds: invalid_argument, unsupported,
                              invalid_response, invalid_fallback. The kit
                              itself knows FallbackError (fallback_error),
                              RequestError (request_error) and
                              ConnectionClosedError (connection), also as
                              the __cause__ of your own; any other is
                              internal.
    results                   maps "accepted", "declined" and "cancelled" to
                              the constructors of your result classes, for the
                              results the kit's fallbacks return:
                              results["accepted"](value=v), results["declined"]().
                              Default: the kit's Accepted, Declined, Cancelled.

    print() in your code goes to stderr: stdout carries the protocol. At the
    end of stdin the process exits within EXIT_GRACE_SECONDS (os._exit), even
    if a callback still blocks.
    """
    errors, results = _check_options(errors, results)  # a mistake here raises, before anything runs
    code = 0
    # Not asyncio.run: at the end it waits for every thread of the default
    # executor, and a callback's blocking call could hold the exit past 2 s.
    loop = asyncio.new_event_loop()
    try:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(serve_agent(ask_choice, create_elicitation, errors, results, at_end=_exit_soon))
    except BaseException:  # noqa: BLE001: said on stderr, and the exit status says it
        traceback.print_exc()
        code = 1
    finally:
        _flush()
        os._exit(code)  # without waiting for threads a callback may have left running


def _exit_soon():
    # At the end of stdin: exit within 2 s (docs/probe.md §1.6) even if a
    # callback blocks the event loop and serve_agent never returns.
    timer = threading.Timer(EXIT_GRACE_SECONDS + 0.5, _exit_now)
    timer.daemon = True
    timer.start()


def _exit_now():
    _log("a callback still blocks the event loop; exiting")
    _flush()
    os._exit(0)


def _flush():
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass


# --- the client kit (docs/probe.md §2)


class InstructionError(ValueError):
    """A scripted-user instruction the client cannot follow: answer it with -32602 (§2.2)."""


class _Wait:
    def __repr__(self):
        return "WAIT"


WAIT = _Wait()
"""test_mode_answer's answer to {"action": "wait"}: answer nothing until the agent cancels the request."""


def test_mode_answer(params):
    """The test-mode answer to an elicitation/create request (its params, parsed), from its instruction.

    Returns the result to answer with ({"action": "accept", "content": ...},
    {"action": "decline"}, ...), WAIT for {"action": "wait"}, or None when
    the request has no instruction (let your UI answer it). Raises
    InstructionError for one it cannot follow: an unknown action, a pick
    that names no option, a pick or content where it does not belong.
    Unknown members of the instruction and other _meta keys are ignored.
    """
    meta = params.get("_meta") if isinstance(params, dict) else None
    if not isinstance(meta, dict) or USER_META_KEY not in meta:
        return None
    user = meta[USER_META_KEY]
    if not isinstance(user, dict):
        raise InstructionError("%s is not an object" % USER_META_KEY)
    action = user.get("action")
    has_pick, has_content = "pick" in user, "content" in user
    if action not in ("accept", "decline", "cancel", "wait"):
        raise InstructionError("unknown scripted action %s" % _show(action))
    if action != "accept":
        if has_pick or has_content:
            raise InstructionError("only an accept has a pick or content")
        return WAIT if action == "wait" else {"action": action}
    if has_pick and has_content:
        raise InstructionError("an accept names a pick or content, never both")
    if params.get("mode") == "url":
        if has_pick or has_content:
            raise InstructionError("a URL elicitation's accept has no pick and no content")
        return {"action": "accept"}  # the user consents; a client in test mode opens nothing
    schema = params.get("requestedSchema")
    properties = schema.get("properties") if isinstance(schema, dict) else None
    properties = properties if isinstance(properties, dict) else {}
    choice = properties.get("choice") if list(properties) == ["choice"] else None
    if choice is not None:
        if not isinstance(choice, dict) or not isinstance(choice.get("oneOf"), list):
            raise InstructionError("a form whose only property is choice, without a oneOf")
        if not has_pick:
            raise InstructionError("the accept of a typed choice names a pick")
        return {"action": "accept", "content": {"choice": _picked(choice, user["pick"])}}
    if not has_content:
        raise InstructionError("the accept of a form that is no typed choice gives content")
    if not isinstance(user["content"], dict):
        raise InstructionError("the scripted content is not a JSON object")
    return {"action": "accept", "content": user["content"]}


def _picked(choice, pick):
    if pick == "default" and isinstance(pick, str):
        if not isinstance(choice.get("default"), str):
            raise InstructionError("pick default: the form has no default")
        return choice["default"]
    options = choice["oneOf"]
    i = _integer(pick)
    if i is None or not 0 <= i < len(options):
        raise InstructionError("pick %s names none of the %d options" % (_show(pick), len(options)))
    const = options[i].get("const") if isinstance(options[i], dict) else None
    if not isinstance(const, str):
        raise InstructionError("option %d has no string const" % i)
    return const


async def answer_in_test_mode(params, client_capabilities, ui=None):
    """Answers an elicitation/create in test mode: use it as your handler's body.

    It refuses a mode the client did not advertise in client_capabilities
    (ELI-6, CLI-4) and an instruction it cannot follow with JSON-RPC error
    -32602 (raised as JSONRPCError); answers as the instruction says; for
    "wait", waits until its task is cancelled (the agent's $/cancel_request)
    and answers {"action": "cancel"}; and without an instruction returns
    await ui(params) (default: cancel, as a person closing the dialog).
    """
    mode = params.get("mode", "form") if isinstance(params, dict) else None
    if not Session(None, None, client_capabilities).supports_elicitation(mode):
        raise invalid_params("%s elicitation was not advertised" % _show(mode))
    try:
        answer = test_mode_answer(params)
    except InstructionError as err:
        raise invalid_params(str(err))
    if answer is WAIT:
        try:
            await asyncio.get_running_loop().create_future()  # until the request is cancelled
        except asyncio.CancelledError:
            return {"action": "cancel"}
    if answer is None:
        return await _maybe_await(ui(params)) if ui is not None else {"action": "cancel"}
    return answer
