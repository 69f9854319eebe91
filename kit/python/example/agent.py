#!/usr/bin/env python3
"""A probe adapter on acpconform_kit: the feature (askchoice.py) handed to the kit.

    python3 agent.py                                  # the agent, on stdin and stdout
    acpconform agent -- python3 kit/python/example/agent.py
"""
import os, sys  # noqa: E401
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # where acpconform_kit.py is
import acpconform_kit as kit  # noqa: E402
import askchoice as feature  # noqa: E402  (your ask_choice and create_elicitation)


async def ask_choice(call):
    choices = [feature.Choice(c.value, c.label, c.description, c.default) for c in call.choices]
    return await feature.ask_choice(call.session, call.question, choices, fallback=call.fallback)


async def create_elicitation(call):
    return await feature.create_elicitation(call.session, call.mode, call.message, requested_schema=call.requested_schema,
                                            url=call.url, elicitation_id=call.elicitation_id)


kit.run_agent(ask_choice=ask_choice, create_elicitation=create_elicitation,
              errors={feature.InvalidArgumentError: "invalid_argument", feature.ElicitationUnsupportedError: "unsupported",
                      feature.InvalidElicitationResponseError: "invalid_response",
                      feature.InvalidElicitationFallbackError: "invalid_fallback"},
              results={"accepted": feature.accepted, "declined": feature.declined, "cancelled": feature.cancelled})
