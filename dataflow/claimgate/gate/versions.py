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
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from packaging.version import VERSION_PATTERN, Version

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
    _memo: dict = field(default_factory=dict, init=False, compare=False, hash=False, repr=False)

    @property
    def description(self) -> str:
        """How a refusal names the scheme: the seed's expression for major.minor, else the scheme."""
        if self.name == "major.minor":
            return MAJOR_MINOR
        if self.name == "regex":
            return f"the schema's version pattern {self.pattern!r}"
        return {"semver": "semver (MAJOR.MINOR.PATCH[-PRE][+BUILD])", "pep440": "PEP 440"}[self.name]

    def accepts(self, text: str) -> bool:
        """Whether ``text`` is a version under this scheme (cached: a batch repeats few versions)."""
        return _accepts(self.name, self.pattern, text)

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
        found = self._memo.get(value)
        if found is None:
            if len(self._memo) >= MEMO_SIZE:
                self._memo.clear()
            found = self._memo[value] = _string_problem(self, value)
        return found


MEMO_SIZE = 8192


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
def _compiled(name: str, pattern: str) -> re.Pattern[str]:
    flags = re.VERBOSE | re.IGNORECASE if name == "pep440" else 0
    return re.compile(pattern, flags)


@functools.lru_cache(maxsize=64)
def _accepts(name: str, pattern: str, text: str) -> bool:
    if name == "regex":
        return _compiled(name, pattern).fullmatch(text) is not None
    return _compiled(name, pattern).match(text) is not None


def version_scheme(pattern: object) -> VersionScheme:
    """The scheme for a schema's ``[versions] pattern`` value (``None`` → ``major.minor``).

    Raises ``ValueError`` (one line, the caller's ``invalid_schema`` detail) when the
    value is not a string, is empty, is a bare word that is not a scheme name, or is
    a regular expression that does not compile. A custom expression must match the
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
    return VersionScheme("regex", pattern)

