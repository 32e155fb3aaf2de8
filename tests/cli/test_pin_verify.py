"""``claimgate pin`` and ``claimgate verify`` (docs/gate-rules.md, "Pinning"): a manifest from files, every
broken pin reported, refusals that write nothing.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from claimgate.gate.pinning import pinned_manifest

from ..helpers import cli

GUIDE = b"# Guide\n@quill create_copy existing_path=refuse\n"
REFERENCE = b"# Reference\n@quill create_copy existing_path=refuse\n"


@pytest.fixture
def docs(tmp_path, monkeypatch) -> Path:
    """A project folder (the current folder) with docs/1.0 and docs/2.0 pages."""
    monkeypatch.chdir(tmp_path)
    for version, text in (("1.0", b""), ("2.0", b"# 2.0\n")):
        (tmp_path / "docs" / version).mkdir(parents=True)
        (tmp_path / "docs" / version / "guide.md").write_bytes(text + GUIDE)
        (tmp_path / "docs" / version / "reference.md").write_bytes(text + REFERENCE)
    return tmp_path


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def pin(capsys, *args: str) -> tuple[int, str, str]:
    return cli(capsys, "pin", *args)


def test_pin_creates_a_manifest_with_relative_paths_and_raw_byte_hashes(docs, capsys):
    code, out, _ = pin(capsys, "docs/1.0/reference.md", "docs/1.0/guide.md", "--version", "1.0", "--output", "m.json")
    assert code == 0
    assert json.loads((docs / "m.json").read_text()) == {
        "sources": [
            {
                "source_id": "guide",
                "version": "1.0",
                "path": "docs/1.0/guide.md",
                "url": "docs/1.0/guide.md",
                "sha256": sha(docs / "docs/1.0/guide.md"),
            },
            {
                "source_id": "reference",
                "version": "1.0",
                "path": "docs/1.0/reference.md",
                "url": "docs/1.0/reference.md",
                "sha256": sha(docs / "docs/1.0/reference.md"),
            },
        ]
    }
    assert "2 added, 0 re-pinned, 0 unchanged" in out


def test_paths_are_relative_to_the_manifests_folder_not_the_current_one(docs, capsys):
    (docs / "out").mkdir()
    code, _, err = pin(capsys, "docs/1.0/guide.md", "--version", "1.0", "--output", "out/m.json")
    assert code == 3 and "path_outside_root" in err and not (docs / "out" / "m.json").exists()
    assert pin(capsys, "docs/1.0/guide.md", "--version", "1.0", "--output", "docs/m.json")[0] == 0
    assert json.loads((docs / "docs" / "m.json").read_text())["sources"][0]["path"] == "1.0/guide.md"


def test_one_file_under_two_ids_is_duplicate_source_path_and_nothing_is_written(docs, capsys):
    pin(capsys, "docs/1.0/guide.md", "--version", "1.0", "--output", "m.json")
    before = (docs / "m.json").read_bytes()
    code, _, err = pin(capsys, "docs/1.0/guide.md", "--version", "1.0", "--output", "m.json", "--source-id", "path")
    assert code == 3 and err.splitlines() == [
        "error: IngestionError: duplicate_source_path: source ids guide and docs/1.0/guide.md "
        "both pin docs/1.0/guide.md"
    ]
    assert (docs / "m.json").read_bytes() == before


def test_an_absolute_file_path_is_stored_relative_to_the_manifest(docs, capsys):
    assert pin(capsys, str(docs / "docs/1.0/guide.md"), "--version", "1.0", "--output", str(docs / "m.json"))[0] == 0
    assert json.loads((docs / "m.json").read_text())["sources"][0]["path"] == "docs/1.0/guide.md"


def test_a_link_inside_the_folder_to_a_file_outside_is_path_outside_root(docs, tmp_path_factory, capsys):
    outside = tmp_path_factory.mktemp("elsewhere") / "secret.md"
    outside.write_bytes(GUIDE)
    (docs / "docs" / "linked.md").symlink_to(outside)
    code, _, err = pin(capsys, "docs/linked.md", "--version", "1.0", "--output", "m.json")
    assert code == 3 and "path_outside_root" in err and not (docs / "m.json").exists()


def test_the_same_files_in_any_argument_order_give_the_same_bytes(docs, capsys):
    pin(capsys, "docs/1.0/guide.md", "docs/1.0/reference.md", "--version", "1.0", "--output", "a.json")
    pin(capsys, "docs/1.0/reference.md", "./docs/1.0/guide.md", "--version", "1.0", "--output", "b.json")
    assert (docs / "a.json").read_bytes() == (docs / "b.json").read_bytes()


def test_repin_reports_old_and_new_hash_prefixes_and_keeps_the_others(docs, capsys):
    pin(capsys, "docs/1.0/guide.md", "docs/1.0/reference.md", "--version", "1.0", "--output", "m.json")
    old = sha(docs / "docs/1.0/guide.md")
    (docs / "docs/1.0/guide.md").write_bytes(GUIDE.replace(b"refuse", b"overwrite"))
    new = sha(docs / "docs/1.0/guide.md")
    code, out, _ = pin(capsys, "docs/1.0/guide.md", "--version", "1.0", "--output", "m.json")
    assert code == 0
    assert f"{old[:12]}… -> {new[:12]}…" in out
    assert "0 added, 1 re-pinned, 0 unchanged (2 sources in all)" in out
    sources = json.loads((docs / "m.json").read_text())["sources"]
    assert [(s["source_id"], s["sha256"]) for s in sources] == [
        ("guide", new),
        ("reference", sha(docs / "docs/1.0/reference.md")),
    ]


def test_pinning_unchanged_files_says_so_and_leaves_the_file_alone(docs, capsys):
    pin(capsys, "docs/1.0/guide.md", "--version", "1.0", "--output", "m.json")
    before = (docs / "m.json").stat().st_mtime_ns
    code, out, _ = pin(capsys, "docs/1.0/guide.md", "--version", "1.0", "--output", "m.json")
    assert code == 0 and "unchanged  guide" in out and "left unchanged m.json" in out
    assert (docs / "m.json").stat().st_mtime_ns == before


def test_repin_without_a_template_keeps_the_url_and_with_one_replaces_it(docs, capsys):
    template = "https://sdk.invalid/{version}/{stem}"
    pin(capsys, "docs/1.0/guide.md", "--version", "1.0", "--output", "m.json", "--url-template", template)
    (docs / "docs/1.0/guide.md").write_bytes(b"edited\n")
    pin(capsys, "docs/1.0/guide.md", "--version", "1.0", "--output", "m.json")
    assert json.loads((docs / "m.json").read_text())["sources"][0]["url"] == "https://sdk.invalid/1.0/guide"
    pin(capsys, "docs/1.0/guide.md", "--version", "1.0", "--output", "m.json", "--url-template", "{source_id}")
    assert json.loads((docs / "m.json").read_text())["sources"][0]["url"] == "guide"


def test_two_versions_share_one_manifest_with_source_id_path(docs, capsys):
    assert pin(capsys, "docs/1.0/guide.md", "--version", "1.0", "--output", "m.json", "--source-id", "path")[0] == 0
    assert pin(capsys, "docs/2.0/guide.md", "--version", "2.0", "--output", "m.json", "--source-id", "path")[0] == 0
    sources = json.loads((docs / "m.json").read_text())["sources"]
    assert [(s["source_id"], s["version"]) for s in sources] == [
        ("docs/1.0/guide.md", "1.0"),
        ("docs/2.0/guide.md", "2.0"),
    ]
    assert cli(capsys, "verify", "--manifest", "m.json")[0] == 0


def test_two_files_with_one_stem_are_duplicate_source_id_and_nothing_is_written(docs, capsys):
    code, out, err = pin(capsys, "docs/1.0/guide.md", "docs/2.0/guide.md", "--version", "1.0", "--output", "m.json")
    assert code == 3
    assert err.splitlines() == [
        "error: IngestionError: duplicate_source_id: 'guide' names both docs/1.0/guide.md and docs/2.0/guide.md; "
        "use --source-id path"
    ]
    assert out == "" and not (docs / "m.json").exists()


def test_a_stem_already_pinned_to_another_path_is_duplicate_source_id(docs, capsys):
    pin(capsys, "docs/1.0/guide.md", "--version", "1.0", "--output", "m.json")
    before = (docs / "m.json").read_bytes()
    code, _, err = pin(capsys, "docs/2.0/guide.md", "--version", "2.0", "--output", "m.json")
    assert code == 3 and "duplicate_source_id: 'guide' is already pinned to docs/1.0/guide.md" in err
    assert (docs / "m.json").read_bytes() == before


@pytest.mark.parametrize(
    "setup, reason",
    [
        (lambda d: None, "missing_source"),  # the file does not exist
        (lambda d: (d / "docs" / "nope.md").write_bytes(b"\xff\xfe not utf-8"), "invalid_encoding"),
    ],
    ids=["absent", "not-utf8"],  # a folder is walked now (tests/cli/test_pin_folders.py)
)
def test_a_file_the_gate_would_refuse_is_refused_by_pin(docs, capsys, setup, reason):
    setup(docs)
    code, _, err = pin(capsys, "docs/1.0/guide.md", "docs/nope.md", "--version", "1.0", "--output", "m.json")
    assert code == 3 and len(err.splitlines()) == 1 and f"IngestionError: {reason}:" in err
    assert not (docs / "m.json").exists()


def test_a_broken_existing_manifest_is_refused_not_overwritten(docs, capsys):
    (docs / "m.json").write_text('{"sources": [{"source_id": "x"}]}')
    code, _, err = pin(capsys, "docs/1.0/guide.md", "--version", "1.0", "--output", "m.json")
    assert code == 3 and "invalid_manifest" in err
    assert (docs / "m.json").read_text() == '{"sources": [{"source_id": "x"}]}'


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["--version", "1.0", "--output", "m.json", "--url-template", "{sha}"],
            "--url-template: unknown placeholder {sha} (use {source_id}, {version}, {path}, {stem})",
        ),
        (["--version", " ", "--output", "m.json"], "--version must be a non-empty string"),
        (["--version", "1.0", "--output", "m.txt"], "--output must be a .json manifest"),
    ],
)
def test_bad_pin_options_are_usage_errors(docs, capsys, args, message):
    code, _, err = pin(capsys, "docs/1.0/guide.md", *args)
    assert code == 2 and err.splitlines()[-1] == f"error: {message}"
    assert not list(docs.glob("m.*"))


def test_a_version_outside_the_schemas_scheme_is_refused_before_pinning(docs, capsys):
    (docs / "s.toml").write_text('prefix = "@quill"\n[operations.op]\nkey = ["a"]\n[versions]\npattern = "semver"\n')
    code, _, err = pin(capsys, "docs/1.0/guide.md", "--version", "1.0", "--output", "m.json", "--schema", "s.toml")
    assert code == 3 and err.splitlines() == [
        "error: IngestionError: invalid_source_version: --version '1.0' does not match "
        "semver (MAJOR.MINOR.PATCH[-PRE][+BUILD])"
    ]
    assert not (docs / "m.json").exists()
    assert pin(capsys, "docs/1.0/guide.md", "--version", "1.0.0", "--output", "m.json", "--schema", "s.toml")[0] == 0


def test_pin_module_function_reports_what_it_did(docs):
    report = pinned_manifest(["docs/1.0/guide.md"], "1.0", docs / "m.json")
    assert report.written and [e["source_id"] for e in report.added] == ["guide"]


# ----------------------------------------------------------------------------- verify


def test_verify_exits_0_when_every_pin_holds(docs, capsys):
    pin(capsys, "docs/1.0/guide.md", "docs/1.0/reference.md", "--version", "1.0", "--output", "m.json")
    code, out, err = cli(capsys, "verify", "--manifest", "m.json")
    assert (code, err) == (0, "") and "all 2 pins of m.json hold" in out


def test_verify_reports_every_problem_not_just_the_first(docs, capsys):
    (docs / "docs/1.0/latin1.md").write_bytes(b"caf\xe9\n")
    entries = [
        {"source_id": "guide", "path": "docs/1.0/guide.md", "sha256": "0" * 64},  # hash_mismatch
        {"source_id": "gone", "path": "docs/1.0/gone.md", "sha256": "0" * 64},  # missing_source
        {"source_id": "guide", "path": "docs/1.0/guide.md", "sha256": sha(docs / "docs/1.0/guide.md")},  # duplicate
        {"source_id": "upper", "path": "docs/1.0/reference.md", "sha256": "A" * 64},  # invalid_sha256
        {"source_id": "outside", "path": "../x.md", "sha256": "0" * 64},  # path_outside_root
        {"source_id": "latin1", "path": "docs/1.0/latin1.md", "sha256": sha(docs / "docs/1.0/latin1.md")},
        {"source_id": "fine", "path": "docs/1.0/reference.md", "sha256": sha(docs / "docs/1.0/reference.md")},
        {"source_id": "twice", "path": "docs/1.0/reference.md", "sha256": sha(docs / "docs/1.0/reference.md")},
    ]
    manifest = {"sources": [{"version": "1.0", "url": "u", **e} for e in entries]}
    (docs / "m.json").write_text(json.dumps(manifest))
    code, out, err = cli(capsys, "verify", "--manifest", "m.json")
    assert code == 3 and out == ""
    reasons = [line.split(": ")[2] for line in err.splitlines()[:-1]]
    assert reasons == [
        "hash_mismatch",
        "missing_source",
        "duplicate_source_id",
        "invalid_sha256",
        "path_outside_root",
        "invalid_encoding",
        "duplicate_source_path",  # "twice" pins the file "fine" pins
    ]
    assert err.splitlines()[-1] == "error: 7 problem(s) in m.json (8 pins checked)"


def test_verify_names_the_edited_page_after_an_edit(docs, capsys):
    pin(capsys, "docs/1.0/guide.md", "docs/1.0/reference.md", "--version", "1.0", "--output", "m.json")
    (docs / "docs/1.0/reference.md").write_bytes(b"edited\n")
    code, _, err = cli(capsys, "verify", "--manifest", "m.json")
    assert code == 3 and err.splitlines()[0].startswith("error: IngestionError: hash_mismatch: reference: pinned ")


def test_verify_of_an_unreadable_manifest_is_one_problem(docs, capsys):
    (docs / "m.json").write_text("{not json")
    code, _, err = cli(capsys, "verify", "--manifest", "m.json")
    assert code == 3 and "invalid_manifest" in err.splitlines()[0]


@pytest.mark.parametrize(
    ("second", "label"),
    [
        (["--version", "1.1"], "same bytes; version changed"),
        (["--version", "1.0", "--url-template", "{source_id}"], "same bytes; url changed"),
        (["--version", "1.1", "--url-template", "{source_id}"], "same bytes; version and url changed"),
    ],
)
def test_a_repin_with_the_same_bytes_says_what_changed(docs, capsys, second, label):
    pin(capsys, "docs/1.0/guide.md", "--version", "1.0", "--output", "m.json")
    code, out, _ = pin(capsys, "docs/1.0/guide.md", "--output", "m.json", *second)
    assert code == 0 and label in out and "0 added, 1 re-pinned" in out


# ----------------------------------------------------------------------------- a manifest never pins itself


def test_pinning_the_output_manifest_itself_is_a_usage_error_before_any_work(docs, capsys):
    code, _, err = pin(capsys, "m.json", "--version", "1.0", "--output", "m.json")
    assert code == 2 and err.splitlines()[-1] == (
        "error: FILE m.json is the --output manifest m.json; a manifest cannot pin itself: leave it out"
    )
    assert not (docs / "m.json").exists()


def test_a_glob_that_catches_the_existing_manifest_on_a_second_run_is_refused_and_leaves_it_unchanged(docs, capsys):
    assert pin(capsys, "docs/1.0/guide.md", "--version", "1.0", "--output", "docs/1.0/m.json")[0] == 0
    before = (docs / "docs/1.0/m.json").read_bytes()
    files = sorted(str(p.relative_to(docs)) for p in (docs / "docs/1.0").iterdir())
    code, out, err = pin(capsys, *files, "--version", "1.0", "--output", "docs/1.0/m.json")
    assert code == 2 and "a manifest cannot pin itself" in err and out == ""
    assert (docs / "docs/1.0/m.json").read_bytes() == before


@pytest.mark.parametrize("spelling", ["./docs/../m.json", "link.json", "hard.json"])
def test_the_manifest_reached_through_another_spelling_or_a_link_is_refused(docs, capsys, spelling):
    assert pin(capsys, "docs/1.0/guide.md", "--version", "1.0", "--output", "m.json")[0] == 0
    (docs / "link.json").symlink_to(docs / "m.json")
    (docs / "hard.json").hardlink_to(docs / "m.json")
    code, _, err = pin(capsys, "docs/1.0/reference.md", spelling, "--version", "1.0", "--output", "m.json")
    assert code == 2 and f"FILE {spelling} is the --output manifest m.json" in err
    assert [s["source_id"] for s in json.loads((docs / "m.json").read_text())["sources"]] == ["guide"]


# ----------------------------------------------------------------------------- url templates: plain placeholders


def pin_with_template(capsys, template: str) -> tuple[int, str, str]:
    return pin(capsys, "docs/1.0/guide.md", "--version", "1.0", "--output", "m.json", "--url-template", template)


@pytest.mark.parametrize(
    "template, field",
    [
        ("{path.__class__}", "{path.__class__}"),
        ("https://x/{stem[0]}", "{stem[0]}"),
        ("{version!r}", "{version!r}"),
        ("{path:>40}", "{path:>40}"),
        ("{path:{version}}", "{path:{version}}"),
        ("{source_id.__init__.__globals__}", "{source_id.__init__.__globals__}"),
    ],
)
def test_a_url_template_reaching_past_a_plain_placeholder_is_a_usage_error_naming_the_field(
    docs, capsys, template, field
):
    code, _, err = pin_with_template(capsys, template)
    assert code == 2 and err.splitlines()[-1] == (
        f"error: --url-template: {field} is not a plain placeholder (use {{source_id}}, {{version}}, {{path}}, "
        "{stem}, with no attribute, index, !conversion or :format)"
    )
    assert not (docs / "m.json").exists()


@pytest.mark.parametrize("template, field", [("{}", "{}"), ("{0}", "{0}"), ("a/{sha!s}", "{sha!s}")])
def test_a_positional_or_unknown_url_field_is_a_usage_error_naming_it(docs, capsys, template, field):
    code, _, err = pin_with_template(capsys, template)
    assert code == 2 and f"unknown placeholder {field} " in err.splitlines()[-1]


def test_a_url_template_with_escaped_braces_and_plain_fields_still_pins(docs, capsys):
    template = "https://x/{{v}}/{version}/{stem}"
    assert pin_with_template(capsys, template)[0] == 0
    assert json.loads((docs / "m.json").read_text())["sources"][0]["url"] == "https://x/{v}/1.0/guide"


# ----------------------------------------------------------------------------- versions: no outer space, no controls


@pytest.mark.parametrize(
    "version, detail",
    [
        (" 1.4.0", "' 1.4.0' has white space before or after it"),
        ("1.4.0\n", "'1.4.0\\n' has white space before or after it"),
        ("1.4\n.0", "'1.4\\n.0' contains a control character"),
        ("1.4\x00.0", "'1.4\\x00.0' contains a control character"),
        ("1.4\x1b[31m.0", "'1.4\\x1b[31m.0' contains a control character"),
        ("1.4\u2028.0", "'1.4\\u2028.0' contains a control character"),
    ],
)
def test_a_version_with_outer_space_or_a_control_character_is_refused_without_a_schema(docs, capsys, version, detail):
    code, _, err = pin(capsys, "docs/1.0/guide.md", "--version", version, "--output", "m.json")
    assert code == 3 and err.splitlines() == [f"error: IngestionError: invalid_source_version: --version {detail}"]
    assert not (docs / "m.json").exists()
