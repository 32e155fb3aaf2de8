"""Case in identifiers and code: a token inside a code run keeps its case, in the quote and in the source.

Why this module exists: the tokens fold the case of every word that is not mixed case (``readTimeout``)
or a unit symbol, so ``read_timeout``, ``np.float64``, ``len(a)`` and a URL's path would match a quote
that changes their case (``Read_Timeout``, ``NP.float64``, ``len(A)``, ``/V2/``): another attribute,
module, variable or page. A placement is checked here against the quote as written: where a token
stands in a code run (:data:`CODE_RUN_RE`, :func:`is_code_run`) on either side, or is a URL whose path
differs, a difference of case alone means the placement is not this text. Rule and what it gives up:
docs/audit-rules.md, "Case" (identifiers and code).

What it refuses to do: loosen a match. It only ever refuses a placement the tokens accepted; a
verbatim quote is the source's own spelling, so it is never refused here.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

#: A run of text without white space is code (docs/audit-rules.md, "Case") when it holds an underscore
#: between two letters or digits (``read_timeout``, ``HTTP_PROXY``), a call (a letter or digit directly
#: before ``(``: ``len(a)``, ``os.getcwd()``), ``::`` or ``->`` between names (``std::vector``,
#: ``node->next``), an ``=`` between names (``retries=3``), or starts as a command-line option
#: (``--max-retries``, ``-v``). Dotted names and paths are :func:`is_code_run`'s further cases.
CODE_RUN_RE = re.compile(r"[^\W_]_+[^\W_]|[^\W_]\(|\w(?:::|->)\w|\w=\w|^[\"'`(\[{<]*--?[^\W\d_]")
#: A dotted name: parts joined by dots, a letter after a dot (``np.float64``, ``README.md``; not ``3.5``).
_DOTTED_RE = re.compile(r"[^\W_]+(?:\.[^\W_]+)+")
#: A path: a slash between two letters or digits, in a run that starts with ``/``, ``./``, ``../`` or
#: ``~/`` or holds two slashes (``/etc/hosts``, ``docs/v2/``; not ``and/or``).
_PATH_RE = re.compile(r"[^\W_]/[^\W_]")
_PATH_START_RE = re.compile(r"^[\"'`(\[{<]*(?:~|\.{1,2})?/")
#: A URL's scheme and host, whose case carries no meaning; the rest of it (path, query, fragment) does.
_URL_HEAD_RE = re.compile(r"^(?:https?|ftp)://[^/?#]*", re.IGNORECASE)
_RUN_START_RE = re.compile(r"\S*\Z")
_SPACE_RE = re.compile(r"\s")
#: How far back a run is read from a token (a run longer than this is read from there).
_REACH = 256


def is_code_run(run: str) -> bool:
    """Is ``run`` (text without white space) code, so that the case of its words counts?

    :data:`CODE_RUN_RE`, a dotted name other than an abbreviation of single letters (``e.g``, ``U.S.A``)
    with a letter after one of its dots, or a path (:data:`_PATH_RE` in a run starting with a slash or
    holding two).
    """
    if CODE_RUN_RE.search(run):
        return True
    if "." in run:
        for m in _DOTTED_RE.finditer(run):
            parts = m.group().split(".")
            if any(len(p) > 1 for p in parts) and any(p[0].isalpha() for p in parts[1:]):
                return True
    if "/" in run and _PATH_RE.search(run):
        return run.count("/") >= 2 or _PATH_START_RE.match(run) is not None
    return False


def run_around(text: str, start: int, end: int) -> str:
    """The run of ``text`` without white space that holds ``text[start:end]`` (at most :data:`_REACH` back)."""
    lo = max(0, start - _REACH)
    head = _RUN_START_RE.search(text, lo, start)
    after = _SPACE_RE.search(text, end)
    return text[head.start() : after.start() if after else len(text)]


def _url_kept(a: str, b: str) -> bool:
    """Do two URLs equal but for case have the same path, query and fragment (scheme and host fold)?"""
    ha, hb = _URL_HEAD_RE.match(a), _URL_HEAD_RE.match(b)
    if ha is None or hb is None:
        return True
    return a[ha.end() :] == b[hb.end() :]


@dataclass(frozen=True)
class WrittenTokens:
    """A quote fragment's tokens as written: ``pieces``, the fragment's texts between brackets, each with its
    tokens' start and end offsets; ``span``, for a fragment of one piece, the text from its first token's start
    to its last one's end (compared with a placement's first). The rest is read only for a placement that
    is not spelled as the quote (:func:`written_tokens` builds it)."""

    pieces: tuple[tuple[str, tuple[int, ...], tuple[int, ...]], ...]
    span: str | None

    def raw(self) -> list[str]:
        """Each token's characters as written."""
        return [piece[a:b] for piece, starts, ends in self.pieces for a, b in zip(starts, ends, strict=True)]

    def code(self, i: int) -> bool:
        """Does token ``i`` stand in a code run of the quote (:func:`is_code_run`)?"""
        for piece, starts, ends in self.pieces:
            if i < len(starts):
                return is_code_run(run_around(piece, starts[i], ends[i]))
            i -= len(starts)
        raise IndexError(i)


def written_tokens(pieces: list[tuple[str, tuple[int, ...], tuple[int, ...]]]) -> WrittenTokens:
    """The :class:`WrittenTokens` of a fragment's ``(piece, token starts, token ends)`` (each piece with a token)."""
    span = None
    if len(pieces) == 1:
        piece, starts, ends = pieces[0]
        span = piece[starts[0] : ends[-1]]
    return WrittenTokens(tuple(pieces), span)


def _refused(quoted: str, quote_code, source: str, source_code) -> bool:
    """Is ``quoted`` (as written) a change of case of ``source`` (as written) where case counts?"""
    if quoted == source:
        return False
    if quoted.casefold() != source.casefold():
        return False  # not a difference of case (the tokens read the two as one for another reason)
    if _URL_HEAD_RE.match(quoted):
        return not _url_kept(quoted, source)
    return quote_code() or source_code()


def same_identifier_case(written: WrittenTokens, original: str, starts, ends, s: int, e: int) -> bool:
    """Does the placement ``s..e-1`` (source tokens of ``original``) keep the case of every code token?

    ``written``: the quote fragment's tokens (:class:`WrittenTokens`). Token for token when the fragment
    has as many tokens as the placement; otherwise (a bracket, a word joined at a line-end hyphen) each
    quote token is compared with the placement's tokens that equal it but for case. Rule:
    docs/audit-rules.md, "Case".
    """
    span = written.span
    if span is not None and e > s and original[starts[s] : ends[e - 1]] == span:
        return True  # the source's own text: no difference of case
    source = [original[starts[k] : ends[k]] for k in range(s, e)]
    raw = written.raw()
    if "".join(source) == "".join(raw):
        return True  # as written: no difference of case
    source = [w if w.isascii() else unicodedata.normalize("NFKC", w) for w in source]

    def code(k: int):
        return lambda: is_code_run(run_around(original, starts[s + k], ends[s + k]))

    def quote_code(i: int):
        return lambda: written.code(i)

    tokens = [w if w.isascii() else unicodedata.normalize("NFKC", w) for w in raw]
    if len(source) == len(tokens):
        pairs = enumerate(zip(tokens, source, strict=True))
        return not any(_refused(q, quote_code(i), d, code(i)) for i, (q, d) in pairs)
    for i, q in enumerate(tokens):
        same = [k for k, d in enumerate(source) if d.casefold() == q.casefold()]
        if same and q not in (source[k] for k in same):
            if any(_refused(q, quote_code(i), source[k], code(k)) for k in same):
                return False
    return True
