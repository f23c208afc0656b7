"""The HTML half of the reader's-eye check: every page of the book in headless Chromium, as readers see it.

One browser, one tab per pass. Each page is loaded once per width; the light and dark themes are switched
in place (the page's own theme button), and on a page with the reader's choice every registry choice is
applied in place through the page's own selects (no reload per choice). Every request that does not go to
the local server (or a file:, data: or blob: address) is refused and reported.
"""
from __future__ import annotations

import functools
import threading
import time
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from .axe import axe_source
from .problems import Problem

CHROMIUM = Path("/usr/bin/chromium")
#: the flags that work in a container without a GPU or a user namespace (as tests/conftest.py)
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--no-first-run"]
WIDTHS = (1280, 390)
#: the narrowest phone: the top bar and the page width only
NARROW = 320
THEMES = ("light", "dark")
HEIGHT = 900
def script(name: str) -> str:
    """A script the check runs in the page, from its file beside this module (package data)."""
    return (Path(__file__).parent / name).read_text(encoding="utf-8")


PROBE = script("probe.js")
#: axe-core impacts that fail the check
FAILING_IMPACTS = ("serious", "critical")
#: most tab stops a reader should need from the top of a page to the reader's choice
CHOICE_TABS = 4
#: most tab stops from the reader's choice to the first explained number
VALUE_TABS = 40


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):  # noqa: D401 - no access log
        pass

    def end_headers(self):
        self.send_header("Cache-Control", "no-store")
        super().end_headers()


class _Server(ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        """A browser that stops reading (a page left, a request aborted) is no error of the book's."""
        import sys
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


@contextmanager
def serve(folder: Path):
    """The book folder over http on 127.0.0.1 (an ephemeral port), for as long as the block runs."""
    srv = _Server(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(folder)))
    srv.daemon_threads = True
    t = threading.Thread(target=srv.serve_forever, name="pagecheck-http", daemon=True)
    t.start()
    try:
        yield f"http://127.0.0.1:{srv.server_address[1]}/"
    finally:
        srv.shutdown()
        srv.server_close()


def html_pages(book: Path) -> list[str]:
    """Every page of every language folder (``en/…``, ``zh/…``), relative to ``book``; redirects left out."""
    out = []
    for p in sorted(book.rglob("*.html")):
        head = p.read_text(encoding="utf-8", errors="replace")[:2000]
        if 'http-equiv="refresh"' in head:
            continue
        out.append(p.relative_to(book).as_posix())
    return out


class Tab:
    """One browser tab with the request guard, error capture and the probes."""

    def __init__(self, context, base: str, allow_file: bool):
        self.page = context.new_page()
        self.base, self.allow_file = base, allow_file
        self.where = ""
        self.stuck = False
        self.state: dict = {}
        self.problems: list[Problem] = []
        # every load starts in the light theme (the reader's stored choice would carry over between pages)
        self.page.add_init_script("try { localStorage.removeItem('book-theme'); } catch (e) {}")
        self.page.route("**/*", self._guard)
        self.page.on("pageerror", lambda e: self._add(f"script error: {e}"))
        self.page.on("console", self._console)
        self.page.on("response", self._response)
        self.page.on("requestfailed", self._failed)

    def _add(self, what: str, **kw):
        ctx = dict(self.state)
        ctx.update(kw)
        self.problems.append(Problem(self.where, what, **ctx))

    def _allowed(self, url: str) -> bool:
        if url.startswith(("data:", "blob:", "about:")):
            return True
        if url.startswith("file:"):
            return self.allow_file
        return url.startswith(self.base)

    def _guard(self, route):
        url = route.request.url
        if self._allowed(url):
            route.continue_()
        else:
            self._add(f"requested {url[:160]} (a page loads nothing from elsewhere)")
            route.abort()

    def _console(self, msg):
        if msg.type == "error" and "net::ERR_FAILED" not in msg.text:
            self._add(f"console error: {msg.text[:300]}")

    def _response(self, resp):
        if resp.status >= 400 and self._allowed(resp.url):
            self._add(f"{resp.url[len(self.base):] if resp.url.startswith(self.base) else resp.url} answered {resp.status}")

    def _failed(self, req):
        if self._allowed(req.url) and req.failure and "ERR_ABORTED" not in req.failure:
            self._add(f"{req.url} failed: {req.failure}")

    def open(self, url: str, where: str, width: int, js: bool = True) -> bool:
        self.where = where
        self.stuck = False
        self.state = {"width": width}
        self.page.set_viewport_size({"width": width, "height": HEIGHT})
        try:
            self.page.goto(url, wait_until="load", timeout=30_000)
        except Exception as e:  # noqa: BLE001 - a page that does not load is the problem reported
            self._add(f"does not load: {' '.join(str(e).split())[:200]}")
            return False
        if js:
            self.page.evaluate(PROBE)   # a script the DevTools protocol runs: the page's own policy forbids inline scripts
        return True

    def js(self, expr: str, arg=None):
        return self.page.evaluate(expr, arg)


# ---------------------------------------------------------------- one page, one width, one theme

def _wait_figures(tab: Tab, theme: str | None = None) -> None:
    cond = ("t => !window.Plotly || Array.from(document.querySelectorAll('.mlsysim-plot')).every(p => p.getAttribute('data-ready') === '1'"
            " && (!t || p.getAttribute('data-theme') === t) && (!p.getClientRects().length || (p.getBoundingClientRect().height > 50"
            " && (!p._fullLayout || Math.abs(p._fullLayout.width - p.getBoundingClientRect().width) < 2))))")
    try:
        # a page whose figures never drew once gets a short wait from then on (the probe reports them)
        tab.page.wait_for_function(cond, arg=theme, timeout=1_000 if tab.stuck else 20_000, polling=100)
    except Exception:  # noqa: BLE001 - reported by the figure probe
        tab.stuck = True


#: the page's own theme button: the book's (its top bar), or that of the renderer that made the page
#: (Quarto's, in its sidebar or navbar; the bridge turns its dark mode into the data-theme figures read)
THEME_TOGGLES = (".topbar .theme-toggle", ".quarto-color-scheme-toggle")


def _set_theme(tab: Tab, theme: str) -> None:
    cur = tab.js("() => document.documentElement.getAttribute('data-theme')")
    if cur != theme:
        btns = [tab.page.locator(sel) for sel in THEME_TOGGLES]
        btns = [b for b in btns if b.count()]
        if not btns:
            tab._add("has no theme button")
            tab.js("t => document.documentElement.setAttribute('data-theme', t)", theme)
        else:
            shown = [b.filter(visible=True) for b in btns]
            shown = [b for b in shown if b.count()]
            if shown:
                shown[0].first.click()
            else:
                # the button is in a menu a phone folds away (Quarto's sidebar): a reader opens the menu
                # first; the check presses the button itself
                btns[0].first.evaluate("b => b.click()")
        # the page as a reader sees it once switched: the theme's stylesheets loaded (Quarto enables its dark
        # one by its rel, and the browser loads it then), two frames for the new styles to start their
        # transitions, and those (Quarto's sidebar and contents links fade for 0.15 s) ended, so axe does not
        # measure colours half-way
        try:
            tab.page.wait_for_function("() => Array.from(document.querySelectorAll('link[rel~=\"stylesheet\"]'))"
                                       ".every(l => l.sheet)", timeout=5_000, polling=50)
            tab.page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
            tab.page.wait_for_function("() => !document.getAnimations || document.getAnimations().every("
                                       "a => !(window.CSSTransition && a instanceof CSSTransition) || a.playState !== 'running')",
                                       timeout=2_000, polling=50)
        except Exception:  # noqa: BLE001 - a transition that never ends: the colours are checked as they are
            pass
    if tab.js("() => document.documentElement.getAttribute('data-theme')") != theme:
        tab._add(f"the theme button does not switch to {theme}")
    tab.state["theme"] = theme
    _wait_figures(tab, theme)


def check_layout(tab: Tab, wide: bool) -> None:
    res = tab.js("() => window.__pagecheck.layout()")
    if res["wide"] or res["pageWidth"] > res["viewport"] + 1:
        culprits = "; ".join(f"{c['el']} reaches {c['right']}px" for c in res["wide"]) or "no single element"
        tab._add(f"page is {res['pageWidth']}px wide in a {res['viewport']}px viewport ({culprits})")
    if wide and res["column"]:
        culprits = "; ".join(f"{c['el']} spans {c['left']}–{c['right']}px" for c in res["column"])
        tab._add(f"content leaves its column: {culprits}")
    for t in res["topbar"]:
        tab._add(f"top bar: {t}")


def check_text(tab: Tab, root: str = "document.body") -> None:
    for f in tab.js(f"() => window.__pagecheck.errorText({root})"):
        tab._add(f"shows {f['what']} {f['match']!r} in {f['where']}: “{f['context']}”")
    # one colon style in Chinese captions: "图 A.1：" as their titles write "标题："
    for c in tab.js(r"""() => document.documentElement.lang.indexOf('zh') !== 0 ? [] :
        Array.from(document.querySelectorAll('figcaption, caption')).map(c => c.innerText.trim())
          .filter(t => /^(图|表)\s?[A-Z]?[0-9.]+\s?:/.test(t)).map(t => t.slice(0, 40))"""):
        tab._add(f"a Chinese caption mixes colon styles: “{c}”")
    # and no space after the full-width colon ("图 A.1：标题", as Chinese type sets it)
    for c in tab.js(r"""() => document.documentElement.lang.indexOf('zh') !== 0 ? [] :
        Array.from(document.querySelectorAll('figcaption, caption')).map(c => c.textContent.replace(/^\s+/, ''))
          .filter(t => /^(图|表)\s?[A-Z]?[0-9.]+：[\s\u00a0]/.test(t)).map(t => t.slice(0, 40))"""):
        tab._add(f"a Chinese caption has a space after its colon: “{c}”")


def check_figures(tab: Tab) -> None:
    for f in tab.js("() => window.__pagecheck.figures()"):
        tab._add(f"figure {f['figure']} {f['what']}")


#: the rules that depend on the theme's colours (the second theme runs only these)
COLOUR_RULES = ["color-contrast", "link-in-text-block"]


#: what axe looks at: the whole page, the page without its MathML and plotly drawings (both were checked
#: once, at 1280 px in the light theme; they are half the page's elements), or only what a choice changed
WHOLE, LEAN = "document", {"exclude": [["math"], [".mlsysim-plot"]]}
CHANGED = {"include": [["#mlsysim-choice"], [".mlsysim-claim-broken"], [".mlsysim-claim-marker"],
                       [".mlsysim-fig-note"]]}


def check_axe(tab: Tab, colours_only: bool = False, scope=WHOLE) -> None:
    if not tab.js("() => !!window.axe"):
        tab.page.evaluate(axe_source())
    res = tab.js("""async ([only, scope]) => {
        const opts = {resultTypes: ['violations']};
        if (only) opts.runOnly = {type: 'rule', values: only};
        if (scope && scope.include) scope = {include: scope.include.filter(s => document.querySelector(s[0]))};
        const r = await axe.run(scope === 'document' ? document : scope, opts);
        return r.violations.map(v => ({id: v.id, impact: v.impact, n: v.nodes.length, help: v.help,
                                       target: v.nodes.slice(0, 2).map(n => n.target.join(' ')).join(' | ')}));
    }""", [COLOUR_RULES if colours_only else None, scope])
    for v in res:
        if v["impact"] in FAILING_IMPACTS:
            tab._add(f"axe {v['impact']} {v['id']} ×{v['n']} ({v['help']}): {v['target'][:200]}")


def check_keyboard(tab: Tab) -> None:
    """From the top of the page: a visible skip link first, then (where the page has them) the reader's
    choice within a few tab stops, and every computed number's explanation by keyboard."""
    page = tab.page
    page.evaluate("() => { window.scrollTo(0, 0); if (document.activeElement) document.activeElement.blur(); }")
    stops = tab.js("() => window.__pagecheck.tabStops()")
    if stops["positive"]:
        tab._add(f"positive tabindex breaks the reading order: {', '.join(stops['positive'][:3])}")
    if stops["values"] > 1:
        tab._add(f"{stops['values']} computed numbers are separate tab stops (one stop, then arrow keys)")
    # with no positive tabindex, the first tab stop is the first focusable element in document order
    if "skip-link" not in stops["first_cls"]:
        tab._add(f"the first tab stop is {stops['first']}, not a skip link to the text")
        return
    page.focus(".skip-link")
    f = tab.js("() => window.__pagecheck.focused()")
    if not f["visible"]:
        tab._add("the skip link is not visible when focused")
    page.keyboard.press("Enter")
    has_choice = tab.js("() => !!document.getElementById('mlsysim-choice-accelerator')")
    has_values = tab.js("() => !!document.querySelector('article .mlsysim-v')")
    if has_choice:
        for i in range(CHOICE_TABS):
            page.keyboard.press("Tab")
            if tab.js("() => document.activeElement && document.activeElement.id") == "mlsysim-choice-accelerator":
                break
        else:
            f = tab.js("() => window.__pagecheck.focused()")
            tab._add(f"the reader's choice is not reached in {CHOICE_TABS} tab stops after the skip link (at {f['el']})")
            return
        page.keyboard.press("Tab")
        if tab.js("() => document.activeElement && document.activeElement.id") != "mlsysim-choice-model":
            tab._add("Tab from the accelerator does not reach the model")
    if not has_values:
        return
    for i in range(VALUE_TABS):
        page.keyboard.press("Tab")
        if tab.js("() => !!(document.activeElement && document.activeElement.classList.contains('mlsysim-v'))"):
            break
    else:
        f = tab.js("() => window.__pagecheck.focused()")
        tab._add(f"no computed number is reached in {VALUE_TABS} tab stops (at {f['el']})")
        return
    tip = tab.js("""() => { const t = document.getElementById('mlsysim-tip'), a = document.activeElement;
        return {shown: !!t && !t.hidden && t.textContent.trim().length > 0,
                described: a.getAttribute('aria-describedby') === 'mlsysim-tip', attr: a.getAttribute('data-attr')}; }""")
    if not tip["shown"]:
        tab._add(f"focusing the number {tip['attr']} shows no explanation")
    if not tip["described"]:
        tab._add(f"the number {tip['attr']} is not described by its explanation (aria-describedby)")
    page.keyboard.press("ArrowRight")
    nxt = tab.js("() => document.activeElement && document.activeElement.getAttribute('data-attr')")
    if not nxt or not tab.js("() => document.activeElement.classList.contains('mlsysim-v')"):
        tab._add("the arrow key does not move from one computed number to the next")
    page.keyboard.press("Escape")
    if tab.js("() => { const t = document.getElementById('mlsysim-tip'); return !!t && !t.hidden; }"):
        tab._add("Escape does not close the explanation")


TIPS = script("tips.js")


def check_tips(tab: Tab) -> None:
    """The explanations of the page's longest values fit: nothing in them scrolls sideways, and each stays
    inside the window (a value is a phrase in some choices: "For the NVIDIA B200 (HGX B200, 1000 W) at ...")."""
    for what in tab.js(TIPS):
        tab._add(f"the explanation of {what} does not fit")
    tab.page.evaluate("() => window.scrollTo(0, 0)")


AIDS = script("reading_aids.js")


def check_reading_aids(tab: Tab) -> None:
    """Quarto's reading aids on the book's pages: each kind of cross-reference and citation previews its target
    on keyboard focus (described by it, inside the window, a copy that does nothing, closed by Escape), and
    every section heading links to itself."""
    for what in tab.js(AIDS):
        tab._add(what)


# ---------------------------------------------------------------- every choice of the reader's bar

SWEEP = script("choice_sweep.js")


def choice_keys(tab: Tab) -> dict:
    """The page's choices: all keys, the one breaking the most claims, one that cannot be computed."""
    return tab.js("""() => { const V = window.MLSYSIM_PAGE && window.MLSYSIM_PAGE.variants;
        if (!V) return null;
        const keys = Object.keys(V.choices);
        const ok = keys.filter(k => !V.choices[k].error);
        ok.sort((a, b) => (V.choices[b].failed || []).length - (V.choices[a].failed || []).length);
        return {keys: keys, broken: ok[0] || null, error: keys.find(k => V.choices[k].error) || null,
                reference: V.reference.accelerator + '|' + V.reference.model + '|' + V.reference.precision}; }""")


def set_choice(tab: Tab, key: str) -> None:
    tab.js("""k => { const [a, m, p] = k.split('|'); const A = document.getElementById('mlsysim-choice-accelerator'),
        M = document.getElementById('mlsysim-choice-model'), P = document.getElementById('mlsysim-choice-precision');
        A.value = a; M.value = m; P.value = p;
        M.dispatchEvent(new Event('change', {bubbles: true})); }""", key)


def sweep_choices(tab: Tab, wide: bool) -> int:
    keys = choice_keys(tab)
    if not keys:
        return 0
    for r in tab.js(SWEEP, {"wide": wide, "keys": keys["keys"]}):
        tab._add(r["what"], choice=r["key"])
    set_choice(tab, keys["reference"])
    return len(keys["keys"])


# ---------------------------------------------------------------- the whole book

def check_html(book: Path, browser=None, *, widths=WIDTHS, themes=THEMES, file_urls: bool = False,
               axe: bool = True, choices: bool = True, log=None) -> tuple[list[Problem], dict]:
    """Every HTML page of ``book`` (the folder holding ``en/`` and ``zh/``): returns the problems and counts."""
    book = Path(book).resolve()
    pages = html_pages(book)
    stats = {"pages": len(pages), "states": 0, "choices": 0, "axe_runs": 0}
    if not pages:
        return [Problem(str(book), "holds no HTML page")], stats
    own = None
    if browser is None:
        own = _launch()
        browser = own[1]
    try:
        if file_urls:
            return _run(book, browser, book.as_uri() + "/", True, pages, widths, themes, axe, choices, stats, log), stats
        with serve(book) as base:
            return _run(book, browser, base, False, pages, widths, themes, axe, choices, stats, log), stats
    finally:
        if own is not None:
            own[1].close()
            own[0].stop()


def _launch():
    if not CHROMIUM.exists():
        raise RuntimeError(f"the page check needs Chromium at {CHROMIUM} (scripts/setup.sh installs it)")
    try:
        import playwright.sync_api as sync_api
    except ImportError:
        raise RuntimeError("the page check needs playwright, which the test extra installs "
                           "(pip install -e '.[test]'; scripts/setup.sh does)") from None
    pw = sync_api.sync_playwright().start()
    return pw, pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)


def _run(book, browser, base, file_urls, pages, widths, themes, axe, choices, stats, log) -> list[Problem]:
    """Each page is loaded once, at the first width; the other widths are the same tab resized (the page's
    media queries, plotly's and book.js's resize handling then do what a phone's load would show)."""
    problems: list[Problem] = []
    ctx = browser.new_context(color_scheme="light", service_workers="block")
    try:
        tab = Tab(ctx, base, file_urls)
        for rel in pages:
            t0 = time.perf_counter()
            if not tab.open(base + rel, rel, widths[0]):
                continue
            _wait_figures(tab)
            keys = choice_keys(tab) if choices else None
            order = list(themes)
            for wi, w in enumerate(widths):
                if wi:
                    _resize(tab, w)
                wide = w >= 1000
                for ti, theme in enumerate(order):
                    _set_theme(tab, theme)
                    light = theme == themes[0]
                    stats["states"] += 1
                    check_layout(tab, wide)
                    check_text(tab)
                    check_figures(tab)
                    if axe:
                        check_axe(tab, colours_only=not light, scope=WHOLE if (wi == 0 and light) else LEAN)
                        stats["axe_runs"] += 1
                    if light:
                        tab.state.pop("theme", None)
                        check_keyboard(tab)
                        check_tips(tab)
                        check_reading_aids(tab)
                        if keys:
                            stats["choices"] += sweep_choices(tab, wide)
                        tab.state["theme"] = theme
                    if keys and wi == 0:
                        _choice_states(tab, keys, theme, axe, wide, stats)
                order.reverse()              # the next width starts in the theme this one ended in
                if log:
                    log(f"{rel} {w}px: {time.perf_counter() - t0:.1f}s")
                    t0 = time.perf_counter()
            # the narrowest phone: the top bar fits and nothing scrolls sideways
            _resize(tab, NARROW)
            tab.state = {"width": NARROW}
            check_layout(tab, False)
        problems += tab.problems
        tab.page.close()
    finally:
        ctx.close()
    problems += _run_without_js(browser, base, file_urls, pages, widths, stats)
    return problems


def _resize(tab: Tab, width: int) -> None:
    tab.page.set_viewport_size({"width": width, "height": HEIGHT})
    tab.state = {"width": width, **({"theme": tab.state["theme"]} if "theme" in tab.state else {})}
    tab.page.wait_for_timeout(250)     # book.js and the figures follow a resize after 100-150 ms
    _wait_figures(tab)


def _choice_states(tab: Tab, keys: dict, theme: str, axe: bool, wide: bool, stats: dict) -> None:
    """The choice breaking the most claims and one that cannot be computed, in the current theme: the
    markers, flags and messages a choice adds (axe on what the choice changed), then back to the reference."""
    light = theme == THEMES[0]
    for k in (keys["broken"], keys["error"]):
        if not k:
            continue
        set_choice(tab, k)
        tab.page.wait_for_timeout(30)          # the explorer follows the choice a moment later
        tab.state["choice"] = k
        check_layout(tab, wide)
        check_tips(tab)
        check_text(tab)
        check_figures(tab)
        if axe:
            check_axe(tab, colours_only=not light, scope=CHANGED)
            stats["axe_runs"] += 1
        tab.state.pop("choice", None)
    set_choice(tab, keys["reference"])
    tab.page.wait_for_timeout(30)


def _run_without_js(browser, base, file_urls, pages, widths, stats) -> list[Problem]:
    """Without JavaScript: every figure shows its static drawing, and nothing scrolls sideways."""
    ctx = browser.new_context(java_script_enabled=False, color_scheme="light")
    try:
        tab = Tab(ctx, base, file_urls)
        for rel in pages:
            for w in widths:
                if not tab.open(base + rel, rel, w, js=False):
                    continue
                tab.state["theme"] = "no-js"
                stats["states"] += 1
                res = tab.page.evaluate(r"""() => {
                    const out = [], vw = document.documentElement.clientWidth;
                    document.querySelectorAll('figure').forEach(f => {
                      if (!f.querySelector('.mlsysim-plot') || !f.getClientRects().length) return;
                      const img = Array.from(f.querySelectorAll('img')).find(i => i.getClientRects().length && i.getBoundingClientRect().width > 50);
                      if (!img) out.push('figure ' + (f.id || '?') + ' is an empty box without JavaScript');
                      else if (!img.complete || !img.naturalWidth) out.push('figure ' + (f.id || '?') + ': its static drawing ' + img.getAttribute('src') + ' does not load');
                    });
                    const sw = document.documentElement.scrollWidth;
                    if (sw > vw + 1) out.push('page is ' + sw + 'px wide in a ' + vw + 'px viewport');
                    return out; }""")
                for what in res:
                    tab._add(what)
        problems = tab.problems
        tab.page.close()
        return problems
    finally:
        ctx.close()

