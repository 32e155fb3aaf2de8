"""Issue 22, item 12: one-line errors print input-taken strings escaped, as the terminal tables do."""

from __future__ import annotations

import hashlib
import json

import pytest

from ..helpers import cli

#: A window-title sequence, then clear-screen: what reached the terminal raw before.
HOSTILE = "\x1b]0;pwn\x07\x1b[2J"
SHOWN = "\\x1b]0;pwn\\x07\\x1b[2J"


def _manifest_with_hostile_id(folder, *, file_exists: bool):
    """A manifest whose only source id is ``HOSTILE``: its pin fails (wrong hash, or no file)."""
    if file_exists:
        (folder / "page.md").write_text("The page.\n", encoding="utf-8")
    entry = {
        "source_id": f"id{HOSTILE}",
        "version": "1.0",
        "path": "page.md",
        "url": "https://docs.invalid/page",
        "sha256": hashlib.sha256(b"other bytes").hexdigest(),
    }
    manifest = folder / "manifest.json"
    manifest.write_text(json.dumps({"sources": [entry]}), encoding="utf-8")
    return manifest


def _gate_args(folder):
    manifest = _manifest_with_hostile_id(folder, file_exists=True)
    cases = folder / "cases.json"
    cases.write_text(json.dumps([{"case_id": "c", "candidate_ids": ["x"], "requested_version": "1.0"}]))
    return ["gate", "--manifest", str(manifest), "--cases", str(cases), "--output", str(folder / "out.json")]


def _audit_args(folder):
    corpus = folder / "corpus"
    corpus.mkdir()
    (corpus / f"page{HOSTILE}.md").write_bytes(b"caf\xe9")  # not UTF-8: unreadable_document, naming it
    citations = folder / "citations.json"
    citations.write_text(json.dumps([{"citation_id": "c", "doc_id": "x", "quote": "q"}]))
    return ["audit", "--corpus-dir", str(corpus), "--citations", str(citations), "--output", str(folder / "o.json")]


def _pin_args(folder):
    return ["pin", str(folder / f"gone{HOSTILE}.md"), "--version", "1.0", "--output", str(folder / "m.json")]


def _verify_args(folder):
    return ["verify", "--manifest", str(_manifest_with_hostile_id(folder, file_exists=False))]


@pytest.mark.parametrize(
    "command_args", [_gate_args, _audit_args, _pin_args, _verify_args], ids=["gate", "audit", "pin", "verify"]
)
def test_terminal_escapes_in_error_lines_are_escaped(tmp_path, capsys, command_args):
    code, _, err = cli(capsys, *command_args(tmp_path))
    assert code == 3, err
    assert "\x1b" not in err and "\x07" not in err
    assert SHOWN in err
    assert all(line.startswith("error: ") for line in err.splitlines())
