"""The stop-signal rule both faces use: one stop delivered twice at once is one stop."""

from __future__ import annotations

import signal

from passk_tui.core.run.stop_signals import REPEAT_WINDOW, Stop, StopSignals


def test_the_same_signal_within_half_a_second_is_the_same_stop() -> None:
    """As timeout(1) delivers it: to the process, then to its group."""
    stops = StopSignals()
    assert REPEAT_WINDOW == 0.5
    assert stops.receive(signal.SIGTERM, 100.0) is Stop.FIRST
    assert stops.receive(signal.SIGTERM, 100.001) is Stop.REPEAT
    assert stops.receive(signal.SIGTERM, 100.5) is Stop.REPEAT
    assert stops.first == signal.SIGTERM


def test_the_same_signal_later_is_a_second_stop() -> None:
    stops = StopSignals()
    stops.receive(signal.SIGINT, 10.0)
    assert stops.receive(signal.SIGINT, 10.2) is Stop.REPEAT
    assert stops.receive(signal.SIGINT, 10.51) is Stop.NOW  # measured from the first, not the last
    assert stops.first == signal.SIGINT


def test_a_different_signal_is_a_second_stop_at_once() -> None:
    stops = StopSignals()
    stops.receive(signal.SIGHUP, 0.0)
    assert stops.receive(signal.SIGTERM, 0.01) is Stop.NOW
    assert stops.first == signal.SIGHUP  # the exit status stays the first one's


def test_nothing_received_yet() -> None:
    assert StopSignals().first is None
