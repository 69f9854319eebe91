#!/usr/bin/env python3
"""A minimal ACP client with a test mode, on acpconform_kit's client kit (docs/probe.md §2).

It advertises form and URL elicitation, opens a session, sends one prompt and
answers every elicitation/create as its scripted-user instruction says
(kit.answer_in_test_mode: an accept, decline or cancel, a wait until the
agent's $/cancel_request, -32602 for an instruction it cannot follow or a mode
it did not advertise). It exits 0 when the prompt turn ends.

    acpconform client -- python3 kit/python/example/client.py
"""
import asyncio
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # where acpconform_kit.py is
import acpconform_kit as kit  # noqa: E402

CAPABILITIES = {"elicitation": {"form": {}, "url": {}}}


def handle_request(id_, method, params):
    if method == "elicitation/create":
        return kit.answer_in_test_mode(params, CAPABILITIES)  # your UI would answer without an instruction
    raise kit.JSONRPCError(-32601, "Method not found", {"method": method})


async def main():
    out = sys.stdout.buffer
    conn = kit.Connection(lambda data: (out.write(data), out.flush()), handle_request, lambda method, params: None)
    reading = asyncio.ensure_future(conn.serve(sys.stdin.buffer))
    await conn.request("initialize", {"protocolVersion": 1, "clientCapabilities": CAPABILITIES,
                                      "clientInfo": {"name": "acpconform-kit-python-client", "version": "1"}})
    session = await conn.request("session/new", {"cwd": os.getcwd(), "mcpServers": []})
    await conn.request("session/prompt", {"sessionId": session["sessionId"],
                                          "prompt": [{"type": "text", "text": "Please ask me to choose."}]})
    reading.cancel()


asyncio.run(main())
