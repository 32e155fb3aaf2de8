"""Case pictures (``gate --pictures``): one file per case whatever the ids, and an index that says which."""

from __future__ import annotations

import json
import re

from claimgate.cli.gate import case_picture_names
from hypothesis import given
from hypothesis import strategies as st

from ..helpers import FIXTURES, cli

SAFE = re.compile(r"[A-Za-z0-9._-]+\Z")
#: Windows device names, written out here apart from the code's table (docs/gate-rules.md, "Pictures").
DEVICES = {"con", "prn", "aux", "nul"} | {f"{port}{n}" for port in ("com", "lpt") for n in "123456789"}


def gate_pictures(capsys, tmp_path, case_ids):
    table = tmp_path / "c.json"
    rows = [
        {"case_id": cid, "candidate_ids": ["quill-guide"], "requested_version": "1.0", "claim_key": "existing_path"}
        for cid in case_ids
    ]
    table.write_text(json.dumps(rows))
    out = tmp_path / "o" / "r.json"
    code, stdout, err = cli(
        capsys, "gate", "--manifest", str(FIXTURES / "manifest.json"), "--cases", str(table),
        "--output", str(out), "--pictures",
    )  # fmt: skip
    assert code == 0, err
    return out.parent / "cases", stdout


def test_a_numbered_fallback_never_takes_another_cases_picture(capsys, tmp_path):
    folder, stdout = gate_pictures(capsys, tmp_path, ["a_b-2", "a/b", "a_b"])
    dots = sorted(p.name for p in folder.glob("*.dot"))
    assert len(dots) == 3  # before: a_b-2.dot was written twice and one case had no picture
    index = json.loads((folder / "index.json").read_text())["cases"]
    files = {entry["case_id"]: entry["files"][0] for entry in index}
    assert files == {"a_b-2": "a_b-2.dot", "a_b": "a_b.dot", "a/b": "a_b-1.dot"}
    for entry in index:  # each picture is the one drawn for its own case
        assert json.dumps(entry["case_id"])[1:-1] in (folder / entry["files"][0]).read_text()
    assert f"1 case picture(s) are not named after their case id: see {folder / 'index.json'}" in stdout


def test_ids_differing_only_in_letter_case_get_distinct_files_on_case_folding_systems(capsys, tmp_path):
    folder, _ = gate_pictures(capsys, tmp_path, ["Guide", "guide", "GUIDE"])
    index = json.loads((folder / "index.json").read_text())["cases"]
    names = [entry["files"][0] for entry in index]
    assert names[0] == "Guide.dot"
    assert len({name.casefold() for name in names}) == 3


def test_a_case_id_that_is_already_safe_keeps_its_exact_name_even_after_a_cleaned_one():
    assert case_picture_names(["x y", "x_y"], [0, 1]) == ["x_y-0", "x_y"]


def test_a_repeated_or_missing_case_id_still_gets_its_own_picture():
    names = case_picture_names(["same", "same", None, None, "case-3"], [0, 1, 2, 3, 4])
    assert names == ["same", "same-1", "case", "case-3-2", "case-3"]


def test_the_index_names_every_case_in_table_order_when_ids_are_plain(capsys, tmp_path):
    folder, stdout = gate_pictures(capsys, tmp_path, ["one", "two"])
    index = json.loads((folder / "index.json").read_text())["cases"]
    rows = [(e["position"], e["case_id"], e["files"][0]) for e in index]
    assert rows == [(0, "one", "one.dot"), (1, "two", "two.dot")]
    assert "not named after their case id" not in stdout


@given(
    st.lists(
        st.one_of(
            st.none(),
            st.text(alphabet="aAb_-./ é\x00", max_size=6),
            st.sampled_from(["a-1", "a-1-2", "A", "CON", "con", "nul.txt", ".Com3", "lpt9.x.y", "CON_", "aux-0"]),
        ),
        max_size=12,
    )
)
def test_picture_names_are_distinct_ignoring_case_and_safe_whatever_the_ids(case_ids):
    names = case_picture_names(case_ids, list(range(len(case_ids))))
    assert len(names) == len(case_ids)
    assert len({name.casefold() for name in names}) == len(names)
    for name in names:
        assert SAFE.match(name) and not name.startswith(".") and not name.endswith(".")
        assert name.split(".")[0].casefold() not in DEVICES  # opens on Windows
    for position, case_id in enumerate(case_ids):  # the first case with a safe id gets exactly that id
        earlier = [c.casefold() for c in case_ids[:position] if isinstance(c, str)]
        device = isinstance(case_id, str) and case_id.split(".")[0].casefold() in DEVICES
        if isinstance(case_id, str) and SAFE.match(case_id) and case_id.strip(".") == case_id and len(case_id) <= 80:
            if device:
                continue
            if case_id.casefold() not in earlier:
                assert names[position] == case_id


def test_a_windows_device_name_is_never_a_pictures_name(capsys, tmp_path):
    assert case_picture_names(["CON", "nul.txt", "com1", "Lpt9.a", "con", "COM10", "console"], list(range(7))) == [
        "CON_", "nul_.txt", "com1_", "Lpt9_.a", "con_-4", "COM10", "console"
    ]  # fmt: skip
    folder, stdout = gate_pictures(capsys, tmp_path, ["AUX", "prn.x"])
    assert sorted(p.name for p in folder.glob("*.dot")) == ["AUX_.dot", "prn_.x.dot"]
    assert "not named after their case id" in stdout
