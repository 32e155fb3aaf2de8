"""Texts for the equivalence tests of the array rules: what real English documents hold, and real docstrings.

``TRIGGER_TEXT`` draws texts made of the pieces that once sent every real document to the
reference tokenizer (mixed case, ``#``, ``@``, URLs, e-mail addresses, footnote markers,
negator prefixes, fractions, symbols, other scripts, underscores, name suffixes,
exponents, units) and of the characters around them, glued by random separators.
``real_docstrings`` is the docstrings of a fixed list of standard-library and
installed-package modules (text that ships with Python; nothing is fetched).
"""

from __future__ import annotations

import importlib
import inspect

from hypothesis import strategies as st

#: Words and marks whose rules read their neighbours or the original case.
TRIGGERS = [
    "DataFrame", "iPhone", "HTTPServer", "readTimeout", "NumPy", "MB", "Mb", "ms", "Ms", "5MB", "kHz", "GiB",
    "C#", "F#", "C++", "g++", "four+1", "x+", "a+b", "++", "+/-", "+2", "1e+6", "1e-6", "10^6", "x^-3", "x^+2",
    "^", "reset_timeout", "_not_", "__init__", "a__b", "x_1", "_", "@property", "@", "ops.team@corp.example",
    "a@b.c", "https://Example.com/a_b?x=1#Frag", "http://x.org/v1.2.", "ftp://h/p", "(https://a.b/c)",
    "foo_http://x.y", "xhttp://y.z", "://", "[1]", "[^2]", "data[12–14]", "x[0]", "değil", "değildir", "نمی",
    "ნ", "არ", "人工", "ไม่", "¾", "½", "3⁄4", "1/2", "≥", "<=", ">=", "!=", "==", "<", ">", "=", "!", "€",
    "$", "%", "±", "×", "™", "Ω", "µs", "5", "3.5", "12,500", "’", "'", "-", "−", "‐", "\u00ad", "ﬁ", "İ",
    "Straße", "ΑΒΓ", "Привет", "é", "e\u0301", "…", "...", "`code`", "#5", "#!", "a#b", "Q&A",
    "\ud800", "x\udfffy", "\udc80\u00e9",  # lone surrogates (a JSON \ud800 escape read as it stands)
]  # fmt: skip
SEPARATORS = [" ", "  ", "\n", "-\n", ", ", ". ", "", "(", ")", ":", ";", "\t", "\u00a0", "/", "."]
TRIGGER_TEXT = st.lists(
    st.sampled_from(TRIGGERS) | st.sampled_from(SEPARATORS) | st.text(alphabet="aZ9_+#=<>^@:/.-", max_size=4),
    max_size=30,
).map("".join)

#: Modules whose docstrings are the real text of the tests (standard library and required packages).
DOCSTRING_MODULES = (
    "argparse", "collections", "dataclasses", "functools", "inspect", "itertools", "json", "pathlib", "re",
    "string", "textwrap", "typing", "unittest", "urllib.parse", "email.message", "decimal", "fractions",
    "numpy", "pandas", "pyarrow", "hamilton.driver", "hypothesis",
)  # fmt: skip


def real_docstrings(limit: int = 1500) -> list[str]:
    """The docstrings of :data:`DOCSTRING_MODULES` and of their public members, in a fixed order."""
    found: dict[str, None] = {}
    for name in DOCSTRING_MODULES:
        module = importlib.import_module(name)
        docs = [inspect.getdoc(module)]
        for attr in sorted(getattr(module, "__all__", None) or dir(module)):
            if attr.startswith("_"):
                continue
            member = getattr(module, attr, None)
            if inspect.isclass(member) or inspect.isfunction(member) or inspect.isbuiltin(member):
                docs.append(inspect.getdoc(member))
        for doc in docs:
            if doc and len(doc) > 40:
                found.setdefault(doc, None)
    return list(found)[:limit]
