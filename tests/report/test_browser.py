"""The review page in a real headless browser (Chromium): the filter script runs, the cards render.

Skipped, saying why, where no Chromium is installed (``.ci/run`` installs it: ``apt-get install -y
chromium``). Chromium is run with networking mapped to nowhere, so a page that tried to load anything
would fail to render what it needs.
"""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
import zlib
from collections import Counter
from pathlib import Path

import pytest
from claimgate.report import answer_page, audit_page

from .conftest import CORPUS

CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="no Chromium installed (apt-get install -y chromium; .ci/run installs it)"
)


def chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    """Run headless Chromium with its own profile and no network; returns the completed process."""
    command = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        f"--user-data-dir={tmp_path / 'profile'}",
        "--host-resolver-rules=MAP * ~NOTFOUND",
        *args,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def png_pixels(path: Path) -> tuple[int, int, list[tuple[int, int, int]]]:
    """``(width, height, RGB pixels)`` of an 8-bit RGB or RGBA, non-interlaced PNG (what Chromium writes)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    position, chunks, header = 8, [], None
    while position < len(data):
        (length,), kind = struct.unpack(">I", data[position : position + 4]), data[position + 4 : position + 8]
        body = data[position + 8 : position + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            chunks.append(body)
        position += 12 + length
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and interlace == 0, header
    channels = 3 if colour == 2 else 4
    raw = zlib.decompress(b"".join(chunks))
    stride = width * channels
    previous = bytearray(stride)
    pixels = []
    for row in range(height):
        kind, line = raw[row * (stride + 1)], bytearray(raw[row * (stride + 1) + 1 : (row + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        pixels += [tuple(line[i : i + 3]) for i in range(0, stride, channels)]
        previous = line
    return width, height, pixels


def test_the_filter_script_runs_in_the_browser(tmp_path, audit_rows):
    page = tmp_path / "audit.html"
    page.write_text(audit_page(audit_rows, CORPUS), encoding="utf-8")
    everything = chromium(tmp_path, "--dump-dom", page.as_uri())
    assert everything.returncode == 0, everything.stderr[-2000:]
    assert "4 of 4 shown" in everything.stdout  # the script ran (it writes the count)
    filtered = chromium(tmp_path, "--dump-dom", page.as_uri() + "?verdict=not_found")
    assert "1 of 4 shown" in filtered.stdout
    cards = re.findall(r'<div class="card v-(\w+)( hidden)?"', filtered.stdout)
    assert sorted(cards) == [
        ("found", " hidden"),
        ("found", " hidden"),
        ("misattributed", " hidden"),
        ("not_found", ""),
    ]
    by_reason = chromium(tmp_path, "--dump-dom", page.as_uri() + "?reason=found_in_other_document")
    assert "1 of 4 shown" in by_reason.stdout


def test_hostile_text_does_not_run_in_the_browser(tmp_path, answer_result):
    page = tmp_path / "answer.html"
    page.write_text(answer_page(answer_result, CORPUS), encoding="utf-8")
    dom = chromium(tmp_path, "--dump-dom", page.as_uri()).stdout
    assert "<img" not in dom  # the hostile <img onerror> stayed text
    assert dom.count("<script>") == 1  # only the page's own script element
    assert "⟨U+202E⟩" in dom and "\u202e" not in dom


def test_a_screenshot_shows_the_cards_in_their_colours(tmp_path, answer_result):
    page = tmp_path / "answer.html"
    page.write_text(answer_page(answer_result, CORPUS), encoding="utf-8")
    shot = tmp_path / "shot.png"
    done = chromium(tmp_path, f"--screenshot={shot}", "--window-size=900,1300", page.as_uri())
    assert shot.exists(), done.stderr[-2000:]
    width, height, pixels = png_pixels(shot)
    assert (width, height) == (900, 1300)
    colours = Counter(pixels)
    assert len(colours) > 50  # not a blank page
    green, red, yellow = (0x1A, 0x7F, 0x37), (0xCF, 0x22, 0x2E), (0xBF, 0x87, 0x00)
    assert colours[green] > 500  # the found card's border and the supported badge
    assert colours[red] > 500  # the not_found card's border and the refused badge
    assert colours[yellow] > 50  # the uncited claim's underline and badge
    header = pixels[10 * width + 450]
    assert header == (0x24, 0x29, 0x2F)  # the page's header bar rendered
