"""How Sphinx shows a cross-reference role, the one rule for reStructuredText and Markdown (MyST) pages.

Why this module exists: ``:meth:`~pool.Pool.close``` in a ``.rst`` page (``io.rst_text``) and
``{meth}`~pool.Pool.close``` in a MyST ``.md`` page (``io.markdown_text``) both read ``close()``; the
tables of roles and the display rule live here once, with where a role's shown characters lie in the
file as written. Rules: docs/documents.md, "Rendered Markdown and reStructuredText".
"""

from __future__ import annotations

import re

#: Sphinx roles shown as code, with a function's ``()`` added when no title is given (Sphinx's default).
FUNCTION_ROLES = ("func", "meth", "py:func", "py:meth", "c:func", "cpp:func")
#: Sphinx cross-reference roles shown as code (``~`` keeps the last dotted component).
CODE_ROLES = (
    "class", "data", "attr", "mod", "obj", "exc", "const", "type",
    "py:class", "py:data", "py:attr", "py:mod", "py:obj", "py:exc", "py:const", "py:type",
    "envvar", "option", "file", "samp", "command", "kbd", "token", "makevar", "regexp", "c:macro", "c:type",
)  # fmt: skip
#: Sphinx roles shown as plain text (the title of ``title <target>``, else the target).
TEXT_ROLES = ("ref", "doc", "term", "numref", "download", "any", "guilabel", "menuselection", "dfn", "program",
              "mimetype", "manpage", "std:ref", "std:doc", "std:term")  # fmt: skip

_TITLED = re.compile(r"^(?P<title>.+?)\s*<(?P<target>[^<>]+)>$", re.DOTALL)


def role_display(role: str, text: str) -> tuple[str, str]:
    """``(core, suffix)`` a Sphinx role shows for ``text``: ``core`` is in the role's text as written.

    ``title <target>`` shows the title; a ``~`` target its last dotted component; ``!`` is dropped; a
    function or method role adds ``()`` (the ``suffix``) unless a title is given or it ends with ``)``.
    """
    titled = _TITLED.match(text)
    if titled:
        return titled["title"], ""
    target = text.lstrip("!")
    if target.startswith("~"):
        target = target[1:].rsplit(".", 1)[-1]
    suffix = "()" if role in FUNCTION_ROLES and not target.endswith(")") else ""
    return target, suffix


def role_places(source: str, start: int, end: int, core: str, shown: str) -> tuple[list[tuple[int, int]], list[int]]:
    """Where a role written ``source[start:end]`` (name, backticks and text) shows ``shown`` (``core`` then
    an added suffix): ``(hidden, places)`` or ``([], [])`` when ``core`` is not in it as written.

    ``places`` holds two offsets of ``source`` per character of ``shown`` (start, end): ``core`` where it is
    written (its last occurrence), an added ``()`` empty where ``core`` ends. ``hidden``: the ``role``
    ranges a reader does not see: the role's name with what precedes ``core`` (a ``~`` prefix), and what
    follows it before the closing backtick (a title's ``<target>``).
    """
    at = source.rfind(core, start, end) if core else -1
    if at < 0:
        return [], []
    after = at + len(core)
    close = end - 1 if source[end - 1] == "`" else end
    places = [p for i in range(len(core)) for p in (at + i, at + i + 1)] + [after, after] * (len(shown) - len(core))
    return [(start, at), (after, close)], places
