"""Issue 22, item 11: ``pin`` refuses a file name the manifest reader would refuse, so it never writes a
manifest that ``verify``, ``gate`` and every later ``pin`` refuse."""

from __future__ import annotations

import hashlib
import json

import pytest
from claimgate.errors import IngestionError
from claimgate.io.sources import read_manifest

from ..helpers import cli

NAMES = {
    "tab": "a\tb.md",
    "escape": "a\x1b[2Jb.md",
    "newline": "a\nb.md",
    "carriage return": "a\rb.md",
    "delete": "a\x7fb.md",
    "C1 control": "a\x9bb.md",
    "next line": "a\x85b.md",
    "line separator": "a\u2028b.md",
    "paragraph separator": "a\u2029b.md",
}


@pytest.mark.parametrize("name", list(NAMES.values()), ids=list(NAMES))
def test_pin_refuses_a_file_name_the_manifest_reader_would_refuse(tmp_path, capsys, name):
    (tmp_path / name).write_text("A page.\n", encoding="utf-8")
    (tmp_path / "fine.md").write_text("Another page.\n", encoding="utf-8")
    manifest = tmp_path / "manifest.json"
    code, _, err = cli(capsys, "pin", str(tmp_path / "fine.md"), "--version", "1.0", "--output", str(manifest))
    assert code == 0, err
    before = manifest.read_bytes()

    code, _, err = cli(capsys, "pin", str(tmp_path / name), "--version", "1.0", "--output", str(manifest))
    assert code == 3
    assert err.startswith("error: IngestionError: invalid_manifest: ") and "contains a control character" in err
    assert len(err.splitlines()) == 1
    assert manifest.read_bytes() == before  # nothing written: the manifest still verifies
    assert cli(capsys, "verify", "--manifest", str(manifest))[0] == 0

    # The same name written by hand is refused by the reader with the same reason: one rule, two callers.
    entry = {
        "source_id": "a",
        "version": "1.0",
        "path": name,
        "url": "u",
        "sha256": hashlib.sha256(b"A page.\n").hexdigest(),
    }
    manifest.write_text(json.dumps({"sources": [entry]}), encoding="utf-8")
    with pytest.raises(IngestionError) as refused:
        read_manifest(manifest)
    assert refused.value.reason == "invalid_manifest" and "control character" in refused.value.detail
