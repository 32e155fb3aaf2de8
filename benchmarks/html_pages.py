"""HTML pages per second: the old extractor (beautifulsoup4 with html.parser) beside claimgate's own.

Builds a real multi-page documentation site offline first: the reStructuredText sources of CMake's help
shipped on this machine (``/usr/share/cmake-*/Help``; ``--source`` for another Sphinx source folder),
a few of its folders (``--folders``), built by ``sphinx-build`` into a temporary folder that is removed
afterwards (never in git). Needs ``pip install sphinx beautifulsoup4`` (the generator, and the old
extractor as the baseline). Then every built ``.html`` page is read by both extractors, ``--repeat`` times
each, the fastest pass counting, and one markdown table prints pages per second and MB/s for each, side by
side, with the speed-up, and the rate of the main-content mode. The baseline is the extractor of
``io.documents`` before lxml, kept here verbatim (``old_visible_text``). Exit 1 when no page was built or
the new extractor gives no text for a page the old one reads.
"""

from __future__ import annotations

import argparse
import glob
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from claimgate.io.html_text import html_visible_text

_HIDDEN = frozenset({"script", "style", "template", "noscript", "head", "title"})
_BLOCKS = frozenset(
    {
        "address", "article", "aside", "blockquote", "caption", "dd", "details", "div", "dl", "dt",
        "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6",
        "header", "hr", "li", "main", "nav", "ol", "p", "pre", "section", "summary", "table", "tbody",
        "td", "tfoot", "th", "thead", "tr", "ul",
    }
)  # fmt: skip
_SPACES = re.compile(r"\s+")


def old_visible_text(markup: str) -> str:
    """The baseline: ``io.documents.html_visible_text`` as it was (beautifulsoup4, ``html.parser``, recursive)."""
    from bs4 import BeautifulSoup
    from bs4.element import NavigableString, PreformattedString, Tag

    pieces: list[str] = []

    def walk(node: Tag, in_pre: bool) -> None:
        for child in node.children:
            if isinstance(child, PreformattedString):
                continue
            if isinstance(child, NavigableString):
                text = str(child)
                pieces.append(text if in_pre else _SPACES.sub(" ", text))
            elif isinstance(child, Tag):
                name = child.name.lower()
                if name in _HIDDEN:
                    continue
                if name == "br":
                    pieces.append("\n")
                    continue
                block = name in _BLOCKS
                if block:
                    pieces.append("\n")
                walk(child, in_pre or name == "pre")
                if block:
                    pieces.append("\n")

    walk(BeautifulSoup(markup, "html.parser"), in_pre=False)
    lines = (line.strip(" \t\r\f\v\xa0") for line in "".join(pieces).split("\n"))
    return "".join(f"{line}\n" for line in lines if line)


def default_source() -> Path | None:
    found = sorted(glob.glob("/usr/share/cmake-*/Help"))
    return Path(found[-1]) if found else None


def build_site(source: Path, folders: list[str], out: Path) -> list[Path]:
    """Copy ``folders`` of ``source`` with a minimal ``conf.py`` and an index, build HTML, return the pages."""
    src = out / "src"
    src.mkdir(parents=True)
    for folder in folders:
        shutil.copytree(source / folder, src / folder)
    (src / "conf.py").write_text("project = 'benchmark'\nexclude_patterns = []\nhtml_theme = 'alabaster'\n")
    toc = "\n".join(f"   {folder}/*" for folder in folders)
    (src / "index.rst").write_text(f"Benchmark site\n==============\n\n.. toctree::\n   :glob:\n\n{toc}\n")
    html = out / "html"
    command = [sys.executable, "-m", "sphinx", "-b", "html", "-Q", "-E", "-j", "2", str(src), str(html)]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return sorted(p for p in html.rglob("*.html") if "_static" not in p.parts)


def pages_per_second(extract, pages: list[str], repeat: int) -> tuple[float, list[str]]:
    best, texts = float("inf"), []
    for _ in range(repeat):
        start = time.perf_counter()
        texts = [extract(page) for page in pages]
        best = min(best, time.perf_counter() - start)
    return len(pages) / best, texts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=default_source(), help="a Sphinx source folder")
    parser.add_argument("--folders", default="manual,command", help="its folders to build (comma-separated)")
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args(argv)
    if args.source is None or not args.source.is_dir():
        print("no Sphinx source folder found: pass --source", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="claimgate-html-bench-") as tmp:
        started = time.perf_counter()
        paths = build_site(args.source, args.folders.split(","), Path(tmp))
        built = time.perf_counter() - started
        pages = [p.read_text(encoding="utf-8") for p in paths]
    if not pages:
        print("sphinx-build made no page", file=sys.stderr)
        return 1
    megabytes = sum(len(p.encode("utf-8")) for p in pages) / 1e6
    old_rate, old_texts = pages_per_second(old_visible_text, pages, args.repeat)
    new_rate, new_texts = pages_per_second(html_visible_text, pages, args.repeat)
    main_rate, main_texts = pages_per_second(lambda page: html_visible_text(page, main_content=True), pages, 1)
    chrome = sum(len(new) - len(main) for new, main in zip(new_texts, main_texts)) / max(1, sum(map(len, new_texts)))
    empty = sum(1 for old, new in zip(old_texts, new_texts) if old.strip() and not new.strip())
    print(f"site: {len(pages)} HTML pages, {megabytes:.1f} MB, built by sphinx-build in {built:.0f} s "
          f"from {args.source} ({args.folders})\n")  # fmt: skip
    print("| extractor | pages/s | MB/s |")
    print("|---|---:|---:|")
    print(
        f"| old: beautifulsoup4 + html.parser (baseline) | {old_rate:,.0f} | {old_rate * megabytes / len(pages):.1f} |"
    )
    print(f"| new: io.html_text.html_visible_text (lxml) | {new_rate:,.0f} | {new_rate * megabytes / len(pages):.1f} |")
    print(f"| new, main-content mode | {main_rate:,.0f} | {main_rate * megabytes / len(pages):.1f} |")
    print(f"\nspeed-up: {new_rate / old_rate:.1f}x; pages where the new extractor lost all text: {empty}; "
          f"main-content mode drops {chrome:.0%} of the text as navigation chrome")  # fmt: skip
    return 1 if empty else 0


if __name__ == "__main__":
    sys.exit(main())
