"""The application layer sits between the adapters and the core: gui | cli > bench > app > judge >
summarize > engines > placement > models > document. The benchmarks are above the application (they call
the Session as a front end does). Function-level imports count too (they are real coupling)."""

from __future__ import annotations

import ast
from pathlib import Path

import mmdocsum_desktop

PACKAGE = Path(mmdocsum_desktop.__file__).parent
BELOW_APP = ("judge", "answer", "summarize", "engines", "placement", "retrieval", "models", "document", "text",
             "settings.py", "project.py")


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def _files(*parts: str) -> list[Path]:
    files: list[Path] = []
    for part in parts:
        target = PACKAGE / part
        files += [target] if target.is_file() else sorted(target.rglob("*.py"))
    return files


def _offenders(files: list[Path], forbidden: tuple[str, ...]) -> list[str]:
    return [f"{path.relative_to(PACKAGE)} imports {name}" for path in files for name in sorted(_imports(path))
            if any(name == f or name.startswith(f + ".") for f in forbidden)]


def test_nothing_below_the_application_layer_imports_it_or_an_adapter():
    forbidden = ("mmdocsum_desktop.app", "mmdocsum_desktop.gui", "mmdocsum_desktop.cli")
    assert _offenders(_files(*BELOW_APP), forbidden) == []


def test_the_benchmarks_use_the_application_and_no_adapter():
    assert _offenders(_files("bench"), ("mmdocsum_desktop.gui", "mmdocsum_desktop.cli", "PySide6", "argparse")) == []
    # they read through the session: no suite calls the document reader on its own
    assert _offenders(_files("bench/suites", "bench/glue.py"), ("mmdocsum_desktop.document.reader.read_document",)) == []


def test_the_application_layer_knows_no_adapter():
    assert _offenders(_files("app"), ("mmdocsum_desktop.gui", "mmdocsum_desktop.cli", "PySide6", "argparse")) == []


def test_the_engine_factory_is_the_only_place_that_builds_summary_engines():
    builders = ("mmdocsum_desktop.engines.llama.LlamaEngine", "mmdocsum_desktop.engines.openai.OpenAIEngine",
                "mmdocsum_desktop.engines.llama_process.LlamaProcessEngine",
                "mmdocsum_desktop.engines.openai.OpenAIConfig", "mmdocsum_desktop.engines.llama.LlamaConfig")
    allowed = {PACKAGE / "engines" / "factory.py", PACKAGE / "engines" / "llama.py", PACKAGE / "engines" / "openai.py",
               PACKAGE / "engines" / "llama_process.py"}
    files = [p for p in PACKAGE.rglob("*.py") if p not in allowed]  # every module of the package
    assert _offenders(files, builders) == []
