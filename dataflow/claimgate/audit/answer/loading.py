"""Loading nodes of the answer audit (Hamilton): the answer file and the list of documents sent."""

from __future__ import annotations

import json
from pathlib import Path

from claimgate.errors import IngestionError
from claimgate.io.files import read_utf8_text
from claimgate.io.json_text import loads_json, where_json_failed

#: The largest answer or documents-list file read, in bytes.
MAX_ANSWER_BYTES = 16 * 1024 * 1024


def read_json_file(path: str | Path, label: str) -> object:
    """A JSON file (strict UTF-8, at most ``MAX_ANSWER_BYTES``); ``IngestionError`` ``invalid_answer`` otherwise."""
    try:
        text = read_utf8_text(Path(path), "invalid_answer", label, limit=MAX_ANSWER_BYTES)
        return loads_json(text)
    except json.JSONDecodeError as exc:
        raise IngestionError("invalid_answer", f"{path}: {where_json_failed(exc)}") from None
    except IngestionError:
        raise
    except Exception as exc:  # the size limit (TooLargeError)
        raise IngestionError("invalid_answer", f"{path}: {type(exc).__name__}: {exc}") from None


def answer_document(answer_path: str) -> object:
    """The answer file parsed as JSON (plain or Anthropic shape; checked by ``parsed_answer``)."""
    return read_json_file(answer_path, "answer")


def sent_documents(documents_path: str = "") -> list | None:
    """Doc ids in the order the documents were sent (``--documents``: a JSON list), or None when not given."""
    if not documents_path:
        return None
    listed = read_json_file(documents_path, "documents list")
    if not isinstance(listed, list):
        raise IngestionError("invalid_answer", f"{documents_path}: the documents list must be a JSON list of doc ids")
    return listed
