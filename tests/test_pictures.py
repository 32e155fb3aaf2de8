"""DAG pictures: one per case with its path highlighted, labels that fit, deterministic, honest without Graphviz."""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
from xml.etree import ElementTree

import pytest
from claimgate import pictures
from claimgate.cli import gate as gate_cli
from claimgate.execution import drivers
from claimgate.gate.decisions import decision_stages

from .helpers import FIXTURES, ROOT, run_cli

CASE_IDS = [case["case_id"] for case in json.loads((FIXTURES / "cases.json").read_text())]


@pytest.fixture(scope="module")
def default_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("default")
    done = run_cli("--output", str(out / "gate_result.json"))
    assert done.returncode == 0, done.stderr
    return out


def test_default_run_writes_one_picture_per_case(default_run):
    assert sorted(p.stem for p in (default_run / "cases").glob("*.svg")) == sorted(CASE_IDS)
    assert (default_run / "gate_dag.svg").read_text().lstrip().startswith("<?xml")
    assert (default_run / "audit_dag.svg").exists()


def _node_styles(dot: str) -> dict[str, str]:
    """Node name -> its statement's attribute text, for the node statements of a DOT text."""
    styles = {}
    for line in dot.splitlines():
        match = re.match(r'\s*("[^"]+"|\w+) \[(.*)\]$', line)
        if match and "->" not in line:
            styles[match.group(1).strip('"')] = match.group(2)
    return styles


@pytest.mark.parametrize("case_id", CASE_IDS)
def test_case_picture_highlights_exactly_the_deciding_node_and_every_node_that_ran(default_run, case_id):
    result = json.loads((default_run / "gate_result.json").read_text())
    decided_at = next(c["result"]["decided_at"] for c in result["cases"] if c["case_id"] == case_id)
    styles = _node_styles((default_run / "cases" / f"{case_id}.dot").read_text())
    decided_fill = f'fillcolor="{pictures.DECIDED_STYLE["fillcolor"]}"'
    highlighted = sorted(name for name, attrs in styles.items() if decided_fill in attrs)
    assert highlighted == sorted([decided_at, "decided here"])  # the node itself and its legend entry
    graph = drivers.gate_driver().graph
    ran = pictures.nodes_ran(graph, decided_at)
    functions = [name for name, node in graph.nodes.items() if node.user_defined is False and name in styles]
    assert functions, "no function nodes found in the picture"
    for name in functions:
        if name == decided_at:
            continue
        expected = pictures.RAN_STYLE if name in ran else pictures.NOT_REACHED_STYLE
        assert f'fillcolor="{expected["fillcolor"]}"' in styles[name], (name, styles[name])


def test_malformed_directive_picture_shows_directive_errors_deciding_after_the_parse_ran(default_run):
    styles = _node_styles((default_run / "cases" / "malformed-directive.dot").read_text())
    ran, grey = pictures.RAN_STYLE["fillcolor"], pictures.NOT_REACHED_STYLE["fillcolor"]
    assert pictures.DECIDED_STYLE["fillcolor"] in styles["directive_errors"]
    for name in ("eligible_sources", "source_directives", "gate_result", "gate_results"):
        assert ran in styles[name], name
    for name in ("missing_sources", "conflicting_values", "agreed_values"):
        assert grey in styles[name], name


@pytest.mark.parametrize("case_id", CASE_IDS)
def test_the_runs_report_of_ignored_lines_is_drawn_as_run_in_every_case_picture(default_run, case_id):
    # computed once for the whole run, whatever decided the case: never "not reached"
    styles = _node_styles((default_run / "cases" / f"{case_id}.dot").read_text())
    assert pictures.RAN_STYLE["fillcolor"] in styles["ignored_directive_lines"]


@pytest.mark.parametrize("case_id", CASE_IDS)
def test_case_picture_has_no_config_box_or_config_suffix(default_run, case_id):
    dot = (default_run / "cases" / f"{case_id}.dot").read_text()
    assert "shape=note" not in dot
    assert ": partitioned" not in dot and "partitioned [" not in dot


def test_gate_dag_captions_its_config_box(default_run):
    dot = (default_run / "gate_dag.dot").read_text()
    assert "partitioned [" in dot and 'label="config (partitioned=False):' in dot


def _text_boxes(svg: str):
    """``(node title, node bounding box, [(x_start, text, font-size, family)])`` for every node of an SVG."""
    root = ElementTree.fromstring(svg)
    ns = {"s": "http://www.w3.org/2000/svg"}
    for group in root.iter("{http://www.w3.org/2000/svg}g"):
        if group.get("class") != "node":
            continue
        shape = group.find("s:path", ns) if group.find("s:path", ns) is not None else group.find("s:polygon", ns)
        numbers = [float(n) for n in re.findall(r"-?\d+(?:\.\d+)?", shape.get("d") or shape.get("points"))]
        xs = numbers[0::2]
        texts = []
        for text in group.findall("s:text", ns):
            size = float(text.get("font-size"))
            width = len(text.text or "") * MONOSPACE_ADVANCE * size
            x = float(text.get("x"))
            start = {"start": x, "middle": x - width / 2, "end": x - width}[text.get("text-anchor")]
            texts.append((start, start + width, text.text, text.get("font-family")))
        yield group.find("s:title", ns).text, (min(xs), max(xs)), texts


#: Widest advance among common monospace fonts (DejaVu Sans Mono and Menlo 0.602 em; Courier New,
#: Liberation Mono, Nimbus Mono 0.600 em), rounded up.
MONOSPACE_ADVANCE = 0.61


@pytest.mark.parametrize("picture", ["gate_dag.svg", "audit_dag.svg", "cases/malformed-directive.svg"])
def test_every_label_fits_its_box_in_any_common_monospace_font(default_run, picture):
    svg = (default_run / picture).read_text()
    checked = 0
    for title, (left, right), texts in _text_boxes(svg):
        for start, end, text, family in texts:
            assert family.split(",")[0] == pictures.FONT and family.endswith("monospace"), (title, family)
            assert left < start and end < right, (title, text, (start, end), (left, right))
            checked += 1
    assert checked > 10


def test_committed_readme_figures_match_what_the_pipeline_draws(default_run):
    figures = ROOT / "notebooks" / "figures"
    assert (figures / "gate_dag.svg").read_bytes() == (default_run / "gate_dag.svg").read_bytes()
    assert (figures / "audit_dag.svg").read_bytes() == (default_run / "audit_dag.svg").read_bytes()
    committed_case = (figures / "case_same-version-conflict.svg").read_bytes()
    assert committed_case == (default_run / "cases" / "same-version-conflict.svg").read_bytes()


def test_dot_text_is_the_same_whatever_the_hash_seed(tmp_path):
    script = (
        "from claimgate.execution import drivers; from claimgate import pictures;"
        "print(pictures.canonical_dot(drivers.gate_driver().display_all_functions().source), end='');"
        "print(pictures.canonical_dot(drivers.audit_driver('corpus').display_upstream_of('audit_results').source))"
    )
    assert len(_outputs_by_seed(script)) == 1


def _outputs_by_seed(script: str, seeds=("1", "2", "3")) -> set[str]:
    """The distinct standard outputs of ``python -c script`` run under each ``PYTHONHASHSEED``."""
    texts = set()
    for seed in seeds:
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, cwd=ROOT)
        texts.add(done.stdout if done.returncode == 0 else done.stderr)
    return texts


def test_canonical_dot_only_reorders_statements():
    source = drivers.gate_driver().display_all_functions().source
    canonical = pictures.canonical_dot(source)

    def statements(text: str) -> list[str]:
        return sorted(pictures._sorted_table_rows(line.strip()) for line in text.splitlines() if line.strip())

    assert statements(source) == statements(canonical)


def test_without_a_renderer_the_dot_is_written_and_one_line_says_so(tmp_path, monkeypatch):
    monkeypatch.setattr(pictures, "find_renderer", lambda: None)
    written, note = pictures.write_picture("digraph { a -> b }", tmp_path / "g")
    assert written == [tmp_path / "g.dot"]
    assert not (tmp_path / "g.svg").exists()
    assert note is not None and "\n" not in note and "Graphviz not found" in note


# ----------------------------------------------------------------------------- pictures that scale


def _gate_pictures(tmp_path, rows):
    cases = tmp_path / "cases.json"
    cases.write_text(json.dumps(rows), encoding="utf-8")
    out = tmp_path / "out"
    args = ["gate", "--manifest", str(FIXTURES / "manifest.json"), "--cases", str(cases)]
    done = run_cli(*args, "--output", str(out / "r.json"), "--pictures", "--quiet")
    assert done.returncode == 0, done.stderr
    return out, json.loads((out / "r.json").read_text(encoding="utf-8"))


def _many_cases(n: int) -> list:
    """``n`` cases cycling through the fixtures' eight and one request refused by the request checks."""
    base = [*json.loads((FIXTURES / "cases.json").read_text()), {"case_id": "bad", "candidate_ids": "quill-guide"}]
    return [{**base[i % len(base)], "case_id": f"{base[i % len(base)]['case_id']}-{i}"} for i in range(n)]


@pytest.fixture(scope="module")
def large_run(tmp_path_factory):
    return _gate_pictures(tmp_path_factory.mktemp("large"), _many_cases(gate_cli.PER_CASE_PICTURE_LIMIT + 1))


def test_a_table_over_the_limit_gets_one_picture_per_decision_path_and_every_case_is_indexed(large_run):
    out, result = large_run
    decided = [case["result"]["decided_at"] for case in result["cases"]]
    stages = [name for name, _ in decision_stages(drivers.gate_driver().graph)]
    assert set(decided) == set(stages)  # every deciding node, both refusal stages included, is reached here
    assert sorted(p.name for p in (out / "cases").glob("*.svg")) == sorted(f"path-{s}.svg" for s in stages)
    index = json.loads((out / "cases" / "index.json").read_text())
    assert [(c["position"], c["case_id"]) for c in index["cases"]] == [
        (i, case["case_id"]) for i, case in enumerate(result["cases"])
    ]
    for entry, stage in zip(index["cases"], decided):
        assert entry["files"] == [f"path-{stage}.dot", f"path-{stage}.svg"]
    assert {p["decided_at"]: p["cases"] for p in index["paths"]} == {s: decided.count(s) for s in stages}


@pytest.mark.parametrize("stage", ["validated_requests", "directive_errors", "agreed_values"])
def test_a_path_picture_highlights_its_deciding_node_and_counts_its_cases(large_run, stage):
    out, result = large_run
    dot = (out / "cases" / f"path-{stage}.dot").read_text()
    styles = _node_styles(dot)
    decided_fill = f'fillcolor="{pictures.DECIDED_STYLE["fillcolor"]}"'
    assert sorted(n for n, a in styles.items() if decided_fill in a) == sorted([stage, "decided here"])
    count = sum(case["result"]["decided_at"] == stage for case in result["cases"])
    assert f"decided at {stage}: {count} cases" in dot


def test_a_table_at_the_limit_keeps_one_picture_per_case(tmp_path):
    out, result = _gate_pictures(tmp_path, _many_cases(gate_cli.PER_CASE_PICTURE_LIMIT))
    assert sorted(p.stem for p in (out / "cases").glob("*.svg")) == sorted(c["case_id"] for c in result["cases"])
    assert "paths" not in json.loads((out / "cases" / "index.json").read_text())


def _svg_size_and_fonts(svg: str) -> tuple[float, list[float]]:
    root = ElementTree.fromstring(svg)
    width = float(root.get("viewBox").split()[2])
    return width, [float(t.get("font-size")) for t in root.iter("{http://www.w3.org/2000/svg}text")]


def test_the_teaching_picture_text_is_at_least_10_px_high_at_800_px_wide(default_run):
    width, sizes = _svg_size_and_fonts((default_run / "gate_chain.svg").read_text())
    assert len(sizes) > 20
    assert min(sizes) * 800 / width >= 10, (width, min(sizes))


def test_the_whole_dag_is_not_readable_at_800_px_which_is_why_the_chain_exists(default_run):
    width, sizes = _svg_size_and_fonts((default_run / "gate_dag.svg").read_text())
    assert min(sizes) * 800 / width < 10


def test_the_teaching_picture_names_every_deciding_node_and_every_code_it_decides(default_run):
    dot = (default_run / "gate_chain.dot").read_text()
    for name, codes in decision_stages(drivers.gate_driver().graph):
        assert f"{name} [" in dot and all(code in dot for code in codes)


def test_the_readme_shows_the_teaching_picture_at_800_px_and_it_is_what_the_run_draws(default_run):
    readme = (ROOT / "README.md").read_text()
    assert '<img src="notebooks/figures/gate_chain.svg" width="800"' in readme
    assert (ROOT / "notebooks" / "figures" / "gate_chain.svg").read_bytes() == (
        default_run / "gate_chain.svg"
    ).read_bytes()


def _mermaid(text: str) -> tuple[set[str], set[tuple[str, str]]]:
    """(node ids, edges) of a Mermaid flowchart as ``mermaid_dag`` writes it."""
    lines = text.splitlines()
    assert lines[0] == "flowchart LR"
    nodes, edges = set(), set()
    for line in lines[1:]:
        if match := re.fullmatch(r"    (\w+) --> (\w+)", line):
            edges.add(match.groups())
        elif match := re.fullmatch(r"    (\w+)(?:\[(\w+)\]|\(\[(\w+)\]\))", line):
            assert match.group(1) == (match.group(2) or match.group(3))
            nodes.add(match.group(1))
        else:
            assert line.startswith(("    classDef ", "    class ")), line
    return nodes, edges


def test_the_mermaid_export_has_every_node_and_edge_of_the_hamilton_graph(default_run):
    graph = drivers.gate_driver().graph
    nodes, edges = _mermaid((default_run / "gate_dag.mmd").read_text())
    assert nodes == set(graph.nodes)
    assert edges == {(d.name, name) for name, node in graph.nodes.items() for d in node.dependencies}
    assert all(a in nodes and b in nodes for a, b in edges)


def test_the_mermaid_export_is_the_same_whatever_the_hash_seed():
    assert len(_outputs_by_seed("from claimgate import pictures; print(pictures.mermaid_dag(), end='')")) == 1


@pytest.mark.parametrize("control", ["\u202e", "\u2066", "\u200b", "\x07", "\u2028", "\ue000", "\r"])
def test_a_case_id_with_a_bidi_or_invisible_control_is_drawn_with_a_visible_tag(control):
    source = pictures.case_graph(drivers.gate_driver(), f"../evil{control}case", "validated_requests").source
    assert control not in source
    assert f"case ../evil⟨U+{ord(control):04X}⟩case: decided at validated_requests" in source
    svg = pictures.svg_text(source)
    if svg is not None:  # with Graphviz installed: the picture itself
        assert control not in svg and f"⟨U+{ord(control):04X}⟩" in svg


@pytest.mark.parametrize(
    "case_id, title", [('a\nb(c) [x="y"];', "a⟨U+000A⟩b(c) [x=&quot;y&quot;];"), ("a\tb(c)", "a⟨U+0009⟩b(c)")]
)
def test_a_case_id_with_a_newline_or_a_tab_and_dot_syntax_is_drawn_on_one_line(case_id, title):
    source = pictures.case_graph(drivers.gate_driver(), case_id, "validated_requests").source
    assert f"case {title.replace('&quot;', chr(92) + chr(34))}: decided at validated_requests" in source
    if pictures.find_renderer() is None:
        pytest.skip("no Graphviz renderer installed")
    svg = pictures.svg_text(source)
    assert svg is not None and f"case {title}: decided at validated_requests" in svg


@pytest.mark.parametrize("case_id", ["a\\lb", "c:\\Users\\G", "\\N\\G\\E\\T\\H", "end\\", "two\\\\ones"])
def test_a_backslash_in_a_case_id_is_drawn_as_written_not_read_as_a_graphviz_escape(case_id):
    graph = pictures.case_graph(drivers.gate_driver(), case_id, "validated_requests")
    title = f"case {case_id}: decided at validated_requests"
    assert f'label="{title.replace(chr(92), chr(92) * 2)}"' in graph.source  # each backslash escaped once
    svg = pictures.svg_text(graph.source)
    if svg is not None:  # with a renderer: the picture's title text is the case id as written
        assert title in html.unescape(svg)
