"""The preview's server: pages fresh every time, every other file revalidated by the digest of its bytes."""
from __future__ import annotations

import hashlib
import threading
import urllib.error
import urllib.request
import socket
import struct

import pytest

from bookbuild.preview import Server, State, make_handler


@pytest.fixture
def served(tmp_path):
    (tmp_path / "index.html").write_text("<html><body><p>Hi</p></body></html>", encoding="utf-8")
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "plotly.js").write_text("var plotly = 1;", encoding="utf-8")
    server = Server(("127.0.0.1", 0), make_handler(tmp_path, State()))
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    yield tmp_path, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def get(url: str, etag: str | None = None):
    req = urllib.request.Request(url, headers={"If-None-Match": etag} if etag else {})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:   # urllib raises for a 304
        return e.code, dict(e.headers), e.read()


def test_a_file_is_answered_not_modified_while_its_bytes_are_the_same(served):
    folder, url = served
    status, headers, body = get(url + "/assets/plotly.js")
    assert status == 200 and body == b"var plotly = 1;"
    assert headers["ETag"] == '"' + hashlib.blake2b(b"var plotly = 1;", digest_size=16).hexdigest() + '"'
    assert headers["Cache-Control"] == "no-cache"          # kept, but asked for again on every use
    status, _, body = get(url + "/assets/plotly.js", headers["ETag"])
    assert status == 304 and body == b""
    # a rebuild that rewrites the file with the same length and within the same second: new bytes, new tag
    (folder / "assets" / "plotly.js").write_text("var plotly = 2;", encoding="utf-8")
    status, again, body = get(url + "/assets/plotly.js", headers["ETag"])
    assert status == 200 and body == b"var plotly = 2;" and again["ETag"] != headers["ETag"]


def test_a_page_is_never_kept_and_carries_the_reload_script(served):
    _, url = served
    status, headers, body = get(url + "/index.html")
    assert status == 200 and headers["Cache-Control"] == "no-store" and "ETag" not in headers
    assert b'id="bookbuild-preview"' in body


def test_a_missing_file_is_still_a_404(served):
    _, url = served
    assert get(url + "/assets/none.js")[0] == 404


def test_a_browser_that_goes_away_mid_answer_is_no_error_and_another_failure_is_one_line(served, capfd):
    """A reload or a closed tab resets the connection while the page is written: nothing on the terminal, and the
    next request is answered; any other failure of a request is one line, never a traceback."""
    root, url = served
    (root / "big.html").write_text("<html><body>" + "<p>x</p>" * 1_000_000 + "</body></html>", encoding="utf-8")
    host, port = url.rsplit("//", 1)[1].split(":")
    for _ in range(5):
        s = socket.create_connection((host, int(port)))
        s.sendall(b"GET /big.html HTTP/1.1\r\nHost: x\r\n\r\n")
        s.recv(1024)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))   # close with a reset
        s.close()
    assert get(url + "/index.html")[0] == 200
    server = Server(("127.0.0.1", 0), make_handler(root, State()))
    try:
        try:
            raise ValueError("an odd request")
        except ValueError:
            server.handle_error(None, ("127.0.0.1", 1))
    finally:
        server.server_close()
    err = capfd.readouterr().err
    assert "Traceback" not in err and "Error" not in err.replace("ValueError", "")
    assert err.strip().splitlines() == ["preview: a request from the browser failed: ValueError: an odd request"]


def test_a_patch_and_the_build_after_it_seen_at_once_reach_the_page_as_two_messages_patch_first(tmp_path):
    """The page reloads on a new build; a patch the stream only sent with that build would never be shown
    in place. Both are published while the stream cannot look (the state's lock held), as under load."""
    state = State()
    server = Server(("127.0.0.1", 0), make_handler(tmp_path, state))
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{server.server_address[1]}/__bookbuild__/events",
                                    timeout=10) as r:
            def message() -> dict:
                line = r.readline()
                assert r.readline() == b"\n"
                return __import__("json").loads(line.decode().removeprefix("data: "))
            first = message()
            assert (first["version"], first["patch"]) == (0, None)
            with state.cond:
                state.publish_patch("a.html", "<p>old</p>", "<p>new</p>", "<html></html>")
                state.publish(True, [])
            shown, built = message(), message()
        assert (shown["version"], shown["patch"]["new"]) == (0, "<p>new</p>")
        assert built["version"] == 1
    finally:
        state.stopping = True
        with state.cond:
            state.cond.notify_all()
        server.shutdown()
        server.server_close()
