"""The built wheel carries the package data, and the code finds it from an installed location (not from
the checkout, which an editable install would otherwise make it find)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from mmdocsum_desktop.summarize.prompt import PROMPT_FILES

from .conftest import APP_ID, REPO_ROOT

ICON_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
PROMPTS = REPO_ROOT / "mmdocsum_desktop" / "resources" / "prompts"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    # Built from a copy: setuptools reuses build/lib in the source tree, so a file deleted from the
    # checkout could still ride along in a wheel built in place.
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO_ROOT / name, source / name)
    shutil.copytree(REPO_ROOT / "mmdocsum_desktop", source / "mmdocsum_desktop",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    str(source), "-w", str(out)], check=True, capture_output=True, timeout=300)
    (built,) = out.glob("mmdocsum_desktop-*.whl")
    return built


@pytest.fixture(scope="module")
def wheel_names(wheel) -> set[str]:
    with zipfile.ZipFile(wheel) as archive:
        return set(archive.namelist())


def test_wheel_has_the_prompts_icons_demo_splits_and_manifests(wheel_names):
    package = "mmdocsum_desktop/"
    for name in PROMPT_FILES:
        assert f"{package}resources/prompts/{name}.txt" in wheel_names
    for path in PROMPTS.iterdir():  # prompt files other than the summary's (the judge's aspects, ...)
        assert f"{package}resources/prompts/{path.name}" in wheel_names
    assert f"{package}resources/icons/open.svg" in wheel_names
    assert f"{package}resources/icons/hicolor/scalable/apps/{APP_ID}.svg" in wheel_names
    for size in ICON_SIZES:
        assert f"{package}resources/icons/hicolor/{size}x{size}/apps/{APP_ID}.png" in wheel_names
    assert any(n.startswith(f"{package}resources/demo/") and n.endswith(".jsonl") for n in wheel_names)
    assert f"{package}models/manifests/minilm-int8.toml" in wheel_names


def test_wheel_carries_the_sample_and_the_pmc_test_papers(wheel_names):
    resources = "mmdocsum_desktop/resources/"
    for name in ("wheat-04-00932.pdf", "wheat-04-00932.xml", "ATTRIBUTION.md"):
        assert f"{resources}sample/{name}" in wheel_names
    split = REPO_ROOT / "mmdocsum_desktop" / "resources" / "splits" / "pmc-test"
    papers = json.loads((split / "papers.json").read_text(encoding="utf-8"))["papers"]
    for paper in papers:
        for suffix in (".pdf", ".xml"):
            assert f"{resources}splits/pmc-test/papers/{paper['id']}{suffix}" in wheel_names


def test_wheel_declares_both_commands(wheel):
    with zipfile.ZipFile(wheel) as archive:
        (entry_points,) = [n for n in archive.namelist() if n.endswith(".dist-info/entry_points.txt")]
        text = archive.read(entry_points).decode()
    assert "[console_scripts]\nmmdocsum = mmdocsum_desktop.cli:main" in text
    assert "[gui_scripts]\nmmdocsum-desktop = mmdocsum_desktop.gui.app:main" in text


def test_installed_wheel_finds_its_resources(wheel, tmp_path):
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-compile", "-q",
                    "--target", str(target), str(wheel)], check=True, capture_output=True, timeout=300)
    # -S: no site processing, so the editable install's path hook never runs; the dependencies come
    # from the venv's site-packages, appended after the installed copy.
    probe = (
        "import json, sys\n"
        f"sys.path[:0] = [{str(target)!r}]\n"
        f"sys.path.append({sysconfig.get_paths()['purelib']!r})\n"
        f"sys.path.append({sysconfig.get_paths()['platlib']!r})\n"
        "import mmdocsum_desktop\n"
        "from mmdocsum_desktop.summarize.prompt import PROMPT_FILES, prompt_dir, load_prompt\n"
        "from mmdocsum_desktop.models.registry import MANIFEST_DIR\n"
        "from mmdocsum_desktop.bench.splits import DEMO_ROOT, bundled\n"
        "from mmdocsum_desktop.paths import sample_paper\n"
        "from mmdocsum_desktop.gui.icons import ICON_DIRS, icon_path\n"
        "for name in PROMPT_FILES: load_prompt(name)\n"
        "print(json.dumps({'package': mmdocsum_desktop.__file__, 'prompts': str(prompt_dir()),\n"
        "    'manifests': str(MANIFEST_DIR), 'demo': str(DEMO_ROOT), 'icons': str(ICON_DIRS[0]),\n"
        "    'open_icon': str(icon_path('open')), 'sample': str(sample_paper()),\n"
        "    'pmc_test': str(bundled('pmc-test').folder)}))\n"
    )
    environment = {"PATH": "/usr/bin:/bin", "QT_QPA_PLATFORM": "offscreen"}
    completed = subprocess.run([sys.executable, "-S", "-c", probe], capture_output=True, text=True,
                               env=environment, timeout=120)
    assert completed.returncode == 0, completed.stderr
    found = {key: Path(value) for key, value in json.loads(completed.stdout).items()}
    for key, path in found.items():
        assert path.is_relative_to(target), f"{key} came from {path}, not from the installed wheel"
        assert path.exists(), key
    assert sorted(p.name for p in found["prompts"].iterdir()) == sorted(p.name for p in PROMPTS.iterdir())
    assert any(found["manifests"].glob("*.toml"))
    assert any(found["demo"].rglob("*.jsonl"))
    assert (found["sample"].parent / "ATTRIBUTION.md").is_file()
