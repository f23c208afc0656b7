"""Live mode in headless Chromium, served on localhost: the built book's pages run their own cells in
Pyodide, and what they show is cross-checked against what the build computed (its precomputed variant
of each registry choice, string for string) and against ``python -m mlsysim reference --json`` for free
values (numbers from the CLI, formatted here as the book prints them). Every request must stay on the
local server; the static page must not load live mode's files until the reader asks for it.

All pages share one browser context, so Pyodide boots once: the English appendix (a sample of registry
choices and free values) boots it and leaves its memory snapshot in the browser's cache; the Chinese
appendix (the issue's H100 at 6 TB/s) and the English lecture (another link bandwidth) start from that
snapshot, as a reader's next page does.
"""
from __future__ import annotations

import functools
import http.server
import json
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from mlsysim.fmt import fmt, fmt_int

ROOT = Path(__file__).resolve().parents[2]
EN = "en/appendix/inference-cost.html"
ZH = "zh/appendix/inference-cost.zh.html"
LECTURE = "en/lectures/lecture19-agent-stalls.html"
BOOT_TIMEOUT_MS = 240_000


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def context(browser):
    """One browser context (one HTTP cache, one Cache Storage) for every page of this module."""
    ctx = browser.new_context(viewport={"width": 1300, "height": 900})
    yield ctx
    ctx.close()


@pytest.fixture(scope="module")
def server(rendered_book):
    """The built book on http://127.0.0.1:<port>/ (browsers refuse WebAssembly on file: pages)."""
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(rendered_book)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()


def open_page(context, base: str, path: str, *, live: bool = True):
    """A page with every request recorded and anything not on the local server refused."""
    page = context.new_page()
    page.requests, page.outside, page.errors = [], [], []

    def route(r):
        url = r.request.url
        page.requests.append(url)
        if url.startswith(base):
            r.continue_()
        else:
            page.outside.append(url)
            r.abort()
    page.route("**/*", route)
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.on("console", lambda m: "Content Security Policy" in m.text and page.errors.append(m.text))   # a refusal
    page.goto(base + path)
    if live:
        page.wait_for_function("() => ['ready', 'error'].includes(document.documentElement.getAttribute('data-mlsysim-live'))",
                               timeout=BOOT_TIMEOUT_MS)
        state = page.evaluate("document.documentElement.getAttribute('data-mlsysim-live')")
        assert state == "ready", page.inner_text("#mlsysim-choice")
    return page


def compute(page, choice: dict) -> dict:
    return page.evaluate("async c => { await window.MLSYSIM_LIVE.compute(c); return window.MLSYSIM_LIVE.last; }", choice)


def spans(page) -> dict[str, set]:
    return page.evaluate("""() => { const out = {}; document.querySelectorAll('.mlsysim-v').forEach(s => {
        if (s.closest('.mlsysim-choice')) return; (out[s.dataset.attr] = out[s.dataset.attr] || []).push(s.textContent); });
        return out; }""")


def cli(*args: str) -> dict:
    r = subprocess.run([sys.executable, "-m", "mlsysim", "reference", "--json", *args], cwd=ROOT, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def as_printed(v: dict, lang: str = "en") -> dict[str, str]:
    """The appendix's ServingRef strings for the CLI's SI values, formatted as the cell prints them."""
    capped = v["context_wanted"] > v["context"]
    tokens = (f"{fmt_int(v['context'])} tokens" + (" (the model's window)" if capped else "") if lang == "en"
              else f"{fmt_int(v['context'])} 个词元" + ("（模型窗口）" if capped else ""))
    return {"ServingRef.bw_str": fmt(v["bandwidth_bytes_per_s"] / 1e12, 2),
            "ServingRef.peak_str": fmt_int(v["peak_flop_per_s"] / 1e12),
            "ServingRef.ridge_str": fmt_int(v["ridge_flop_per_byte"]),
            "ServingRef.t_dec_val_str": fmt(v["decode_floor_s"] * 1e3, 1),
            "ServingRef.t_pre_val_str": fmt_int(v["prefill_per_token_s"] * 1e6),
            "ServingRef.ratio_str": fmt_int(v["decode_to_prefill_ratio"]),
            "ServingRef.s_cross_str": fmt_int(round(v["attention_crossover_tokens"], -3)),
            "ServingRef.m_token_str": fmt_int(v["kv_bytes_per_token"]),
            "ServingRef.kv_agent_str": fmt(v["kv_bytes_at_context"] / 1e9, 1),
            "ServingRef.pool_str": fmt(v["node_kv_pool_bytes"] / 1e9, 1),
            "ServingRef.conc_agent_str": fmt_int(v["resident_trajectories"]),
            "ServingRef.s_agent_tokens_str": tokens}


@pytest.fixture(scope="module")
def en(context, server):
    page = open_page(context, server, EN + "?live=1&accelerator=H100&bandwidth=6")
    page.opened_with = dict(page.evaluate("window.MLSYSIM_LIVE.last.result.values"))
    yield page
    page.close()


def policy(page_file: Path) -> dict[str, list[str]]:
    """The page's Content-Security-Policy, by directive."""
    head = page_file.read_text(encoding="utf-8").split("</head>", 1)[0]
    meta = [line for line in head.splitlines() if 'http-equiv="Content-Security-Policy"' in line]
    assert len(meta) == 1, page_file
    content = meta[0].split('content="', 1)[1].split('"', 1)[0].replace("&quot;", '"')
    return {d.split()[0]: d.split()[1:] for d in content.split("; ")}


def test_only_a_live_page_may_compile_webassembly_and_nothing_else_is_widened(rendered_book):
    for path in (EN, ZH, LECTURE):
        p = policy(rendered_book / path)
        assert p["script-src"][0] == "'self'" and p["script-src"][-1] == "'wasm-unsafe-eval'", (path, p)
        assert p["connect-src"] == ["'self'"] and p["default-src"] == ["'self'"] and "worker-src" not in p
        assert not {"'unsafe-eval'", "'unsafe-inline'", "blob:", "data:", "*"} & set(p["script-src"]), (path, p)
    for page_file in (rendered_book / "en" / "index.html", rendered_book / "zh" / "index.html"):
        assert "'wasm-unsafe-eval'" not in policy(page_file)["script-src"], page_file   # no live mode there


def test_the_static_page_loads_nothing_of_live_mode(browser, server):
    ctx = browser.new_context()
    page = open_page(ctx, server, EN, live=False)
    page.wait_for_load_state("load")
    assert page.is_visible("#mlsysim-live-open")
    assert not [u for u in page.requests if "/live/" in u or u.endswith(".live.json")], page.requests
    assert page.outside == [] and page.errors == []
    ctx.close()


def test_registry_choices_computed_live_are_the_builds_variants(en):
    variants = en.evaluate("window.MLSYSIM_PAGE.variants")
    reference_text = en.evaluate("""() => { const o = {}; document.querySelectorAll('.mlsysim-v[data-ref]')
        .forEach(s => o[s.dataset.attr] = s.dataset.ref); return o; }""")
    keys = sorted(variants["choices"])
    sample = keys[::13] + ["B200|Llama3_3_70B|fp8", "H100|Mixtral_8x7B|bf16"]
    assert len(sample) >= 10
    at_reference = compute(en, dict(variants["reference"]))["result"]["values"]
    for key in sample:
        entry = variants["choices"][key]
        a, m, p = key.split("|")
        last = compute(en, {"accelerator": a, "model": m, "precision": p})
        if "error" in entry:
            assert last["result"]["error"] == entry["error"], key
            continue
        expected = {attr: (variants["values"][v] if v is not None else reference_text[attr])
                    for attr, v in zip(variants["attrs"], entry["v"])}
        ref_only = set(last["result"]["reference_only"])
        assert ref_only and not ref_only & set(variants["attrs"]), key   # declared, and never in the page's data
        values = last["result"]["values"]
        assert {k: v for k, v in values.items() if k not in ref_only} == expected, key
        assert {k: values[k] for k in ref_only} == {k: at_reference[k] for k in ref_only}, key   # the reference's
        assert {k for k in ref_only if k in reference_text}, key                                  # some on this page
        assert [(g["file"], g["line"], g["message"]) for g in last["result"]["failed"]] == \
               [(g["file"], g["line"], g["message"]) for g in entry.get("failed", [])], key
        shown = spans(en)
        assert all(set(texts) == {expected[attr]} for attr, texts in shown.items() if attr in expected), key
        assert all(set(shown[attr]) == {reference_text[attr]} for attr in ref_only if attr in shown), key   # not swapped
    assert en.outside == [] and en.errors == []


def test_a_live_input_that_breaks_a_claim_is_marked_after_its_sentence(en, rendered_book):
    """No registry choice breaks a claim; a live input can. At 100 TB/s the H100's decode/prefill ratio is
    π·b/(2β) = 989.4 TFLOP/s × 2 B / (2 × 100 TB/s) ≈ 10 (16-bit weights), not "two orders of magnitude" (serving-ref.qmd's
    check): the page says so once, after the sentence that quotes the ratio, and takes it back."""
    last = compute(en, {"accelerator": "H100", "model": "Llama3_1_70B", "bandwidth": "100"})
    failed = last["result"]["failed"]
    assert [g["message"].split(" (")[0] for g in failed] == \
        ["An output token costs two orders of magnitude more time than a prompt token",   # π·b/(2β) ≈ 10
         "Single-stream decode uses under one percent of the ridge"], failed               # 1 / ridge(π/β ≈ 9.9)
    assert last["result"]["values"]["ServingRef.ratio_str"] == "10"
    markers = en.evaluate("""() => Array.from(document.querySelectorAll('.mlsysim-claim-marker')).map(m =>
        ({text: m.textContent, role: m.getAttribute('role'), attrs: Array.from(m.closest('p, li, dd')
          .querySelectorAll('.mlsysim-v')).map(s => s.dataset.attr)}))""")
    assert [m["text"] for m in markers] == ["⚠ " + g["message"] for g in failed], markers   # one each, in order
    live = json.loads((rendered_book / EN.replace(".html", ".live.json")).read_text(encoding="utf-8"))
    protects = {(p["file"], p["line"]): set(p["protects"]) for p in live["protects"]}   # the build's guard map
    assert protects[failed[0]["file"], failed[0]["line"]] >= {"ServingRef.ratio_str"}
    for m, g in zip(markers, failed):
        assert m["role"] == "note" and set(m["attrs"]) & protects[g["file"], g["line"]], (m, g)   # after its sentence
    compute(en, {"accelerator": "H100", "model": "Llama3_1_70B", "bandwidth": "6"})
    assert en.evaluate("document.querySelectorAll('.mlsysim-claim-marker').length") == 0


def test_free_values_are_the_clis(en):
    for live_choice, flags in (({"bandwidth": "6"}, ["--bandwidth", "6"]),
                               ({"peak": "1500", "capacity": "96"}, ["--peak", "1500", "--capacity", "96"]),
                               ({"context": "65536", "kv_precision": "fp8", "batch": "32"},
                                ["--context", "65536", "--kv-precision", "fp8", "--batch", "32"])):
        last = compute(en, dict(live_choice, accelerator="H100", model="Llama3_1_70B"))
        want = as_printed(cli("-a", "H100", "-m", "Llama3_1_70B", *flags))
        got = {k: last["result"]["values"][k] for k in want}
        assert got == want, live_choice
        shown = spans(en)
        assert all(set(shown[k]) == {v} for k, v in want.items() if k in shown), live_choice
    assert last["result"]["values"]["DecodeLoop.batch_str"] == "32"
    assert en.outside == []


def test_invalid_input_gets_a_plain_message(en):
    last = compute(en, {"accelerator": "H100", "model": "Llama3_1_70B", "bandwidth": "-1"})
    assert last["invalid"] == ("bandwidth: expected the accelerator's memory bandwidth in TB/s, "
                              "from 0.01 to 100 TB/s, got '-1'")   # the CLI's words (mlsysim.scenario.FREE)
    text = en.inner_text("#mlsysim-choice")
    import mlsysim.scenario as S   # the page words it with the input's label (en.toml's [reader.why])
    assert f"Not computed: {S.FREE['bandwidth'].label['en']}: expected a value from 0.01 to 100 TB/s, got -1" in text
    assert "Traceback" not in text


def test_a_refused_input_is_said_in_the_pages_language(context, server):
    """The Chinese page words what the library refuses in Chinese, the input named by its Chinese label
    (mlsysim.scenario.FREE), never the library's English line: the range, a whole number, the lecture's
    budget. The sentences as zh.toml's [reader.why] words them, filled by hand."""
    import mlsysim.scenario as S
    zh = open_page(context, server, ZH + "?live=1")
    status = lambda: zh.inner_text("#mlsysim-choice .mc-status")   # noqa: E731
    last = compute(zh, {"accelerator": "H100", "model": "Llama3_1_70B", "bandwidth": "-1"})
    assert last["why"] == {"code": "out_of_range", "key": "bandwidth", "low": "0.01", "high": "100", "unit": "TB/s",
                           "got": "-1"}
    assert f"未计算：{S.FREE['bandwidth'].label['zh']}：应在 0.01 到 100 TB/s 之间（输入为 -1）" in status()
    compute(zh, {"accelerator": "H100", "model": "Llama3_1_70B", "batch": "2.5"})
    assert f"{S.FREE['batch'].label['zh']}：应为整数（输入为 2.5）" in status()
    assert not re.search(r"expected|got|[A-Za-z]+Error", status()), status()
    zh.close()
    lec = open_page(context, server, "zh/lectures/lecture19-agent-stalls.zh.html?live=1")
    # 0.5 GB cannot hold the lecture's standing session: 2 × 32 layers × 8 KV heads × 128 × 2 B × 16,384 tokens
    # = 2^31 B = 2.15 GB (by hand), so a budget of at least 2.15 GB
    compute(lec, {"lecture_kv_budget": "0.5"})
    text = lec.inner_text("#mlsysim-choice .mc-status")
    assert (f"{S.FREE['lecture_kv_budget'].label['zh']}：0.5 GB 放不下一个 16,384 词元的常驻会话（每个 2.15 GB）；"
            "请选择至少 2.15 GB 的预算，或更短的会话上下文") in text, text
    assert lec.outside == [] and lec.errors == []
    lec.close()


def test_figures_are_redrawn_for_the_choice(en):
    compute(en, {"accelerator": "H100", "model": "Llama3_1_70B", "bandwidth": "6"})
    ridge = en.evaluate("""() => { const d = document.querySelector('.mlsysim-plot[data-figure="roofline"]');
        const t = d.data.find(t => String(t.name).startsWith('Ridge')); return t.x[0]; }""")
    assert abs(ridge - 1978.9 / 6) < 1e-9                    # π/β of the H100 at 6 TB/s, by hand
    kept = en.evaluate("""() => Array.from(document.querySelectorAll('.mlsysim-fig-note'))
        .map(n => n.closest('figure').querySelector('.mlsysim-plot').dataset.figure)""")
    assert kept == [], kept                                   # every figure follows the choice: none is noted
    drawn = en.evaluate("window.MLSYSIM_LIVE.last.figures")
    assert set(drawn) >= {"roofline", "prefill", "batch", "kv-designs", "queueing-knee", "calibration"}


def test_the_address_opens_a_scenario_in_both_languages(context, server, en):
    """The issue's address: the H100 with a 6 TB/s memory, in prose, tables and figures, in both books."""
    v = cli("-a", "H100", "--bandwidth", "6")
    want = as_printed(v)
    assert {k: en.opened_with[k] for k in want} == want       # what the address opened, before any other test
    compute(en, {"accelerator": "H100", "model": "Llama3_1_70B", "bandwidth": "6"})
    zh = open_page(context, server, ZH + "?live=1&accelerator=H100&bandwidth=6")
    assert zh.evaluate("window.MLSYSIM_LIVE.timings.restored") is True   # from the English page's snapshot
    for page, lang in ((en, "en"), (zh, "zh")):
        want = as_printed(v, lang)
        shown = spans(page)
        assert {k: set(shown[k]) for k in want if k in shown} == {k: {v} for k, v in want.items() if k in shown}
        assert {"ServingRef.ridge_str", "ServingRef.t_dec_val_str", "ServingRef.bw_str"} <= set(shown)
        table = page.evaluate("Array.from(document.querySelectorAll('table .mlsysim-v[data-attr=\"ServingRef.bw_str\"]')).map(s => s.textContent)")
        assert table == ["6.00"]
        ridge = page.evaluate("""() => document.querySelector('.mlsysim-plot[data-figure="roofline"]').data
            .find(t => /Ridge|屋脊/.test(String(t.name))).x[0]""")
        assert abs(ridge - 1978.9 / 6) < 1e-9
        assert page.input_value("#mlsysim-live-bandwidth") == "6" and "bandwidth=6" in page.url
        assert page.outside == [] and page.errors == []
    assert "实时" in zh.inner_text("#mlsysim-choice")
    zh.close()


def test_the_lecture_recomputes_with_another_link(context, server):
    page = open_page(context, server, LECTURE + "?live=1&link_bandwidth=32")
    values = page.evaluate("window.MLSYSIM_LIVE.last.result.values")
    # 2K/β: the standing session's K = 16,384 tokens × 131,072 bytes = 2^31 bytes, moved twice over 32 GB/s
    k_bytes = 16_384 * 2 * 32 * 8 * 128 * 2
    assert values["StallBreakEven.t_swap_ms_str"] == fmt_int(2 * k_bytes / 32e9 * 1e3) == "134"
    assert values["StallBreakEven.link_str"] == "32"
    r = subprocess.run([sys.executable, "-m", "mlsysim", "lecture", "--link-bandwidth", "32", "--json"], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    v = json.loads(r.stdout)                                   # the CLI reproduces the live lecture
    assert values["StallBreakEven.t_swap_ms_str"] == fmt_int(v["keep_swap_break_even_s"] * 1e3)
    assert values["StallBreakEven.t_star_str"] == fmt(v["keep_discard_break_even_s"], 1)
    assert values["StandingSession.n_sessions_str"] == fmt_int(v["sessions_per_card"])
    shown = spans(page)
    assert set(shown["StallBreakEven.t_swap_ms_str"]) == {"134"}
    assert page.outside == [] and page.errors == []
    page.close()


def test_a_file_page_explains_how_to_serve_the_book(browser, rendered_book):
    ctx = browser.new_context()
    page = ctx.new_page()
    outside = []
    page.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file:") else (outside.append(r.request.url), r.abort()))
    page.goto((rendered_book / EN).as_uri())
    page.click("#mlsysim-live-open")
    page.wait_for_function("() => document.querySelector('#mlsysim-choice .mc-status').textContent.includes('http.server')")
    assert page.evaluate("document.documentElement.getAttribute('data-mlsysim-live')") is None   # nothing started
    assert not outside
    ctx.close()


# ───────────────────────────── live mode's own failures, said to the reader ─────────────────────────────

def _ui(lang: str) -> dict:
    import tomllib
    return tomllib.loads((ROOT / "bookbuild" / "book" / "ui" / f"{lang}.toml").read_text(encoding="utf-8"))


@pytest.fixture
def damaged_copy(rendered_book, tmp_path):
    """A copy of the built books (without their PDF and EPUB) served on its own port, for a test to damage."""
    import shutil
    shutil.copytree(rendered_book, tmp_path / "book", ignore=shutil.ignore_patterns("*.pdf", "*.epub"))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(tmp_path / "book")))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield tmp_path / "book", f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()


#: (book, a file of live/, what is done to it, the ui string that says so: [table, key])
FAILURES = [
    ("en", "pyodide/pyodide.asm.wasm", "remove", ("live", "missing")),
    ("en", "pyodide/pyodide.asm.wasm", "damage", ("live", "damaged")),
    ("zh", "pyodide/pyodide.mjs", "remove", ("live", "missing")),
    ("en", "wheels/pint-0.25.3-py3-none-any.whl", "damage", ("live", "damaged")),
    ("en", "live.js", "remove", ("reader", "live_missing")),
    ("zh", "live.js", "remove", ("reader", "live_missing")),
]


@pytest.mark.parametrize("lang, file, how, said", FAILURES, ids=[f"{f[0]}-{f[2]}-{f[1].rsplit('/', 1)[-1]}" for f in FAILURES])
def test_a_missing_or_damaged_live_file_is_said_in_the_pages_language_with_the_static_page(browser, damaged_copy, lang,
                                                                                             file, how, said):
    book, base = damaged_copy
    target = book / lang / "live" / file
    assert target.is_file(), target
    if how == "remove":
        target.unlink()
    else:   # the same size, other bytes: a truncated download or a changed file
        data = bytearray(target.read_bytes())
        data[len(data) // 2: len(data) // 2 + 64] = bytes(64)
        target.write_bytes(bytes(data))
    ui = _ui(lang)
    reason = ui[said[0]][said[1]].format(file=f"live/{file}")
    want = reason if said[0] == "reader" else ui["live"]["failed"].format(reason=reason)
    ctx = browser.new_context()
    try:
        for visit in range(2):   # and again on the next visit: said each time, never "Loading…" for good
            page = ctx.new_page()
            page.goto(base + (EN if lang == "en" else ZH) + "?live=1&accelerator=B200")
            page.wait_for_function("() => document.documentElement.getAttribute('data-mlsysim-live') === 'error'",
                                   timeout=BOOT_TIMEOUT_MS)
            status = page.inner_text("#mlsysim-choice .mc-status")
            assert want in status, (visit, status)
            link = page.locator("#mlsysim-choice .mc-live-static")
            assert link.inner_text() == ui["reader"]["live_static"]
            assert ui["reader"]["live_static_before"].strip() in status
            href = link.get_attribute("href")
            assert "live=" not in href and "accelerator=B200" in href, href   # the reader's choice kept, live mode not
            if visit == 0:
                page.close()
        # the second visit's link, followed (a damaged wheel is found only once Pyodide has started: one boot less)
        page.click("#mlsysim-choice .mc-live-static")
        page.wait_for_load_state()
        assert "live=" not in page.url and page.evaluate("document.documentElement.getAttribute('data-mlsysim-live')") is None
        assert page.input_value("#mlsysim-choice select") == "B200"   # the static page, at the reader's choice
    finally:
        ctx.close()


def _put_snapshot(page, server: str, shape: str) -> None:
    """A damaged snapshot where live mode keeps its own: bytes that do not match their digest, bytes with a
    matching digest that are not a snapshot at all, or the snapshot a visit saved with its memory damaged and
    the digest made to match (it has a snapshot's shape: Pyodide itself refuses it)."""
    if shape == "memory-damaged":
        page.goto(server + EN + "?live=1")        # a first visit saves a good snapshot
        page.wait_for_function("() => window.MLSYSIM_LIVE && window.MLSYSIM_LIVE.timings.snapshot_saved",
                               timeout=BOOT_TIMEOUT_MS)
        page.evaluate("""async () => {
            const c = await caches.open('mlsysim-live-snapshots');
            const k = (await c.keys())[0], b = new Uint8Array(await (await c.match(k)).arrayBuffer());
            const head = new Uint32Array(b.buffer, 0, 3)[1];
            for (let i = head; i < b.length; i += 97) b[i] ^= 0x5a;
            const d = new Uint8Array(await crypto.subtle.digest('SHA-256', b));
            await c.put(k, new Response(b, {headers: {'X-Mlsysim-Sha256':
                Array.from(d).map(x => x.toString(16).padStart(2, '0')).join('')}}));
        }""")
        return
    page.evaluate("""async shape => {
        const v = (await (await fetch('live/manifest.json')).json()).version;
        const bytes = new Uint8Array(300000).fill(7);
        let digest = 'not-its-digest';
        if (shape === 'digest-matches') {
            const d = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
            digest = Array.from(d).map(b => b.toString(16).padStart(2, '0')).join('');
        }
        const c = await caches.open('mlsysim-live-snapshots');
        await c.put(location.origin + '/mlsysim-live-snapshot?v=' + encodeURIComponent(v),
                    new Response(bytes, {headers: {'X-Mlsysim-Sha256': digest}}));
    }""", shape)


@pytest.mark.parametrize("shape", ["digest-differs", "digest-matches", "memory-damaged"])
def test_a_damaged_snapshot_is_discarded_and_live_mode_starts(browser, server, shape):
    ctx = browser.new_context()
    try:
        page = ctx.new_page()
        page.goto(server + "en/index.html")
        _put_snapshot(page, server, shape)
        page.goto(server + EN + "?live=1")
        page.wait_for_function("() => ['ready', 'error'].includes(document.documentElement.getAttribute('data-mlsysim-live'))",
                               timeout=BOOT_TIMEOUT_MS)
        assert page.evaluate("document.documentElement.getAttribute('data-mlsysim-live')") == "ready", \
            page.inner_text("#mlsysim-choice")
        timings = page.evaluate("window.MLSYSIM_LIVE.timings")
        assert timings["snapshot_discarded"] is True and timings["restored"] is False
        page.wait_for_function("() => window.MLSYSIM_LIVE.timings.snapshot_saved", timeout=60_000)
        kept = page.evaluate("""async () => { const c = await caches.open('mlsysim-live-snapshots');
            const ks = await c.keys(); const r = await c.match(ks[0]); const b = new Uint8Array(await r.arrayBuffer());
            const d = new Uint8Array(await crypto.subtle.digest('SHA-256', b));
            return [ks.length, r.headers.get('X-Mlsysim-Sha256') === Array.from(d).map(x => x.toString(16).padStart(2, '0')).join('')]; }""")
        assert kept == [1, True]                      # the damaged one replaced by a good one
        page.goto(server + EN + "?live=1")            # the next visit starts from it
        page.wait_for_function("() => document.documentElement.getAttribute('data-mlsysim-live') === 'ready'",
                               timeout=BOOT_TIMEOUT_MS)
        assert page.evaluate("window.MLSYSIM_LIVE.timings.restored") is True
    finally:
        ctx.close()
