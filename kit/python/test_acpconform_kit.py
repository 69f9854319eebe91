"""Tests of acpconform_kit: python3 -m unittest discover -s kit/python

The catalogue checks the kit end to end through example/agent.py and its
feature, example/askchoice.py (go test ./interop); these tests pin what a
check cannot see one at a time: probe equality, exact numbers, the client
kit's instructions, and the turn's cancellation and warnings on an in-memory
connection.
"""

import ast
import asyncio
import json
import os
import unittest
import warnings

import acpconform_kit as kit

HERE = os.path.dirname(os.path.abspath(__file__))
BOUND = 30  # seconds: the bound of every wait, far beyond what a correct kit takes


class ProbeEquality(unittest.TestCase):
    """docs/probe.md §1.7, row by row."""

    def test_same(self):
        for a, b in [
            ('{"a": 1, "b": 2}', '{"b": 2, "a": 1}'),
            ("1", "1.0"), ("1", "1e0"), ("1", "10e-1"), ("0", "-0"),
            ('"\\u00e9"', '"\u00e9"'),
            ("null", "null"), ("true", "true"),
            ("9007199254740993", "9007199254740993.0"),
            ("[1, [true, null]]", "[1.0, [true, null]]"),
        ]:
            with self.subTest(a=a, b=b):
                va, vb = kit.Value(kit.loads(a)), kit.Value(kit.loads(b))
                self.assertTrue(va == vb)
                self.assertFalse(va != vb)
                self.assertEqual(hash(va), hash(vb))

    def test_not_same(self):
        for a, b in [
            ("[1, 2]", "[2, 1]"),
            ("9007199254740993", "9007199254740992"),
            ('"\\u00e9"', '"e\\u0301"'),
            ("true", "1"), ('"1"', "1"), ("null", "false"), ("false", "0"),
            ('{"a": 1}', '{"a": 1, "b": 1}'),
            ("1e2000", "10e1999"),  # exponents beyond ±1000 compare as text
        ]:
            with self.subTest(a=a, b=b):
                self.assertFalse(kit.Value(kit.loads(a)) == kit.Value(kit.loads(b)))
                self.assertFalse(kit.same_value(kit.loads(a), kit.loads(b)))

    def test_python_pitfalls(self):
        # json.loads and == on plain Python data: True == 1, and a big number
        # with a fraction is rounded to a float.
        self.assertTrue(True == 1 and json.loads("9007199254740993.0") == json.loads("9007199254740992"))  # noqa: E712
        self.assertFalse(kit.same_value(True, 1))
        self.assertFalse(kit.same_value(kit.loads("9007199254740993.0"), kit.loads("9007199254740992")))
        self.assertFalse(kit.Value(True) == 1)
        self.assertTrue(kit.Value(1) == 1.0)
        self.assertFalse(kit.Value(0) == None)  # noqa: E711: null is None, never a Value

    def test_values_in_sets(self):
        values = {kit.Value(kit.loads(t)) for t in ("1", "1.0", "true", '{"a": [1]}', '{"a": [1.0]}')}
        self.assertEqual(len(values), 3)


class ContentJudge(unittest.TestCase):
    SCHEMA = {"type": "object", "required": ["name"], "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 5},
        "age": {"type": "integer", "minimum": 0, "maximum": 150},
        "tags": {"type": "array", "maxItems": 2, "items": {"type": "string", "enum": ["go", "ts"]}}}}

    def test_valid_content(self):
        # Bounds inclusive, lengths in code points, integers by value.
        self.assertEqual(kit.content_problems(self.SCHEMA, kit.loads('{"name": "Ada\U0001F9EE!", "age": 150.0, "tags": ["go", "ts"]}')), [])

    def test_undeclared_property(self):
        # Valid when it holds a content value (contract revision 5).
        self.assertEqual(kit.content_problems(self.SCHEMA, {"name": "Ada", "nickname": "A", "extra": ["x"]}), [])
        self.assertEqual(len(kit.content_problems(self.SCHEMA, {"name": "Ada", "extra": {"deep": 1}})), 1)

    def test_problems(self):
        self.assertEqual(len(kit.content_problems(self.SCHEMA, kit.loads('{"age": 36.5, "tags": ["py"]}'))), 3)
        self.assertEqual(len(kit.content_problems(self.SCHEMA, None)), 1)
        self.assertEqual(len(kit.content_problems(self.SCHEMA, "Ada")), 1)


class ExactNumbers(unittest.TestCase):
    def test_round_trip(self):
        for text in ["9007199254740993", "9007199254740993.0", "1e400", "-0", "0.1", "1E+2", "7" * 5000,
                     '{"n":[1.50,2e-3]}']:
            with self.subTest(text=text[:20]):
                self.assertEqual(kit.dumps(kit.loads(text)), text)

    def test_numbers_are_numbers(self):
        v = kit.loads('{"age": 36, "height": 1.65}')
        self.assertEqual(v["age"] + 1, 37)
        self.assertIsInstance(v["height"], float)
        self.assertEqual(json.dumps(v), '{"age": 36, "height": 1.65}')  # the standard library still writes them

    def test_not_json(self):
        for text in ["NaN", "[Infinity]", "{", "[" * 100000]:
            with self.subTest(text=text[:10]):
                with self.assertRaises(ValueError):
                    kit.loads(text)


class ProbeRequests(unittest.TestCase):
    def test_reads(self):
        r = kit.parse_request('{"acpconform": 1.0, "op": "ask_choice", "question": " ", "choices": null, "extra": 1}')
        self.assertEqual((r.question, r.choices, r.fallback, r.delay_ms), (" ", [], None, 0))
        r = kit.parse_request('{"acpconform": 1, "op": "create_elicitation", "mode": "url", "message": "m",'
                              ' "url": "https://x", "elicitationId": "e"}')
        self.assertEqual((r.mode, r.url, r.elicitation_id), ("url", "https://x", "e"))

    def test_refuses(self):
        for text, why in [
            ("hello", "not an acpconform probe request"),
            ('{"acpconform": 2, "op": "ask_choice"}', "acpconform is 2"),
            ('{"acpconform": 1, "op": "ask_choices"}', "unknown op"),
            ('{"acpconform": 1, "op": "ask_choice", "question": "Q"}', "no choices"),
            ('{"acpconform": 1, "op": "ask_choice", "question": "Q", "choices": [{"label": "L"}]}', "has no value"),
            ('{"acpconform": 1, "op": "ask_choice", "question": "Q", "choices": [{"value": 1, "label": "L",'
             ' "description": ""}]}', "description"),
            ('{"acpconform": 1, "op": "ask_choice", "question": "Q", "choices": [], "fallback": {"kind": "maybe"}}',
             "unknown fallback kind"),
            ('{"acpconform": 1, "op": "ask_choice", "question": "Q", "choices": [], "fallbackDelayMs": 0.5}',
             "fallbackDelayMs"),
        ]:
            with self.subTest(why=why):
                with self.assertRaisesRegex(ValueError, why):
                    kit.parse_request(text)


TYPED = {"type": "object", "required": ["choice"], "properties": {"choice": {
    "type": "string", "title": "Choice", "default": "choice_1",
    "oneOf": [{"const": "choice_0", "title": "A"}, {"const": "choice_1", "title": "B"}]}}}
FORM = {"type": "object", "properties": {"name": {"type": "string"}}}


def elicitation(user, mode="form", schema=TYPED):
    params = {"sessionId": "s", "mode": mode, "message": "m", "_meta": {"other/key": 1}}
    if user is not None:
        params["_meta"][kit.USER_META_KEY] = user
    if mode == "form":
        params["requestedSchema"] = schema
    return kit.loads(json.dumps(params))


class TestModeAnswers(unittest.TestCase):
    """docs/probe.md §2.1, §2.2, §2.5."""

    def test_answers(self):
        for user, mode, schema, want in [
            ({"action": "accept", "pick": 0, "future": True}, "form", TYPED, {"action": "accept", "content": {"choice": "choice_0"}}),
            ({"action": "accept", "pick": 1.0}, "form", TYPED, {"action": "accept", "content": {"choice": "choice_1"}}),
            ({"action": "accept", "pick": "default"}, "form", TYPED, {"action": "accept", "content": {"choice": "choice_1"}}),
            ({"action": "accept", "content": {"name": "Ada"}}, "form", FORM, {"action": "accept", "content": {"name": "Ada"}}),
            ({"action": "accept"}, "url", None, {"action": "accept"}),
            ({"action": "decline"}, "form", TYPED, {"action": "decline"}),
            ({"action": "cancel"}, "url", None, {"action": "cancel"}),
        ]:
            with self.subTest(user=user):
                self.assertEqual(kit.test_mode_answer(elicitation(user, mode, schema)), want)
        self.assertIs(kit.test_mode_answer(elicitation({"action": "wait"})), kit.WAIT)
        self.assertIsNone(kit.test_mode_answer(elicitation(None)))

    def test_content_keeps_numbers_as_written(self):
        answer = kit.test_mode_answer(kit.loads(
            '{"mode": "form", "requestedSchema": {"properties": {"h": {"type": "number"}}},'
            ' "_meta": {"acpconform/user": {"action": "accept", "content": {"h": 1.650}}}}'))
        self.assertEqual(kit.dumps(answer), '{"action":"accept","content":{"h":1.650}}')

    def test_refuses(self):
        choice_without_options = {"properties": {"choice": {"type": "string"}}}
        for user, mode, schema in [
            ({"action": "maybe"}, "form", TYPED),
            ({"action": "decline", "pick": 0}, "form", TYPED),
            ({"action": "accept", "pick": 2}, "form", TYPED),
            ({"action": "accept", "pick": -1}, "form", TYPED),
            ({"action": "accept", "pick": 0.5}, "form", TYPED),
            ({"action": "accept", "pick": True}, "form", TYPED),
            ({"action": "accept", "pick": "default"}, "form", {"properties": {"choice": {"oneOf": []}}}),
            ({"action": "accept", "content": {"choice": "choice_0"}}, "form", TYPED),
            ({"action": "accept", "pick": 0}, "form", FORM),
            ({"action": "accept"}, "form", FORM),
            ({"action": "accept", "pick": 0}, "url", None),
            ({"action": "accept", "pick": 0, "content": {}}, "form", TYPED),
            ({"action": "accept", "content": {"choice": "x"}}, "form", choice_without_options),
            ("accept", "form", TYPED),
        ]:
            with self.subTest(user=user, schema=schema):
                with self.assertRaises(kit.InstructionError):
                    kit.test_mode_answer(elicitation(user, mode, schema))


class AnswerInTestMode(unittest.IsolatedAsyncioTestCase):
    async def test_wait_until_cancelled(self):
        sent = []
        conn = kit.Connection(lambda data: sent.append(kit.loads(data)),
                              lambda id_, method, params: kit.answer_in_test_mode(params, {"elicitation": {"form": {}}}))
        conn.feed(json.dumps({"jsonrpc": "2.0", "id": 7, "method": "elicitation/create",
                              "params": elicitation({"action": "wait"})}))
        await asyncio.sleep(0)  # the handler's first step: it waits
        self.assertEqual(sent, [])
        conn.feed(b'{"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 7}}')
        await asyncio.wait_for(asyncio.gather(*conn.running(), return_exceptions=True), BOUND)
        self.assertEqual(sent, [{"jsonrpc": "2.0", "id": 7, "result": {"action": "cancel"}}])

    async def test_unadvertised_mode_and_bad_instruction(self):
        for caps, params in [({"elicitation": {"form": {}}}, elicitation({"action": "accept"}, mode="url")),
                             ({"elicitation": {"form": {}}}, elicitation({"action": "accept", "pick": 9}))]:
            with self.assertRaises(kit.JSONRPCError) as raised:
                await kit.answer_in_test_mode(params, caps)
            self.assertEqual(raised.exception.code, -32602)


class Agent:
    """serve_agent on a pipe: send writes frames, next reads the agent's."""

    def __init__(self, **options):
        r, self.w = os.pipe()
        self.rfile = os.fdopen(r, "rb", buffering=0)
        self.frames = asyncio.Queue()
        self.task = asyncio.ensure_future(kit.serve_agent(
            rfile=self.rfile, write=lambda data: self.frames.put_nowait(kit.loads(data)), **options))

    def send(self, *msgs):
        os.write(self.w, b"".join((json.dumps(m) + "\n").encode() for m in msgs))

    async def next(self):
        return await asyncio.wait_for(self.frames.get(), BOUND)

    async def start(self, capabilities):
        self.send({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                   "params": {"protocolVersion": 1, "clientCapabilities": capabilities}},
                  {"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": "/", "mcpServers": []}})
        await self.next()
        return (await self.next())["result"]["sessionId"]

    def prompt(self, id_, session_id, request):
        return {"jsonrpc": "2.0", "id": id_, "method": "session/prompt",
                "params": {"sessionId": session_id, "prompt": [{"type": "text", "text": json.dumps(request)}]}}

    async def outcome(self, id_):
        """The outcome the turn of prompt id_ reports, or None, and its answer."""
        outcome = None
        while True:
            frame = await self.next()
            if frame.get("method") == "session/update":
                outcome = json.loads(frame["params"]["update"]["content"]["text"])
            elif frame.get("id") == id_:
                return outcome, frame

    async def close(self):
        os.close(self.w)
        await asyncio.wait_for(self.task, BOUND)
        self.rfile.close()


ASK = {"acpconform": 1, "op": "ask_choice", "question": "Q",
       "choices": [{"value": {"n": 1}, "label": "One"}, {"value": None, "label": "Nothing"}]}
FORM_CAPS = {"elicitation": {"form": {}}}


class AgentTurns(unittest.IsolatedAsyncioTestCase):
    async def test_outcome_index_by_identity(self):
        async def ask_choice(call):
            return kit.Accepted(call.choices[0].value)

        async def ask_a_copy(call):
            return kit.Accepted(kit.Value(kit.loads('{"n": 1.0}')))

        for ask, index in [(ask_choice, 0), (ask_a_copy, -1)]:
            agent = Agent(ask_choice=ask)
            sid = await agent.start({})
            agent.send(agent.prompt(2, sid, ASK))
            outcome, answer = await agent.outcome(2)
            self.assertEqual(outcome["index"], index)
            self.assertEqual(outcome["value"], {"n": 1})
            self.assertEqual(answer["result"], {"stopReason": "end_turn"})
            await agent.close()

    async def test_not_a_probe_request(self):
        agent = Agent()
        sid = await agent.start({})
        agent.send({"jsonrpc": "2.0", "id": 2, "method": "session/prompt",
                    "params": {"sessionId": sid, "prompt": [{"type": "text", "text": "hello"}]}})
        answer = await agent.next()
        self.assertEqual(answer["error"]["code"], -32602)
        self.assertIn("not an acpconform probe request", answer["error"]["data"]["error"])
        await agent.close()

    async def test_cancel_before_the_turn_runs(self):
        # The prompt and its cancel in one read: the cancel comes before the
        # turn's task has run a step, when a coroutine cannot catch it.
        called = []

        async def ask_choice(call):
            called.append(call)
            return kit.Declined()

        agent = Agent(ask_choice=ask_choice)
        sid = await agent.start(FORM_CAPS)
        agent.send(agent.prompt(2, sid, ASK), {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": sid}})
        outcome, answer = await agent.outcome(2)
        self.assertEqual((outcome, answer["result"], called), (None, {"stopReason": "cancelled"}, []))
        await agent.close()

    async def test_cancel_cancels_the_pending_request(self):
        async def ask_choice(call):
            return await call.session.request("elicitation/create", {"sessionId": call.session.session_id})

        agent = Agent(ask_choice=ask_choice)
        sid = await agent.start(FORM_CAPS)
        agent.send(agent.prompt(2, sid, ASK))
        request = await agent.next()
        self.assertEqual(request["method"], "elicitation/create")
        agent.send({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": sid}})
        cancel = await agent.next()
        self.assertEqual(cancel, {"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": request["id"]}})
        outcome, answer = await agent.outcome(2)
        self.assertEqual((outcome, answer["result"]), (None, {"stopReason": "cancelled"}))
        await agent.close()

    async def test_swallowed_cancel_reports_nothing(self):
        started = asyncio.Event()

        async def ask_choice(call):
            started.set()
            try:
                await call.fallback()
            except asyncio.CancelledError:
                return kit.Declined()  # wrong, but the turn was cancelled: no outcome
            return kit.Cancelled()

        agent = Agent(ask_choice=ask_choice)
        sid = await agent.start({})
        agent.send(agent.prompt(2, sid, dict(ASK, fallback={"kind": "declined"}, fallbackDelayMs=3600000)))
        await asyncio.wait_for(started.wait(), BOUND)
        agent.send({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": sid}})
        outcome, answer = await agent.outcome(2)
        self.assertEqual((outcome, answer["result"]), (None, {"stopReason": "cancelled"}))
        await agent.close()

    async def test_end_of_input_ends_pending_requests(self):
        seen = []

        async def ask_choice(call):
            try:
                return await call.session.request("elicitation/create", {})
            except kit.ConnectionClosedError as err:
                seen.append(err)
                raise

        agent = Agent(ask_choice=ask_choice)
        sid = await agent.start(FORM_CAPS)
        agent.send(agent.prompt(2, sid, ASK))
        await agent.next()  # elicitation/create, never answered
        await agent.close()
        self.assertEqual(len(seen), 1)

    async def test_errors(self):
        class Mine(Exception):
            pass

        async def ask_choice(call):
            kind = call.question
            if kind == "mine":
                raise Mine("question must not be blank")
            if kind == "wrapped":
                try:
                    await call.session.request("elicitation/create", {})
                except kit.RequestError as err:
                    raise RuntimeError("wrapped") from err
            if kind == "fallback":
                return call.fallback()
            raise KeyError(kind)

        agent = Agent(ask_choice=ask_choice, errors={Mine: "invalid_argument"})
        sid = await agent.start(FORM_CAPS)
        for i, (question, extra, want) in enumerate([
            ("mine", {}, {"error": "invalid_argument", "message": "question must not be blank"}),
            ("fallback", {"fallback": {"kind": "error", "message": "the policy says no"}},
             {"error": "fallback_error", "message": "the policy says no"}),
            ("wrapped", {}, {"error": "request_error", "code": 4242, "message": "Editor busy", "data": [9007199254740993]}),
            ("other", {}, {"error": "internal"}),
        ]):
            agent.send(agent.prompt(10 + i, sid, dict(ASK, question=question, **extra)))
            if question == "wrapped":
                request = await agent.next()
                os.write(agent.w, ('{"jsonrpc": "2.0", "id": %d, "error": {"code": 4242, "message": "Editor busy",'
                                   ' "data": [9007199254740993]}}\n' % request["id"]).encode())
            outcome, _ = await agent.outcome(10 + i)
            with self.subTest(question=question):
                self.assertEqual(outcome["outcome"], "error")
                self.assertEqual({k: outcome[k] for k in want}, want)
        await agent.close()

    async def test_deprecation_warnings_each_call(self):
        async def ask_choice(call):
            value = call.fallback()
            warnings.warn("plain value", DeprecationWarning)  # the same place every call
            return kit.Accepted(next(c.value for c in call.choices if c.value == value))

        agent = Agent(ask_choice=ask_choice)
        sid = await agent.start({})
        for id_ in (2, 3):
            agent.send(agent.prompt(id_, sid, dict(ASK, fallback={"kind": "plain", "value": {"n": 1.0}})))
            outcome, _ = await agent.outcome(id_)
            self.assertEqual((outcome["index"], outcome["warnings"]), (0, [kit.PLAIN_VALUE_FALLBACK]))
        await agent.close()

    async def test_fallbacks_sync_and_async_with_results(self):
        class Yes:
            status = "accepted"

            def __init__(self, value):
                self.value = value

        kinds = []

        async def ask_choice(call):
            res = call.fallback()
            kinds.append(asyncio.iscoroutine(res))
            return await res if asyncio.iscoroutine(res) else res

        agent = Agent(ask_choice=ask_choice, results={"accepted": Yes})
        sid = await agent.start({})
        for id_, delay in ((2, 0), (3, 1)):
            agent.send(agent.prompt(id_, sid, dict(ASK, fallback={"kind": "accepted", "value": None}, fallbackDelayMs=delay)))
            outcome, _ = await agent.outcome(id_)
            self.assertEqual((outcome["outcome"], outcome["value"], outcome["index"]), ("accepted", None, 1))
        self.assertEqual(kinds, [False, True])
        await agent.close()

    async def test_create_elicitation_reports_content_as_received(self):
        async def create_elicitation(call):
            return await call.session.create_elicitation(call.message, call.mode, requestedSchema=call.requested_schema)

        agent = Agent(create_elicitation=create_elicitation)
        sid = await agent.start(FORM_CAPS)
        agent.send(agent.prompt(2, sid, {"acpconform": 1, "op": "create_elicitation", "mode": "form", "message": "m",
                                         "requestedSchema": {"type": "object", "properties": {}}}))
        request = await agent.next()
        self.assertEqual(request["params"]["sessionId"], sid)
        os.write(agent.w, ('{"jsonrpc": "2.0", "id": %d, "result": {"action": "accept", "content": {"h": 1.650}}}\n'
                           % request["id"]).encode())
        while True:
            frame = await agent.next()
            if frame.get("method") == "session/update":
                self.assertIn('"content":{"h":1.650}', frame["params"]["update"]["content"]["text"])
                break
        await agent.close()


    async def test_without_create_elicitation_the_op_is_not_offered(self):
        agent = Agent(ask_choice=lambda call: kit.Declined())
        sid = await agent.start({"elicitation": {"form": {}, "url": {}}})
        for id_, request in ((2, {"mode": "form", "message": "m", "requestedSchema": {"type": "object", "properties": {}}}),
                             (3, {"mode": "url", "message": "m", "url": "https://x/", "elicitationId": "e"})):
            agent.send(agent.prompt(id_, sid, dict(request, acpconform=1, op="create_elicitation")))
            outcome, answer = await agent.outcome(id_)
            self.assertEqual(answer["result"], {"stopReason": "end_turn"})
            self.assertEqual((outcome["outcome"], outcome["error"]), ("error", "not_offered"))
            self.assertIn("create_elicitation", outcome["message"])
        await agent.close()

    async def test_create_elicitation_result_reported_as_returned(self):
        # What the feature returns is the outcome, wrong or not: the kit drops,
        # fills in and validates nothing, so that the catalogue can judge it.
        results = {
            "decline-with-content": {"action": "decline", "content": {"name": "Ada"}},
            "cancel-with-content": {"status": "cancelled", "content": {"age": 36}},
            "url-accept-with-content": {"action": "accept", "content": {"token": "secret"}},
            "float-for-integer": {"action": "accept", "content": {"age": 36.0}},
            "null-content": {"action": "decline", "content": None},
            "custom-action": {"action": "_defer", "content": {"x": 1}},
            "no-action": {"content": {"x": 1}},
            "numeric-action": {"action": 1},
            "content-not-json": {"action": "accept", "content": {"when": object()}},
        }

        async def create_elicitation(call):
            return results[call.message]

        agent = Agent(create_elicitation=create_elicitation)
        sid = await agent.start({"elicitation": {"form": {}, "url": {}}})
        for i, (message, want) in enumerate([
            ("decline-with-content", '{"acpconform":1,"outcome":"declined","content":{"name":"Ada"}}'),
            ("cancel-with-content", '{"acpconform":1,"outcome":"cancelled","content":{"age":36}}'),
            ("url-accept-with-content", '{"acpconform":1,"outcome":"accepted","content":{"token":"secret"}}'),
            ("float-for-integer", '{"acpconform":1,"outcome":"accepted","content":{"age":36.0}}'),
            ("null-content", '{"acpconform":1,"outcome":"declined"}'),
            ("custom-action", {"error": "invalid_response", "says": '"_defer"'}),
            ("no-action", {"error": "internal", "says": "no status or action"}),
            ("numeric-action", {"error": "internal", "says": "action is no string"}),
            ("content-not-json", {"error": "internal", "says": "not JSON"}),
        ]):
            request = {"acpconform": 1, "op": "create_elicitation", "mode": "form", "message": message,
                       "requestedSchema": {"type": "object", "properties": {}}}
            if message.startswith("url-"):
                request = {"acpconform": 1, "op": "create_elicitation", "mode": "url", "message": message,
                           "url": "https://example.com/", "elicitationId": "e1"}
            agent.send(agent.prompt(10 + i, sid, request))
            text = None
            while True:
                frame = await agent.next()
                if frame.get("method") == "session/update":
                    text = frame["params"]["update"]["content"]["text"]
                elif frame.get("id") == 10 + i:
                    break
            with self.subTest(message=message):
                if isinstance(want, str):
                    self.assertEqual(text, want)
                else:
                    outcome = json.loads(text)
                    self.assertEqual((outcome["outcome"], outcome["error"]), ("error", want["error"]))
                    self.assertIn(want["says"], outcome["message"])
        await agent.close()

    async def test_accepted_without_a_value_is_not_the_null_choice(self):
        async def ask_choice(call):
            return {"status": "accepted"}  # no value: not None, the null choice's

        agent = Agent(ask_choice=ask_choice)
        sid = await agent.start(FORM_CAPS)
        agent.send(agent.prompt(2, sid, ASK))
        outcome, _ = await agent.outcome(2)
        self.assertEqual((outcome["outcome"], outcome["error"]), ("error", "internal"), outcome)
        self.assertIn("without a value", outcome["message"])
        await agent.close()


class Readme(unittest.TestCase):
    def test_adapter_is_the_example(self):
        # README.md shows example/agent.py whole: the copy a user takes is the file CI checks.
        with open(os.path.join(HERE, "README.md"), encoding="utf-8") as f:
            readme = f.read()
        section = readme[readme.index("## The adapter"):]
        shown = section[section.index("```python\n") + len("```python\n"):section.index("```\n", section.index("```python"))]
        with open(os.path.join(HERE, "example", "agent.py"), encoding="utf-8") as f:
            self.assertEqual(shown, f.read())


class Python39(unittest.TestCase):
    def test_syntax(self):
        # CI runs a newer Python; the kit promises 3.9.
        for path in ["acpconform_kit.py", "example/agent.py", "example/client.py", "example/askchoice.py"]:
            with self.subTest(path=path):
                with open(os.path.join(HERE, path), encoding="utf-8") as f:
                    ast.parse(f.read(), path, feature_version=(3, 9))


if __name__ == "__main__":
    unittest.main()
