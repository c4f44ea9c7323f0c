"""Draws the app's icons (simple geometric SVGs made for this project, no copied artwork) and the
application icon in the freedesktop hicolor layout: ``hicolor/NxN/apps/APP_ID.png`` in the usual sizes,
rasterized from the same SVG with PyMuPDF, plus ``hicolor/scalable/apps/APP_ID.svg``.
Run: python mmdocsum_desktop/resources/icons/make_icons.py"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent
APP_ID = "io.github.mmdocsum.Desktop"  # also the .desktop, metainfo and MIME file names in packaging/linux
APP_ICON_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
INK = "#2b4a7a"
ACCENT = "#e08a1e"
RED = "#c0392b"

_ICONS = {
    "open": f'<path d="M4 8h9l2 3h13v15H4z" fill="none" stroke="{INK}" stroke-width="2.4" stroke-linejoin="round"/>'
            f'<path d="M4 26l4-10h22l-4 10z" fill="{ACCENT}" opacity="0.85"/>',
    "save": f'<rect x="5" y="5" width="22" height="22" rx="2" fill="none" stroke="{INK}" stroke-width="2.4"/>'
            f'<rect x="10" y="5" width="12" height="8" fill="{INK}"/><rect x="9" y="18" width="14" height="9" fill="{ACCENT}"/>',
    "export": f'<path d="M6 12v14h20V12" fill="none" stroke="{INK}" stroke-width="2.4"/>'
              f'<path d="M16 20V4M10 10l6-6 6 6" fill="none" stroke="{ACCENT}" stroke-width="2.8" stroke-linecap="round"/>',
    "summarize": f'<rect x="5" y="4" width="22" height="24" rx="2" fill="none" stroke="{INK}" stroke-width="2.4"/>'
                 f'<path d="M9 10h14M9 15h14M9 20h8" stroke="{INK}" stroke-width="2"/>'
                 f'<path d="M22 17l2 4 4 1-4 1-2 4-2-4-4-1 4-1z" fill="{ACCENT}"/>',
    "cancel": f'<circle cx="16" cy="16" r="11" fill="none" stroke="{RED}" stroke-width="2.8"/>'
              f'<path d="M11 11l10 10M21 11L11 21" stroke="{RED}" stroke-width="2.8" stroke-linecap="round"/>',
    "previous": f'<path d="M20 6L10 16l10 10" fill="none" stroke="{INK}" stroke-width="3" stroke-linecap="round"/>',
    "next": f'<path d="M12 6l10 10-10 10" fill="none" stroke="{INK}" stroke-width="3" stroke-linecap="round"/>',
    "zoom-in": f'<circle cx="13" cy="13" r="8" fill="none" stroke="{INK}" stroke-width="2.6"/>'
               f'<path d="M19 19l8 8" stroke="{INK}" stroke-width="3.2" stroke-linecap="round"/>'
               f'<path d="M9 13h8M13 9v8" stroke="{ACCENT}" stroke-width="2.4"/>',
    "zoom-out": f'<circle cx="13" cy="13" r="8" fill="none" stroke="{INK}" stroke-width="2.6"/>'
                f'<path d="M19 19l8 8" stroke="{INK}" stroke-width="3.2" stroke-linecap="round"/>'
                f'<path d="M9 13h8" stroke="{ACCENT}" stroke-width="2.4"/>',
    "settings": f'<circle cx="16" cy="16" r="5" fill="none" stroke="{INK}" stroke-width="2.6"/>'
                + "".join(
                    f'<rect x="14.5" y="3" width="3" height="6" fill="{INK}" transform="rotate({a} 16 16)"/>'
                    for a in range(0, 360, 45)
                ),
    "place-images": f'<path d="M5 6h22M5 11h22" stroke="{INK}" stroke-width="2"/>'
                    f'<rect x="7" y="15" width="18" height="12" rx="1.5" fill="none" stroke="{ACCENT}" stroke-width="2.4"/>'
                    f'<path d="M9 25l5-5 3 3 3-4 4 6z" fill="{ACCENT}"/>',
    "benchmark": f'<path d="M4 27h24" stroke="{INK}" stroke-width="2.4"/>'
                 f'<rect x="6" y="16" width="5" height="10" fill="{INK}"/><rect x="13.5" y="9" width="5" height="17" fill="{ACCENT}"/>'
                 f'<rect x="21" y="13" width="5" height="13" fill="{INK}"/>',
    "regenerate": f'<path d="M25 12a10 10 0 1 0 1 8" fill="none" stroke="{INK}" stroke-width="2.6" stroke-linecap="round"/>'
                  f'<path d="M26 4v9h-9" fill="none" stroke="{ACCENT}" stroke-width="2.6" stroke-linecap="round"/>',
    "figure": f'<rect x="4" y="6" width="24" height="20" rx="2" fill="none" stroke="{INK}" stroke-width="2.4"/>'
              f'<circle cx="11" cy="12" r="2.5" fill="{ACCENT}"/><path d="M6 24l7-7 4 4 4-5 6 8z" fill="{INK}"/>',
    "no-figure": f'<rect x="4" y="6" width="24" height="20" rx="2" fill="none" stroke="{INK}" stroke-width="2.4"/>'
                 f'<path d="M6 28L26 4" stroke="{RED}" stroke-width="2.8" stroke-linecap="round"/>',
    "edit": f'<path d="M7 25l2-7L21 6l5 5-12 12z" fill="none" stroke="{INK}" stroke-width="2.4" stroke-linejoin="round"/>'
            f'<path d="M18 9l5 5" stroke="{ACCENT}" stroke-width="2.4"/>',
    "search": f'<circle cx="13" cy="13" r="8" fill="none" stroke="{INK}" stroke-width="2.6"/>'
              f'<path d="M19 19l8 8" stroke="{ACCENT}" stroke-width="3.2" stroke-linecap="round"/>',
    "judge": f'<path d="M16 7v19M10 27h12M5 9h22" stroke="{INK}" stroke-width="2.4" stroke-linecap="round"/>'
             f'<circle cx="16" cy="6" r="2" fill="{INK}"/>'
             f'<path d="M5 9l-3.5 9M5 9l3.5 9M27 9l-3.5 9M27 9l3.5 9" stroke="{INK}" stroke-width="1.4"/>'
             f'<path d="M1 18h8a4 3 0 0 1-8 0zM23 18h8a4 3 0 0 1-8 0z" fill="{ACCENT}"/>',
    "app": f'<rect x="2" y="2" width="28" height="28" rx="6" fill="{INK}"/>'
           f'<rect x="7" y="7" width="11" height="3" fill="white"/><rect x="7" y="12" width="11" height="3" fill="white"/>'
           f'<rect x="7" y="17" width="8" height="3" fill="white"/><rect x="19" y="12" width="7" height="13" rx="1" fill="{ACCENT}"/>'
           f'<rect x="7" y="22" width="10" height="3" fill="white"/>',
}


def svg(body: str) -> str:
    return f'<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32" viewBox="0 0 32 32">{body}</svg>\n'


def app_icon_png(svg_text: str, size: int) -> bytes:
    import pymupdf  # a developer's tool: PyMuPDF renders the SVG only when icons are rebuilt

    with pymupdf.open(stream=svg_text.encode("utf-8"), filetype="svg") as drawing:
        page = drawing[0]
        scale = size / page.rect.width
        pixmap = page.get_pixmap(matrix=pymupdf.Matrix(scale, scale), alpha=True)
        return pixmap.tobytes("png")


def write_app_icons(svg_text: str) -> None:
    hicolor = HERE / "hicolor"
    scalable = hicolor / "scalable" / "apps"
    scalable.mkdir(parents=True, exist_ok=True)
    (scalable / f"{APP_ID}.svg").write_text(svg_text, encoding="utf-8")
    for size in APP_ICON_SIZES:
        folder = hicolor / f"{size}x{size}" / "apps"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{APP_ID}.png").write_bytes(app_icon_png(svg_text, size))


def main() -> None:
    for name, body in _ICONS.items():
        (HERE / f"{name}.svg").write_text(svg(body), encoding="utf-8")
    write_app_icons(svg(_ICONS["app"]))


if __name__ == "__main__":
    main()
