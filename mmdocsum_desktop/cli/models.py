"""`mmdocsum models ...`: list, add, verify, download, assemble and remove models; show devices."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from mmdocsum_desktop.app import catalog
from mmdocsum_desktop.app.catalog import ROLES
from mmdocsum_desktop.cli.progress import tqdm_control
from mmdocsum_desktop.errors import ModelError


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("models", help="list, add, verify and download models")
    def show_help(_args: argparse.Namespace) -> int:
        parser.print_help()
        return 2

    parser.set_defaults(handler=show_help)
    commands = parser.add_subparsers(dest="models_command", metavar="ACTION")

    listing = commands.add_parser(
        "list", help="known and registered models, whether present, and their device"
    )
    listing.add_argument("--role", choices=ROLES)
    listing.add_argument("--json", action="store_true", help="machine-readable output")
    listing.set_defaults(handler=run_list)

    add = commands.add_parser("add", help="register a model file (or a folder, e.g. a CLIP ONNX pair)")
    add.add_argument("path", type=Path)
    add.add_argument("--role", required=True, choices=ROLES)
    add.add_argument("--name", help="name to refer to it by (default: the file name)")
    add.add_argument("--mmproj", type=Path, help="projector file of a gguf-vision model")
    add.add_argument("--arch", help="open_clip architecture of a CLIP checkpoint, e.g. ViT-B-32")
    add.add_argument("--clip-config", type=Path, help="open_clip model config (JSON) of a CLIP checkpoint")
    add.add_argument("--replace", action="store_true", help="replace a registered model of the same name")
    add.set_defaults(handler=run_add)

    verify = commands.add_parser("verify", help="check model files against their sha256")
    verify.add_argument("name", nargs="?", help="one model (default: all)")
    verify.set_defaults(handler=run_verify)

    download = commands.add_parser("download", help="download a file of a Hugging Face repository")
    download.add_argument("repo", help="owner/name")
    download.add_argument("file", help="file name inside the repository")
    download.add_argument("--revision", default="main")
    download.add_argument("--sha256", help="expected sha256 of the file")
    download.add_argument("--endpoint", help="hub address (default: $HF_ENDPOINT or huggingface.co)")
    download.add_argument("--dest", type=Path, help="folder to put it in (default: the data dir)")
    download.add_argument("--role", choices=ROLES, help="also register it as a model of this role")
    download.add_argument("--name", help="name to register it under")
    download.set_defaults(handler=run_download)

    assemble = commands.add_parser("assemble", help="join a model shipped in several package parts")
    assemble.add_argument("name")
    assemble.set_defaults(handler=run_assemble)

    remove = commands.add_parser("remove", help="forget a registered model (its files stay)")
    remove.add_argument("name")
    remove.set_defaults(handler=run_remove)

    devices = commands.add_parser("devices", help="onnxruntime providers, llama.cpp GPU offload, torch")
    devices.set_defaults(handler=run_devices)


def human_size(size: int | None) -> str:
    if size is None:
        return "-"
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1000 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    return f"{size} B"


def run_list(args: argparse.Namespace) -> int:
    rows = catalog.model_rows(args.role)
    if args.json:
        print(json.dumps([row.to_dict() for row in rows], indent=2))
        return 0
    table = [("NAME", "ROLE", "SIZE", "PRESENT", "DEVICE", "SOURCE")]
    table += [(r.name, r.role, human_size(r.size), r.present, r.device, r.source) for r in rows]
    widths = [max(len(row[i]) for row in table) for i in range(5)]
    for row in table:
        print("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row[:5])) + "  " + row[5])
    # a better model is one command away: say the command for each known model that is not here yet
    missing = [r for r in rows if r.present != "yes" and r.install]
    if missing:
        print("\nnot installed; each is one command:")
        for entry in missing:
            print(f"  {entry.name}: {entry.install}")
    return 0


def run_add(args: argparse.Namespace) -> int:
    metadata: dict[str, Any] = {}
    if args.arch:
        metadata["architecture"] = args.arch
    if args.clip_config:
        try:
            metadata["model_config"] = json.loads(args.clip_config.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise ModelError(f"cannot read the CLIP config {args.clip_config}: {error}") from error
    with tqdm_control("hashing") as control:
        entry = catalog.add_model(
            args.path,
            args.role,
            args.name,
            mmproj=args.mmproj,
            metadata=metadata or None,
            replace_existing=args.replace,
            control=control,
        )
    print(f"added {entry.name} ({entry.role}, {human_size(entry.size)}, {len(entry.files)} file(s))")
    return 0


def run_verify(args: argparse.Namespace) -> int:
    with tqdm_control("verifying") as control:
        reports = catalog.verify(args.name, control=control)
    failed = False
    for report in reports:
        print(f"{report.name}: {report.status}")
        for check in report.files:
            if check.status != "ok" or check.detail:
                print(f"  {check.kind}: {check.status}{': ' + check.detail if check.detail else ''}")
        if report.status in (catalog.MISMATCH, catalog.UNREADABLE) or (args.name and report.status == catalog.MISSING):
            failed = True
    return 1 if failed else 0


def run_download(args: argparse.Namespace) -> int:
    with tqdm_control(f"downloading {args.file}") as control:
        path = catalog.download(
            args.repo,
            args.file,
            revision=args.revision,
            sha256=args.sha256,
            endpoint=args.endpoint,
            dest_dir=args.dest,
            role=args.role,
            name=args.name,
            control=control,
        )
    print(path)
    return 0


def run_assemble(args: argparse.Namespace) -> int:
    with tqdm_control(f"assembling {args.name}") as control:
        path = catalog.assemble(args.name, control=control)
    print(path)
    return 0


def run_remove(args: argparse.Namespace) -> int:
    catalog.remove_model(args.name)
    print(f"removed {args.name}")
    return 0


def run_devices(args: argparse.Namespace) -> int:
    print(json.dumps(catalog.describe_devices(), indent=2))
    return 0
