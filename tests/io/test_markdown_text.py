"""Rendered Markdown (``io.markdown_text``): what the reader sees is audited, spans slice the file as written."""

from __future__ import annotations

import re

import pytest
from claimgate.io.markdown_text import markdown_visible_text
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from .rendered_pages import assert_only_markup_between, audit_page, without_hidden, words

POOL_PAGE = """\
# Connection pools

Use sensible [limits](config.md#limits "Limits") on every pool[^3] and call
`pool.close()` before the process exits; see the [reference][ref] for **all**
*tuning* options &amp; their defaults.

Inline HTML is markup too: the host <code>example.org</code> answers <kbd>every</kbd> probe.

<!-- @claim pool.idle version=">=1.2" -->
Idle connections are closed
<!-- @end -->
after ten minutes without traffic.

| Option | Meaning |
|--------|---------|
| `timeout` | Seconds to wait<br>before giving up on a connection |
| `size` | At most \\| ten connections per pool |

```python
pool = Pool(size=4, timeout=2.5)
pool.close()
```

- one item with a ![diagram](img/pool.png) picture inside
- a second item that wraps
  onto a continuation line

[ref]: https://example.org/reference
[^3]: Limits apply to each worker process separately.
"""


QUOTES = [
    "sensible limits on every pool",  # 0 link text in, target out
    "on every pool and call pool.close() before the process exits",  # 1 footnote marker, code span
    "see the reference for all tuning options & their defaults",  # 2 reference link, emphasis, entity
    "the host example.org answers every probe",  # 3 inline HTML tags
    "Idle connections are closed after ten minutes without traffic",  # 4 across a hidden directive
    "Seconds to wait before giving up on a connection",  # 5 table cell with <br>
    "At most | ten connections per pool",  # 6 escaped pipe in a cell
    "pool = Pool(size=4, timeout=2.5)",  # 7 fenced code
    "a second item that wraps onto a continuation line",  # 8 list item over two lines
    "Limits apply to each worker process separately",  # 9 footnote body
    "Use sensible [limits](config.md#limits) on every pool",  # 10 the raw markup is not what a reader sees
    "timeout Seconds to wait",  # 11 table cells are read cell by cell
]


@pytest.fixture
def rows(tmp_path):
    return audit_page(tmp_path, "pools.md", POOL_PAGE, QUOTES)


def test_markdown_page_quotes_of_the_rendered_text_are_found(rows):
    assert [r["verdict"] for r in rows[:10]] == ["found"] * 10


def test_markdown_spans_slice_the_file_as_written_with_only_markup_between(rows):
    for row in rows[:10]:
        (span,) = row["spans"]
        assert_only_markup_between(POOL_PAGE, span, QUOTES[int(row["citation_id"][1:])])


def test_markdown_link_target_is_reported_as_elided_markup(rows):
    span = rows[0]["spans"][0]
    assert span["text"] == 'sensible [limits](config.md#limits "Limits") on every pool'
    assert [(e["kind"], e["text"]) for e in span["elided"]] == [("link_target", '(config.md#limits "Limits")')]


def test_markdown_footnote_marker_is_out_and_reported(rows):
    assert ("footnote_ref", "[^3]") in [(e["kind"], e["text"]) for e in rows[1]["spans"][0]["elided"]]


def test_markdown_hidden_directive_inside_a_quote_is_reported_as_elided(rows):
    span = rows[4]["spans"][0]
    assert [(e["kind"], e["text"]) for e in span["elided"]] == [("directive", "<!-- @end -->")]
    assert (span["start_line"], span["end_line"]) == (10, 12)


def test_markdown_br_in_a_table_cell_is_a_line_break_and_a_tag(rows):
    span = rows[5]["spans"][0]
    assert span["text"] == "Seconds to wait<br>before giving up on a connection"
    assert [e["kind"] for e in span["elided"]] == ["tag"]


def test_markdown_inline_tags_are_out(rows):
    assert [e["text"] for e in rows[3]["spans"][0]["elided"]] == ["<code>", "</code>", "<kbd>", "</kbd>"]


def test_markdown_lines_are_one_based_in_the_raw_file(rows):
    span = rows[7]["spans"][0]
    assert POOL_PAGE.splitlines()[span["start_line"] - 1] == "pool = Pool(size=4, timeout=2.5)"


def test_markdown_raw_markup_quoted_is_not_the_rendered_text(rows):
    assert rows[10]["verdict"] != "found"


def test_markdown_table_cells_are_read_cell_by_cell_row_by_row():
    text = markdown_visible_text(POOL_PAGE).text
    assert "timeout\nSeconds to wait\nbefore giving up on a connection\nsize\nAt most | ten" in text


def test_markdown_image_tags_comments_and_fence_info_are_not_visible():
    visible = markdown_visible_text(POOL_PAGE)
    for hidden in ("img/pool.png", "diagram", "@claim", "@end", "python\n", "https://example.org", "[^3]", "<br>"):
        assert hidden not in visible.text
    kinds = {kind for _, _, kind in visible.hidden}
    assert kinds == {"link_target", "footnote_ref", "tag", "directive", "image"}


def test_markdown_crlf_file_maps_back_to_its_own_offsets():
    raw = "Intro line\r\n\r\nUse [bounded](x.md) retries on\r\nevery call.\r\n"
    visible = markdown_visible_text(raw)
    start = visible.text.index("bounded")
    end = visible.text.index("call") + len("call")
    a, b = visible.raw_span(start, end)
    assert raw[a:b] == "bounded](x.md) retries on\r\nevery call"


def test_markdown_every_placed_character_is_itself_in_the_file():
    visible = markdown_visible_text(POOL_PAGE)
    for i, char in enumerate(visible.text):
        piece = POOL_PAGE[visible.starts[i] : visible.ends[i]]
        if piece and not char.isspace():
            assert piece == char or piece in ("&amp;", "\\|"), (i, char, piece)


# --------------------------------------------------------------------------- generated pages

_WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8)
_MARKUP = st.sampled_from(
    ["{}", "*{}*", "**{}**", "_{}_", "`{}`", "[{}](https://x.org/t_{})", "[{}][r]", "{}[^1]", "<span>{}</span>",
     "{} <!-- @note -->", "~~{}~~", "{}<br>"]
)  # fmt: skip


@st.composite
def markdown_pages(draw):
    """A page of paragraphs and table rows whose words are wrapped in random inline markup (a struck-through
    word, ``~~w~~``, is not shown: docs/documents.md, "Struck-through text")."""
    blocks, shown = [], []
    for _ in range(draw(st.integers(1, 4))):
        words_drawn = draw(st.lists(_WORDS, min_size=1, max_size=10))
        markups = [draw(_MARKUP) for _ in words_drawn]
        pieces = [m.format(w, w) for m, w in zip(markups, words_drawn, strict=True)]
        ws = [w for m, w in zip(markups, words_drawn, strict=True) if m != "~~{}~~"]
        if draw(st.booleans()):
            blocks.append(" ".join(pieces))
            shown.append(ws)
        else:
            blocks.append("| head |\n|---|\n| " + " ".join(pieces) + " |")
            shown.append(["head", *ws])
    return "\n\n".join(blocks) + "\n\n[r]: https://x.org/ref\n[^1]: fn\n", shown


@settings(max_examples=150, deadline=None)
@given(markdown_pages(), st.data())
def test_markdown_property_any_run_of_visible_words_slices_the_raw_file_with_only_markup_between(page, data):
    raw, shown = page
    visible = markdown_visible_text(raw)
    expected = [w for ws in shown for w in ws]
    seen = words(visible.text)
    assert seen[: len(expected)] == expected
    spans = [(m.start(), m.end()) for m in re.finditer(r"[^\W_]+", visible.text)][: len(expected)]
    assume(spans)  # a page whose only words are struck through shows none
    i = data.draw(st.integers(0, len(spans) - 1))
    j = data.draw(st.integers(i, len(spans) - 1))
    a, b = visible.raw_span(spans[i][0], spans[j][1])
    kept = without_hidden(raw, a, b, visible.hidden_within(a, b))
    assert words(kept) == expected[i : j + 1]
