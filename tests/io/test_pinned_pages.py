"""Pinned pages are audited as a reader sees them (``io.pinned_pages``), as a folder's pages are.

Before, a pinned manifest's Markdown and reStructuredText pages were audited as written: an honest quote
of the rendered page was refused and a quote of raw markup was found. Spans still slice the file as
pinned, lines are 1-based in it, the SHA-256 is checked on the bytes as written, and the gate still
reads the directives of the file as written.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from claimgate.api import Audit, Gate
from claimgate.errors import IngestionError
from claimgate.io.documents import EXTRACTORS, extractor_of
from claimgate.io.pinned_pages import read_pinned_documents
from claimgate.io.sources import read_manifest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ..api.pdfs import tiny_pdf
from .rendered_pages import assert_only_markup_between

RELEASE_NOTES = """\
# Upgrading to 3.0

The [`retry`](api/retry.md#retry "Retry API") helper now backs off
exponentially[^backoff] and stops after <em>five</em> attempts
<!-- @quill create_copy existing_path=refuse -->
unless the caller raises the limit.

Read the [migration notes][notes] before you upgrade a
<abbr title="production">prod</abbr> cluster; **every** node must run 2.9 first.

| Setting | Default |
|---|---|
| `max_attempts` | five tries<br>per request |

[notes]: https://example.invalid/notes
[^backoff]: Each wait doubles, up to thirty seconds.
"""

RETRY_GUIDE = """\
Retrying calls
==============

Wrap a call in :func:`~client.retry.with_backoff` to retry it; the
:attr:`Client.timeout` of :data:`30` seconds applies to each attempt [#wait]_.

.. @quill create_copy existing_path=refuse

Each retry waits longer than the last, see
`the backoff guide <https://example.invalid/backoff>`_ for the curve.

.. [#wait] Waits are measured from the end of the previous attempt.
"""

#: (page, quote) pairs a reader of the rendered page would quote honestly.
HONEST = [
    ("notes", "The retry helper now backs off exponentially and stops after five attempts"),  # link, code, tag
    ("notes", "stops after five attempts unless the caller raises the limit"),  # across a hidden directive
    ("notes", "Read the migration notes before you upgrade a prod cluster"),  # reference link, inline HTML
    ("notes", "every node must run 2.9 first"),  # strong
    ("notes", "five tries per request"),  # <br> in a table cell
    ("notes", "Each wait doubles, up to thirty seconds"),  # footnote body
    ("guide", "Wrap a call in with_backoff() to retry it"),  # function role: last component, ()
    ("guide", "the Client.timeout of 30 seconds applies to each attempt"),  # attr and data roles
    ("guide", "applies to each attempt. Each retry waits longer than the last"),  # footnote ref, rst directive
    ("guide", "see the backoff guide for the curve"),  # a named link's text
]

#: Quotes of raw markup a reader never sees.
RAW_MARKUP = [
    ("notes", "The [`retry`](api/retry.md#retry) helper now backs off"),
    ("notes", "stops after five attempts quill create_copy existing_path=refuse unless the caller"),
    ("notes", "exponentially backoff and stops after"),
    ("guide", "Wrap a call in :func:`~client.retry.with_backoff` to retry it"),
    ("guide", "applies to each attempt quill create_copy existing_path=refuse Each retry"),
    ("guide", "see the backoff guide https://example.invalid/backoff for the curve"),
]

FILES = {"notes": "notes.md", "guide": "retry.rst"}


def pin(folder: Path, pages: dict[str, tuple[str, bytes]]) -> Path:
    """Write ``pages`` (``source_id -> (file name, raw bytes)``) under ``folder`` and pin them at 1.0."""
    folder.mkdir(parents=True, exist_ok=True)
    entries = []
    for source_id, (name, raw) in pages.items():
        (folder / name).write_bytes(raw)
        digest = hashlib.sha256(raw).hexdigest()
        entries.append({"source_id": source_id, "version": "1.0", "path": name, "url": f"u:{name}", "sha256": digest})
    manifest = folder / "manifest.json"
    manifest.write_text(json.dumps({"sources": entries}), encoding="utf-8")
    return manifest


@pytest.fixture
def pinned(tmp_path) -> Path:
    return pin(
        tmp_path / "docs",
        {"notes": ("notes.md", RELEASE_NOTES.encode()), "guide": ("retry.rst", RETRY_GUIDE.encode())},
    )


def _check(audit: Audit, quotes: list[tuple[str, str]]) -> list[dict]:
    citations = [{"citation_id": f"c{i}", "doc_id": d, "quote": q} for i, (d, q) in enumerate(quotes)]
    return audit.check(citations).to_dict("records")


def test_pinned_markdown_and_rst_quotes_slice_the_file_with_only_markup_between(pinned):
    rows = _check(Audit.from_manifest(pinned), HONEST)
    assert [r["verdict"] for r in rows] == ["found"] * len(HONEST)
    for (doc_id, quote), row in zip(HONEST, rows):
        raw = (pinned.parent / FILES[doc_id]).read_text(encoding="utf-8")
        (span,) = row["spans"]
        assert_only_markup_between(raw, span, quote)
        first_line = raw[: span["start"]].count("\n") + 1
        assert (span["start_line"], span["end_line"]) == (first_line, first_line + span["text"].count("\n"))


def test_pinned_raw_markup_the_reader_never_sees_is_no_longer_found(pinned):
    rows = _check(Audit.from_manifest(pinned), RAW_MARKUP)
    assert [r["verdict"] for r in rows] == ["not_found"] * len(RAW_MARKUP)


def test_hidden_directive_comments_are_invisible_to_the_audit_and_read_by_the_gate(pinned):
    audit = Audit.from_manifest(pinned)
    for text in audit.documents.values():
        assert "@quill" not in text and "existing_path" not in text
    rows = _check(audit, [HONEST[1], HONEST[8]])
    kinds = [[e["kind"] for e in r["spans"][0]["elided"]] for r in rows]
    assert kinds == [["tag", "tag", "directive"], ["footnote_ref", "directive"]]  # <em>five</em>, [#wait]_
    # The gate reads the same pinned files as written: both declare existing_path=refuse.
    decided = Gate.from_manifest(pinned).decide(["notes", "guide"], "1.0", "existing_path")
    assert (decided["status"], decided["agreed_value"]) == ("ready", "refuse")


def test_pinned_pages_record_their_extractor(tmp_path, pinned):
    audit = Audit.from_manifest(pinned)
    assert audit.extractors == {"notes": "markdown", "guide": "rst"}
    frame = read_pinned_documents(read_manifest(pinned))
    assert frame["doc_id"].tolist() == ["notes", "guide"] and frame["path"].tolist() == ["notes.md", "retry.rst"]


@pytest.mark.parametrize(
    "name, extractor",
    [("page.MD", "markdown"), ("page.markdown", "markdown"), ("a/b.rst", "rst"), ("x.htm", "html"),
     ("x.HTML", "html"), ("m.pdf", "pdf"), ("notes.txt", "text"), ("CHANGES", "text"), ("conf.py", "text"),
     ("archive.md.bak", "text")],
)  # fmt: skip
def test_a_pinned_file_takes_the_folder_extractor_else_plain_text(name, extractor):
    assert extractor_of(name, "text") == extractor
    assert extractor_of(name) == EXTRACTORS.get(Path(name).suffix.lower())  # a folder: the same rule, no default


def test_pinned_text_html_and_pdf_pages_go_through_their_extractors(tmp_path):
    manual = tiny_pdf([["Retries stop after three attempts."], ["Timeouts double after every retry."]])
    html = b"<nav>Press S to search</nav><p>The <b>client</b> retries only idempotent calls.</p>"
    plain = b"A [link](kept.md) stays as written in plain text.\n"
    manifest = pin(
        tmp_path,
        {"manual": ("manual.pdf", manual), "page": ("page.html", html), "plain": ("CHANGES", plain)},
    )
    audit = Audit.from_manifest(manifest)
    assert audit.extractors == {"manual": "pdf", "page": "html", "plain": "text"}
    quotes = [
        ("manual", "Timeouts double after every retry"),
        ("page", "The client retries only idempotent calls"),
        ("plain", "A [link](kept.md) stays as written"),
    ]
    rows = _check(audit, quotes)
    assert [r["verdict"] for r in rows] == ["found"] * 3
    assert (rows[0]["spans"][0]["page"], rows[0]["spans"][0]["end_page"]) == (2, 2)
    assert audit.documents["plain"] == plain.decode()


def test_sha256_is_checked_on_the_bytes_as_written_before_extraction(tmp_path):
    manifest = pin(tmp_path, {"notes": ("notes.md", RELEASE_NOTES.encode())})
    # Only a link target changes: the rendered text is the same, the pinned bytes are not.
    edited = RELEASE_NOTES.replace("api/retry.md#retry", "api/v3/retry.md#retry")
    (tmp_path / "notes.md").write_text(edited, encoding="utf-8")
    with pytest.raises(IngestionError) as refused:
        Audit.from_manifest(manifest)
    assert refused.value.reason == "hash_mismatch"


def test_a_byte_order_mark_is_pinned_with_the_file_and_dropped_from_the_offsets(tmp_path):
    manifest = pin(tmp_path, {"notes": ("notes.md", b"\xef\xbb\xbf" + RELEASE_NOTES.encode())})
    (row,) = _check(Audit.from_manifest(manifest), [HONEST[2]])
    assert_only_markup_between(RELEASE_NOTES, row["spans"][0], HONEST[2][1])


def test_a_pinned_page_that_is_not_utf8_is_invalid_encoding_as_for_the_gate(tmp_path):
    manifest = pin(tmp_path, {"notes": ("notes.md", b"Caf\xe9 notes\n")})
    with pytest.raises(IngestionError) as audited:
        Audit.from_manifest(manifest)
    with pytest.raises(IngestionError) as gated:
        Gate.from_manifest(manifest)
    assert audited.value.reason == gated.value.reason == "invalid_encoding"


def test_pinned_and_folder_pages_give_the_same_rows(tmp_path, pinned):
    from_folder = Audit.from_corpus(pinned.parent, glob=["*.md", "*.rst"])
    quotes = HONEST + RAW_MARKUP
    folder_rows = _check(from_folder, [(FILES[d], q) for d, q in quotes])
    pinned_rows = _check(Audit.from_manifest(pinned), quotes)
    ids = {v: k for k, v in FILES.items()}
    for folder_row, pinned_row in zip(folder_rows, pinned_rows):
        assert folder_row["verdict"] == pinned_row["verdict"]
        assert [{**s, "doc_id": ids[s["doc_id"]]} for s in folder_row["spans"]] == pinned_row["spans"]


WORDS = st.sampled_from(["pool", "limit", "retry", "close", "every", "worker", "ten", "idle"])
MARKUP = st.sampled_from(["{}", "*{}*", "**{}**", "`{}`", "[{}](x.md#{})", "<em>{}</em>", "{}[^n]", "{} <!-- @x -->"])


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(WORDS, MARKUP), min_size=4, max_size=9))
def test_property_a_pinned_markdown_quote_slices_the_file_with_only_markup_between(tmp_path_factory, pieces):
    line = " ".join(markup.format(word, word) for word, markup in pieces)
    raw = f"# Page\n\n{line}\n\n[^n]: A note.\n"
    manifest = pin(tmp_path_factory.mktemp("p"), {"page": ("page.md", raw.encode())})
    quote = " ".join(word for word, _ in pieces)
    (row,) = _check(Audit.from_manifest(manifest), [("page", quote)])
    assert row["verdict"] == "found"
    assert_only_markup_between(raw, row["spans"][0], quote)
