"""bookbuild.pool: each job in a process of its own; what a job does not finish is named, never hangs."""
from __future__ import annotations

import os
import subprocess
import sys
import time

from bookbuild import pool


def add(a, b, *, progress):
    progress("adding")
    return a + b


def boom(*, progress):
    progress(("f.qmd", 3, "calc-x"))
    raise ValueError("no such thing")


def quits(*, progress):
    progress(("f.qmd", 7, "calc-exit"))
    os._exit(3)


def hangs(*, progress):
    progress(("f.qmd", 9, "calc-loop"))
    time.sleep(60)


def leaves_a_child(path, *, progress):
    """Starts a process that would outlive the job, and reports its pid."""
    p = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    return p.pid


def test_results_errors_deaths_and_silence_each_come_back_named():
    t0 = time.monotonic()
    out = pool.run([pool.Job("ok", add, (2, 3)), pool.Job("err", boom), pool.Job("dead", quits),
                    pool.Job("quiet", hangs, silence=0.5)], width=2)
    assert out["ok"] == 5
    assert isinstance(out["err"], pool.Raised) and isinstance(out["err"].error, ValueError)
    assert str(out["err"].error) == "no such thing"
    assert out["dead"] == pool.Died(("f.qmd", 7, "calc-exit"), 3)
    assert isinstance(out["quiet"], pool.Silent) and out["quiet"].where == ("f.qmd", 9, "calc-loop")
    assert time.monotonic() - t0 < 30      # the silent job was killed, not waited for


def test_what_a_job_started_dies_with_it(tmp_path):
    out = pool.run([pool.Job("child", leaves_a_child, (tmp_path,))])
    pid = out["child"]
    for _ in range(50):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        else:   # a zombie counts as gone once reaped by init; look at its state
            state = open(f"/proc/{pid}/stat").read().split()[2] if os.path.exists(f"/proc/{pid}/stat") else "X"
            if state in ("Z", "X"):
                break
        time.sleep(0.1)
    else:
        raise AssertionError(f"the job's child {pid} outlived the job")


def test_no_jobs_no_processes():
    assert pool.run([]) == {}


def stamps(path, name, *, progress):
    """Appends its name to ``path`` when it starts (the order the pool started the jobs in)."""
    with open(path, "a") as f:
        f.write(name + "\n")
    return name


def test_the_heaviest_jobs_start_first_and_equal_ones_in_order(tmp_path):
    log = tmp_path / "order"
    jobs = [pool.Job(n, stamps, (log, n), weight=w) for n, w in
            [("index", 0), ("lecture", 25), ("appendix", 80), ("preface", 0), ("notes", 25)]]
    out = pool.run(jobs, width=1)
    assert out == {n: n for n in ("index", "lecture", "appendix", "preface", "notes")}
    assert log.read_text().split() == ["appendix", "lecture", "notes", "index", "preface"]
