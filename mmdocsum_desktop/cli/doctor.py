"""`mmdocsum doctor`: what this machine will run the app's models on, and what to do about each "no".

The text is meant to be pasted into a bug report; ``--format json`` gives the same findings as data.
Exit code 0 even when something is missing: a CPU-only machine is a working machine.
"""

from __future__ import annotations

import argparse
import json
import sys

from mmdocsum_desktop.app.doctor import run_doctor


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "doctor", help="what the app will run on (llama.cpp build, GPU, onnxruntime, memory, models, keyring)"
    )
    parser.add_argument("--format", choices=("text", "json"), default="text", help="text (default) or json")
    parser.add_argument("--no-model-trial", action="store_true",
                        help="do not load the language model and generate a few tokens (it runs in a child process)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    def step(name: str) -> None:
        if args.format == "text" and sys.stderr.isatty():
            print(f"checking {name}...", file=sys.stderr, end="\r", flush=True)

    report = run_doctor(on_step=step, try_model=not args.no_model_trial)
    if args.format == "json":
        print(json.dumps(report.to_dict(), indent=2))
    else:
        sys.stdout.write(report.to_text())
    return 0
