"""Imports sit at the top of a module. Inside a function only a heavy third-party library may be imported,
and only with a comment on that line or the line above saying why it is loaded lazily; the package itself
is never imported from inside a function (a cycle is solved by moving the shared thing down a layer)."""

from __future__ import annotations

import ast
import io
import sys
import tokenize
from dataclasses import dataclass

import pytest

from tests.conftest import REPO_ROOT

PACKAGE = "mmdocsum_desktop"
PACKAGE_DIR = REPO_ROOT / PACKAGE


@dataclass(frozen=True)
class LocalImport:
    """An import statement inside a function or method body."""

    path: str
    line: int
    module: str  # as written: "mmdocsum_desktop.x", ".x" for a relative one, "torch"
    own_package: bool
    third_party: bool
    commented: bool

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: import of {self.module}"


def _comment_lines(source: str) -> tuple[set[int], set[int]]:
    """Lines holding a comment, and the lines holding nothing but a comment."""
    anywhere: set[int] = set()
    alone: set[int] = set()
    first_token_line = 0
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
            continue
        line = token.start[0]
        if token.type == tokenize.COMMENT:
            anywhere.add(line)
            if first_token_line != line:
                alone.add(line)
        first_token_line = line
    return anywhere, alone


def _imported_names(node: ast.Import | ast.ImportFrom) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    return ["." * node.level + (node.module or "")]


def local_imports(source: str, path: str) -> list[LocalImport]:
    """Every import statement whose nearest enclosing scope is a function (methods and nested functions
    included); module-level imports, ``if TYPE_CHECKING:`` blocks among them, are not reported."""
    tree = ast.parse(source, filename=path)
    anywhere, alone = _comment_lines(source)
    found: list[LocalImport] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)) and in_function:
                statement_lines = range(child.lineno, (child.end_lineno or child.lineno) + 1)
                commented = any(line in anywhere for line in statement_lines) or (child.lineno - 1) in alone
                for module in _imported_names(child):
                    top = module.split(".")[0]
                    own = module.startswith(".") or top == PACKAGE
                    third_party = not own and top not in sys.stdlib_module_names
                    found.append(LocalImport(path, child.lineno, module, own, third_party, commented))
            visit(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

    visit(tree, False)
    return found


def _package_local_imports() -> list[LocalImport]:
    found: list[LocalImport] = []
    for module in sorted(PACKAGE_DIR.rglob("*.py")):
        relative = module.relative_to(REPO_ROOT).as_posix()
        found.extend(local_imports(module.read_text(encoding="utf-8"), relative))
    return found


def test_no_function_imports_the_package():
    offending = [str(item) for item in _package_local_imports() if item.own_package]
    if offending:
        pytest.fail(
            f"{len(offending)} function-level imports of {PACKAGE} (import at module level; move the shared "
            "thing down a layer when that makes a cycle):\n" + "\n".join(offending),
            pytrace=False,
        )


def test_lazy_third_party_imports_say_why():
    offending = [str(item) for item in _package_local_imports() if item.third_party and not item.commented]
    if offending:
        pytest.fail(
            f"{len(offending)} function-level imports of a third-party library without a comment on the line or "
            "the line above saying why it is lazy:\n" + "\n".join(offending),
            pytrace=False,
        )


SAMPLE = '''
from __future__ import annotations
from typing import TYPE_CHECKING
import numpy
if TYPE_CHECKING:
    from mmdocsum_desktop.schemas import Document

def plain():
    import json
    from mmdocsum_desktop.text import tokens
    return json, tokens

class Reader:
    def read(self):
        from . import sibling
        def inner():
            import torch
        x = 1  # unrelated comment
        import onnxruntime
        # torch pulls in CUDA: loaded only when a model runs
        import torch as t
        from PIL import (  # Pillow is loaded only for figures
            Image,
        )
        return sibling, inner, t, Image
'''


@pytest.fixture(scope="module")
def sample() -> dict[tuple[int, str], LocalImport]:
    return {(item.line, item.module): item for item in local_imports(SAMPLE, "sample.py")}


def test_scanner_finds_imports_in_functions_and_methods_only(sample):
    assert sorted(sample) == [
        (9, "json"), (10, "mmdocsum_desktop.text"), (15, "."), (17, "torch"), (19, "onnxruntime"),
        (21, "torch"), (22, "PIL"),
    ]
    assert [key for key, item in sample.items() if item.own_package] == [(10, "mmdocsum_desktop.text"), (15, ".")]


def test_scanner_tells_third_party_from_standard_library(sample):
    assert not sample[(9, "json")].third_party
    assert sample[(17, "torch")].third_party and sample[(19, "onnxruntime")].third_party


def test_scanner_needs_a_comment_on_the_line_or_alone_on_the_line_above(sample):
    assert not sample[(17, "torch")].commented
    assert not sample[(19, "onnxruntime")].commented  # the comment above ends a line of code: not about the import
    assert sample[(21, "torch")].commented and sample[(22, "PIL")].commented
