"""The book's figures plot the physics functions' values, both renderers draw the same data, and the
static SVG is byte-for-byte stable."""
from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from mlsysim import Hardware, Models
from mlsysim.figures import (APPENDIX_FIGURES, appendix_specs, batch_spec, book_figure, kv_design_spec, prefill_spec,
                             queueing_spec, roofline_spec, svg_bytes, to_matplotlib)
from mlsysim.physics import (attainable_performance, attention_crossover_length, batched_step_time,
                             compute_bound_batch, decode_intensity, kingman_wait, kv_bytes_per_token,
                             prefill_time, ridge_point)
from mlsysim.units import BYTES_FP8, Q_

H100, L70 = Hardware.Cloud.H100, Models.Language.Llama3_70B


def drawn(spec):
    """The static (matplotlib) figure of a description, and its data."""
    return to_matplotlib(spec, "en"), spec.data


def roofline_figure(*a, **kw):
    return drawn(roofline_spec(*a, **kw))


def prefill_figure(*a, **kw):
    return drawn(prefill_spec(*a, **kw))


def batch_figure(*a, **kw):
    return drawn(batch_spec(*a, **kw))


def kv_design_figure(*a, **kw):
    return drawn(kv_design_spec(*a, **kw))


def queueing_figure(*a, **kw):
    return drawn(queueing_spec(*a, **kw))


def close(a, b, rel=1e-12):
    return math.isclose(float(a), float(b), rel_tol=rel)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt
    plt.close("all")


def _line_has_point(ax, x, y, rel=1e-12):
    for line in ax.get_lines():
        xs, ys = (np.asarray(v, dtype=float) for v in line.get_data())
        if any(close(a, x, rel) and close(b, y, rel) for a, b in zip(xs, ys)):
            return True
    return False


def test_roofline_ridge_is_ridge_point():
    fig, d = roofline_figure(H100, L70, "fp8")
    ridge = ridge_point(H100.compute.peak("fp8"), H100.memory.bandwidth).magnitude
    assert close(d["ridge_x"], ridge)
    peak = H100.compute.peak("fp8").to("flop/second").magnitude
    ax = fig.axes[0]
    assert _line_has_point(ax, ridge, peak), "the ridge marker must sit at (ridge_point, peak)"
    i_dec = decode_intensity(BYTES_FP8).magnitude
    y_dec = attainable_performance(Q_(i_dec, "flop/byte"), H100.compute.peak("fp8"), H100.memory.bandwidth)
    assert _line_has_point(ax, i_dec, y_dec.to("flop/second").magnitude)
    # the decode pass at the compute-bound batch lands on the ridge
    assert close(d["markers"]["decode_bstar"][0], ridge, 1e-9)
    assert close(d["compute_bound_batch"], compute_bound_batch(H100.compute.peak("fp8"), H100.memory.bandwidth,
                                                               BYTES_FP8))


def test_roofline_curve_is_attainable_performance():
    _, d = roofline_figure("H200", "Llama3_8B", "bf16")
    a = Hardware.Cloud.H200
    for x, y in list(zip(d["intensity"], d["attainable"]))[::17]:
        expect = attainable_performance(Q_(x, "flop/byte"), a.compute.peak("bf16"), a.memory.bandwidth)
        assert close(y, expect.to("flop/second").magnitude)


def test_prefill_crossover_marker():
    fig, d = prefill_figure(H100, L70)
    n = L70.parameters.to("count").magnitude
    s_star = attention_crossover_length(n, L70.layers, L70.hidden_dim)
    assert close(d["crossover_x"], s_star)
    assert _line_has_point(fig.axes[0], s_star, d["crossover_y"])
    # at S*, the weight and attention terms are equal, and total = prefill_time()
    t = prefill_time(n, L70.layers, L70.hidden_dim, s_star, H100.compute.peak("fp8")).to("second").magnitude
    assert close(d["crossover_y"] * 2, t)
    i = int(np.argmin(abs(np.log(d["weight_s"] / d["attention_s"]))))
    assert abs(math.log10(d["seq_len"][i] / s_star)) < 0.05


def test_batch_floor_and_turn():
    _, d = batch_figure(H100, L70)
    b_star = d["compute_bound_batch"]
    n = L70.parameters.to("count").magnitude
    for b, step in zip(d["batch"], d["step_ms"]):
        assert close(step, batched_step_time(n, BYTES_FP8, H100.memory.bandwidth, H100.compute.peak("fp8"), b)
                     .to("ms").magnitude)
    i = list(d["batch"]).index(b_star)
    assert close(d["step_ms"][i], d["floor_ms"], 1e-9)
    assert d["step_ms"][-1] > 10 * d["floor_ms"]


def test_kv_designs_bars():
    fig, d = kv_design_figure(L70)
    expect = [kv_bytes_per_token(L70, Q_(2, "byte"), kv_heads=h).to("byte").magnitude for h in (64, 8, 1)]
    assert list(d["bytes_per_token"]) == expect
    heights = [p.get_height() * 1e3 for p in fig.axes[0].patches]
    assert all(close(h, e, 1e-9) for h, e in zip(heights, expect))


def test_queueing_marks_are_kingman():
    fig, d = queueing_figure()
    assert d["marks_wait"] == [kingman_wait(2.0, 1.0, r) for r in (0.5, 0.7, 0.9)]
    assert _line_has_point(fig.axes[0], 0.9, kingman_wait(2.0, 1.0, 0.9))


@pytest.mark.parametrize("builder", [roofline_figure, prefill_figure, batch_figure, kv_design_figure,
                                     queueing_figure])
def test_svg_deterministic(builder):
    a = svg_bytes(builder()[0])
    b = svg_bytes(builder()[0])
    assert a == b
    assert b"<dc:date>" not in a and b"http://" not in a.replace(b"http://www.w3.org", b"") \
        .replace(b"http://purl.org", b"").replace(b"http://creativecommons.org", b"")


def test_book_figures_are_stable(tmp_path):
    import mlsysim.figures.book as B
    specs = appendix_specs()
    assert sorted(specs) == sorted(APPENDIX_FIGURES)
    blobs = {n: Path(book_figure(s, tmp_path, lang="en").svg_link).read_bytes() for n, s in specs.items()}
    B._DRAWN.clear()   # draw again, not from this process's memo
    for n, s in appendix_specs().items():
        (tmp_path / f"{s.key}.en.svg").unlink()
        assert Path(book_figure(s, tmp_path, lang="en").svg_link).read_bytes() == blobs[n]


# ───────────────────── one description, two renderers (issue 13) ─────────────────────

def _all_specs():
    """Every figure of the book, at the inputs its chapter uses (the lecture's from its cells' values)."""
    from mlsysim.figures import appendix_specs, calibration_data, calibration_spec, overcommit_spec, policy_map_spec
    specs = list(appendix_specs().values())
    specs.append(calibration_spec(calibration_data("H100")))
    rows = [("in-process", 1e-4, 5e-3), ("file read", 1e-3, 2e-2), ("sub-agent", 5.0, 60.0),
            ("human turn", 1.0, math.inf)]
    specs.append(policy_map_spec(0.08, 26.0, rows, stall=3.0))
    specs.append(overcommit_spec(20, Q_(64, "GB/s"), Q_(2.1, "GB"), (10.0, 120.0), crossover=40.0,
                                 marks=[("Config C", 37.0), ("standing session", 60.0)]))
    return specs


SPECS = _all_specs()
BOOK_FIGURE_KEYS = {"roofline", "prefill", "batch", "kv-designs", "queueing-knee", "lec19-policy-map",
                    "lec19-overcommit", "calibration"}


def test_every_book_figure_is_described():
    assert {s.key for s in SPECS} == BOOK_FIGURE_KEYS


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("spec", SPECS, ids=[s.key for s in SPECS])
def test_plotly_and_matplotlib_plot_the_same_data(spec, lang):
    from mlsysim.figures import plain_text, plotly_json, to_matplotlib
    pj = plotly_json(spec, lang)
    fig = to_matplotlib(spec, lang)
    traces = {t["uid"]: t for t in pj["data"]}
    lines = {}
    for ax in fig.axes:
        for ln in ax.get_lines():
            if ln.get_gid():
                lines[ln.get_gid()] = tuple(np.asarray(v, dtype=float) for v in ln.get_data())
    for s in spec.series:
        tr = traces[s.key]
        ax = fig.axes[s.panel]
        if s.kind in ("line", "markers"):
            mx, my = lines[s.key]
            assert np.allclose(tr["x"], mx, rtol=1e-12) and np.allclose(tr["y"], my, rtol=1e-12), s.key
            assert np.allclose(tr["x"], s.x) and np.allclose(tr["y"], s.y)
        elif s.kind == "bar":
            heights = [p.get_height() for p in ax.patches if p.get_gid() == s.key]
            assert len(heights) == len(s.y) and np.allclose(tr["y"], heights, rtol=1e-12)
        elif s.kind == "hbar":
            bars = [p for p in ax.patches if p.get_gid() == s.key]
            assert len(bars) == len(s.y)
            assert np.allclose(tr["base"], [p.get_x() for p in bars], rtol=1e-12)
            assert np.allclose(np.asarray(tr["base"]) + np.asarray(tr["x"]), [p.get_x() + p.get_width() for p in bars],
                               rtol=1e-12)
        if s.name:  # the same legend text, markup aside
            assert tr["name"] == s.name[lang] and tr["showlegend"]
    # reference lines: plotly shapes and matplotlib axvline/axhline at the same value
    shapes = {sh["name"] if "legendgroup" not in sh else sh["legendgroup"]: sh for sh in pj["layout"]["shapes"]}
    for ln in spec.lines:
        sh = shapes[ln.key]
        mx, my = lines[f"line-{ln.key}"]
        if ln.axis == "x":
            assert sh["x0"] == sh["x1"] == ln.value and np.allclose(mx, ln.value)
        else:
            assert sh["y0"] == sh["y1"] == ln.value and np.allclose(my, ln.value)
    # axes: the same titles (markup aside), scales and ranges
    for i, p in enumerate(spec.panels):
        ax = fig.axes[i]
        xa = pj["layout"]["xaxis" if i == 0 else f"xaxis{i + 1}"]
        ya = pj["layout"]["yaxis" if i == 0 else f"yaxis{i + 1}"]
        assert (xa["type"] == "log") == (ax.get_xscale() == "log") == p.x.log
        assert (ya["type"] == "log") == (ax.get_yscale() == "log") == p.y.log
        assert plain_text(xa["title"]["text"]) == plain_text(p.x.title[lang])
        if p.x.range:
            lo, hi = ax.get_xlim()
            assert np.allclose([lo, hi], p.x.range)
            assert np.allclose(xa["range"], np.log10(p.x.range) if p.x.log else p.x.range)
    import matplotlib.pyplot as plt
    plt.close(fig)


@pytest.mark.parametrize("spec", SPECS, ids=[s.key for s in SPECS])
def test_labels_follow_the_language(spec):
    """Chinese figures carry Chinese axis titles and legends (issue 14's review): no English words left."""
    from mlsysim.figures import plotly_json
    zh = plotly_json(spec, "zh")
    en = plotly_json(spec, "en")
    titles = [zh["layout"][k]["title"]["text"] for k in zh["layout"] if k.startswith(("xaxis", "yaxis"))]
    titles = [t for t in titles if t]
    assert titles and all(re.search(r"[\u4e00-\u9fff]", t) for t in titles), titles
    assert not any(re.search(r"\b(tokens|byte|Prefill|Decode|Stall|duration|Attention|Utilization|Batch)\b", t)
                   for t in titles), titles
    for a, b in zip(en["data"], zh["data"]):
        if a.get("showlegend") and a["name"] != b["name"]:
            assert re.search(r"[\u4e00-\u9fff]", b["name"]), b["name"]
    # the hover text is worded in the page's language (units after a numeral are symbols in both: 67 ms, 60 s,
    # notes/glossary.toml [typography]); no English word of the English hover is left
    hovers = [t["hovertemplate"] + json.dumps(t.get("customdata"), ensure_ascii=False)
              for t in zh["data"] if t.get("hovertemplate")]
    assert hovers and all(re.search(r"[\u4e00-\u9fff]", h) for h in hovers), hovers
    words = [re.sub(r"<sub>.*?</sub>", "", h) for h in hovers]   # a symbol's subscript (m_token) is notation
    assert not any(re.search(r"\b(tokens?|streams?|bytes?|stall|seconds?|tasks?)\b", w, re.I) for w in words), hovers


def test_static_svg_per_language_differs(tmp_path):
    from mlsysim.figures import book_figure, roofline_spec
    spec = roofline_spec()
    en, zh = book_figure(spec, tmp_path, lang="en"), book_figure(spec, tmp_path, lang="zh")
    assert en.svg_link.endswith("roofline.en.svg") and zh.svg_link.endswith("roofline.zh.svg")
    assert (tmp_path / "roofline.en.svg").read_bytes() != (tmp_path / "roofline.zh.svg").read_bytes()


def test_book_figure_is_one_markdown_display(tmp_path):
    """One output, markdown only: the plotly figure as raw HTML, then the static SVG for other formats. No
    text/html output (Quarto would load require.js and jQuery from a CDN) and no plotly loader output
    (Quarto would show it as a second sub-figure)."""
    from mlsysim.figures import book_figure, queueing_spec
    f = book_figure(queueing_spec(), tmp_path, lang="zh")
    assert not hasattr(f, "_repr_html_") and not hasattr(f, "_repr_mimebundle_")
    md = f._repr_markdown_()
    head, html, tail = md.split("\n", 2)[0], md.split("\n")[1], md.split("\n```\n", 1)[1]
    assert head == "```{=html}" and html.startswith('<div class="mlsysim-plot"') and 'lang="zh"' in html
    data = json.loads(re.search(r'<script type="application/json" class="mlsysim-plot-json">(.*?)</script>', html,
                                re.S).group(1).replace("<\\/", "</"))
    assert next(t for t in data["data"] if t["uid"] == "marks")["y"] == [kingman_wait(2.0, 1.0, r) for r in (0.5, 0.7, 0.9)]
    assert "http" not in html.replace("http://www.w3.org", "")
    assert tail == f'\n::: {{.content-hidden when-format="html"}}\n![]({(tmp_path / "queueing-knee.zh.svg").as_posix()})\n:::'


def test_a_legend_the_static_figure_leaves_out_is_placed_below_the_plot_in_html():
    """The policy map has no legend in the PDF (legend=None) but names its series and break-even lines: the
    HTML figure places that legend below the plot area, not plotly's default right of it, which squeezes the
    plot area to 64 px in a phone's column (Quarto's, 339 px at 390 px) and then covers a line."""
    from mlsysim.figures import policy_map_spec
    from mlsysim.figures.plotly_figure import plotly_json
    rows = [("in-process", 1e-4, 1e-3), ("human turn", 10.0, float("inf"))]
    layout = plotly_json(policy_map_spec(0.08, 26.0, rows, stall=3.0), "en")["layout"]
    assert layout["showlegend"]
    assert layout["legend"]["orientation"] == "h" and layout["legend"]["yref"] == "container"


def test_under_static_figures_false_a_figure_displays_the_same_and_draws_nothing(tmp_path):
    from mlsysim.figures import book_figure, queueing_spec, static_figures
    spec = queueing_spec()
    with static_figures(False):
        described = book_figure(spec, tmp_path / "out", lang="en")
    assert not (tmp_path / "out").exists()
    drawn = book_figure(spec, tmp_path / "out", lang="en")   # outside the block: drawn, as always
    assert Path(drawn.svg_link).is_file()
    assert described.svg_link == drawn.svg_link and described._repr_markdown_() == drawn._repr_markdown_()


@pytest.mark.parametrize("mathtext, plain", [
    (r"$\mathdefault{10^{2}}$", "10²"),
    (r"$\mathdefault{10^{-3}}$", "10⁻³"),
    (r"$\mathdefault{10^{15}}$", "10¹⁵"),
    (r"$\mathdefault{2\times10^{3}}$", "2×10³"),
    (r"$\mathdefault{0.5}$", "0.5"),
    ("", ""),
    (r"$\mathcal{I}$", r"$\mathcal{I}$"),   # not a tick label: left to mathtext
])
def test_log_tick_labels_are_plain_text_with_superscripts(mathtext, plain):
    from mlsysim.figures.matplotlib_figure import log_tick_text
    assert log_tick_text(mathtext) == plain


def test_a_log_axis_labels_its_decades_without_mathtext():
    """The roofline's axes are log-log: every tick label drawn is plain text (no ``$``), the decades matplotlib
    chose to label written 10ⁿ (the x axis spans 10⁻¹ to 10⁶ FLOP/byte for the H100 and 8-bit weights: 2/b = 2
    and a 32,768-token prefill at 2S/b = 65,536, widened to whole decades)."""
    fig, _ = roofline_figure(H100, L70, "fp8")
    fig.canvas.draw()
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_xticklabels() + ax.get_yticklabels() if t.get_text()]
    assert labels and not any("$" in t for t in labels)
    assert {"10⁻¹", "10⁰", "10¹", "10²", "10³", "10⁴", "10⁵", "10⁶"} <= set(labels)
