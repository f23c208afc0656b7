"""bookbuild.procs: no tool outlives a stopped build, whichever thread started it and whenever."""
from __future__ import annotations

import subprocess
import sys
import time

import pytest

from bookbuild import procs


@pytest.fixture
def fresh():
    procs.on_termination()   # not stopping, nothing registered from an earlier test
    procs.stop_all()
    yield
    procs._STOPPING.clear()


def test_a_tool_registered_after_the_stop_took_its_list_is_killed_and_its_thread_stopped(fresh):
    # the race a render's threads can lose: a thread passed run()'s check, the signal came, stop_all took
    # the (empty) list, and only then the thread's new process was registered
    p = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    procs.interrupt()
    t0 = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        procs.register(p.pid, "plain")
    assert p.wait(timeout=10) != 0 and time.monotonic() - t0 < 5
    assert p.pid not in procs._LIVE


def test_after_an_interrupt_no_tool_starts_and_before_it_they_run(fresh):
    assert procs.run([sys.executable, "-c", "print(6 * 7)"]).stdout.strip() == b"42"
    procs.interrupt()
    with pytest.raises(KeyboardInterrupt):
        procs.run([sys.executable, "-c", "print(1)"])
    procs.on_termination()   # the next build starts clean
    assert procs.run([sys.executable, "-c", "print(1)"]).returncode == 0
