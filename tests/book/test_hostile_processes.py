"""Processes end with the build, and the preview never drops an edit (issue "Hostile input, round 3",
classes 5 and 6). Helpers and conventions: ``test_hostile_engine.py``.

A process is found by a marker in its command line (``/proc/<pid>/cmdline``), so each probe sees only the
processes it started; whatever a failing probe leaves is killed by pid at its end.
"""
from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from worlds import CHAPTER, no_staging, one_line, tree


def alive(marker: str) -> list[int]:
    """The processes whose command line holds ``marker`` (zombies left out)."""
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            cmd = Path(f"/proc/{name}/cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
            state = Path(f"/proc/{name}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if marker in cmd and state not in (b"Z", b"X"):
            out.append(int(name))
    return out


def gone(marker: str, seconds: float = 10.0) -> list[int]:
    """Wait up to ``seconds`` for every process holding ``marker`` to end; the ones still there."""
    deadline = time.monotonic() + seconds
    while alive(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    return alive(marker)


def wait_for(cond, seconds: float, what: str):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        got = cond()
        if got:
            return got
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture
def reaper():
    """Kills, by pid, whatever a probe's markers still name at its end."""
    markers: list[str] = []
    yield markers
    for m in markers:
        for pid in alive(m):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


def sleeper(marker: str, seconds: int = 300) -> str:
    """Python source of a command that sleeps and carries ``marker`` in its command line."""
    return f"[sys.executable, '-c', 'import time; time.sleep({seconds})', {marker!r}]"


# ───────────────────────────── 5. processes end with the build ─────────────────────────────

@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP], ids=["TERM", "INT", "HUP"])
def test_a_signal_during_render_stops_every_child_and_leaves_the_old_book(world, reaper, sig):
    before = world.render_ok()
    world.append(CHAPTER, "\nOne more sentence.\n")
    marker = f"slow-pandoc-{os.getpid()}-{sig}"
    reaper.append(marker)
    import pypandoc
    slow = world.tmp / "slow-pandoc"
    slow.write_text(f"#!/bin/sh\ncase \"$*\" in *html5*) {sys.executable} -c 'import time; time.sleep(300)' {marker};; "
                    f"esac\nexec {pypandoc.get_pandoc_path()} \"$@\"\n", encoding="utf-8")
    slow.chmod(0o755)
    p = subprocess.Popen(world.cmd("render", "--profile", "all"), cwd=world.tmp, env=world.env(PANDOC=str(slow)),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for(lambda: alive(marker), 120, "the render's pandoc")
    t0 = time.monotonic()
    p.send_signal(sig)
    out, err = p.communicate(timeout=60)
    assert time.monotonic() - t0 < 10, "the render did not stop at once"
    assert p.returncode == 130
    assert one_line(subprocess.CompletedProcess(p.args, p.returncode, out, err)) == "bookbuild: interrupted"
    assert gone(marker) == []
    assert tree(world.root / "_book") == before
    no_staging(world.root / "_book")
    r = world.run("check", "--profile", "en")   # the lock went with its holder
    assert r.returncode == 0 and "another build is running" not in r.stderr, r.stderr


def test_a_cells_child_that_leaves_its_process_group_ends_with_the_chapter(world, reaper):
    marker = f"escaped-child-{os.getpid()}"
    reaper.append(marker)
    world.append(CHAPTER, "\n```{python}\n#| label: calc-escape\nimport subprocess, sys\n"
                          f"subprocess.Popen({sleeper(marker)}, start_new_session=True)\n"
                          f"subprocess.Popen(['sh', '-c', '(setsid {sys.executable} -c \"import time; time.sleep(300)\" "
                          f"{marker}-2 &) ; sleep 1'])\n```\n")
    t0 = time.monotonic()
    r = world.run("check", "--profile", "en", timeout=120)   # returns: nothing holds its output pipes
    assert time.monotonic() - t0 < 60
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert gone(marker) == []


def test_a_killed_build_takes_its_chapters_processes_with_it(world, reaper):
    marker = f"killed-build-{os.getpid()}"
    reaper += [marker, str(world.root)]
    started = world.tmp / "cell-started"
    world.append(CHAPTER, "\n```{python}\n#| label: calc-slow\nimport pathlib, subprocess, sys, time\n"
                          f"subprocess.Popen({sleeper(marker)}, start_new_session=True)\n"
                          f"pathlib.Path({str(started)!r}).write_text('x')\ntime.sleep(299)\n```\n")
    p = subprocess.Popen(world.cmd("check", "--profile", "en"), cwd=world.tmp, env=world.env(),
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for(started.exists, 120, "the cell to start")
    p.kill()   # SIGKILL: no handler of the build runs
    p.wait()
    assert gone(marker) == [] and gone(str(world.root)) == []   # the chapter's process and the cell's child
    started.unlink()
    world.edit(CHAPTER, "time.sleep(299)", "pass")
    r = world.run("check", "--profile", "en")
    assert r.returncode == 0 and "another build is running" not in r.stderr, r.stderr


# ───────────────────────────── 5 and 6. the preview ─────────────────────────────

class Preview:
    """``preview`` on a free port, its output read as it comes."""

    def __init__(self, world, *extra: str, env: dict | None = None):
        self.world = world
        self.proc = subprocess.Popen(world.cmd("preview", "--no-browser", "--port", "0", "--profile", "en",
                                               "--interval", "0.1", *extra),
                                     cwd=world.tmp, env=env or world.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
        self.lines: queue.Queue[str] = queue.Queue()
        self.out: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        line = wait_for(self._serving, 60, "the preview to serve")
        self.url = re.search(r"at (http://127\.0\.0\.1:\d+/)", line).group(1)
        wait_for(lambda: self.status().get("version", 0) >= 1, 120, "the first build")

    def _read(self):
        for ln in self.proc.stdout:
            self.out.append(ln)
            self.lines.put(ln)

    def _serving(self):
        return next((ln for ln in list(self.out) if "preview: serving" in ln), None)

    def status(self) -> dict:
        try:
            with urllib.request.urlopen(self.url + "__bookbuild__/status", timeout=2) as r:
                return json.loads(r.read())
        except OSError:
            return {}

    def page(self, rel: str) -> str:
        with urllib.request.urlopen(self.url + rel, timeout=5) as r:
            return r.read().decode("utf-8")

    def stop(self, sig=signal.SIGINT) -> tuple[int, str, str]:
        self.proc.send_signal(sig)
        err = self.proc.stderr.read()
        self.proc.wait(timeout=60)
        time.sleep(0.2)
        return self.proc.returncode, "".join(self.out), err


def _slow_when_flagged(world, flag: Path, started: Path, seconds: int) -> None:
    world.append(CHAPTER, "\n```{python}\n#| label: calc-slow\nimport pathlib, time\nedit = 0\n"
                          f"if pathlib.Path({str(flag)!r}).exists():\n"
                          f"    pathlib.Path({str(started)!r}).write_text('x')\n    time.sleep({seconds})\n```\n")


def test_an_edit_saved_during_a_rebuild_is_built(world, reaper):
    reaper.append(str(world.root))
    flag, started = world.tmp / "slow", world.tmp / "started"
    _slow_when_flagged(world, flag, started, 4)
    pv = Preview(world)
    try:
        flag.write_text("x")
        world.edit(CHAPTER, "edit = 0", "edit = 1")   # a cell edited: the chapter runs (prose alone runs no cell)
        wait_for(started.exists, 60, "the rebuild to start")
        world.edit(CHAPTER, "Items arrive at", "Items then arrive at")   # saved while it runs
        flag.unlink()
        wait_for(lambda: "Items then arrive at" in pv.page("appendix/ref.html"), 120, "the second edit's build")
    finally:
        code, out, err = pv.stop()
    assert code == 0 and "preview: stopped" in out and "Traceback" not in err, err


def test_sigterm_to_the_preview_during_a_rebuild_leaves_no_build_behind(world, reaper):
    reaper.append(str(world.root))
    flag, started = world.tmp / "slow", world.tmp / "started"
    _slow_when_flagged(world, flag, started, 300)
    pv = Preview(world)
    before = tree(world.root / "_book")
    flag.write_text("x")
    world.edit(CHAPTER, "edit = 0", "edit = 1")   # a cell edited: the chapter runs
    wait_for(started.exists, 60, "the rebuild to start")
    code, out, err = pv.stop(signal.SIGTERM)
    assert code == 0 and "preview: stopped" in out and "Traceback" not in err, err
    assert gone(str(world.root)) == []   # the rebuild and its chapter's process
    assert tree(world.root / "_book") == before
    no_staging(world.root / "_book")
    flag.unlink()
    r = world.run("check", "--profile", "en")
    assert r.returncode == 0 and "another build is running" not in r.stderr, r.stderr


# ───────────────────────────── round 4 (issue "Hostile input, round 4"): every chapter process bounded ─────────────────────────────

@pytest.mark.parametrize("how", ["os.write", "a child process"])
def test_a_cell_flooding_its_raw_descriptors_is_stopped_at_the_output_cap(world, how):
    """print() is capped in the cell; descriptors 1 and 2 (os.write, a child's output) are the chapter
    process's own and capped the same (before: 31 MB on the terminal, exit 0)."""
    flood = ("import os\nfor _ in range(300):\n    os.write(1, b'x' * 100_000)\n" if how == "os.write" else
             "import subprocess, sys\nsubprocess.run([sys.executable, '-c', "
             "'import os\\nfor _ in range(300): os.write(2, b\"y\" * 100_000)'])\n")
    line = world.append(CHAPTER, f"\n```{{python}}\n#| label: calc-flood\n{flood}```\n")
    r = world.run("check", "--profile", "en", timeout=120)
    assert r.returncode == 1
    assert len(r.stdout) + len(r.stderr) < 1_100_000, "more than the cap reached the terminal"
    last = r.stderr.rstrip("\n").rsplit("\n", 1)[-1]
    m = re.fullmatch(rf"{CHAPTER}:(\d+): \[calc-flood\] the cell wrote "
                        r"more than 1,000,000 bytes to the process's output \(os.write, a child process, or one an earlier cell "
                        r"left running; the output "
                        r"limit of a chapter's process\): write less", last)
    assert m and line + 2 <= int(m.group(1)) <= line + 4, last   # a line of the cell (where the signal found it)


LEFT_RUNNING = (r"{file}:{line}: \[{tag}\] a process this cell or an earlier one left running wrote more than "
                r"1,000,000 bytes to the chapter process's output after the cell ended \(the output limit of a "
                r"chapter's process\): wait for it \(subprocess.run\), or write less")


def test_a_child_left_running_that_floods_after_the_last_cell_is_bounded_and_said(world, tmp_path):
    """A process the chapter's last cell started and did not wait for, writing 30 MB after that cell ended
    (it starts on a marker file the cell writes last): it ends with the chapter, and if what it
    wrote passed the cap that is said, naming the cell (before: about 1 MB on the terminal, exit 0, no word:
    the build waited two seconds for the pipe while the child went on)."""
    ended = tmp_path / "cell-ended"
    child = tmp_path / "flood.py"
    child.write_text(f"import os, pathlib, time\nwhile not pathlib.Path({str(ended)!r}).exists(): time.sleep(0.01)\n"
                     "for i in range(300):\n    os.write(1, b'x' * 100_000)\n", encoding="utf-8")
    line = world.append(CHAPTER, "\n```{python}\n#| label: calc-left\nimport pathlib, subprocess, sys\n"
                                 f"subprocess.Popen([sys.executable, {str(child)!r}])\n"
                                 f"pathlib.Path({str(ended)!r}).write_text('x')\n```\n")
    r = world.run("check", "--profile", "en", timeout=120)
    said = len(r.stdout) + len(r.stderr)
    assert said < 1_100_000, "more than the cap reached the terminal"
    last = r.stderr.rstrip("\n").rsplit("\n", 1)[-1]
    if r.returncode == 0:   # ended before it had written the cap: nothing to say
        assert said < 1_000_000 and "Traceback" not in r.stderr, last
    else:
        assert r.returncode == 1 and re.fullmatch(
            LEFT_RUNNING.format(file=re.escape(CHAPTER), line=line + 1, tag="calc-left"), last), last


def test_a_cell_reading_standard_input_reads_end_of_file(world):
    """A Jupyter kernel has no terminal: input(), sys.stdin and a child's stdin read end-of-file at once
    (before: the cell waited for the terminal until its time limit)."""
    world.append(CHAPTER, "\n```{python}\n#| label: calc-stdin\nimport os, subprocess, sys\n"
                          "got = (os.read(0, 100), sys.stdin.read(), subprocess.run(['cat'], capture_output=True).stdout)\n"
                          "assert got == (b'', '', b''), got\n```\n")
    p = subprocess.Popen(world.cmd("check", "--profile", "en", "--cell-timeout", "20"), cwd=world.tmp,
                         env=world.env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)   # the pipe stays open and silent, as a terminal would
    t0 = time.monotonic()
    try:   # communicate() would close the pipe at once: wait with it open, as a terminal stays
        p.wait(timeout=60)
    finally:
        p.kill()
        out, err = p.communicate()
    assert p.returncode == 0 and err == "", err
    assert time.monotonic() - t0 < 20


def test_a_cell_past_the_memory_limit_is_one_line(world):
    line = world.append(CHAPTER, "\n```{python}\n#| label: calc-big\nbig = bytearray(3 * 1024 ** 3)\n```\n")
    r = world.run("check", "--profile", "en", "--memory-limit", "1024", timeout=120)
    assert r.returncode == 1
    assert one_line(r) == (f"{CHAPTER}:{line + 2}: [calc-big] the cell ran out of memory (a chapter's process may "
                           "use 1,024 MB): use less, or raise --memory-limit")
    r = world.run("check", "--profile", "en", "--memory-limit", "100", timeout=60)
    assert r.returncode == 2
    assert one_line(r) == ("python -m bookbuild check: error: argument --memory-limit: expected 256 to 1048576 megabytes, "
                           "got '100'")


# ───────────────────────────── round 4: the preview ─────────────────────────────

def _get(url: str) -> tuple[int, bytes]:
    import http.client
    from urllib.parse import urlsplit
    u = urlsplit(url)
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
    c.putrequest("GET", url[len(f"{u.scheme}://{u.netloc}"):], skip_accept_encoding=True)
    c.endheaders()
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, body


def test_the_preview_serves_nothing_outside_the_book(world, reaper):
    """A link placed in _book to a file or a folder outside it, a NUL in the path, a folder: refused
    (before: /etc/passwd and a listing of /etc were served; a NUL got no answer)."""
    reaper.append(str(world.root))
    secret = world.tmp / "elsewhere"
    secret.mkdir()
    (secret / "passwd").write_text("root:x:0:0\n", encoding="utf-8")
    pv = Preview(world)
    try:
        book = world.root / "_book/en"
        (book / "passwd").symlink_to(secret / "passwd")
        (book / "etc").symlink_to(secret)
        (book / "empty").mkdir()
        for rel, want in [("passwd", 404), ("etc/", 404), ("etc/passwd", 404), ("empty/", 404),
                          ("a%00b", 400), ("appendix/ref.html%00.png", 400)]:
            code, body = _get(pv.url + rel)
            assert code == want and b"root:x" not in body, (rel, code, body[:200])
        assert _get(pv.url + "appendix/ref.html")[0] == 200
    finally:
        for rel in ("passwd", "etc"):
            (world.root / "_book/en" / rel).unlink()
        (world.root / "_book/en/empty").rmdir()
        code, out, err = pv.stop()
    assert code == 0 and "Traceback" not in err, err


def test_a_save_stops_the_running_build(world, reaper):
    """An endless cell, fixed two seconds later: the fix is built at once (the running build is stopped),
    and the status is not "ok" while a build runs (before: the fix waited for the cell time limit, and
    the status said "ok")."""
    reaper.append(str(world.root))
    started = world.tmp / "started"
    pv = Preview(world)
    try:
        world.append(CHAPTER, "\n```{python}\n#| label: calc-endless\nimport pathlib, time\n"
                              f"pathlib.Path({str(started)!r}).write_text('x')\nwhile True:\n    time.sleep(0.1)\n```\n")
        wait_for(started.exists, 60, "the endless cell to start")
        st = pv.status()
        assert st["building"] is True and st["ok"] is False, st
        time.sleep(2)
        t0 = time.monotonic()
        world.edit(CHAPTER, "while True:\n    time.sleep(0.1)", "fixed = 'the endless cell, fixed'")
        world.append(CHAPTER, "\nThe loop was fixed in time.\n")
        wait_for(lambda: "The loop was fixed in time." in pv.page("appendix/ref.html"), 60, "the fix to be shown")
        assert time.monotonic() - t0 < 25
        wait_for(lambda: pv.status().get("ok"), 30, "the status to say ok")
    finally:
        code, out, err = pv.stop()
    assert code == 0 and "Traceback" not in err, err
    assert "preview: stopped by a newer save" in out, out


def test_a_chapter_renamed_away_and_back_recovers(world, reaper):
    reaper.append(str(world.root))
    pv = Preview(world)
    try:
        v = pv.status()["version"]
        (world.root / CHAPTER).rename(world.root / "appendix/ref.qmd.bak")
        wait_for(lambda: pv.status().get("ok") is False and pv.status().get("building") is False, 60,
                 "the failed build")
        assert pv.status()["errors"], pv.status()
        (world.root / "appendix/ref.qmd.bak").rename(world.root / CHAPTER)
        world.append(CHAPTER, "\nBack again.\n")
        wait_for(lambda: pv.status().get("ok") and pv.status()["version"] > v, 60, "the book to recover")
        assert "Back again." in pv.page("appendix/ref.html")
    finally:
        code, out, err = pv.stop()
    assert code == 0 and "Traceback" not in err, err


def test_an_engine_syntax_error_while_previewing_names_its_file_and_line(world, reaper):
    """The engine (a private copy) edited into a syntax error while the preview runs: the banner names the
    file and line (before: "SyntaxError: invalid syntax", nothing more)."""
    import shutil
    from conftest import ROOT
    reaper.append(str(world.root))
    engine = world.tmp / "engine"
    shutil.copytree(ROOT / "bookbuild", engine / "bookbuild", ignore=shutil.ignore_patterns("__pycache__"))
    pv = Preview(world, env=world.env(PYTHONPATH=str(engine)))
    try:
        commands = engine / "bookbuild/commands.py"
        n = commands.read_text(encoding="utf-8").count("\n")
        commands.write_text(commands.read_text(encoding="utf-8") + "def broken(:\n", encoding="utf-8")
        wait_for(lambda: pv.status().get("errors"), 120, "the failed build")
        errors = pv.status()["errors"]
        assert len(errors) == 1 and errors[0].startswith(
            f"bookbuild: the build's worker did not start: {engine / 'bookbuild/commands.py'}:{n + 1}: SyntaxError:"), errors
    finally:
        code, out, err = pv.stop()
    assert code == 0 and "Traceback" not in err, err
