"""The one key scrubber every target uses on what a server sends back."""

from __future__ import annotations

from passk_tui.core.attempt import Turn
from passk_tui.targets.scrub import Scrubber

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


def test_short_or_missing_secrets_change_nothing_and_the_repr_hides_them() -> None:
    turn = Turn("completed", output="a short key: abc")
    assert Scrubber("abc", None, "").turn(turn) is turn
    assert repr(Scrubber(KEY)) == "Scrubber(1 secrets)"
