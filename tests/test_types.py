"""The type checker, as configured in pyproject.toml's [tool.mypy]: the whole package under ``strict``, the
application layer, the schemas, the command line and the benchmarks with no relaxation, the other modules
with the relaxations listed there. One command, the one a developer runs: ``mypy``. A use case or schema
field whose type is lost (an untyped parameter, an ``Any`` returned as a str) fails here."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.slow

# the packages every front end and benchmark goes through: strict, never relaxed
STRICT_PACKAGES = ("mmdocsum_desktop.app", "mmdocsum_desktop.schemas", "mmdocsum_desktop.cli", "mmdocsum_desktop.bench")


def mypy_config() -> dict:
    return tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]


def test_the_package_type_checks_with_the_projects_mypy_config(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "mypy-cache")],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=900,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "Success" in result.stdout


def test_strict_is_on_and_no_relaxation_touches_the_strict_packages():
    config = mypy_config()
    assert config["strict"] is True and config["files"] == ["mmdocsum_desktop"]
    for override in config.get("overrides", []):
        modules = override["module"] if isinstance(override["module"], list) else [override["module"]]
        for module in modules:
            assert not module.startswith(STRICT_PACKAGES), f"{module} is in a strict package"


# what mypy reports, under strict, where a module needs each relaxation: (error code, start of the message)
RELAXATION_ERRORS = {
    "disallow_untyped_defs": (("no-untyped-def", ""),),
    "disallow_incomplete_defs": (("no-untyped-def", ""),),  # a partly annotated definition: see _partly_annotated
    "disallow_any_generics": (("type-arg", ""),),
    "warn_return_any": (("no-any-return", ""),),
    "disallow_untyped_calls": (("no-untyped-call", ""),),
    "disallow_subclassing_any": (("misc", "Class cannot subclass"),),
    "disallow_untyped_decorators": (("untyped-decorator", ""), ("misc", "Untyped decorator")),
    "warn_unused_ignores": (("unused-ignore", ""),),
    "implicit_reexport": (("attr-defined", "Module"), ("attr-defined", "module")),
}
_MYPY_ERROR = re.compile(r"^(?P<path>[^:\s]+\.py):(?P<line>\d+)(?::\d+)?: error: (?P<message>.*?)\s+\[(?P<code>[a-z-]+)\]$")


def _own_relaxations(config: dict) -> list[tuple[str, str]]:
    """(module, flag) for every relaxation an override gives a module of the package."""
    listed = []
    for override in config.get("overrides", []):
        modules = override["module"] if isinstance(override["module"], list) else [override["module"]]
        for module in modules:
            if module.startswith("mmdocsum_desktop"):
                listed += [(module, flag) for flag in override if flag != "module"]
    return listed


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value)  # strings and lists of strings: JSON is TOML here


def _partly_annotated(path: Path, line: int) -> bool:
    """Whether the definition mypy reports at ``line`` has some annotation (then it is an incomplete
    definition, which only disallow_incomplete_defs = false lets through beside untyped ones)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                min([node.lineno, *(d.lineno for d in node.decorator_list)]) <= line <= node.lineno:
            arguments = node.args
            parameters = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                          *(a for a in (arguments.vararg, arguments.kwarg) if a is not None)]
            return node.returns is not None or any(p.annotation is not None for p in parameters)
    return True  # not a def mypy and ast agree on: counted as partly annotated


def test_every_relaxation_is_per_module_and_per_flag():
    for override in mypy_config().get("overrides", []):
        modules = override["module"] if isinstance(override["module"], list) else [override["module"]]
        if not any(m.startswith("mmdocsum_desktop") for m in modules):
            continue
        flags = [flag for flag in override if flag != "module"]
        assert len(flags) == 1, f"one relaxation per override block, not {flags}"
        assert all(not m.endswith("*") for m in modules), f"modules named one by one, not {modules}"
        assert flags[0] in RELAXATION_ERRORS, f"{flags[0]}: say what mypy reports where it is needed"


def test_every_module_listed_under_a_relaxation_still_needs_it(tmp_path):
    """One mypy run with every relaxation of the package removed; each (module, flag) the overrides list
    must have an error of that flag there. A module that has since become strict under a flag leaves
    that flag's list (the list only shrinks)."""
    config = mypy_config()
    listed = _own_relaxations(config)
    lines = ["[tool.mypy]"] + [f"{key} = {_toml_value(value)}" for key, value in config.items() if key != "overrides"]
    for override in config.get("overrides", []):  # the third-party ones stay
        modules = override["module"] if isinstance(override["module"], list) else [override["module"]]
        if not any(m.startswith("mmdocsum_desktop") for m in modules):
            lines += ["[[tool.mypy.overrides]]"] + [f"{key} = {_toml_value(value)}" for key, value in override.items()]
    strict = tmp_path / "strict.toml"
    strict.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(strict), "--cache-dir", str(tmp_path / "mypy-cache"),
         "--show-error-codes", "--no-error-summary", "--no-pretty"],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=900,
    )
    assert "error: " in result.stdout or not listed, result.stdout[-2000:] + result.stderr[-2000:]
    found: set[tuple[str, str]] = set()
    for row in result.stdout.splitlines():
        match = _MYPY_ERROR.match(row.strip())
        if match is None:
            continue
        path = Path(match["path"])
        module = ".".join(path.with_suffix("").parts).removesuffix(".__init__")
        for flag, signs in RELAXATION_ERRORS.items():
            if any(match["code"] == code and match["message"].startswith(start) for code, start in signs):
                if flag == "disallow_incomplete_defs" and not _partly_annotated(REPO_ROOT / path, int(match["line"])):
                    continue
                found.add((module, flag))
    unneeded = sorted(f"{module}: {flag}" for module, flag in listed if (module, flag) not in found)
    assert not unneeded, "strict already, drop from pyproject.toml's overrides:\n" + "\n".join(unneeded)
