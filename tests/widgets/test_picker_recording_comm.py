"""The recording comm: what a widget sends is kept, what a front end sends is delivered."""

from __future__ import annotations

from typing import Any

import comm
import ipywidgets
import pytest

from interrupt_widget.testing import RecordingComm, recording_comms


def test_it_records_the_opening_state_updates_and_custom_messages() -> None:
    with recording_comms() as recorder:
        slider = ipywidgets.IntSlider(value=3)
    channel = recorder.of(slider)
    assert isinstance(channel, RecordingComm)
    assert recorder.comms[-1] is channel
    assert channel.messages[0].msg_type == "comm_open"
    assert channel.messages[0].data["state"]["value"] == 3
    channel.clear()
    slider.value = 5
    slider.send({"hello": "front end"})
    assert channel.state_updates() == [{"value": 5}]
    assert channel.custom_messages() == [{"hello": "front end"}]


def test_it_delivers_front_end_messages_to_the_widget() -> None:
    received: list[Any] = []
    with recording_comms() as recorder:
        slider = ipywidgets.IntSlider()
    slider.on_msg(lambda _widget, content, buffers: received.append((content, buffers)))
    channel = recorder.of(slider)
    channel.deliver({"type": "ping"}, [b"\x00"])
    channel.deliver_state({"value": 7})
    assert received == [({"type": "ping"}, [b"\x00"])]
    assert slider.value == 7


def test_it_only_affects_widgets_made_inside_the_block() -> None:
    original = comm.create_comm
    with recording_comms():
        assert comm.create_comm is not original
    assert comm.create_comm is original
    outside = ipywidgets.IntSlider()
    with recording_comms() as recorder, pytest.raises(LookupError, match="IntSlider has no"):
        recorder.of(outside)
