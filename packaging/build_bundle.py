"""Build the one-folder Linux bundle (packaging/mmdocsum.spec) and smoke-test the BUILT executables.

    .venv/bin/pip install -e '.[packaging]'
    .venv/bin/python packaging/build_bundle.py [--dist-dir DIR] [--work-dir DIR] [--skip-build] [--pdf FILE]

The smoke tests run the bundle's own ``mmdocsum`` and ``mmdocsum-desktop`` with a scrubbed environment
(no virtual environment, no PYTHONPATH, scratch config/data/cache folders), so they pass only if the
bundle carries everything itself: ``--version``, ``extract`` and the default extractive ``summarize``
of a real paper (which needs the packaged MiniLM model), and an offscreen ``--screenshot`` of the window.
Timings, the bundle's size and each result go to benchmarks/results/bundle.json. Exit status 1 when a
smoke test fails. Slow (minutes), so it is not part of the test run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SPEC = REPO / "packaging" / "mmdocsum.spec"
BUNDLE_NAME = "mmdocsum"  # the spec's COLLECT name
# the package's own sample paper (CC BY; 14 pages, 5 figures, 1 table): the build needs nothing outside the repository
DEFAULT_PDF = REPO / "mmdocsum_desktop" / "resources" / "sample" / "wheat-04-00932.pdf"
RESULTS = REPO / "benchmarks" / "results" / "bundle.json"
SMOKE_TIMEOUT_S = 600
# what a user's shell might carry that would let the bundle borrow the build machine's Python
LEAKY_VARIABLES = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP", "PYTHONUSERBASE")


@dataclass
class SmokeResult:
    name: str
    command: list[str]
    seconds: float
    ok: bool
    detail: str = ""
    outputs: dict[str, int] = field(default_factory=dict)  # path -> size in bytes


def project_version() -> str:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]


def build(dist_dir: Path, work_dir: Path) -> float:
    # --clean: no cache from an earlier build, so the time measured is that of a build from scratch
    command = [sys.executable, "-m", "PyInstaller", "--noconfirm", "--clean", "--log-level", "WARN",
               "--distpath", str(dist_dir), "--workpath", str(work_dir), str(SPEC)]
    # the bundled splits' papers are committed: checked (gold, licences, files) against them, never fetched
    subprocess.run([sys.executable, str(REPO / "tools" / "build_pmc_test_split.py"), "--check"], check=True, cwd=REPO)
    print("building:", " ".join(command), flush=True)
    started = time.perf_counter()
    subprocess.run(command, check=True, cwd=REPO)
    return time.perf_counter() - started


def folder_size(folder: Path) -> tuple[int, int]:
    """(bytes, files) of a folder, links not followed (what copying the folder costs)."""
    total = files = 0
    for root, _dirs, names in os.walk(folder):
        for name in names:
            total += os.lstat(os.path.join(root, name)).st_size
            files += 1
    return total, files


def largest_parts(internal: Path, count: int = 12) -> list[dict[str, float | str]]:
    """The biggest top-level entries of _internal/, to see what the size is made of."""
    sizes = []
    for entry in internal.iterdir():
        size = folder_size(entry)[0] if entry.is_dir() and not entry.is_symlink() else entry.lstat().st_size
        sizes.append((size, entry.name))
    return [{"name": name, "mb": round(size / 1e6, 1)} for size, name in sorted(sizes, reverse=True)[:count]]


def bundle_environment(scratch: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in LEAKY_VARIABLES}
    env["PATH"] = os.pathsep.join(
        part for part in env.get("PATH", "").split(os.pathsep) if part and not part.startswith(sys.prefix)
    )
    for variable, sub in (("MMDOCSUM_CONFIG_DIR", "config"), ("MMDOCSUM_DATA_DIR", "data"),
                          ("MMDOCSUM_CACHE_DIR", "cache"), ("MMDOCSUM_WORKSPACES_DIR", "workspaces")):
        env[variable] = str(scratch / sub)
    env["QT_QPA_PLATFORM"] = "offscreen"
    return env


def run_smoke(name: str, command: list[str], env: dict[str, str], cwd: Path,
              expect_stdout: str | None = None, expect_files: tuple[Path, ...] = ()) -> SmokeResult:
    print(f"smoke: {name}: {' '.join(command)}", flush=True)
    started = time.perf_counter()
    try:
        completed = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True,
                                   timeout=SMOKE_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as error:
        return SmokeResult(name, command, time.perf_counter() - started, False, str(error))
    seconds = time.perf_counter() - started
    problems = []
    if completed.returncode != 0:
        problems.append(f"exit status {completed.returncode}: {completed.stderr.strip()[-2000:]}")
    if expect_stdout is not None and expect_stdout not in completed.stdout:
        problems.append(f"stdout {completed.stdout.strip()[:200]!r} lacks {expect_stdout!r}")
    outputs = {}
    for path in expect_files:
        size = path.stat().st_size if path.is_file() else 0
        outputs[str(path.relative_to(cwd))] = size
        if size == 0:
            problems.append(f"{path.name} is missing or empty")
    last_line = (completed.stdout.strip().splitlines() or [""])[-1]
    detail = "; ".join(problems) if problems else last_line
    return SmokeResult(name, command, round(seconds, 2), not problems, detail, outputs)


def smoke_tests(bundle: Path, pdf: Path, scratch: Path) -> list[SmokeResult]:
    cli = bundle / "mmdocsum"
    gui = bundle / "mmdocsum-desktop"
    env = bundle_environment(scratch)
    version = project_version()
    extracted = scratch / "extracted"
    summary = scratch / "summary.md"
    shot = scratch / "shot.png"
    results = [
        run_smoke("cli --version", [str(cli), "--version"], env, scratch, expect_stdout=version),
        run_smoke("gui --version", [str(gui), "--version"], env, scratch, expect_stdout=version),
        run_smoke("cli extract", [str(cli), "extract", str(pdf), "-o", str(extracted), "--quiet"], env, scratch,
                  expect_files=(extracted / "document.json",)),
        run_smoke("cli summarize (extractive)",
                  [str(cli), "summarize", str(pdf), "-o", str(summary), "--engine", "extractive", "--quiet"],
                  env, scratch, expect_files=(summary,)),
        run_smoke("gui --screenshot (offscreen)", [str(gui), "--screenshot", str(shot), str(pdf)], env, scratch,
                  expect_files=(shot,)),
    ]
    if results[2].ok and not any((extracted / "figures").glob("*")):
        results[2].ok = False
        results[2].detail = "extract wrote no figure crops"
    if results[3].ok and "## " not in summary.read_text(encoding="utf-8"):
        results[3].ok = False
        results[3].detail = "the summary has no sections"
    if results[4].ok and not shot.read_bytes().startswith(b"\x89PNG"):
        results[4].ok = False
        results[4].detail = "the screenshot is not a PNG"
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dist-dir", type=Path, default=REPO / "packaging" / "build" / "dist")
    parser.add_argument("--work-dir", type=Path, default=REPO / "packaging" / "build" / "work")
    parser.add_argument("--skip-build", action="store_true", help="smoke-test the bundle already built")
    parser.add_argument("--pdf", type=Path, default=DEFAULT_PDF, help="the paper the smoke tests read")
    parser.add_argument("--results", type=Path, default=RESULTS)
    args = parser.parse_args(argv)

    bundle = args.dist_dir.resolve() / BUNDLE_NAME
    build_seconds = None if args.skip_build else build(args.dist_dir.resolve(), args.work_dir.resolve())
    size_bytes, file_count = folder_size(bundle)
    with tempfile.TemporaryDirectory(prefix="mmdocsum-bundle-smoke-") as scratch:
        smoke = smoke_tests(bundle, args.pdf.resolve(), Path(scratch))
    payload = {
        "bundle": str(bundle),
        "python": sys.version.split()[0],
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "pyinstaller": _pyinstaller_version(),
        "build_seconds": None if build_seconds is None else round(build_seconds, 1),
        "size_mb": round(size_bytes / 1e6, 1),
        "files": file_count,
        "largest_parts": largest_parts(bundle / "_internal"),
        "smoke_pdf": args.pdf.name,
        "smoke": [asdict(result) for result in smoke],
        "all_ok": all(result.ok for result in smoke),
    }
    args.results.parent.mkdir(parents=True, exist_ok=True)
    args.results.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(payload, indent=2))
    for result in smoke:
        print(f"{'ok  ' if result.ok else 'FAIL'} {result.seconds:7.2f} s  {result.name}  {result.detail}")
    return 0 if payload["all_ok"] else 1


def _pyinstaller_version() -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("pyinstaller")
    except PackageNotFoundError:
        return None


if __name__ == "__main__":
    raise SystemExit(main())
