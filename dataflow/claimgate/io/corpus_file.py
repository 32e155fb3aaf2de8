"""Reading a plain corpus file ``{doc_id: text}``, and the one rule for a corpus with no document.

Why this module exists: a corpus file is the audit's simplest source of documents (no manifest, no
folder); its checks (strict UTF-8 JSON, unique non-empty ids, string texts, byte limits) and the refusal of
an empty corpus, which every reader of documents calls, live here. Rules: docs/documents.md.
"""

from __future__ import annotations

import json
from collections.abc import Sized
from pathlib import Path

import numpy as np
import orjson

from claimgate.errors import IngestionError
from claimgate.io.files import TooLargeError, read_input_bytes, utf8_text
from claimgate.io.json_text import DuplicateKeyError, loads_json, unique_keys, where_json_failed
from claimgate.io.sources import DEFAULT_MAX_CORPUS_BYTES, DEFAULT_MAX_SOURCE_BYTES


def refuse_empty_corpus(documents: Sized, detail: str) -> None:
    """The one rule for a corpus with no document: ``IngestionError`` ``invalid_corpus`` with ``detail``.

    ``documents`` is what was found (a mapping, a list of pages, their rows); an empty one refuses the
    run, whether it is an empty corpus file ``{}``, an empty ``{doc_id: text}`` dict, an empty folder or
    a folder with no page an extractor reads: an empty corpus would call every quote ``not_found``
    (docs/documents.md, "An empty corpus").
    """
    if len(documents) == 0:
        raise IngestionError("invalid_corpus", f"{detail}: an empty corpus would call every quote not_found")


def read_corpus(
    corpus_path: str | Path,
    max_document_bytes: int = DEFAULT_MAX_SOURCE_BYTES,
    max_corpus_bytes: int = DEFAULT_MAX_CORPUS_BYTES,
) -> dict[str, str]:
    """Read a plain corpus file ``{doc_id: text}`` (JSON object of strings).

    Raises ``IngestionError``: ``invalid_corpus`` (missing, not a regular file, not UTF-8
    JSON, not an object, an empty object ``{}``: ``refuse_empty_corpus``, a document id listed
    twice, an empty id or a value that is not a string); ``corpus_too_large`` (the file holds
    more than ``max_corpus_bytes`` bytes: no more than that plus one byte is read);
    ``document_too_large`` (a document's text is more than ``max_document_bytes`` bytes in
    UTF-8, the ``--max-source-bytes`` limit, which bounds the memory that matching one
    document takes).
    """
    path = Path(corpus_path)
    try:
        data = read_input_bytes(path, "invalid_corpus", "corpus", limit=max_corpus_bytes)
    except TooLargeError:
        raise IngestionError("corpus_too_large", f"{path.name}: more than {max_corpus_bytes} bytes") from None
    document = _object_of_strings(data)
    if document is None:  # not plainly an object of strings: the standard reader says what it is
        text = utf8_text(data, path, "invalid_corpus")
        data = b""
        try:
            document = loads_json(text, object_pairs_hook=unique_keys)
        except DuplicateKeyError as exc:
            raise IngestionError("invalid_corpus", f"document {exc.key!r} is listed twice") from None
        except json.JSONDecodeError as exc:
            raise IngestionError("invalid_corpus", f"{path}: {where_json_failed(exc)}") from None
        del text  # the parsed strings are all that is kept
    del data
    if not isinstance(document, dict):
        raise IngestionError("invalid_corpus", "expected a JSON object {doc_id: text}")
    refuse_empty_corpus(document, f"no document in {path}")
    for doc_id, text in document.items():
        if not doc_id:
            raise IngestionError("invalid_corpus", "a document id is empty")
        if not isinstance(text, str):
            raise IngestionError("invalid_corpus", f"document {doc_id!r} is a {type(text).__name__}, not a string")
        # A character is 1 to 4 bytes in UTF-8: only texts that might be over the limit are encoded.
        if len(text) > max_document_bytes // 4 and _utf8_length(text) > max_document_bytes:
            raise IngestionError("document_too_large", f"document {doc_id!r}: more than {max_document_bytes} bytes")
    return document


def _object_of_strings(data: bytes) -> dict[str, str] | None:
    """``data`` (UTF-8 JSON, one leading byte-order mark allowed) read by orjson when it is an object whose every
    value is a string and no key is repeated; ``None`` for anything else (the caller reads it again with
    :func:`claimgate.io.json_text.loads_json`, which refuses it with its own message, or accepts it the same).

    orjson reads the bytes without decoding them into one more string of the whole file (at 200,000
    documents, hundreds of MB) and is strict where the standard reader is lenient or lets a hook decide
    (``NaN``, lone surrogates, invalid UTF-8: all ``None`` here). A repeated key is found by counting: in
    an object of strings every string is a key or a value, so the file holds twice as many strings as
    the object has keys, and a string is two of the quotes that no odd run of backslashes escapes.
    Rules: docs/documents.md.
    """
    view = memoryview(data)[3:] if data.startswith(b"\xef\xbb\xbf") else memoryview(data)
    try:
        document = orjson.loads(view)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(document, dict) or not all(type(text) is str for text in document.values()):
        return None
    return document if _unescaped_quotes(data) == 4 * len(document) else None


def _unescaped_quotes(data: bytes) -> int:
    """Quotes in ``data`` not escaped by a backslash: all of them less those after an odd run of backslashes.

    Linear in ``data``, a block of :data:`_BLOCK` bytes at a time (bounded working memory): the
    quotes after a backslash are few, and their runs are measured all at once, one step back per pass.
    """
    every = np.frombuffer(data, np.uint8)
    quotes = escaped = 0
    for lo in range(0, len(every), _BLOCK):
        at = np.flatnonzero(every[lo : lo + _BLOCK] == _QUOTE) + lo
        quotes += len(at)
        at = at[at > 0]
        at = at[every[at - 1] == _BACKSLASH]  # after at least one backslash
        run = np.ones(len(at), np.int64)
        going = np.arange(len(at))
        while len(going):  # one more backslash back, for the runs still going
            before = at[going] - run[going] - 1
            more = before >= 0
            more[more] = every[before[more]] == _BACKSLASH
            going = going[more]
            run[going] += 1
        escaped += int(np.count_nonzero(run & 1))
    return quotes - escaped


_BLOCK = 1 << 23  # bytes compared per step of _unescaped_quotes (8 MiB of booleans at most)
_QUOTE, _BACKSLASH = ord('"'), ord("\\")


def _utf8_length(text: str) -> int:
    """Length of ``text`` in UTF-8 bytes (a lone surrogate from a JSON escape counts 3, as escaped)."""
    return len(text.encode("utf-8", "surrogatepass"))
