"""DAG pictures: Hamilton's visualization, made deterministic and rendered offline.

Hamilton draws the graph (``display_all_functions`` with a ``custom_style_function``)
and returns a ``graphviz.Digraph``; this module writes its DOT source and renders an
SVG. Hamilton emits statements in set order, which changes from process to process,
so the DOT text is put in a canonical order first: same graph, same bytes.

A case picture tells the truth about one case: the highlighted node is the node
whose code decided it (``decided_at``), green nodes are the ones that ran for it
(``nodes_ran``, from the graph and the deciding nodes' ``decides`` tags), and
Hamilton's config boxes are left out (the whole-DAG picture keeps them, with a
one-line caption). Every label is set in a monospace font (``FONT``), so the boxes
fit on Linux, macOS and Windows alike.

Rendering uses, in order, the ``graphviz-pure`` program (a self-contained ``dot``
installed from PyPI with this package, same bytes on every platform) and a system
Graphviz ``dot``. Where neither exists the ``.dot`` file is still written and one
line says so.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Callable
from pathlib import Path

import graphviz

from claimgate.gate.decisions import decision_stages, downstream, upstream
from claimgate.io.atomic import write_atomic
from claimgate.textlines import visible_controls

#: Font of every label. Every common monospace font (Courier New on Windows and macOS, Liberation Mono,
#: Nimbus Mono or DejaVu Sans Mono on Linux, Menlo) advances 0.60-0.61 em per character, so the box widths
#: Graphviz computes with Courier metrics hold whichever of them the viewer substitutes; proportional
#: fonts differ by 10-20% between Helvetica, Arial and the DejaVu Sans a bare Linux falls back to.
FONT = "Courier"

DECIDED_STYLE = {"fillcolor": "#e4572e", "fontcolor": "#ffffff", "penwidth": "3", "style": "rounded,filled,bold"}
RAN_STYLE = {"fillcolor": "#a7d7a1", "style": "rounded,filled"}
NOT_REACHED_STYLE = {
    "fillcolor": "#f4f4f4",
    "fontcolor": "#9a9a9a",
    "color": "#bbbbbb",
    "style": "rounded,filled,dashed",
}


_FONTNAME = re.compile(r'fontname=("[^"]*"|[^\s\]]+)')
_TABLE = re.compile(r"(<table[^>]*>)((?:<tr>.*?</tr>)+)(</table>)")
_ROW = re.compile(r"<tr>.*?</tr>")


def _sorted_table_rows(line: str) -> str:
    """Sort the rows of an HTML-like table label (Hamilton lists grouped inputs in set order)."""
    return _TABLE.sub(lambda m: m.group(1) + "".join(sorted(_ROW.findall(m.group(2)))) + m.group(3), line)


def canonical_dot(source: str) -> str:
    """Reorder a DOT text's top-level statements deterministically.

    Header lines (up to and including the ``graph``/``node`` defaults) stay first;
    node statements, then edge statements, are sorted; subgraph blocks follow in
    their original order, each with its statements sorted; rows of table labels
    (grouped inputs) are sorted. The graph is unchanged; only the text order is fixed.
    """
    lines = [_sorted_table_rows(line) for line in source.splitlines()]
    head: list[str] = []
    nodes: list[str] = []
    edges: list[str] = []
    blocks: list[list[str]] = []
    body = iter(lines)
    for line in body:
        head.append(line)
        if line.rstrip().endswith("{"):
            break
    depth = 0
    block: list[str] = []
    for line in body:
        stripped = line.strip()
        if depth:
            block.append(line)
            depth += stripped.count("{") - stripped.count("}")
            if depth == 0:
                blocks.append(block)
                block = []
        elif stripped.startswith("subgraph"):
            block = [line]
            depth = stripped.count("{") - stripped.count("}")
        elif stripped == "}":
            continue
        elif stripped.startswith(("graph [", "node [", "edge [")):
            head.append(line)
        elif "->" in stripped.split("[", 1)[0]:
            edges.append(line)
        elif stripped:
            nodes.append(line)
    # Inside a subgraph (Hamilton's legend) keep the opening and graph-default lines, sort the rest.
    tidy = [b[:2] + sorted(b[2:-1]) + b[-1:] if len(b) > 3 else b for b in blocks]
    out = head + sorted(nodes) + sorted(edges) + [line for b in tidy for line in b] + ["}"]
    return "\n".join(out) + "\n"


def portable_fonts(source: str) -> str:
    """Set every ``fontname`` of a DOT text to ``FONT`` (Hamilton writes Helvetica), and the graph default too."""
    text = _FONTNAME.sub(f"fontname={FONT}", source)
    return re.sub(r"^(\s*graph \[)", rf"\1fontname={FONT} ", text, count=1, flags=re.MULTILINE)


def picture_dot(source: str) -> str:
    """The DOT text a picture is drawn from: ``portable_fonts`` then ``canonical_dot``."""
    return canonical_dot(portable_fonts(source))


def find_renderer() -> list[str] | None:
    """The command that turns DOT into SVG: ``graphviz-pure`` (next to this Python or on PATH), else ``dot``."""
    scripts = Path(sysconfig.get_path("scripts"))
    for candidate in (scripts / "graphviz-pure", Path(sys.executable).parent / "graphviz-pure"):
        if candidate.exists():
            return [str(candidate)]
    for name in ("graphviz-pure", "dot"):
        found = shutil.which(name)
        if found:
            return [found]
    return None


def svg_text(dot_source: str) -> str | None:
    """Render DOT text to SVG text in memory (``picture_dot`` first); ``None`` without a renderer or on failure."""
    renderer = find_renderer()
    if renderer is None:
        return None
    completed = subprocess.run(
        [*renderer, "-Tsvg"],
        input=picture_dot(dot_source).encode("utf-8"),
        capture_output=True,
        check=False,
        timeout=120,
    )
    return completed.stdout.decode("utf-8") if completed.returncode == 0 else None


def write_picture(dot_source: str, out_base: str | Path, fmt: str = "svg") -> tuple[list[Path], str | None]:
    """Write ``<out_base>.dot`` and render ``<out_base>.<fmt>``; return ``(written paths, note)``.

    ``note`` is ``None`` when the picture was rendered, else one line saying why not
    (no renderer installed, or the renderer failed); the ``.dot`` is written anyway.
    """
    base = Path(out_base)
    # Append, never replace, the extension: a case id such as "release.1.0" keeps its dots.
    dot_path = base.with_name(base.name + ".dot")
    canonical = picture_dot(dot_source)
    write_atomic(dot_path, lambda handle: handle.write(canonical.encode("utf-8")))
    renderer = find_renderer()
    if renderer is None:
        return [dot_path], f"Graphviz not found (neither graphviz-pure nor dot): wrote {dot_path} only"
    completed = subprocess.run(
        [*renderer, f"-T{fmt}"], input=canonical.encode("utf-8"), capture_output=True, check=False, timeout=120
    )
    if completed.returncode != 0:
        message = completed.stderr.decode("utf-8", "replace").strip().splitlines()[:1]
        return [dot_path], f"rendering failed ({' '.join(message) or completed.returncode}): wrote {dot_path} only"
    picture = base.with_name(f"{base.name}.{fmt}")
    write_atomic(picture, lambda handle: handle.write(completed.stdout))
    return [dot_path, picture], None


def nodes_ran(graph, decided_at: str) -> set[str]:
    """Nodes of a Hamilton ``FunctionGraph`` that ran for a case decided at ``decided_at``.

    Those are the deciding node, everything it depends on, the nodes that assemble
    every case's result (downstream of the last deciding node: ``gate_result``,
    ``gate_results``), and the run's reports: nodes that depend on no deciding stage
    and feed none (``ignored_directive_lines``, computed once for the whole run, with
    what they depend on). The deciding stages after ``decided_at`` never saw the case
    (each stage passes on only the cases it left open), nor did the nodes that feed
    only them. The stages come from ``decisions.decision_stages`` (the ``decides`` tags).
    """
    stages = [name for name, _ in decision_stages(graph)]
    if decided_at not in stages:
        raise ValueError(f"{decided_at!r} is not a deciding node ({', '.join(stages)})")
    assembly = downstream(graph, stages[-1])
    feeding = set(stages).union(*(upstream(graph, stage) for stage in stages), *(upstream(graph, n) for n in assembly))
    reports = {
        name
        for name in graph.nodes
        if name not in feeding and name not in assembly and not set(stages) & upstream(graph, name)
    }
    reports |= set().union(*(upstream(graph, name) for name in reports))
    return {decided_at} | upstream(graph, decided_at) | assembly | reports


def hide_config(graph, config: dict) -> None:
    """Drop Hamilton's config boxes from a drawn ``graphviz.Digraph``, in place.

    Removes each config key's node (a ``note`` box) and the legend's ``config`` entry,
    and the ``: <key>`` suffix Hamilton adds to the labels of nodes chosen by a config
    value (``case_table: partitioned`` becomes ``case_table``).
    """
    keys = set(config)
    kept = []
    for line in graph.body:
        name = line.strip().split(" [", 1)[0]
        if name in keys or name == "config":
            continue
        for key in keys:
            line = line.replace(f": {key}</b>", "</b>")
        kept.append(line)
    graph.body[:] = kept


def config_caption(config: dict) -> str:
    """One line saying what Hamilton's config boxes in a DAG picture mean."""
    values = ", ".join(f"{key}={value}" for key, value in sorted(config.items()))
    return (
        f"config ({values}): nodes labelled 'name: key' are the variant the config chose; "
        "partitioned=True runs each partition of the table as a task on an executor"
    )


def dag_graph(dr):
    """The whole DAG of a driver, captioned with what its config boxes mean (``graphviz.Digraph``)."""
    graph = dr.display_all_functions(orient="LR")
    graph.attr(label=config_caption(dr.graph.config), labelloc="b", labeljust="l")
    return graph


def case_style(decided_at: str, ran: set[str]) -> Callable:
    """A Hamilton ``custom_style_function`` highlighting one case's path.

    The deciding node is drawn solid red-orange, nodes that ran for the case green,
    the rest grey and dashed; legend entries name the three.
    """

    def style(*, node, node_class):  # signature fixed by Hamilton
        if node.name == decided_at:
            return dict(DECIDED_STYLE), node_class, "decided here"
        if node.name in ran:
            return dict(RAN_STYLE), node_class, "ran for this case"
        if node_class == "function":
            return dict(NOT_REACHED_STYLE), node_class, "not reached"
        return {}, node_class, None

    return style


def case_graph(dr, case_id: object, decided_at: str):
    """The gate DAG drawn for one case: its path highlighted, titled with the deciding node.

    ``dr`` is the gate driver (``drivers.gate_driver()``); returns Hamilton's
    ``graphviz.Digraph`` (use ``.source`` for the DOT text), without config boxes.
    """
    return _path_graph(dr, decided_at, f"case {visible_controls(str(case_id))}: decided at {decided_at}")


def path_graph(dr, decided_at: str, cases: int):
    """The gate DAG drawn for every case decided at ``decided_at`` (one decision path), titled with how many.

    The picture of a large table (``cases/index.json`` maps each case to it): the
    highlighting of ``case_graph``, which depends only on ``decided_at``. docs/gate-rules.md, "Pictures".
    """
    return _path_graph(dr, decided_at, f"decided at {decided_at}: {cases} case{'s' * (cases != 1)}")


def _path_graph(dr, decided_at: str, title: str):
    ran = nodes_ran(dr.graph, decided_at)
    graph = dr.display_all_functions(orient="LR", custom_style_function=case_style(decided_at, ran))
    hide_config(graph, dr.graph.config)
    # Plain text: a backslash in a case id (``\l``, ``\G``) is shown, never read as a Graphviz escape sequence.
    graph.attr(label=graphviz.escape(title), labelloc="t")
    return graph


def _quoted(text: str) -> str:
    """A DOT string literal."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def chain_dot(graph=None) -> str:
    """The teaching picture: the decision chain of a Hamilton ``FunctionGraph``, top to bottom, as DOT text.

    ``graph`` ``None`` is the gate's own (``drivers.gate_driver().graph``).
    One box per deciding stage (``decisions.decision_stages``, in decision order), each with
    the statuses and reason codes it decides beside it (``reasons.reason``), between the
    verified pins and the assembled result. Narrow on purpose: it stays readable at 800 px
    (its labels at least 10 px high, tested) where the whole DAG is not.
    """
    from claimgate.reasons import reason

    stages = decision_stages(graph if graph is not None else _gate_graph())
    lines = [
        "digraph decision_chain {",
        f'graph [fontname={FONT} fontsize=14 label="the gate\'s decision chain" labelloc=t nodesep=0.25 ranksep=0.3]',
        f'node [fontname={FONT} fontsize=14 shape=box style="rounded,filled" fillcolor="#ffffff"]',
        f"edge [fontname={FONT} fontsize=14]",
        'start [label="verified pins, case rows"]',
        'done [label="case_decisions, result_parts\\ngate_result"]',
    ]
    previous = "start"
    for name, codes in stages:
        statuses = "/".join(dict.fromkeys(status for code in codes for status in reason(code).gives))
        exit_label = "\\l".join([statuses + ":", *[f"  {code}" for code in codes]]) + "\\l"
        lines += [
            f"{name} [label={_quoted(name)} fillcolor={_quoted(RAN_STYLE['fillcolor'])}]",
            f'{name}__decides [label="{exit_label}" shape=note fontcolor="#444444"]',
            f"{previous} -> {name}",
            f"{name} -> {name}__decides [style=dashed arrowhead=none]",
            f"{{rank=same; {name}; {name}__decides}}",
        ]
        previous = name
    lines += [f"{previous} -> done", "}"]
    return "\n".join(lines) + "\n"


def mermaid_dag(graph=None) -> str:
    """The DAG of a Hamilton ``FunctionGraph`` as a Mermaid ``flowchart LR`` (code hosts render it).

    ``graph`` ``None`` is the gate's own.
    Every node once (``name[name]`` for a function, ``name([name])`` for an input or
    config value), then every dependency edge ``dependency --> node``, both sorted:
    deterministic text. Deciding nodes get the class ``decides``.
    """
    graph = graph if graph is not None else _gate_graph()
    deciding = {name for name, _ in decision_stages(graph)}
    lines = ["flowchart LR"]
    for name in sorted(graph.nodes):
        node = graph.nodes[name]
        lines.append(f"    {name}([{name}])" if node.user_defined else f"    {name}[{name}]")
    edges = sorted((d.name, name) for name, node in graph.nodes.items() for d in node.dependencies)
    lines += [f"    {a} --> {b}" for a, b in edges]
    lines.append(f"    classDef decides fill:{DECIDED_STYLE['fillcolor']},color:#ffffff")
    lines.append(f"    class {','.join(sorted(deciding))} decides")
    return "\n".join(lines) + "\n"


def _gate_graph():
    from claimgate.execution.drivers import gate_driver

    return gate_driver().graph


def gate_picture(decided_at: str | None = None, title: str | None = None) -> str:
    """DOT text of the gate DAG (``decided_at`` ``None``) or of one decision path, for notebooks and scripts.

    Draws from the gate's own driver (no argument to build): the whole DAG with its config
    caption, or ``decided_at``'s path as ``path_graph`` highlights it, titled ``title``
    (default ``decided at <node>``). Raises ``ValueError`` for a node that decides nothing.
    """
    from claimgate.execution.drivers import gate_driver

    dr = gate_driver()
    if decided_at is None:
        return dag_graph(dr).source
    return _path_graph(dr, decided_at, title or f"decided at {decided_at}").source


def fit_width(svg: str) -> str:
    """An SVG set to the width of its container (``width="100%"``, height from its ``viewBox``): shown whole."""
    return re.sub(r'<svg width="[^"]*" height="[^"]*"', '<svg width="100%"', svg, count=1)
