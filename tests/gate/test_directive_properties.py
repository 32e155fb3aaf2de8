"""Property-based tests (hypothesis) for the directive parser (docs/gate-rules.md, "Directives").

On arbitrary text the parser either returns claims or raises ``DirectiveError``, never
anything else; every claim's offsets slice back to its quote, its line number is the 1-based
``str.splitlines`` line of that quote, and well-formed directives mixed into prose are found
exactly, in line order, whatever the line terminators.
"""

from __future__ import annotations

from claimgate.errors import DirectiveError
from claimgate.gate.directives import parse_directives
from claimgate.gate.schema import load_schema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ..helpers import FIXTURES

QUILL = load_schema()
LUMEN = load_schema(FIXTURES / "second_schema" / "lumen_schema.toml")
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Text made of pieces the parser cares about, so random text often hits directive-like lines.
PIECES = st.sampled_from(
    [
        "@quill",
        "%lumen",
        " ",
        "  ",
        "\t",
        "@",
        "%",
        "=",
        "create_copy",
        "put_object",
        "existing_path",
        "close_required",
        "overwrite",
        "refuse",
        "yes",
        "deny",
        "\n",
        "\r\n",
        "\r",
        "\u2028",
        "\x85",
        "\x00",
        "\ufeff",
        "e\u0301",
        "word",
    ]
)
ARBITRARY_TEXT = st.one_of(st.text(), st.lists(st.one_of(PIECES, st.text(max_size=3))).map("".join))
SCHEMAS = st.sampled_from([QUILL, LUMEN])


@SETTINGS
@given(text=ARBITRARY_TEXT, schema=SCHEMAS)
def test_the_parser_never_raises_anything_but_directive_error(text, schema):
    try:
        claims = parse_directives(text, schema, "page")
    except DirectiveError as exc:
        assert exc.reason in {
            "malformed_directive",
            "unsupported_operation",
            "unsupported_claim_key",
            "unknown_directive_value",
            "duplicate_directive",
        }
        assert exc.detail.startswith("page:")
        return
    for claim in claims:
        assert text[claim["start"] : claim["end"]] == claim["quote"]


@SETTINGS
@given(text=ARBITRARY_TEXT, schema=SCHEMAS)
def test_every_claim_slices_back_to_its_quote_on_its_one_based_line(text, schema):
    try:
        claims = parse_directives(text, schema)
    except DirectiveError:
        return
    lines = text.splitlines()
    seen = set()
    for claim in claims:
        assert text[claim["start"] : claim["end"]] == claim["quote"]
        assert claim["start_line"] == claim["end_line"] >= 1
        assert lines[claim["start_line"] - 1] == claim["quote"]
        assert claim["quote"] == f"{schema.prefix} {claim['operation']} {claim['claim_key']}={claim['value']}"
        assert claim["value"] in schema.operations[claim["operation"]][claim["claim_key"]]
        assert (claim["operation"], claim["claim_key"]) not in seen
        seen.add((claim["operation"], claim["claim_key"]))
    assert [c["start"] for c in claims] == sorted(c["start"] for c in claims)


def _directives(schema):
    keys = [(op, key, values) for op, table in schema.operations.items() for key, values in table.items()]
    return st.lists(st.sampled_from(keys), unique=True).flatmap(
        lambda chosen: st.tuples(
            *[st.sampled_from(values).map(lambda v, o=o, k=k: (o, k, v)) for o, k, values in chosen]
        )
    )


PROSE_LINE = st.text(
    alphabet=st.characters(
        blacklist_categories=["Cs"], blacklist_characters="@%\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
    ),
    max_size=40,
)
TERMINATOR = st.sampled_from(["\n", "\r\n", "\r", "\u2028", "\x85"])


@SETTINGS
@given(data=st.data(), schema=SCHEMAS)
def test_well_formed_directives_among_prose_are_found_exactly_in_line_order(data, schema):
    declared = list(data.draw(_directives(schema)))
    lines: list[str] = []
    for operation, key, value in declared:
        lines.extend(data.draw(st.lists(PROSE_LINE, max_size=3)))
        lines.append(f"{schema.prefix} {operation} {key}={value}")
    lines.extend(data.draw(st.lists(PROSE_LINE, max_size=2)))
    terminator = data.draw(TERMINATOR)
    text = terminator.join(lines) + data.draw(st.sampled_from(["", terminator]))
    claims = parse_directives(text, schema)
    assert [(c["operation"], c["claim_key"], c["value"]) for c in claims] == declared
    for claim in claims:
        assert text[claim["start"] : claim["end"]] == claim["quote"]
        assert lines[claim["start_line"] - 1] == claim["quote"]


@SETTINGS
@given(text=PROSE_LINE.map(lambda s: s + "\n"), schema=SCHEMAS)
def test_prose_without_the_prefix_or_its_first_character_declares_nothing(text, schema):
    assert parse_directives(text * 3, schema) == []
