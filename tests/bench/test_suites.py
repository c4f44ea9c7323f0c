"""The suites table: every suite registered once, with its command-line options, independent modules."""

from __future__ import annotations

import importlib

from mmdocsum_desktop.bench.suites import SUITES
from mmdocsum_desktop.cli import build_parser
from mmdocsum_desktop.cli.bench import SUITE_OPTIONS


def test_every_suite_has_its_options_and_nothing_else_does():
    assert set(SUITE_OPTIONS) == set(SUITES)


def test_each_entry_is_its_module_and_writes_its_own_suite_name():
    for name, suite in SUITES.items():
        module = importlib.import_module(f"mmdocsum_desktop.bench.suites.{name}")
        assert suite.name == name and module.SUITE == name
        assert suite.run.__module__ == module.__name__


def test_the_command_line_offers_every_suite_with_the_tables_help(capsys):
    parser = build_parser()
    for name, suite in SUITES.items():
        try:
            parser.parse_args(["bench", name, "--help"])
        except SystemExit as done:
            assert done.code == 0
        shown = " ".join(capsys.readouterr().out.split())
        assert " ".join(suite.description.split())[:60] in shown, name
