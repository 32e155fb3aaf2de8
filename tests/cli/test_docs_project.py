"""Pinning folders, the project file, the schema a manifest was pinned with, and ``claimgate lint``."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from xml.etree import ElementTree

import pytest

from ..helpers import cli

SCHEMA = """prefix = "@wisp"
[operations.client]
timeout = { type = "number" }
follow_redirects = { type = "bool" }
mode = ["fast", "safe"]
"""
PAGES = {
    "docs/1.0/guide.md": "# Guide\n\n<!-- @wisp client timeout=5 -->\nRequests time out after five seconds.\n",
    "docs/1.0/reference.rst": "Reference\n=========\n\n.. @wisp client timeout=5.0\n.. @wisp client mode=fast\n",
    "docs/2.0/guide.md": "# Guide\n\n<!-- @wisp client timeout=10 -->\n",
    "docs/2.0/reference.rst": "Reference\n=========\n\n.. @wisp client timeout=10\n",
    "docs/2.0/notes.txt": "Release notes, no directives.\n",
    "docs/2.0/drafts/wip.md": "@wisp client timeout=oops\n",
}
PROJECT = 'schema = "wisp.toml"\nmanifest = "manifest.json"\ndocs = ["docs"]\nversion_from_path = "docs/{version}/**"\n'


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "wisp.toml").write_text(SCHEMA, encoding="utf-8")
    for path, text in PAGES.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text, encoding="utf-8")
    return tmp_path


def entries(folder: Path) -> dict[str, str]:
    return {e["path"]: e["version"] for e in json.loads((folder / "manifest.json").read_text())["sources"]}


def test_pin_walks_folders_and_takes_each_version_from_the_path(project, capsys):
    code, out, err = cli(
        capsys, "pin", "docs", "--version-from-path", "docs/{version}/**", "--source-id", "path",
        "--exclude", "**/drafts/**", "--output", "manifest.json",
    )  # fmt: skip
    assert code == 0, err
    assert entries(project) == {
        "docs/1.0/guide.md": "1.0",
        "docs/1.0/reference.rst": "1.0",
        "docs/2.0/guide.md": "2.0",
        "docs/2.0/notes.txt": "2.0",
        "docs/2.0/reference.rst": "2.0",
    }
    assert "5 added" in out


def test_pin_glob_matches_top_level_files_too(project, capsys):
    code, _, err = cli(capsys, "pin", "docs/1.0", "--glob", "**/*.rst", "--version", "1.0", "--output", "manifest.json")
    assert code == 0, err
    assert entries(project) == {"docs/1.0/reference.rst": "1.0"}


def test_a_file_the_version_pattern_does_not_match_is_a_usage_error(project, capsys):
    (project / "loose.md").write_text("x\n", encoding="utf-8")
    code, _, err = cli(capsys, "pin", "loose.md", "--version-from-path", "docs/{version}/**", "--output", "m.json")
    assert code == 2 and "does not match loose.md" in err and not (project / "m.json").exists()


def test_the_project_file_names_schema_manifest_and_folders(project, capsys):
    (project / "claimgate.toml").write_text(PROJECT + 'exclude = ["**/drafts/**"]\n', encoding="utf-8")
    code, out, err = cli(capsys, "pin", "--source-id", "path")
    assert code == 0, err
    manifest = json.loads((project / "manifest.json").read_text())
    assert manifest["schema_sha256"] == hashlib.sha256((project / "wisp.toml").read_bytes()).hexdigest()
    assert cli(capsys, "verify")[:2] == (0, "all 5 pins of " + str(project / "manifest.json") + " hold\n")
    code, out, err = cli(capsys, "lint")
    assert code == 0, out + err
    assert "warning" not in err and "note" not in err


def test_pin_update_reports_added_changed_and_removed_pages(project, capsys):
    (project / "claimgate.toml").write_text(PROJECT + 'exclude = ["**/drafts/**"]\n', encoding="utf-8")
    assert cli(capsys, "pin", "--source-id", "path")[0] == 0
    (project / "docs/2.0/notes.txt").unlink()
    (project / "docs/2.0/guide.md").write_text("# Guide\n\n<!-- @wisp client timeout=12 -->\n", encoding="utf-8")
    (project / "docs/2.0/faq.md").write_text("# FAQ\n", encoding="utf-8")
    code, out, err = cli(capsys, "pin", "--update", "--source-id", "path")
    assert code == 0, err
    assert "1 added, 1 re-pinned, 3 unchanged, 1 removed" in out
    rows = {line.split()[0] + " " + line.split()[1] for line in out.splitlines()[2:] if line.strip()}
    assert {"added docs/2.0/faq.md", "re-pinned docs/2.0/guide.md", "removed docs/2.0/notes.txt"} <= rows
    assert "docs/2.0/notes.txt" not in entries(project)


def test_pin_update_without_folders_re_pins_the_manifest_files_at_their_versions(project, capsys):
    args = ["docs/1.0/guide.md", "docs/2.0/guide.md", "--version-from-path", "docs/{version}/**"]
    assert cli(capsys, "pin", *args, "--source-id", "path", "--output", "m.json")[0] == 0
    (project / "docs/1.0/guide.md").write_text("# Guide\n<!-- @wisp client timeout=6 -->\n", encoding="utf-8")
    code, out, err = cli(capsys, "pin", "--update", "--source-id", "path", "--output", "m.json")
    assert code == 0, err
    assert "0 added, 1 re-pinned, 1 unchanged, 0 removed" in out


def test_a_run_with_another_schema_says_so_and_a_fallback_names_quill(project, capsys):
    assert (
        cli(capsys, "pin", "docs/1.0", "--version", "1.0", "--schema", "wisp.toml", "--output", "manifest.json")[0] == 0
    )
    (project / "other.toml").write_text(SCHEMA + 'retries = { type = "integer" }\n', encoding="utf-8")
    code, _, err = cli(capsys, "verify", "--manifest", "manifest.json", "--schema", "other.toml")
    assert code == 0 and "was pinned with a schema of sha256" in err and "other.toml" in err
    code, _, err = cli(capsys, "lint", "--manifest", "manifest.json")
    assert "used Quill's schema" in err and "was pinned with a schema" in err


def test_lint_lists_every_problem_and_the_conflict_and_exits_1(project, capsys):
    (project / "docs/1.0/faq.md").write_text("# FAQ\n<!-- @wisp client mode=safe -->\n@wisp client timeout=soon\n")
    (project / "docs/1.0/bad.rst").write_text("Bad\n===\n\n..  @wisp client mode=fast\n")
    assert cli(capsys, "pin", "docs", "--version-from-path", "docs/{version}/**", "--source-id", "path",
               "--exclude", "**/drafts/**", "--output", "manifest.json")[0] == 0  # fmt: skip
    code, out, err = cli(capsys, "lint", "--schema", "wisp.toml", "--manifest", "manifest.json")
    assert code == 1
    assert "docs/1.0/bad.rst:4: malformed_directive" in out
    assert "docs/1.0/faq.md:3: wrong_value_type" in out
    assert "CONFLICT" in out and "2 directive problem(s), 1 conflict(s)" in out
    code, out, _ = cli(capsys, "lint", "--schema", "wisp.toml", "--manifest", "manifest.json", "--format", "json")
    document = json.loads(out)
    assert code == 1 and document["summary"]["problems"] == 2 and document["summary"]["conflicts"] == 1
    code, out, _ = cli(capsys, "lint", "--schema", "wisp.toml", "--manifest", "manifest.json", "--format", "junit")
    suite = ElementTree.fromstring(out.split("\n", 1)[1])
    assert code == 1 and suite.get("failures") == "3"  # two problems and one conflict
    names = [case.get("name") for case in suite.iter("testcase") if case.find("failure") is not None]
    assert "docs/1.0/bad.rst:4" in names and "1.0 client.mode" in names


def test_lint_strict_fails_on_a_gap(project, capsys):
    assert cli(capsys, "pin", "docs/2.0/guide.md", "docs/2.0/notes.txt", "--version", "2.0", "--schema", "wisp.toml",
               "--output", "manifest.json")[0] == 0  # fmt: skip
    assert cli(capsys, "lint", "--schema", "wisp.toml", "--manifest", "manifest.json")[0] == 0
    code, out, _ = cli(capsys, "lint", "--schema", "wisp.toml", "--manifest", "manifest.json", "--strict")
    assert code == 1 and "gap" in out and "silent: notes" in out


def test_lint_of_docs_declaring_nothing_says_so_in_every_format_and_strict_fails(project, capsys):
    (project / "plain").mkdir()
    (project / "plain/intro.md").write_text("# Intro\nJust prose.\n", encoding="utf-8")
    (project / "plain/usage.rst").write_text("Usage\n=====\n\nMore prose.\n", encoding="utf-8")
    assert cli(capsys, "pin", "plain", "--version", "1.0", "--output", "m.json")[0] == 0
    code, out, _ = cli(capsys, "lint", "--schema", "wisp.toml", "--manifest", "m.json")
    assert code == 0 and "no directive in any of the 2 page(s) (prefix @wisp)" in out and "lint passes" in out
    code, out, _ = cli(capsys, "lint", "--schema", "wisp.toml", "--manifest", "m.json", "--strict")
    assert code == 1 and "(fails: --strict)" in out and "lint fails" in out
    code, out, _ = cli(capsys, "lint", "--schema", "wisp.toml", "--manifest", "m.json", "--format", "json", "--strict")
    summary = json.loads(out)["summary"]
    assert code == 1 and summary["declares_nothing"] is True and summary["pages"] == 2 and summary["exit_status"] == 1
    code, out, _ = cli(capsys, "lint", "--schema", "wisp.toml", "--manifest", "m.json", "--format", "junit", "--strict")
    suite = ElementTree.fromstring(out.split("\n", 1)[1])
    assert code == 1 and suite.get("failures") == "1"
    assert [c.get("name") for c in suite.iter("testcase") if c.find("failure") is not None] == ["any directive"]


def test_lint_refuses_a_stale_pin_like_the_gate(project, capsys):
    assert cli(capsys, "pin", "docs/1.0", "--version", "1.0", "--output", "manifest.json")[0] == 0
    (project / "docs/1.0/guide.md").write_text("changed\n", encoding="utf-8")
    code, _, err = cli(capsys, "lint", "--schema", "wisp.toml", "--manifest", "manifest.json")
    assert code == 3 and "hash_mismatch" in err


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ('schema = "wisp.toml"\nmanifests = "m.json"\n', "unknown key 'manifests'"),
        ('docs = "docs"\n', "docs must be a list"),
        ("schema = [\n", "cannot be read as TOML"),
    ],
)
def test_a_bad_project_file_is_a_usage_error_naming_it(project, capsys, content, problem):
    (project / "claimgate.toml").write_text(content, encoding="utf-8")
    code, _, err = cli(capsys, "lint")
    assert code == 2 and problem in err and "claimgate.toml" in err


def test_an_explicit_project_file_must_exist(project, capsys):
    code, _, err = cli(capsys, "lint", "--project", "nowhere.toml")
    assert code == 2 and "nowhere.toml" in err


def test_gate_and_audit_take_the_manifest_from_the_project_file(project, capsys):
    (project / "claimgate.toml").write_text(PROJECT + 'exclude = ["**/drafts/**"]\n', encoding="utf-8")
    assert cli(capsys, "pin", "--source-id", "path")[0] == 0
    case = {"case_id": "t", "candidate_ids": ["docs/1.0/guide.md", "docs/1.0/reference.rst"],
            "requested_version": "1.0", "claim_key": "timeout"}  # fmt: skip
    (project / "cases.json").write_text(json.dumps([case]), encoding="utf-8")
    code, _, err = cli(capsys, "gate", "--cases", "cases.json", "--output", "out.json", "--quiet")
    assert code == 0, err
    (result,) = json.loads((project / "out.json").read_text())["cases"]
    assert result["result"]["status"] == "ready" and result["result"]["agreed_value"] == 5.0
    citation = {"citation_id": "c1", "doc_id": "docs/1.0/guide.md", "quote": "Requests time out after five seconds."}
    (project / "cites.jsonl").write_text(json.dumps(citation) + "\n", encoding="utf-8")
    code, _, err = cli(capsys, "audit", "--citations", "cites.jsonl", "--output", "audit.jsonl", "--quiet")
    assert code == 0, err


def test_streamed_lines_carry_the_same_typed_values_and_context_as_the_document(project, capsys):
    (project / "wisp.toml").write_text(SCHEMA + "[directives]\ncontext = true\n", encoding="utf-8")
    (project / "claimgate.toml").write_text(PROJECT + 'exclude = ["**/drafts/**"]\n', encoding="utf-8")
    assert cli(capsys, "pin", "--source-id", "path")[0] == 0
    cases = [
        {"case_id": "t", "candidate_ids": ["docs/1.0/guide.md", "docs/1.0/reference.rst"],
         "requested_version": "1.0", "claim_key": "timeout"},
        {"case_id": "m", "candidate_ids": ["docs/1.0/reference.rst"], "requested_version": "1.0", "claim_key": "mode"},
    ]  # fmt: skip
    (project / "cases.json").write_text(json.dumps(cases), encoding="utf-8")
    assert cli(capsys, "gate", "--cases", "cases.json", "--output", "out.json", "--quiet")[0] == 0
    assert cli(capsys, "gate", "--cases", "cases.json", "--output", "out.jsonl", "--quiet")[0] == 0
    document = json.loads((project / "out.json").read_text())["cases"]
    lines = [json.loads(line) for line in (project / "out.jsonl").read_text().splitlines()]
    assert document == lines
    timeout, mode = (entry["result"] for entry in document)
    assert [c["typed_value"] for c in timeout["claims"]] == [5.0, 5.0]
    assert "five seconds" in timeout["claims"][0]["context"]["text"]
    assert mode["agreed_value"] == "fast" and "typed_value" not in mode["claims"][0]


def test_a_gap_most_pages_leave_is_one_readable_row_naming_three_and_counting_the_rest(project, capsys):
    for k in range(40):  # a big docs folder where one page declares the key
        (project / f"docs/2.0/page{k:02}.md").write_text(f"# Page {k}\n\nNo directive here.\n")
    assert cli(capsys, "pin", "docs/2.0", "--version", "2.0", "--exclude", "**/drafts/**", "--schema", "wisp.toml",
               "--output", "manifest.json")[0] == 0  # fmt: skip
    code, out, _ = cli(capsys, "lint", "--schema", "wisp.toml", "--manifest", "manifest.json", "--strict")
    row = next(line for line in out.splitlines() if "timeout" in line and "gap" in line)
    assert code == 1 and "and 38 more (--format json lists them)" in row and len(row) < 200
    code, out, _ = cli(capsys, "lint", "--schema", "wisp.toml", "--manifest", "manifest.json", "--format", "json")
    silent = next(c["silent"] for c in json.loads(out)["contracts"] if c["claim_key"] == "timeout")
    assert len(silent) == 41  # every silent page, notes included
