"""Version schemes: which strings a schema accepts as versions (see docs/gate-rules.md, "Versions").

A claim schema may say how its documentation numbers versions::

    [versions]
    pattern = "semver"   # "major.minor" (the default), "semver", "pep440" or a regular expression

The scheme only decides whether a string *is* a version (``invalid_requested_version``
for a request, ``invalid_source_version`` for a pinned source). Selection stays exact
string equality: ``1.2`` is not ``1.2.0`` and ``1.0`` is not ``1.00``. Equivalence rules
(trailing zeros, ``v`` prefixes, build metadata) differ between schemes and between
projects, and a gate that decided two spellings meant the same page would be choosing
for the user; it refuses instead, and the user pins and asks with one spelling.

A version that is not a string (a number read from JSON or Parquet) is never turned
into one: ``1.10`` as a float is ``1.1``, so the gate names the type and refuses.

No version can hang the gate: a string longer than :data:`MAX_VERSION_CHARS` is refused
before any pattern sees it, and a schema's own regular expression is matched by RE2
(``google-re2``), whose time is linear in the version's length whatever the pattern
(Python's backtracking ``re`` took over a minute on ``([0-9]+\\.?)+`` and 35 digits, and
held the interpreter meanwhile). A pattern RE2 cannot match (a backreference, a
lookaround, an atomic group) is refused at schema load; RE2's ``\\d``, ``\\w`` and ``\\b``
are ASCII. Python's spellings ``\\Z`` and ``{,n}`` are read as Python reads them.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from packaging.version import VERSION_PATTERN, Version

from claimgate.gate.memo import MEMO_ENTRIES, BoundedMemo

#: The seed's scheme, and its detail text, kept byte for byte (golden outputs hold it).
MAJOR_MINOR = r"^[0-9]+\.[0-9]+$"

#: The regular expression of semver.org (SemVer 2.0.0), anchored with ``\Z``.
SEMVER = (
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?\Z"
)

NAMED_SCHEMES = ("major.minor", "semver", "pep440")
# A bare word that is not a scheme name is almost certainly a misspelt name ("semvar"), not a
# regular expression meant to match that one word: refuse it rather than accept one literal version.
_BARE_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_-]*\Z")


@dataclass(frozen=True)
class VersionScheme:
    """A validated version scheme: its ``name`` (a named scheme or ``"regex"``) and ``pattern`` text.

    Immutable and picklable (the compiled expression is rebuilt on demand, not stored).
    """

    name: str = "major.minor"
    pattern: str = field(default=r"^[0-9]+\.[0-9]+\Z")
    # Memo of string -> problem: a batch asks about the same few versions once per case and
    # candidate, and a plain dict lookup keeps that as cheap as the seed's cached expression test.
    _memo: BoundedMemo = field(default_factory=BoundedMemo, init=False, compare=False, hash=False, repr=False)

    @property
    def description(self) -> str:
        """How a refusal names the scheme: the seed's expression for major.minor, else the scheme."""
        if self.name == "major.minor":
            return MAJOR_MINOR
        if self.name == "regex":
            return f"the schema's version pattern {self.pattern!r}"
        return {"semver": "semver (MAJOR.MINOR.PATCH[-PRE][+BUILD])", "pep440": "PEP 440"}[self.name]

    def accepts(self, text: str) -> bool:
        """Whether ``text`` is a version under this scheme (cached: a batch repeats few versions).

        A text over :data:`MAX_VERSION_CHARS` is not, and never reaches the cache or a pattern.
        """
        return len(text) <= MAX_VERSION_CHARS and _accepts(self.name, self.pattern, text)

    def problem(self, value: object) -> str:
        """``""`` when ``value`` is a version, else the one-line detail of the refusal.

        A non-string names its type (``got float 1.4; write versions as strings``); a
        string that does not match names the scheme; a PEP 440 version not in its
        normal form names the normal form.
        """
        if not isinstance(value, str):
            if value is None:
                return "got no version (null or missing); write versions as strings"
            return f"got {type(value).__name__} {value!r}; write versions as strings"
        if len(value) > MAX_VERSION_CHARS:  # before the memo and any pattern: bounded time and memory
            return f"a version of {len(value)} characters ({value[:24]!r}...) is over the {MAX_VERSION_CHARS} allowed"
        found = self._memo.get(value)
        if found is None:
            found = _string_problem(self, value)
            self._memo.put(value, found)  # bounded by entries and bytes (gate/memo.py)
        return found


MEMO_SIZE = MEMO_ENTRIES  # the name before the memo was bounded by bytes too

#: The longest version string read (characters): a longer requested or pinned version is refused
#: (``invalid_requested_version``, ``invalid_source_version``) before any pattern sees it.
MAX_VERSION_CHARS = 256


def _string_problem(scheme: VersionScheme, text: str) -> str:
    """``VersionScheme.problem`` for a string (memoized by the scheme)."""
    if not scheme.accepts(text):
        return f"{text!r} does not match {scheme.description}"
    if scheme.name == "pep440":
        # Equality is on strings, so two spellings of one version ("1.0-rc1", "1.0rc1") would
        # silently never select each other: only the normal form is a version here.
        normal = str(Version(text))
        if normal != text:
            return f"{text!r} is not in PEP 440 normal form; write {normal!r}"
    return ""


@functools.lru_cache(maxsize=64)
def _compiled(name: str, pattern: str):  # noqa: ANN202 - an re.Pattern, or an re2 one for a schema's own pattern
    if name == "regex":
        return _linear_time(pattern)
    flags = re.VERBOSE | re.IGNORECASE if name == "pep440" else 0
    return re.compile(pattern, flags)


def _linear_time(pattern: str):  # noqa: ANN202
    """``pattern`` compiled by RE2: matching time linear in the text's length. Raises ``re2.error``."""
    import re2  # google-re2; imported only for a schema with its own pattern

    options = re2.Options()
    options.log_errors = False  # a refused pattern is reported by version_scheme, not logged on stderr
    return re2.compile(_re2_spelling(pattern), options)


_EMPTY_MINIMUM = re.compile(r"\{,[0-9]+\}")


def _re2_spelling(pattern: str) -> str:
    """``pattern`` with the Python spellings RE2 reads otherwise rewritten: ``\\Z`` as ``\\z``, ``{,n}`` as ``{0,n}``.

    Outside character classes only (escapes are kept pairwise, so ``\\\\Z`` stays a backslash and a Z).
    """
    out: list[str] = []
    i, in_class = 0, False
    while i < len(pattern):
        char = pattern[i]
        if char == "\\" and i + 1 < len(pattern):
            pair = pattern[i : i + 2]
            out.append("\\z" if pair == "\\Z" and not in_class else pair)
            i += 2
            continue
        if char == "[" and not in_class:
            in_class = True
            out.append(char)
            i += 1
            if pattern[i : i + 1] == "^":
                out.append("^")
                i += 1
            if pattern[i : i + 1] == "]":  # a ] first in a class is a literal
                out.append("]")
                i += 1
            continue
        if char == "]" and in_class:
            in_class = False
        elif char == "{" and not in_class and _EMPTY_MINIMUM.match(pattern, i):
            out.append("{0")
            i += 1
            continue
        out.append(char)
        i += 1
    return "".join(out)


@functools.lru_cache(maxsize=64)
def _accepts(name: str, pattern: str, text: str) -> bool:
    if name == "regex":
        return _compiled(name, pattern).fullmatch(text) is not None
    return _compiled(name, pattern).match(text) is not None


def version_scheme(pattern: object) -> VersionScheme:
    """The scheme for a schema's ``[versions] pattern`` value (``None`` → ``major.minor``).

    Raises ``ValueError`` (one line, the caller's ``invalid_schema`` detail) when the
    value is not a string, is empty, is a bare word that is not a scheme name, or is
    a regular expression that does not compile, in Python's ``re`` or in RE2 (no
    backreference, lookaround or atomic group: versions are matched in linear time). A custom expression must match the
    whole version (``re.fullmatch``).
    """
    if pattern is None or pattern == "major.minor":
        return VersionScheme()
    if not isinstance(pattern, str) or not pattern:
        raise ValueError(f"versions.pattern must be a non-empty string, not {pattern!r}")
    if pattern == "semver":
        return VersionScheme("semver", SEMVER)
    if pattern == "pep440":
        # packaging's own expression (PEP 440's appendix), whole string, no surrounding white space.
        return VersionScheme("pep440", r"^" + VERSION_PATTERN + r"\Z")
    if _BARE_WORD.match(pattern):
        raise ValueError(f"unknown version scheme {pattern!r}; use {', '.join(NAMED_SCHEMES)} or a regular expression")
    try:
        re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"versions.pattern {pattern!r} is not a regular expression: {exc}") from None
    try:
        _compiled("regex", pattern)
    except Exception as exc:  # noqa: BLE001 - re2.error (its message is bytes)
        reason = exc.args[0].decode(errors="replace") if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        raise ValueError(
            f"versions.pattern {pattern!r} cannot be matched in linear time ({reason}): "
            "backreferences, lookarounds and atomic groups are not accepted"
        ) from None
    return VersionScheme("regex", pattern)
