"""The local model's waiting line and stop, without a model: who goes first, how many are
ahead, and the abort flag llama.cpp reads while a stopped generation runs."""

from __future__ import annotations

import threading
import time

from dure.llm.engine import Engine, Line, Stop


def test_places_are_served_first_come_first_served_and_know_how_many_are_ahead():
    line = Line()
    order: list[str] = []
    seen: dict[str, list[int]] = {"b": [], "c": []}
    first = line.place()
    me = first.__enter__()
    assert line.ahead(me) == 0 and len(line) == 1

    def wait(name: str) -> None:
        with line.place() as place:
            while ahead := line.ahead(place, wait=0.05):
                if not seen[name] or seen[name][-1] != ahead:
                    seen[name].append(ahead)
            order.append(name)
            time.sleep(0.05)

    b = threading.Thread(target=wait, args=("b",))
    b.start()
    while len(line) < 2:
        time.sleep(0.01)
    c = threading.Thread(target=wait, args=("c",))
    c.start()
    while len(line) < 3:
        time.sleep(0.01)
    time.sleep(0.1)
    first.__exit__(None, None, None)
    b.join(5)
    c.join(5)

    assert order == ["b", "c"]
    assert seen == {"b": [1], "c": [2, 1]}
    assert len(line) == 0


def test_a_stop_raises_the_abort_flag_only_while_its_generation_runs():
    engine = Engine(llama=None, formatter=None, load_seconds=0.0)
    stop = Stop()
    with engine.running(stop):
        assert engine.abort_flag[0] == b"\x00"
        stop.set()  # from any thread: llama.cpp reads the flag after every graph node
        assert engine.abort_flag[0] == b"\x01" and stop.is_set()
    assert engine.abort_flag[0] == b"\x00"  # the next generation runs

    late = Stop()
    late.set()
    with engine.running(late):  # stopped before it got the model: aborts at its first node
        assert engine.abort_flag[0] == b"\x01"
    with engine.running(Stop()):
        assert engine.abort_flag[0] == b"\x00"
