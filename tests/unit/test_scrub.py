"""The one key scrubber every target uses on what a server sends back."""

from __future__ import annotations

import pytest

from passk_tui.core.attempt import Turn
from passk_tui.targets.scrub import MIN_SECRET, Scrubber, key_problem

KEY = "sk-live-9f8e7d6c5b4a"


def test_the_key_is_masked_in_every_part_of_a_turn() -> None:
    turn = Turn(
        "failed",
        output={"echo": [f"Bearer {KEY}", {KEY: 1}], "n": 3},
        error=f"proxy: Authorization: Bearer {KEY}",
        run_id=f"run_{KEY}",
        turn_id="turn_1",
        usage={"note": KEY},
    )
    scrubbed = Scrubber(KEY, None).turn(turn)
    assert scrubbed == Turn(
        "failed",
        output={"echo": ["Bearer ***", {"***": 1}], "n": 3},
        error="proxy: Authorization: Bearer ***",
        run_id="run_***",
        turn_id="turn_1",
        usage={"note": "***"},
    )


def test_a_secret_that_json_escapes_is_masked_in_a_json_answer() -> None:
    secret = 'pass"word\\1234'
    assert Scrubber(secret).value({"said": f"my {secret}!"}) == {"said": "my ***!"}


def test_missing_secrets_change_nothing_and_the_repr_hides_them() -> None:
    turn = Turn("completed", output=f"no key here but {KEY[:-1]}")
    assert Scrubber(None, "").turn(turn) is turn
    assert Scrubber(KEY).turn(turn) == turn
    assert repr(Scrubber(KEY)) == "Scrubber(1 secrets)"


def test_a_secret_of_any_length_given_is_masked() -> None:
    # Keys that short are refused before a target is made (key_problem); a password is not.
    assert Scrubber("pw").text("user pw: pw!") == "user ***: ***!"


@pytest.mark.parametrize("key", ["", "a", "sk-1234"])
def test_a_key_shorter_than_8_is_refused_without_echoing_it(key: str) -> None:
    problem = key_problem(key)
    assert problem == (
        f"the key is {len(key)} characters; at least {MIN_SECRET} are needed, "
        "so that it can be masked wherever a server echoes it"
    )
    assert MIN_SECRET == 8


@pytest.mark.parametrize("key", ["sk-live\n123456", "clé-secrète-123", "sk live 12345"])
def test_a_key_that_cannot_go_into_a_header_is_refused(key: str) -> None:
    assert "visible ASCII characters only" in (key_problem(key) or "")


def test_a_key_of_8_visible_characters_is_taken() -> None:
    assert key_problem("sk-12345") is None and key_problem(KEY) is None
