"""Every source that points at a page which changes names the edition the book read, and the rendered
reference list prints it.

A benchmark page replaced with every release, a vendor product page, a model card or an arXiv listing
that gains versions is a changing page. mlsysim/data/sources.toml names the edition of each source in its
``edition`` field (required); references.bib names it in a field the reference list prints (``edition``), or in a
versioned identifier (arXiv ``...vN``). URLs are ``url`` fields, never ``howpublished`` (which the
reference list capitalises as a sentence: "Https://").
"""
from __future__ import annotations

import re
import subprocess
import tomllib

import pytest

from parity import ROOT


def _bib_entries() -> dict[str, dict[str, str]]:
    text = (ROOT / "references.bib").read_text(encoding="utf-8")
    out = {}
    for m in re.finditer(r"@(\w+)\{([^,]+),(.*?)\n\}", text, re.S):
        fields = dict((k.lower(), v.strip()) for k, v in re.findall(r"^\s*(\w+)\s*=\s*\{(.*)\},?\s*$", m.group(3), re.M))
        out[m.group(2).strip()] = {"type": m.group(1).lower(), **fields}
    return out


BIB = _bib_entries()


def test_the_bibliography_was_read():
    assert {"nvidia2025nimbench", "nvidia2025trtllmperf", "amd2025rocmperf", "sui2026paste"} <= set(BIB)


@pytest.mark.parametrize("key", sorted(BIB))
def test_no_url_in_howpublished(key):
    assert "http" not in BIB[key].get("howpublished", "").lower(), key


@pytest.mark.parametrize("key", sorted(k for k, e in BIB.items() if e.get("archiveprefix") == "arXiv"))
def test_a_preprint_names_its_version(key):
    assert re.fullmatch(r"\d{4}\.\d{4,5}v\d+", BIB[key]["eprint"]), BIB[key]["eprint"]


@pytest.mark.parametrize("key", sorted(k for k, e in BIB.items()
                                       if e["type"] == "misc" and "url" in e and "archiveprefix" not in e))
def test_a_web_source_names_its_edition(key):
    assert BIB[key].get("edition"), key


def test_the_pinned_editions_are_the_registry_s():
    """The bibliography and sources.toml pin the same editions (the commit, the container tag)."""
    sources = tomllib.loads((ROOT / "mlsysim" / "data" / "sources.toml").read_text(encoding="utf-8"))
    trt = sources["nvidia-trtllm-perf-overview"]
    assert BIB["nvidia2025trtllmperf"]["url"] == trt["url"]
    assert "00f37686aa854010d68bcbd0f4ab000221541ca6" in BIB["nvidia2025trtllmperf"]["edition"]
    assert "rocm6.4.1\\_vllm\\_0.10.1\\_20250909" in BIB["amd2025rocmperf"]["edition"]
    assert BIB["amd2025rocmperf"]["url"] == sources["amd-rocm-performance-results"]["url"]
    assert "NIM 1.8.0" in BIB["nvidia2025nimbench"]["edition"]
    assert BIB["sui2026paste"]["eprint"] == "2603.18897v2"   # the version whose title and 43.5 % the book quotes


def test_every_registry_source_names_its_edition():
    from mlsysim.registry import REGISTRY
    listed = tomllib.loads((ROOT / "mlsysim" / "data" / "sources.toml").read_text(encoding="utf-8"))
    assert sorted(REGISTRY.sources) == sorted(listed) and len(listed) >= 32   # every source the file lists, loaded
    missing = [k for k, s in REGISTRY.sources.items() if not s.edition.strip()]
    assert not missing, missing
    assert REGISTRY.sources["nvidia-trtllm-perf-overview"].edition.startswith(
        "Release 1.0, the file at commit 00f37686aa854010d68bcbd0f4ab000221541ca6")
    assert not [k for k, s in REGISTRY.sources.items() if "Edition:" in s.note]   # in its field, not the note


#: what pins an edition: a commit, a container tag, a release, a date
PINS = re.compile(r"\b[0-9a-f]{40}\b|rocm[\w.]+_\d{8}|NIM \d+\.\d+\.\d+|\d{4}-\d{2}-\d{2}|\d{1,2} [A-Z][a-z]+ \d{4}")


def test_a_cited_source_s_edition_is_the_one_the_reference_list_prints():
    """Each pin of a registry source's edition (its first clause: later clauses may name other editions)
    is in the edition its bibliography entry prints."""
    from mlsysim.registry import REGISTRY
    from mlsysim.measurements import MEASUREMENTS
    cited = {k: s for k, s in REGISTRY.sources.items() if s.cite}
    # every measurement's source is cited (the calibration table), the four the seeds' rows read among them
    assert {m.source.key for m in MEASUREMENTS.values()} <= set(cited)
    assert {"amd2025rocmperf", "nvidia2025nimbench", "nvidia2025trtllmperf", "oracle2024mi300x"} <= {
        s.cite for s in cited.values()}
    for key, s in cited.items():
        pins = PINS.findall(s.edition.split(";")[0])
        assert pins, key
        printed = BIB[s.cite]["edition"].replace("\\_", "_")
        assert [p for p in pins if p not in printed] == [], (key, pins, printed)
    assert PINS.findall(REGISTRY.sources["amd-rocm-performance-results"].edition.split(";")[0]) == [
        "rocm6.4.1_vllm_0.10.1_20250909", "9 September 2025", "2026-11-30"]


def _citeproc(md: str, lang: str) -> str:
    """pandoc's citeproc as the build runs it for the book of ``lang``: that profile's citation style."""
    import os
    import pypandoc   # the build's pandoc (pip package pypandoc-binary), unless PANDOC names another
    from bookbuild.project import load_book
    pandoc = os.environ.get("PANDOC") or pypandoc.get_pandoc_path()
    book = load_book(ROOT, lang)
    assert book.csl is not None, f"the {lang} book names no citation style, so each renderer would pick its own"
    locale = {"en": "en-US", "zh": "zh-CN"}[lang]
    return subprocess.run([pandoc, "--citeproc", "--bibliography", str(ROOT / "references.bib"),
                           "--csl", str(ROOT / book.csl), "-M", f"lang={locale}", "-t", "plain", "--wrap=none"],
                          input=md.encode(), capture_output=True, check=True).stdout.decode()


def test_the_rendered_reference_list_prints_the_editions_in_lowercase_urls():
    """Every entry through citeproc, in both books' styles."""
    md = '---\nnocite: "@*"\n---\n'
    for lang in ("en", "zh"):
        out = _citeproc(md, lang)
        assert "Https://" not in out and "https://github.com/NVIDIA/TensorRT-LLM/blob/00f37686" in out
        assert "rocm6.4.1_vllm_0.10.1_20250909" in out and "NIM 1.8.0" in out
        assert "2603.18897v2" in out
        assert not re.search(r"\d{4}年?[a-z][.,]", out), "two entries collide and need a disambiguating letter"


def test_each_book_cites_in_its_chosen_style():
    """The English book in Chicago author-date (18th edition: et al. from three authors on), the Chinese book
    in GB/T 7714-2015 author-date (等 and a comma before the year; the reference list leads with the authors'
    family names in capitals, then the year, and marks the type, [J/OL] for an online journal article).
    Williams, Waterman and Patterson's Roofline paper is the example: three authors, 2009, CACM 52(4)."""
    en = _citeproc("[@williams2009]\n", "en")
    assert en.startswith("(Williams et al. 2009)"), en
    zh = _citeproc("[@williams2009]\n", "zh")
    assert zh.startswith("（Williams 等，2009）"), zh   # full-width brackets and comma (notes/glossary.toml [typography])
    assert "WILLIAMS S, WATERMAN A, PATTERSON D, 2009. Roofline" in zh and "[J/OL]" in zh, zh


@pytest.mark.parametrize("key", sorted(k for k, e in BIB.items() if "series" in e))
def test_a_series_name_keeps_its_capitals(key):
    """A style that sentence-cases a series printed "Proceedings of machine learning research": braced, it
    keeps the publisher's capitals in both reference lists."""
    assert BIB[key]["series"].startswith("{") and BIB[key]["series"].endswith("}"), BIB[key]["series"]


@pytest.mark.parametrize("key", ["erlang1909telephone", "erlang1917solution"])
def test_a_danish_title_is_not_recased(key):
    """Title case would print the Danish "og" as "Og": the title is braced whole."""
    title = BIB[key]["title"]
    assert title.startswith("{") and title.endswith("}"), title


@pytest.mark.parametrize("chapter", ["appendix/inference-cost.qmd", "appendix/inference-cost.zh.qmd"])
def test_erlang_c_is_cited_to_the_1917_paper(chapter):
    """Erlang C is in Erlang's 1917 paper; the 1909 one (the original notes' citation) derives the Poisson law
    and is cited only in the instructor note that says so."""
    text = (ROOT / chapter).read_text(encoding="utf-8")
    assert re.search(r"Erlang C (?:formula |公式 )\[@erlang1917solution\]", text)
    note = re.search(r"::: \{\.callout-note title=\"(?:Instructor notes: the Erlang C citation|教师备注：Erlang C 公式的出处)\"\}"
                     r"(.*?)\n:::", text, re.S)
    assert note and "@erlang1909telephone" in note.group(1) and "@erlang1917solution" in note.group(1)
    assert text.count("@erlang1909telephone") == 1


@pytest.mark.parametrize("chapter", ["lectures/lecture19-agent-stalls.qmd", "lectures/lecture19-agent-stalls.zh.qmd"])
@pytest.mark.parametrize("name, key", [("Continuum", "li2025continuum"), ("Autellix", "luo2025autellix"),
                                       ("Parrot", "lin2024parrot"), ("PASTE", "sui2026paste"),
                                       ("InferCept", "abhyankar2024infercept"), ("Firecracker", "agache2020firecracker")])
def test_a_system_the_lecture_names_is_cited(chapter, name, key):
    text = (ROOT / chapter).read_text(encoding="utf-8")
    assert name in text and f"@{key}" in text and key in BIB, (name, key)
