"""Reading a generated answer: plain JSON with ``[n]`` markers, or an Anthropic Messages response.

Why: the audit checks citation rows; an answer arrives as text with markers, or as a
provider's response whose citations carry the offsets of the cited text in the documents
sent. This module turns either into claims and citation rows, and reads nothing else
(docs/answer-rules.md, "Answer formats"):

- **plain**: ``{"text": str, "citations": [{"marker": str|int, "doc_id": str, "quote": str}]}``.
  The text is split into claims (``sentences.split_claims``); a claim cites every citation
  whose ``marker`` appears in it as ``[n]``.
- **anthropic**: a Messages response ``{"content": [block, …]}``; each block of ``type``
  ``"text"`` is one claim (a block with no letter or digit is not). Its ``citations`` of
  ``type`` ``char_location`` read ``cited_text``, ``document_index``, ``start_char_index``,
  ``end_char_index``; ``page_location`` reads ``cited_text``, ``document_index``,
  ``start_page_number``, ``end_page_number``; ``content_block_location`` reads ``cited_text``,
  ``document_index``, ``start_block_index``, ``end_block_index``. ``document_index`` is a
  position in the list of doc ids given as ``sent_documents`` (the order the documents were
  sent). Other citation types keep their ``cited_text`` but no document (``invalid_citation``).

What it refuses to do: guess a format or a document. A file that is neither shape, or a
field of the wrong type, raises ``IngestionError`` ``invalid_answer``, naming the field.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from claimgate.audit.answer.sentences import markers, split_claims
from claimgate.errors import IngestionError

FORMATS = ("plain", "anthropic")
#: Provider citation types whose location is read, and the location's field names (start, end).
LOCATION_FIELDS = {
    "char_location": ("start_char_index", "end_char_index"),
    "page_location": ("start_page_number", "end_page_number"),
    "content_block_location": ("start_block_index", "end_block_index"),
}


@dataclass(frozen=True)
class ParsedAnswer:
    """An answer read: its ``text``, ``format``, ``claims`` and ``citations`` (plain dicts).

    A claim: ``claim_id, kind, start, end, text`` (offsets in characters of ``text``) and
    ``markers`` (list of str) and ``missing_markers`` (markers with no citation). A citation:
    ``citation_id, claim_id, marker, doc_id`` (str or None), ``quote`` and ``location`` (None for
    plain; ``{type, document_index, start, end}`` for a provider citation).
    """

    text: str
    format: str
    claims: list[dict]
    citations: list[dict]
    unused_markers: list[str] = field(default_factory=list)


def _refuse(detail: str) -> IngestionError:
    return IngestionError("invalid_answer", detail)


def detect_format(document: object) -> str:
    """``plain`` for an object with ``text``, ``anthropic`` for one with a ``content`` list; else refused."""
    if isinstance(document, dict) and isinstance(document.get("content"), list):
        return "anthropic"
    if isinstance(document, dict) and "text" in document:
        return "plain"
    raise _refuse("expected an object with `text` (plain) or a `content` list (an Anthropic Messages response)")


def _plain(document: dict) -> ParsedAnswer:
    text, cited = document.get("text"), document.get("citations", [])
    if not isinstance(text, str):
        raise _refuse("`text` must be a string")
    if not isinstance(cited, list):
        raise _refuse("`citations` must be a list")
    by_marker: dict[str, list[dict]] = {}
    for i, row in enumerate(cited):
        if not isinstance(row, dict):
            raise _refuse(f"citations[{i}] is not an object")
        marker = row.get("marker")
        if isinstance(marker, bool) or not isinstance(marker, (str, int)):
            raise _refuse(f"citations[{i}].marker must be a string or an integer")
        for name in ("doc_id", "quote"):
            if not isinstance(row.get(name), str):
                raise _refuse(f"citations[{i}].{name} must be a string")
        by_marker.setdefault(str(marker), []).append(row)
    claims, citations, used = [], [], set()
    for n, piece in enumerate(split_claims(text), start=1):
        claim_id = f"s{n}"
        found = markers(piece.text)
        used.update(found)
        claims.append(_claim(claim_id, piece.kind, piece.start, piece.end, piece.text, found, by_marker))
        cited_here = [(marker, row) for marker in found for row in by_marker.get(marker, [])]
        for number, (marker, row) in enumerate(cited_here):
            citations.append(_citation(claim_id, number, marker, row["doc_id"], row["quote"], None))
    unused = [m for m in by_marker if m not in used]
    return ParsedAnswer(text, "plain", claims, citations, unused)


def _claim(claim_id, kind, start, end, text, found, by_marker) -> dict:
    missing = [m for m in found if m not in by_marker]
    return {
        "claim_id": claim_id,
        "kind": kind,
        "start": start,
        "end": end,
        "text": text,
        "markers": found,
        "missing_markers": missing,
    }


def _citation(claim_id: str, number: int, marker, doc_id, quote, location) -> dict:
    return {
        "citation_id": f"{claim_id}.c{number + 1}",
        "claim_id": claim_id,
        "marker": marker,
        "doc_id": doc_id,
        "quote": quote,
        "location": location,
    }


def _anthropic(document: dict, sent_documents: list[str] | None) -> ParsedAnswer:
    sent = list(sent_documents or [])
    pieces, claims, citations, position = [], [], [], 0
    for b, block in enumerate(document["content"]):
        if not isinstance(block, dict):
            raise _refuse(f"content[{b}] is not an object")
        if block.get("type") != "text":
            continue
        text, cited = block.get("text"), block.get("citations") or []
        if not isinstance(text, str) or not isinstance(cited, list):
            raise _refuse(f"content[{b}]: `text` must be a string and `citations` a list or null")
        start = position
        pieces.append(text)
        position += len(text)
        if not any(ch.isalnum() for ch in text):
            continue
        left = len(text) - len(text.lstrip())
        claim_id = f"b{b}"
        stripped = text.strip()
        claims.append(
            {
                "claim_id": claim_id,
                "kind": "text_block",
                "start": start + left,
                "end": start + left + len(stripped),
                "text": stripped,
                "markers": [],
                "missing_markers": [],
            }
        )
        number = 0
        for c, row in enumerate(cited):
            if not isinstance(row, dict) or not isinstance(row.get("cited_text"), str):
                raise _refuse(f"content[{b}].citations[{c}] needs a string `cited_text`")
            kind = row.get("type")
            location, doc_id = None, None
            if kind in LOCATION_FIELDS:
                index = row.get("document_index")
                if isinstance(index, bool) or not isinstance(index, int):
                    raise _refuse(f"content[{b}].citations[{c}].document_index must be an integer")
                first, last = (row.get(name) for name in LOCATION_FIELDS[kind])
                if any(isinstance(v, bool) or not isinstance(v, int) for v in (first, last)):
                    raise _refuse(
                        f"content[{b}].citations[{c}]: {' and '.join(LOCATION_FIELDS[kind])} must be integers"
                    )
                doc_id = sent[index] if 0 <= index < len(sent) else None
                location = {"type": kind, "document_index": index, "start": first, "end": last}
            else:
                location = {"type": str(kind), "document_index": None, "start": None, "end": None}
            citations.append(_citation(claim_id, number, str(c), doc_id, row["cited_text"], location))
            number += 1
    return ParsedAnswer("".join(pieces), "anthropic", claims, citations, [])


def parse_answer(
    document: object, answer_format: str = "auto", sent_documents: list[str] | None = None
) -> ParsedAnswer:
    """Read an answer document (parsed JSON) of ``answer_format`` (``auto``: ``detect_format``).

    ``sent_documents`` (anthropic only) maps ``document_index`` to doc ids. Raises
    ``IngestionError`` ``invalid_answer`` for a shape that is not the format's (the field named).
    """
    if answer_format not in ("auto", *FORMATS):
        raise ValueError(f"answer_format must be auto, plain or anthropic, not {answer_format!r}")
    found = detect_format(document)
    if answer_format != "auto" and found != answer_format:
        raise _refuse(f"expected the {answer_format} format, found the {found} one")
    if sent_documents is not None and not all(isinstance(d, str) for d in sent_documents):
        raise _refuse("the documents list must hold doc ids (strings)")
    return _plain(document) if found == "plain" else _anthropic(document, sent_documents)
