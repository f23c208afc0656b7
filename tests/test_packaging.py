"""pyproject.toml and environment.yml name the same dependencies; the README opens with the two commands."""
import re
import tomllib

import yaml

from conftest import ROOT


def _name(spec: str) -> str:
    return re.split(r"[<>=!~ \[]", spec.strip(), maxsplit=1)[0].lower().replace("_", "-")


def test_pyproject_and_environment_list_the_same_packages():
    py = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = {_name(d) for d in py["dependencies"]}
    for extra in py["optional-dependencies"].values():
        wanted |= {_name(d) for d in extra}
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    have = set()
    for dep in env["dependencies"]:
        if isinstance(dep, dict):
            have |= {_name(d) for d in dep["pip"] if not d.startswith("-e")}
        elif not dep.startswith(("python", "pip")):
            have.add(_name(dep))
    assert wanted == have, f"only in pyproject: {wanted - have}; only in environment.yml: {have - wanted}"


def test_readme_opens_with_the_build_and_test_commands():
    text = (ROOT / "README.md").read_text()
    first_block = text.split("```bash", 1)[1].split("```", 1)[0]
    assert "bash scripts/build.sh" in first_block and "bash scripts/test.sh" in first_block
    assert "scripts/test.sh" in (ROOT / ".ci" / "run").read_text()


def test_every_package_of_the_project_is_installed():
    """A package left out of pyproject.toml would be missing from a non-editable install."""
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {p.parent.relative_to(ROOT).as_posix().replace("/", ".")
             for top in ("bookbuild", "mlsysim") for p in (ROOT / top).rglob("__init__.py")}
    assert found == listed, f"not listed: {found - listed}; listed but absent: {listed - found}"


#: the import names of the test extra's packages (pyproject.toml: [project.optional-dependencies] test)
TEST_ONLY = {"pytest": "pytest", "pytest-xdist": "xdist", "hypothesis": "hypothesis", "beautifulsoup4": "bs4",
             "playwright": "playwright"}
#: the one place that may: check-pages drives Chromium through playwright, and says so in one line without it
DRIVES_A_BROWSER = {"bookbuild/pagecheck/browser.py: playwright.sync_api"}


def test_the_library_and_the_engine_import_nothing_only_the_test_extra_installs():
    """`pip install .[book]` must build the book: no module of mlsysim or bookbuild may import a package that
    only the test extra brings (the engine once read its pages' outlines with BeautifulSoup), except the
    page check's browser driver."""
    import ast
    extra = {_name(d) for d in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]["test"]}
    assert extra == set(TEST_ONLY), "name the import of each test-only package in TEST_ONLY"
    bad = []
    for top in ("bookbuild", "mlsysim"):
        for p in sorted((ROOT / top).rglob("*.py")):
            for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                        [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
                bad += [f"{p.relative_to(ROOT)}: {n}" for n in names if n.split(".")[0] in TEST_ONLY.values()]
    assert set(bad) == DRIVES_A_BROWSER, bad
