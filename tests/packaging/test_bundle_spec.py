"""The PyInstaller spec (building it takes minutes: packaging/build_bundle.py, not the test run):
both commands, each running the function pyproject names, and none of the heavy optional packages."""

from __future__ import annotations

import ast
import re

from .conftest import REPO_ROOT

PACKAGING = REPO_ROOT / "packaging"
SPEC = PACKAGING / "mmdocsum.spec"


def spec_constant(name: str):
    tree = ast.parse(SPEC.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == name for t in node.targets):
            return ast.literal_eval(node.value)
    raise AssertionError(f"{name} is not a constant of the spec")


def test_spec_leaves_out_torch_clip_and_the_test_tools():
    excludes = set(spec_constant("EXCLUDES"))
    assert {"torch", "torchvision", "open_clip", "pytest", "hypothesis"} <= excludes


def test_spec_builds_one_folder_with_both_commands():
    text = SPEC.read_text(encoding="utf-8")
    assert len(re.findall(r"^\w+ = EXE\(", text, flags=re.M)) == 2
    assert len(re.findall(r"^COLLECT\(", text, flags=re.M)) == 1
    # the executables take their names from pyproject's scripts, and its package data from there too
    assert 'PYPROJECT["project"]["scripts"]' in text and 'PYPROJECT["project"]["gui-scripts"]' in text
    assert '["package-data"]["mmdocsum_desktop"]' in text


def test_entry_points_run_the_functions_pyproject_names(pyproject):
    targets = {
        "entry_cli.py": next(iter(pyproject["project"]["scripts"].values())),
        "entry_gui.py": next(iter(pyproject["project"]["gui-scripts"].values())),
    }
    for script, target in targets.items():
        module, function = target.split(":")
        text = (PACKAGING / script).read_text(encoding="utf-8")
        assert f"from {module} import {function}" in text, script
        assert "multiprocessing.freeze_support()" in text, script
        assert f'"{script.removesuffix(".py")}"' in SPEC.read_text(encoding="utf-8")


def test_bundle_builds_stay_out_of_git():
    ignored = (REPO_ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert "packaging/build/" in ignored
