"""Pages built for the review page's tests: an audit, an answer and a gate run, with hostile text in them."""

from __future__ import annotations

import pytest
from claimgate.api import Audit

#: Text that would act if it were not escaped: markup, a script, an event handler, bidi and zero-width controls.
HOSTILE = (
    '<script>alert("x")</script><img src=x onerror=alert(1)> \u202eevil\u202c \u2066iso\u2069 zero\u200bwidth &amp;'
)
GUIDE = "Quill copies files. When the destination exists, create_copy refuses to overwrite it. " + HOSTILE
CORPUS = {"guide": GUIDE, "notes": "Release notes: the copy command keeps file permissions on Linux."}
REFUSES = "create_copy refuses to overwrite it"


@pytest.fixture(scope="session")
def audit() -> Audit:
    return Audit.from_corpus(CORPUS)


@pytest.fixture(scope="session")
def audit_rows(audit) -> list[dict]:
    citations = [
        {"citation_id": "found-1", "doc_id": "guide", "quote": REFUSES},
        {"citation_id": "wrong<b>doc</b>", "doc_id": "guide", "quote": "keeps file permissions on Linux"},
        {"citation_id": "made-up", "doc_id": "guide", "quote": "create_copy never refuses to overwrite it"},
        {"citation_id": "hostile", "doc_id": "guide", "quote": HOSTILE},
    ]
    return audit.check(citations).to_dict("records")


@pytest.fixture(scope="session")
def answer_result(audit) -> dict:
    answer = {
        "text": f"It refuses to overwrite [1]. {HOSTILE} [2]. Fine.",
        "citations": [
            {"marker": "1", "doc_id": "guide", "quote": REFUSES},
            {"marker": "2", "doc_id": "guide", "quote": "it always overwrites silently"},
        ],
    }
    return audit.check_answer(answer)
