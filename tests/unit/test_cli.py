"""bookbuild's command line (bookbuild/cli.py): one parser, a subcommand per command; a bad option is one
line naming the command and the option, exit status 2; each command's run is importable."""
import contextlib
import importlib
import io

import pytest

from bookbuild.cli import COMMANDS, parse, parser

EXPECTED = {"check", "render", "preview", "diff", "facts", "compare-render", "translated", "check-pages"}


def refused(argv: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), pytest.raises(SystemExit) as e:
        parse(argv)
    return e.value.code, err.getvalue()


def test_every_command_is_a_subcommand_and_its_run_exists():
    assert set(COMMANDS) == EXPECTED
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        parser().parse_args(["--help"])
    listed = {line.split()[0] for line in out.getvalue().splitlines() if line.startswith("    ") and line.split()}
    assert EXPECTED <= listed, listed
    for name, (_, _, _, target) in COMMANDS.items():
        module, function = target.split(":")
        assert callable(getattr(importlib.import_module(module), function)), target


@pytest.mark.parametrize("argv, line", [
    (["check", "--jobs", "1e3"], "python -m bookbuild check: error: argument --jobs: expected a whole number of processes, got '1e3'"),
    (["render", "--formats", "pdf,docx"], "python -m bookbuild render: error: argument --formats: takes html, pdf, epub separated by commas, not 'pdf,docx'"),
    (["preview", "--port", "http"], "python -m bookbuild preview: error: argument --port: expected a port number, got 'http'"),
    (["diff", "--output=/tmp/x"], "python -m bookbuild diff: error: unrecognized arguments: --output=/tmp/x"),
    (["translated"], "python -m bookbuild translated: error: the following arguments are required: file"),
    (["check-pages", "--bogus"], "python -m bookbuild check-pages: error: unrecognized arguments: --bogus"),
    (["nonsense"], "python -m bookbuild: error: argument COMMAND: invalid choice: 'nonsense' (choose from "
                   "'check', 'render', 'preview', 'diff', 'facts', 'compare-render', 'translated', 'check-pages')"),
    ([], "python -m bookbuild: error: the following arguments are required: COMMAND"),
])
def test_a_bad_command_line_is_one_line_naming_the_command_with_status_2(argv, line):
    code, err = refused(argv)
    assert code == 2 and err == line + "\n"


def test_a_profile_the_project_does_not_have_is_refused_after_parsing(tmp_path):
    (tmp_path / "_quarto.yml").write_text("project:\n  type: book\nbook:\n  chapters: [index.qmd]\n", encoding="utf-8")
    (tmp_path / "_quarto-en.yml").write_text("lang: en\n", encoding="utf-8")
    code, err = refused(["check", "--root", str(tmp_path), "--profile", "fr"])
    assert code == 2 and err == "python -m bookbuild check: error: argument --profile: unknown profile 'fr'; choose from all, en\n"
    args, run = parse(["render", "--root", str(tmp_path), "--profile", "en"])
    assert (args.command, args.root, run.__name__) == ("render", tmp_path.resolve(), "run_render")
