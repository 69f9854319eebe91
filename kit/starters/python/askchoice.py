"""Your feature, to write: ask_choice and create_elicitation.

agent.py hands them to acpconform_kit, which turns every probe request of
acpconform into a call and reports what it returns. Until they are written,
every check fails saying so. What ask_choice sends and how it reads the
answer: docs/probe.md §1.4 in the acpconform repository (suite/contract.md
has every rule); create_elicitation: §1.9.

    session.session_id, session.supports_elicitation("form"),
    await session.request("elicitation/create", params)
"""


class Choice:
    def __init__(self, value, label, description=None, default=False):
        self.value, self.label, self.description, self.default = value, label, description, default


class Result:
    def __init__(self, status, value=None):
        self.status, self.value = status, value  # "accepted" (with value), "declined", "cancelled"


def accepted(value):
    return Result("accepted", value)


def declined():
    return Result("declined")


def cancelled():
    return Result("cancelled")


class InvalidArgumentError(ValueError):
    pass


class ElicitationUnsupportedError(Exception):
    pass


class InvalidElicitationResponseError(Exception):
    pass


class InvalidElicitationFallbackError(Exception):
    pass


async def ask_choice(session, question, choices, fallback=None):
    raise NotImplementedError("ask_choice is not written yet: write it in askchoice.py (docs/probe.md §1.4 says what it sends)")


async def create_elicitation(session, mode, message, requested_schema=None, url=None, elicitation_id=None):
    raise NotImplementedError("create_elicitation is not written yet: write it in askchoice.py (docs/probe.md §1.9)")
