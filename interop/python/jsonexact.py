"""JSON with exact numbers, as docs/probe.md §1.7 compares values.

json.loads would turn 9007199254740993.0 into a float and 1e400 into inf, and
Python's own == says True == 1. Here numbers stay as their text (Number), and
same_value compares values as JSON: objects by keys, arrays in order, numbers
by exact value, strings by code points, and true, false and null equal only
themselves.
"""

import json
import re
from decimal import Decimal

__all__ = ["Number", "loads", "dumps", "same_value"]


class Number:
    """A JSON number, kept exactly as written."""

    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return "Number(%s)" % self.text

    def integer(self):
        """The number as an int when its value is an integer, else None."""
        if _huge_exponent(self.text):
            return None
        d = Decimal(self.text)
        if d != d.to_integral_value():
            return None
        return int(d)


def _no_constant(name):
    # json.loads accepts NaN and Infinity, which are not JSON.
    raise ValueError("%s is not JSON" % name)


def loads(text):
    """Parses JSON text; numbers become Number, objects dicts (the last duplicate key wins)."""
    return json.loads(text, parse_int=Number, parse_float=Number, parse_constant=_no_constant)


def dumps(v):
    """Writes a value of loads (or plain Python JSON data) as compact JSON."""
    if isinstance(v, Number):
        return v.text
    if v is None or isinstance(v, (bool, str)):
        return json.dumps(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(dumps(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ",".join(json.dumps(k) + ":" + dumps(x) for k, x in v.items()) + "}"
    raise TypeError("not JSON data: %r" % (v,))


def same_value(a, b):
    """Reports whether a and b, values of loads, are equal as JSON."""
    if isinstance(a, Number) or isinstance(b, Number):
        return isinstance(a, Number) and isinstance(b, Number) and _same_number(a.text, b.text)
    if isinstance(a, list) or isinstance(b, list):
        return (isinstance(a, list) and isinstance(b, list) and len(a) == len(b)
                and all(same_value(x, y) for x, y in zip(a, b)))
    if isinstance(a, dict) or isinstance(b, dict):
        return (isinstance(a, dict) and isinstance(b, dict) and len(a) == len(b)
                and all(k in b and same_value(a[k], b[k]) for k in a))
    if a is None or isinstance(a, bool) or b is None or isinstance(b, bool):
        return a is b  # never True == 1
    return type(a) is type(b) and a == b  # strings: by code points


_EXPONENT = re.compile(r"[eE]([+-]?[0-9]+)\Z")


def _huge_exponent(text):
    # As in the Go reference: numbers with an exponent beyond ±1000 compare
    # as text, so that no comparison costs unbounded work (Decimal refuses
    # such exponents anyway).
    m = _EXPONENT.search(text)
    return m is not None and (len(m.group(1)) > 6 or abs(int(m.group(1))) > 1000)


def _same_number(x, y):
    if _huge_exponent(x) or _huge_exponent(y):
        return x == y
    return Decimal(x) == Decimal(y)  # exact: a Decimal from text is not rounded
