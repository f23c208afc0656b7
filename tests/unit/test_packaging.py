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

