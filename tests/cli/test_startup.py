"""`mmdocsum --help` lists every command without importing what the commands run (issue 34): the parser
lists the commands from cli.COMMANDS and imports only the one being run."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from mmdocsum_desktop.cli import COMMANDS, build_parser, command_named
from tests.conftest import REPO_ROOT

HEAVY = ("fitz", "pymupdf", "onnxruntime")

# `python -m mmdocsum_desktop ARGS`, as the console script runs it, then which of HEAVY were imported
# (printed when the interpreter exits, after the command's own exit).
PROBE = r"""
import atexit, json, runpy, sys
atexit.register(lambda: print("LOADED " + json.dumps(sorted(m for m in HEAVY if m in sys.modules))))
runpy.run_module("mmdocsum_desktop", run_name="__main__", alter_sys=True)
""".replace("HEAVY", repr(HEAVY))


def run_probe(*arguments: str, env: dict[str, str]) -> tuple[int, str, list[str]]:
    result = subprocess.run([sys.executable, "-c", PROBE, *arguments], capture_output=True, text=True,
                            timeout=120, env={**env, "PYTHONPATH": str(REPO_ROOT)}, cwd=REPO_ROOT)
    lines = [line for line in result.stdout.splitlines() if line.startswith("LOADED ")]
    assert len(lines) == 1, result.stdout[-2000:] + result.stderr[-2000:]
    return result.returncode, result.stdout, json.loads(lines[0].removeprefix("LOADED "))


def test_help_lists_every_command_without_loading_pymupdf_or_onnxruntime(env):
    code, out, loaded = run_probe("--help", env=env)
    assert code == 0
    assert loaded == []
    for name, help_line in COMMANDS.items():
        assert name in out
        assert help_line.split()[0] in out


def test_a_commands_own_help_still_comes_from_its_module(env):
    code, out, loaded = run_probe("doctor", "--help", env=env)
    assert code == 0
    assert "--no-model-trial" in out  # an option only cli/doctor.py's parser knows
    assert loaded == []


@pytest.mark.parametrize("name", list(COMMANDS))
def test_each_commands_line_in_the_table_is_the_one_its_module_registers(name):
    # the top-level help is the same whether NAME's full parser (its module's register) or only its
    # line in COMMANDS built its entry
    listed_only = build_parser([]).format_help()
    assert build_parser([name]).format_help() == listed_only
    assert build_parser().format_help() == listed_only


def test_the_command_is_the_first_word_that_is_not_an_option():
    assert command_named(["--debug", "summarize", "paper.pdf", "-o", "extract"]) == "summarize"
    assert command_named(["ask", "paper.pdf", "what is doctor?"]) == "ask"
    assert command_named(["--help"]) is None
    assert command_named(["sumarize", "paper.pdf"]) is None  # a misspelt command: argparse says so


def test_a_misspelt_command_is_refused_with_the_list_of_commands(cli, capsys):
    with pytest.raises(SystemExit) as exited:
        cli("sumarize", "paper.pdf")
    assert exited.value.code == 2
    assert "invalid choice: 'sumarize' (choose from " + ", ".join(map(repr, COMMANDS)) + ")" in capsys.readouterr().err
