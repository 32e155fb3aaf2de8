"""Manifest and sources (docs/gate-rules.md): every ``IngestionError`` refusal reason, each with its own test.

A refused manifest or source refuses the whole run (``drivers.run_gate`` raises), never a
single case. ``pin_sources`` (used by the other test modules too) writes a manifest that pins
files given as raw bytes, with correct hashes unless told otherwise.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from claimgate.errors import IngestionError
from claimgate.execution import drivers
from claimgate.execution.settings import RunSettings
from claimgate.io.sources import DEFAULT_MAX_SOURCE_BYTES, read_manifest, read_source_text

from ..helpers import pin_sources

DIRECTIVE = b"@quill create_copy existing_path=refuse\n"


def _entry(source_id: str = "page", **overrides: object) -> dict:
    entry = {
        "source_id": source_id,
        "version": "1.0",
        "path": f"sources/{source_id}.md",
        "url": f"https://quill.invalid/teaching/1.0/{source_id}",
        "sha256": hashlib.sha256(DIRECTIVE).hexdigest(),
    }
    entry.update(overrides)
    return entry


def _write_manifest(folder: Path, document: object, raw: bytes | None = None) -> Path:
    (folder / "sources").mkdir(parents=True, exist_ok=True)
    (folder / "sources" / "page.md").write_bytes(DIRECTIVE)
    manifest = folder / "manifest.json"
    manifest.write_bytes(raw if raw is not None else json.dumps(document).encode("utf-8"))
    (folder / "cases.json").write_text("[]", encoding="utf-8")
    return manifest


def _refusal(manifest: Path, **kwargs: object) -> IngestionError:
    with pytest.raises(IngestionError) as info:
        drivers.run_gate(manifest, manifest.parent / "cases.json", settings=RunSettings(**kwargs))
    assert info.value.kind == "IngestionError"
    assert "\n" not in info.value.one_line()
    return info.value


# ----------------------------------------------------------------------------- invalid_manifest


@pytest.mark.parametrize(
    "raw",
    [b"{not json", b"", b'{"sources": [', b"\xff\xfe{}"],
    ids=["broken-json", "empty-file", "truncated", "not-utf8"],
)
def test_manifest_that_is_not_json_is_invalid_manifest(tmp_path, raw):
    assert _refusal(_write_manifest(tmp_path, None, raw)).reason == "invalid_manifest"


@pytest.mark.parametrize(
    "document",
    [[], {"sources": {}}, {"source": []}, {"sources": "page"}, {"sources": [["page"]]}, {"sources": [None]}, 5],
    ids=["list", "sources-object", "no-sources-key", "sources-string", "entry-list", "entry-null", "number"],
)
def test_manifest_of_the_wrong_shape_is_invalid_manifest(tmp_path, document):
    assert _refusal(_write_manifest(tmp_path, document)).reason == "invalid_manifest"


@pytest.mark.parametrize("field", ["source_id", "version", "path", "url", "sha256"])
def test_manifest_entry_missing_a_field_is_invalid_manifest(tmp_path, field):
    entry = _entry()
    del entry[field]
    error = _refusal(_write_manifest(tmp_path, {"sources": [entry]}))
    assert error.reason == "invalid_manifest"
    assert field in error.detail


@pytest.mark.parametrize("field", ["source_id", "version", "path", "url", "sha256"])
@pytest.mark.parametrize("value", [1, 1.0, None, ["x"], {"x": "y"}, True, ""], ids=repr)
def test_manifest_field_of_the_wrong_type_is_invalid_manifest(tmp_path, field, value):
    error = _refusal(_write_manifest(tmp_path, {"sources": [_entry(**{field: value})]}))
    assert error.reason == "invalid_manifest"
    assert field in error.detail


def test_an_empty_manifest_is_a_valid_run_with_no_sources(tmp_path):
    manifest = _write_manifest(tmp_path, {"sources": []})
    run = drivers.run_gate(manifest, tmp_path / "cases.json")
    assert run.verified_sources.empty and run.results.empty


# ----------------------------------------------------------------------------- duplicate_source_id, invalid_sha256


def test_a_source_id_listed_twice_is_duplicate_source_id(tmp_path):
    error = _refusal(_write_manifest(tmp_path, {"sources": [_entry(), _entry()]}))
    assert error.reason == "duplicate_source_id"
    assert "page" in error.detail


@pytest.mark.parametrize(
    "digest",
    [
        "A" * 64,  # upper case
        "a" * 63,
        "a" * 65,
        "g" * 64,
        "sha256:" + "a" * 57,
        "a" * 64 + "\n",  # "$" in a regex would let this one through
        " " + "a" * 63,
    ],
    ids=["upper", "short", "long", "not-hex", "prefixed", "trailing-newline", "leading-space"],
)
def test_a_digest_that_is_not_64_lowercase_hex_digits_is_invalid_sha256(tmp_path, digest):
    assert _refusal(_write_manifest(tmp_path, {"sources": [_entry(sha256=digest)]})).reason == "invalid_sha256"


def test_an_upper_case_digest_of_the_right_file_is_still_invalid_sha256(tmp_path):
    digest = hashlib.sha256(DIRECTIVE).hexdigest().upper()
    assert _refusal(_write_manifest(tmp_path, {"sources": [_entry(sha256=digest)]})).reason == "invalid_sha256"


# ----------------------------------------------------------------------------- path_outside_root


@pytest.mark.parametrize(
    "path",
    ["/etc/passwd", "../outside.md", "sources/../../outside.md", "sources/..", "..\\outside.md", "\\etc\\passwd"],
)
def test_absolute_or_dotdot_paths_are_path_outside_root(tmp_path, path):
    (tmp_path / "outside.md").write_bytes(DIRECTIVE)
    folder = tmp_path / "root"
    assert _refusal(_write_manifest(folder, {"sources": [_entry(path=path)]})).reason == "path_outside_root"


def test_a_symlink_resolving_outside_the_manifest_folder_is_path_outside_root(tmp_path):
    outside = tmp_path / "secret.md"
    outside.write_bytes(DIRECTIVE)
    folder = tmp_path / "root"
    manifest = _write_manifest(folder, {"sources": [_entry(path="sources/link.md")]})
    os.symlink(outside, folder / "sources" / "link.md")
    assert _refusal(manifest).reason == "path_outside_root"


def test_a_manifest_symlinks_refusal_names_the_folder_it_resolves_outside_of(tmp_path):
    outside = tmp_path / "secret.md"
    outside.write_bytes(DIRECTIVE)
    folder = tmp_path / "root"
    manifest = _write_manifest(folder, {"sources": [_entry(source_id="x", path="sources/link.md")]})
    os.symlink(outside, folder / "sources" / "link.md")
    refused = _refusal(manifest)
    assert refused.detail == f"x: sources/link.md resolves outside the manifest's folder {folder.resolve()}"


def test_a_symlinked_folder_resolving_outside_is_path_outside_root(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "page.md").write_bytes(DIRECTIVE)
    folder = tmp_path / "root"
    manifest = _write_manifest(folder, {"sources": [_entry(path="linked/page.md")]})
    os.symlink(elsewhere, folder / "linked")
    assert _refusal(manifest).reason == "path_outside_root"


def test_a_symlink_resolving_inside_the_manifest_folder_is_accepted(tmp_path):
    manifest = _write_manifest(tmp_path, {"sources": [_entry(path="sources/alias.md")]})
    os.symlink(tmp_path / "sources" / "page.md", tmp_path / "sources" / "alias.md")
    run = drivers.run_gate(manifest, tmp_path / "cases.json")
    assert run.verified_sources["text"].tolist() == [DIRECTIVE.decode()]


def test_path_outside_root_is_found_before_any_file_is_read(tmp_path):
    # The second entry escapes; the first points at a missing file. The manifest-wide check wins.
    folder = tmp_path / "root"
    entries = [_entry("gone", path="sources/gone.md"), _entry("escape", path="../x.md")]
    assert _refusal(_write_manifest(folder, {"sources": entries})).reason == "path_outside_root"


# ----------------------------------------------------------------------------- missing_source


def test_a_pinned_file_that_does_not_exist_is_missing_source(tmp_path):
    error = _refusal(_write_manifest(tmp_path, {"sources": [_entry(path="sources/absent.md")]}))
    assert error.reason == "missing_source"
    assert "page" in error.detail


def test_a_pinned_path_that_is_a_folder_is_missing_source(tmp_path):
    assert _refusal(_write_manifest(tmp_path, {"sources": [_entry(path="sources")]})).reason == "missing_source"


def test_a_dangling_symlink_is_missing_source(tmp_path):
    manifest = _write_manifest(tmp_path, {"sources": [_entry(path="sources/dangling.md")]})
    os.symlink(tmp_path / "sources" / "nowhere.md", tmp_path / "sources" / "dangling.md")
    assert _refusal(manifest).reason == "missing_source"


def test_a_manifest_file_that_does_not_exist_is_invalid_manifest(tmp_path):
    (tmp_path / "cases.json").write_text("[]")
    error = _refusal(tmp_path / "manifest.json")
    assert error.reason == "invalid_manifest"
    assert "manifest not found" in error.detail


# ----------------------------------------------------------------------------- invalid_encoding


@pytest.mark.parametrize(
    "raw",
    [b"caf\xe9\n" + DIRECTIVE, b"\xff\xfe@\x00q\x00", b"ok\n\xc3", b"\xed\xa0\x80 surrogate\n"],
    ids=["latin-1", "utf-16", "truncated-sequence", "encoded-surrogate"],
)
def test_a_source_that_is_not_strict_utf8_is_invalid_encoding(tmp_path, raw):
    manifest, _ = pin_sources(tmp_path, {"page": ("1.0", raw)})
    error = _refusal(manifest)
    assert error.reason == "invalid_encoding"
    assert "page" in error.detail


# ----------------------------------------------------------------------------- source_too_large


def test_a_source_over_the_limit_is_source_too_large(tmp_path):
    manifest, _ = pin_sources(tmp_path, {"page": ("1.0", DIRECTIVE)})
    assert _refusal(manifest, max_source_bytes=len(DIRECTIVE) - 1).reason == "source_too_large"


def test_a_source_exactly_at_the_limit_is_accepted(tmp_path):
    manifest, cases = pin_sources(tmp_path, {"page": ("1.0", DIRECTIVE)})
    run = drivers.run_gate(manifest, cases, settings=RunSettings(max_source_bytes=len(DIRECTIVE)))
    assert run.results["status"].tolist() == ["ready"]


def test_the_default_limit_is_16_mib(tmp_path):
    assert DEFAULT_MAX_SOURCE_BYTES == 16 * 1024 * 1024
    raw = DIRECTIVE + b"x" * (DEFAULT_MAX_SOURCE_BYTES - len(DIRECTIVE) + 1)
    manifest, _ = pin_sources(tmp_path, {"page": ("1.0", raw)})
    assert _refusal(manifest).reason == "source_too_large"


def test_source_too_large_is_checked_before_the_hash(tmp_path):
    manifest, _ = pin_sources(tmp_path, {"page": ("1.0", DIRECTIVE)})
    (tmp_path / "sources" / "page.md").write_bytes(DIRECTIVE * 10)  # changed and too large
    assert _refusal(manifest, max_source_bytes=len(DIRECTIVE) * 2).reason == "source_too_large"


# ----------------------------------------------------------------------------- hash_mismatch


def test_an_edited_source_is_hash_mismatch(tmp_path):
    manifest, _ = pin_sources(tmp_path, {"page": ("1.0", DIRECTIVE)})
    (tmp_path / "sources" / "page.md").write_bytes(DIRECTIVE.replace(b"refuse", b"overwrite"))
    error = _refusal(manifest)
    assert error.reason == "hash_mismatch"
    assert "page" in error.detail


def test_hash_is_over_raw_bytes_so_a_line_ending_change_is_hash_mismatch(tmp_path):
    manifest, _ = pin_sources(tmp_path, {"page": ("1.0", DIRECTIVE)})
    (tmp_path / "sources" / "page.md").write_bytes(DIRECTIVE.replace(b"\n", b"\r\n"))
    assert _refusal(manifest).reason == "hash_mismatch"


def test_every_listed_file_is_checked_even_when_no_case_uses_it(tmp_path):
    manifest, cases = pin_sources(
        tmp_path,
        {"used": ("1.0", DIRECTIVE), "unused": ("2.0", DIRECTIVE)},
        cases=[{"case_id": "a", "candidate_ids": ["used"], "requested_version": "1.0", "claim_key": "existing_path"}],
    )
    assert drivers.run_gate(manifest, cases).results["status"].tolist() == ["ready"]
    (tmp_path / "sources" / "unused.md").write_bytes(b"edited\n")
    assert _refusal(manifest).reason == "hash_mismatch"


def test_an_empty_case_table_still_verifies_every_source(tmp_path):
    manifest, _ = pin_sources(tmp_path, {"page": ("1.0", DIRECTIVE)}, cases=[])
    (tmp_path / "sources" / "page.md").write_bytes(b"edited\n")
    assert _refusal(manifest).reason == "hash_mismatch"


# ----------------------------------------------------------------------------- the loaders themselves


def test_read_manifest_returns_the_five_fields_and_drops_extras(tmp_path):
    manifest = _write_manifest(tmp_path, {"sources": [_entry(extra="ignored")]})
    loaded = read_manifest(manifest)
    assert loaded["root"] == tmp_path.resolve()
    assert loaded["sources"] == [{k: v for k, v in _entry().items()}]


def test_read_source_text_drops_one_leading_bom_only(tmp_path):
    raw = b"\xef\xbb\xbf\xef\xbb\xbf" + DIRECTIVE
    (tmp_path / "p.md").write_bytes(raw)
    entry = {"source_id": "p", "path": "p.md", "sha256": hashlib.sha256(raw).hexdigest()}
    assert read_source_text(tmp_path, entry, 1000) == "\ufeff" + DIRECTIVE.decode()


@pytest.mark.parametrize("path", ["sources/page.md/", "sources/page.md/.", "sources/page.md//"])
def test_a_path_that_names_a_folder_is_missing_source_even_when_a_file_is_there(tmp_path, path):
    manifest = _write_manifest(tmp_path, {"sources": [_entry(path=path)]})
    error = _refusal(manifest)
    assert error.reason == "missing_source" and "names a folder" in error.detail


@pytest.mark.parametrize("path", ["sources/page.md\u0000", "sources/\u0000page.md", "sources/page\n.md"])
def test_a_control_character_in_a_path_is_invalid_manifest_not_a_traceback(tmp_path, path):
    error = _refusal(_write_manifest(tmp_path, {"sources": [_entry(path=path)]}))
    assert error.reason == "invalid_manifest" and "control character" in error.detail
