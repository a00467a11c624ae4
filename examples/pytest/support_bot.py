"""A stand-in support bot: replace ``answer`` with a call to your own agent.

Its flakiness is scripted, not real, so that the marked tests have something to measure and
this folder's README shows what you will see: it answers from canned replies, and every fifth
refund question it forgets the policy (a wrong answer), every other order question its order
lookup fails (an exception: an errored attempt, the tool's fault rather than the bot's).
"""

from __future__ import annotations

import itertools

_refund_calls = itertools.count(1)
_order_calls = itertools.count(1)


class LookupFailed(Exception):
    """The order system did not answer."""


def answer(question: str) -> str:
    """The bot's reply to one customer question."""
    text = question.lower()
    if "refund" in text:
        if next(_refund_calls) % 5 == 0:
            return "Sorry, I can't help with that."
        return "You can get a refund within 30 days of purchase."
    if "order" in text:
        if next(_order_calls) % 2 == 0:
            raise LookupFailed("order lookup timed out")
        return "Your order #1234 shipped yesterday."
    return "I'm not sure; a colleague will follow up by email."
