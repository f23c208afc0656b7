"""The reader's scripts say what bookbuild/book/ui/<lang>.toml says: every key a script reads is in every
language's file, every key of a file is read, a template names the same values in every language, and
the strings reach the page in its data script (a language without a file reads English)."""
from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest

from sourcegraph import nodes_of

from bookbuild.book import reader
from bookbuild.render.strings import strings

ROOT = Path(__file__).resolve().parents[2]
UI = ROOT / "bookbuild" / "book" / "ui"
ASSETS = ROOT / "bookbuild" / "book" / "assets"
#: each script and the table of the strings file it reads
SCRIPTS = {"reader": ASSETS / "reader.js", "live": ASSETS / "live.js"}
#: the plural categories of CLDR (Intl.PluralRules): a key read with N("x", n) is x_<category>
CATEGORIES = {"zero", "one", "two", "few", "many", "other"}
#: the categories each language's numbers take (CLDR, integers): every one must have its form
NEEDED = {"en": {"one", "other"}, "zh": {"other"}}
LANGS = sorted(p.stem for p in UI.glob("*.toml"))


def table(lang: str, script: str) -> dict:
    return tomllib.loads((UI / f"{lang}.toml").read_text(encoding="utf-8"))[script]


def read_keys(script: str) -> tuple[set[str], set[str]]:
    """(keys read with T("key"), keys read as plurals with N("key", n)) in the script's source."""
    src = re.sub(r"/\*.*?\*/", "", SCRIPTS[script].read_text(encoding="utf-8"), flags=re.S)   # the comments
    dynamic = [m.group(0) for m in re.finditer(r"(?<![\w.])[TN]\(\s*(?!\")[^)]", src)]
    assert not dynamic, f"{script}: a key that is not a literal cannot be checked: {dynamic}"
    keys = set(re.findall(r'(?<![\w.])T\(\s*"(\w+)"', src))
    plural = set(re.findall(r'(?<![\w.])N\(\s*"(\w+)"', src))
    return keys, plural


def strings_of(tab: dict) -> dict[str, str]:
    return {k: v for k, v in tab.items() if isinstance(v, str)}


def test_the_languages():
    assert LANGS == ["en", "zh"] and set(NEEDED) == set(LANGS)


@pytest.mark.parametrize("script", sorted(SCRIPTS))
@pytest.mark.parametrize("lang", LANGS)
def test_every_key_read_is_in_every_file_and_every_key_is_read(script, lang):
    keys, plural = read_keys(script)
    assert keys and not keys & plural
    have = strings_of(table(lang, script))
    missing = sorted(k for k in keys if k not in have)
    missing += sorted(f"{b}_{c}" for b in plural for c in NEEDED[lang] if f"{b}_{c}" not in have)
    assert not missing, f"{lang}.toml [{script}] lacks {missing}"
    unread = sorted(k for k in have if k not in keys and not (k.rsplit("_", 1)[0] in plural
                                                               and k.rsplit("_", 1)[-1] in CATEGORIES))
    assert not unread, f"{lang}.toml [{script}] has keys no script reads: {unread}"
    forms = sorted(k for k in have if k.rsplit("_", 1)[0] in plural and k.rsplit("_", 1)[-1] not in NEEDED[lang])
    assert not forms, f"{lang}.toml [{script}]: plural forms the language does not use: {forms}"


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_a_template_names_the_same_values_in_every_language(script):
    def names(s: str) -> set[str]:
        return set(re.findall(r"\{(\w+)\}", s))

    def base(k: str) -> str:
        return k.rsplit("_", 1)[0] if k.rsplit("_", 1)[-1] in CATEGORIES else k

    per_lang = {lang: {} for lang in LANGS}
    for lang in LANGS:
        for k, v in strings_of(table(lang, script)).items():
            per_lang[lang].setdefault(base(k), set()).update(names(v))
    assert all(per_lang[lang] == per_lang["en"] for lang in LANGS), per_lang


def test_the_unit_words_are_the_units_of_the_live_inputs():
    """live.js says a live input's unit through [live.units] where it is a word (GB, TB/s are shown as
    written): the same units in every language, each one a unit some input has."""
    import mlsysim.scenario as S
    units = {f.unit for f in S.FREE.values()}
    words = {u for u in units if re.fullmatch(r"[a-z]+", u)}
    for lang in LANGS:
        assert set(table(lang, "live")["units"]) == words, lang
    assert "units" in SCRIPTS["live"].read_text(encoding="utf-8")


def test_a_language_without_a_file_reads_english():
    assert reader.page_strings("fr", live=True) == reader.page_strings("en", live=True)
    assert reader.page_strings("zh-CN", live=False) == {"reader": table("zh", "reader")}
    assert strings(reader.UI, "en")["reader"]["legend"] == "Hardware for this page"


def test_the_page_carries_its_scripts_strings():
    """The data script holds reader.js's strings, and live.js's where the page has live mode."""
    md = "A value [1]{.mlsysim-v data-attr=\"X.a_str\"}.\n"
    prov = {"X.a_str": {"attr": "X.a_str", "expr": "1", "steps": [], "inputs": []}}
    plain = reader.additions("zh", [("appendix/a.qmd", md, prov, None)])
    live = {"runtime": {"unavailable": "vendor", "version": "none", "assets": {}},
            "pages": {"appendix/a.qmd": {"cells": [], "chapter": "a"}}}
    with_live = reader.additions("zh", [("appendix/a.qmd", md, prov, None)], live)

    def data(add) -> dict:
        text = add.pages["appendix/a.html"].files["appendix/a.data.js"]
        return json.loads(re.sub(r"^window\.MLSYSIM_PAGE = |;\s*$", "", text))

    assert data(plain)["ui"] == {"reader": table("zh", "reader")}
    assert data(with_live)["ui"] == {"reader": table("zh", "reader"), "live": table("zh", "live")}


# ─────────── why an input or a choice is not computed: the library's codes, worded in every language ───────────

def _codes_raised() -> dict[str, set[str]]:
    """Every code mlsysim gives an error (``code="..."`` at a raise, or a ``range_why`` dict), with the values
    it names, read from the library's source."""
    import ast
    out: dict[str, set[str]] = {}
    for path in sorted((ROOT / "mlsysim").rglob("*.py")):
        for node in nodes_of(path):
            if isinstance(node, ast.Call):
                kw = {k.arg: k.value for k in node.keywords if k.arg}
                code = kw.get("code")
                if isinstance(code, ast.Constant) and isinstance(code.value, str):
                    out.setdefault(code.value, set()).update(k for k in kw if k != "code")
    # Free.range_why returns its dicts (dict(code=..., ...)): the same reading covers them
    return out


def test_every_error_a_reader_can_meet_carries_its_meaning():
    """An error a reader's input or choice can raise (InputError, DoesNotFitError, NotOfferedError) says
    what it means (a code), so the page can word it in its language: a raise without one is found here."""
    import ast
    bare = []
    for path in sorted((ROOT / "mlsysim").rglob("*.py")):
        for node in nodes_of(path):
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
                name = getattr(node.exc.func, "id", getattr(node.exc.func, "attr", ""))
                if name in ("InputError", "DoesNotFitError", "NotOfferedError"):
                    if not any(k.arg in ("code", None) for k in node.exc.keywords):
                        bare.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert bare == []


@pytest.mark.parametrize("lang", LANGS)
def test_every_code_is_worded_in_every_language_with_the_values_it_has(lang):
    codes = _codes_raised()
    assert {"out_of_range", "not_one_of", "does_not_fit", "past_window", "budget_too_small"} <= set(codes)
    why = table(lang, "reader")["why"]
    assert sorted(why) == sorted(codes), f"{lang}.toml [reader.why] against the codes mlsysim raises"
    page_words = {"input", "unit"}   # what live.js words itself (the input's label and unit)
    for code, template in why.items():
        named = set(re.findall(r"\{(\w+)\}", template))
        assert named <= codes[code] | page_words, (lang, code, named - codes[code] - page_words)


def test_the_range_codes_name_the_ranges_values():
    """range_why builds its dict by name (not at a raise): its codes and values, by hand."""
    import mlsysim.scenario as S
    f = S.FREE["bandwidth"]
    assert f.range_why("-1") == {"code": "out_of_range", "key": "bandwidth", "low": "0.01", "high": "100",
                                 "unit": "TB/s", "got": "-1"}
    g = next(x for x in S.FREE.values() if x.allowed)
    assert g.range_why(3)["code"] == "not_one_of" and g.range_why(3)["got"] == "3"
