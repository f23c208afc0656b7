"""What the README (and notes/CHAPTERS.md) tells a new author to do, applied to a copy of the project: an
accelerator with its source and node, a model, a published measurement, and a chapter in both languages
with a cell, an inline value, a figure, a cross-reference and a citation.

tests/book/test_author_path.py runs ``check`` and the tests that read these files over such a copy; the suite's
expected sets come from the registry and the profiles, so nothing here edits a test.

The entries are an author's example, typed here (the MI325X as AMD's datasheet publishes it: 256 GB of
HBM3E read the JEDEC way, 6 TB/s, 1,307.4 dense bf16 TFLOP/s and 2,614.9 dense fp8); the measurement is a
scenario row well above its floor, which is all the loader asks of it.

Its names are the suite's own (``AP_MI325X``, ``AuthorPathCard``, ``lectures/author-path-card.qmd``, sources
``suite-*``), never the guide's example ones (``MI325X``, ``NewCard``, ``lecture20-new-card``), so it runs over a
project where an author followed the guide literally; the chapter goes after the last chapter the profiles
list, numbered after it (its ``number-offset`` read from that chapter), not after a lecture typed here.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: what a copy of the project leaves out: git, build products, caches, the shared environment (at the top)
_TOP = {".git", "_book", "_build", ".venv", ".pytest_cache", ".hypothesis", ".quarto", "vendor", "bench", ".ci"}
_ANYWHERE = shutil.ignore_patterns("__pycache__", "*_files", "*.quarto_ipynb")


def _ignore(folder, names):
    out = set(_ANYWHERE(folder, names))
    if Path(folder).resolve() == ROOT:
        out |= _TOP & set(names)
    elif "figures" in names and not (Path(folder) / "figures" / "__init__.py").is_file():
        out.add("figures")   # what the build wrote beside a chapter (a package's figures/ is code)
    return out


SOURCE = '''
[suite-mi325x-datasheet]
title = "AMD Instinct MI325X accelerator datasheet"
publisher = "AMD"
url = "https://www.amd.com/en/products/accelerators/instinct/mi300/mi325x.html"
note = "Dense figures; the datasheet lists sparsity figures separately at twice the dense value."
edition = "The page as served on 2026-12-01 (revised without a version number)."
accessed = "2026-12-01"
cite = "suite2026mi325x"
'''

#: the measurement's source in references.bib (README step 6: a measurement's source is cited)
BIB = '''
@misc{suite2026mi325x,
  author       = {{AMD}},
  title        = {{AMD Instinct MI325X} Accelerator Datasheet},
  year         = {2026},
  edition      = {The page as served on 2026-12-01 (revised without a version number)},
  url          = {https://www.amd.com/en/products/accelerators/instinct/mi300/mi325x.html},
  urldate      = {2026-12-01}
}
'''

ACCELERATOR = '''
[AP_MI325X]
display_name = "AMD Instinct MI325X (the suite's author example)"
vendor = "AMD"
variant = "OAM, 1000 W"
host_link = "PCIe_Gen5_x16"
memory.capacity = { value = "256 GiB", source = "suite-mi325x-datasheet", note = "HBM3E; the datasheet's '256 GB' read the JEDEC way (binary)" }
memory.bandwidth = { value = "6 TB/s", source = "suite-mi325x-datasheet" }
compute.bf16 = { dense = "1307.4 Tflop/s", sparse = "2614.8 Tflop/s", source = "suite-mi325x-datasheet" }
compute.fp16 = { dense = "1307.4 Tflop/s", sparse = "2614.8 Tflop/s", source = "suite-mi325x-datasheet" }
compute.fp8 = { dense = "2614.9 Tflop/s", sparse = "5229.8 Tflop/s", source = "suite-mi325x-datasheet" }
compute.int8 = { dense = "2614.9 Tflop/s", sparse = "5229.8 Tflop/s", source = "suite-mi325x-datasheet" }
'''

NODE = '''
[nodes.AP_MI325X_Platform]
display_name = "AMD Instinct MI325X Platform (the suite's author example)"
accelerator = "AP_MI325X"
accelerators_per_node = { value = 8, source = "suite-mi325x-datasheet" }
host_link = "PCIe_Gen5_x16"
'''

MODEL_SOURCE = '''
[suite-llama31-8b-config]
title = "meta-llama/Llama-3.1-8B: config.json and model card (8.03B params)"
publisher = "Meta"
url = "https://huggingface.co/meta-llama/Llama-3.1-8B"
edition = "The config.json and model card as served on 2026-12-01."
accessed = "2026-12-01"
'''

MODEL = '''
[AP_Llama3_1_8B]
display_name = "Llama-3.1-8B (the suite's author example)"
source = "suite-llama31-8b-config"
parameters = "8.03e9 count"
layers = 32
hidden_dim = 4096
ffn_dim = 14336
heads = 32
kv_heads = 8
head_dim = 128
vocab_size = 128256
context_length = 131072
'''

MEASUREMENT = '''
[suite-llama31-70b-mi325x8-128-2048-maxload]
source = "suite-mi325x-datasheet"
table = "an author's example row: 8 x AP_MI325X, Llama 3.1 70B, fp8, TP 8, input 128, output 2048, max num seqs 3200"
accelerator = "AP_MI325X"
count = 8
model = "Llama3_1_70B"
weight_precision = "fp8"
kv_precision = "fp8"
tensor_parallel = 8
pipeline_parallel = 1
load = "max_seqs"
streams = 3200
input_tokens = 128
output_tokens = 2048
software = "vLLM (ROCm container)"
software_version = "0.10.1"
output_throughput = "15000 token/s"
'''

#: the new chapter, as both profiles list it
NEW_CHAPTER = "lectures/author-path-card.qmd"

#: the chapter's cell file (lectures/_cells/author-path-cells.qmd): LOAD -> EXECUTE -> GUARD -> OUTPUT
CELL = '''```{python}
#| label: calc-author-path-cells
#| echo: false
from mlsysim import Hardware, check, fmt, fmt_int
from mlsysim.figures import book_figure, book_lang, roofline_spec
from mlsysim.physics import ridge_point


class AuthorPathCard:
    # ┌── 1. LOAD ──────────────────────────────────────────────────────────
    accel = Hardware.Cloud.AP_MI325X
    precision = "fp8"                   # scenario: the weights' number format
    # ┌── 2. EXECUTE ───────────────────────────────────────────────────────
    bw = accel.memory.bandwidth.to("TB/s").magnitude
    ridge = ridge_point(accel.compute.peak(precision), accel.memory.bandwidth).magnitude
    roofline = book_figure(roofline_spec(accel, None, precision), "figures", lang=book_lang())
    # ┌── 3. GUARD ─────────────────────────────────────────────────────────
    check(ridge > 100, "decode at batch one is far below the ridge", zh="批大小为一的解码远低于屋脊点")
    # ┌── 4. OUTPUT ────────────────────────────────────────────────────────
    name_str = accel.display_name
    bw_str = fmt(bw, 1)
    ridge_str = fmt_int(ridge)
```
'''

#: the names of the cell's values, in both languages, beside the cell (lectures/_cells/names.toml)
NAMES = '''
[names.AuthorPathCard]
name = { en = "the accelerator the suite example chapter reads", zh = "本章所读的加速器" }
bw = { en = "memory bandwidth of the suite example accelerator", zh = "示例加速器的内存带宽" }
ridge = { en = "ridge point of the suite example accelerator at 8-bit weights", zh = "新加速器在 8 位权重下的屋脊点" }
'''

CHAPTER_EN = '''---
jupyter: mlsysim-book
number-offset: [OFFSET]
---

# A New Card {#sec-author-path}

{{< include _cells/author-path-cells.qmd >}}

The `{python} AuthorPathCard.name_str` reads its memory at `{python} AuthorPathCard.bw_str` TB/s, so its ridge point is `{python} AuthorPathCard.ridge_str` FLOP/byte [@williams2009]. The appendix derives the ridge point in @sec-vol3-appendix-inference-roofline, and @fig-author-path-roofline draws this card's roof.

```{python}
#| label: fig-author-path-roofline
#| fig-cap: "**The New Card's Roofline**: Attainable operations per second against arithmetic intensity."
#| fig-alt: "A log-log roofline rising to the ridge point, then flat at the peak rate."
AuthorPathCard.roofline
```
'''

CHAPTER_ZH = '''---
jupyter: mlsysim-book
number-offset: [OFFSET]
---

# 一张新卡 {#sec-author-path}

{{< include _cells/author-path-cells.qmd >}}

`{python} AuthorPathCard.name_str` 的内存带宽为 `{python} AuthorPathCard.bw_str` TB/s，其屋脊点为 `{python} AuthorPathCard.ridge_str` FLOP/字节 [@williams2009]。附录在 @sec-vol3-appendix-inference-roofline 中推导屋脊点，@fig-author-path-roofline 画出这张卡的屋顶线。

```{python}
#| label: fig-author-path-roofline
#| fig-cap: "**新卡的屋顶线**：可达到的每秒运算次数与算术强度的关系。"
#| fig-alt: "一条对数坐标的屋顶线，上升到屋脊点后在峰值速率处变平。"
AuthorPathCard.roofline
```
'''


def _append(path: Path, text: str) -> None:
    """``text`` at the end of ``path``, once: a project the author path already ran over is left as it is."""
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    if text.strip() in old:
        return
    path.write_text((old.rstrip("\n") + "\n" if old else "") + text, encoding="utf-8")


def _after(path: Path, anchor: str, line: str) -> None:
    """``line`` after the line ``anchor``, once."""
    text = path.read_text(encoding="utf-8")
    assert anchor in text, (path, anchor)
    if line in text.splitlines():
        return
    path.write_text(text.replace(anchor, anchor + "\n" + line, 1), encoding="utf-8")


def project_copy(dest: Path) -> Path:
    """The project's sources and tests, copied to ``dest`` (no build products, no git)."""
    shutil.copytree(ROOT, dest, ignore=_ignore)
    return dest


def add_registry_entries(root: Path) -> None:
    """README, "Add an accelerator or a model": the source, the accelerator, its node, a model, a measurement.
    Idempotent: over a project that already holds them (the README's steps committed), nothing changes."""
    data = root / "mlsysim" / "data"
    _append(data / "sources.toml", SOURCE + MODEL_SOURCE)
    _append(data / "accelerators.toml", ACCELERATOR)
    _append(data / "systems.toml", NODE)
    _append(data / "models.toml", MODEL)
    _append(data / "measurements.toml", MEASUREMENT)
    _append(root / "references.bib", BIB)


def add_chapter(root: Path, python: str = sys.executable) -> None:
    """notes/CHAPTERS.md: the chapter in both languages, its cell and names, listed in both profiles, the
    translation stamped with ``python -m bookbuild translated``. Idempotent, as ``add_registry_entries``."""
    cells = root / "lectures" / "_cells"
    (cells / "author-path-cells.qmd").write_text(CELL, encoding="utf-8")
    _append(cells / "names.toml", NAMES)
    last = {lang: last_chapter(root, lang) for lang in ("en", "zh")}
    offset = str(number_of(root, last["en"]))
    (root / "lectures" / "author-path-card.qmd").write_text(CHAPTER_EN.replace("OFFSET", offset), encoding="utf-8")
    (root / "lectures" / "author-path-card.zh.qmd").write_text(CHAPTER_ZH.replace("OFFSET", offset), encoding="utf-8")
    _after(root / "_quarto-en.yml", f"    - {last['en']}", f"    - {NEW_CHAPTER}")
    _after(root / "_quarto-zh.yml", f"    - {last['zh']}", "    - " + NEW_CHAPTER.replace(".qmd", ".zh.qmd"))
    bookbuild(root, "translated", "lectures/author-path-card.zh.qmd", "--source", "lectures/author-path-card.qmd",
              python=python)


def env(root: Path) -> dict:
    import os
    # the copy's own: not this checkout's data or path, nor the pytest worker this test runs in
    e = {k: v for k, v in os.environ.items()
         if k not in ("MLSYSIM_DATA_DIR", "PYTHONPATH") and not k.startswith("PYTEST_")}
    e["PYTHONPATH"] = str(root)
    return e


def bookbuild(root: Path, *args: str, python: str = sys.executable, check: bool = True, timeout: float = 900):
    r = subprocess.run([python, "-m", "bookbuild", *args, "--root", str(root)], cwd=root, env=env(root),
                       capture_output=True, text=True, timeout=timeout)
    if check:
        assert r.returncode == 0, f"bookbuild {' '.join(args)}:\n{r.stdout}\n{r.stderr}"
    return r


def project_copy_of(src: Path, dest: Path) -> Path:
    """A copy of another copy (its build products left out)."""
    shutil.copytree(src, dest, ignore=shutil.ignore_patterns("_build", "_book", "__pycache__"))
    return dest


def chapters(root: Path, lang: str) -> list[str]:
    """The chapters ``_quarto-<lang>.yml`` lists, in order."""
    import yaml
    book = yaml.safe_load((root / f"_quarto-{lang}.yml").read_text(encoding="utf-8"))["book"]
    return list(book.get("chapters") or []) + list(book.get("appendices") or [])


def last_chapter(root: Path, lang: str) -> str:
    """The last chapter before the appendices that ``_quarto-<lang>.yml`` lists, this path's own left out."""
    import yaml
    book = yaml.safe_load((root / f"_quarto-{lang}.yml").read_text(encoding="utf-8"))["book"]
    own = {NEW_CHAPTER, NEW_CHAPTER.replace(".qmd", ".zh.qmd")}
    return [c for c in book.get("chapters") or [] if c not in own][-1]


def number_of(root: Path, chapter: str) -> int:
    """A chapter's number as its front matter declares it (``number-offset: [N]`` numbers it N + 1), else its
    place among the profile's numbered chapters (the preface, ``index``, has none)."""
    from bookbuild.source import front_matter_of
    off = front_matter_of((root / chapter).read_text(encoding="utf-8"), chapter).get("number-offset")
    if isinstance(off, list) and off and isinstance(off[0], int):
        return off[0] + 1
    return [c for c in chapters(root, "en") if not c.startswith("index")].index(chapter) + 1
