"""The linear dangling-reference step (``io.rst_references``) builds docutils' tree, node for node.

Compared with docutils' own ``DanglingReferences`` on pages that mix resolved, dangling, duplicate,
anonymous, footnote and citation references (random, by hypothesis), and on the reStructuredText files
that ship with the installed packages. Then the point of it: a paragraph of many dangling references is
read in time that grows with the page, not with its square.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from claimgate.io import rst_text
from claimgate.io.rst_references import linear_reader_class
from claimgate.io.rst_text import rst_visible_text
from hypothesis import given, settings
from hypothesis import strategies as st


def _trees(raw: str) -> tuple[str, str]:
    from docutils.core import publish_doctree

    rst_text._register()
    made = []
    for reader in (None, linear_reader_class()()):
        options = {**rst_text._SETTINGS, "warning_stream": io.StringIO()}
        made.append(publish_doctree(raw, reader=reader, settings_overrides=options).pformat())
    return made[0], made[1]


PIECES = [
    "plain words", "foo_", "`two words`_", "`ok`_", "ok_", "`dup`_", "[#]_", "[#note]_", "[1]_", "[CIT2002]_",
    "__", "`anon`__", "`text <https://example.org/>`_", ":func:`os.path`", "*em* and **strong**", "``code_``",
]  # fmt: skip
TARGETS = [
    ".. _ok: https://example.org/ok", ".. _dup: https://a.example/", ".. _dup: https://b.example/",
    ".. [#note] A note.", ".. [1] One.", ".. [CIT2002] A citation.", ".. __: https://anon.example/",
]  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(PIECES), min_size=1, max_size=12), min_size=1, max_size=4),
    st.lists(st.sampled_from(TARGETS), max_size=4, unique=True),
)
def test_the_tree_is_docutils_own_on_random_pages(paragraphs, targets):
    raw = "Title\n=====\n\n" + "\n\n".join(" ".join(p) + "." for p in paragraphs) + "\n\n" + "\n".join(targets) + "\n"
    standard, linear = _trees(raw)
    assert linear == standard


def _shipped_rst_files(limit: int = 60) -> list[Path]:
    roots = sorted({Path(p) for p in sys.path if p.endswith("site-packages") and Path(p).is_dir()})
    files = sorted(f for root in roots for f in root.rglob("*.rst") if f.stat().st_size < 200_000)
    return files[:limit]


@pytest.mark.parametrize("path", _shipped_rst_files(), ids=lambda p: p.name)
def test_the_tree_is_docutils_own_on_shipped_pages(path):
    raw = path.read_text(encoding="utf-8", errors="replace")
    standard, linear = _trees(raw)
    assert linear == standard


@pytest.mark.parametrize("references", [100, 800])
def test_no_list_search_per_dangling_reference(monkeypatch, references):
    from docutils import nodes

    searched = []
    search = nodes.Element.index
    monkeypatch.setattr(nodes.Element, "index", lambda self, *a, **k: searched.append(1) or search(self, *a, **k))
    raw = "Title\n=====\n\n" + "\n".join(" ".join(["a_"] * 20) for _ in range(references // 20)) + "\n"
    text = rst_visible_text(raw).text
    assert text.count("a_") == references  # each shown as written, as docutils shows a dangling one
    # docutils' own step searches the paragraph once per reference (N searches of N children: N² steps)
    assert len(searched) == 0
