"""Hidden directive forms: one-line HTML, reStructuredText and MyST comments, read as strictly as a bare line."""

from __future__ import annotations

import pytest
from claimgate.errors import DirectiveError
from claimgate.gate.directives import DIRECTIVE_FORMS, parse_directives
from claimgate.gate.schema import schema_from_dict
from hypothesis import given
from hypothesis import strategies as st

SCHEMA = schema_from_dict(
    {"prefix": "@acme", "operations": {"client": {"redirects": ["follow", "refuse"], "timeout": {"type": "number"}}}}
)
PREFIX_SCOPE = schema_from_dict(
    {
        "prefix": "@acme",
        "operations": {"client": {"redirects": ["follow", "refuse"]}},
        "directives": {"scope": "prefix"},
    }
)


def only(text: str, schema=SCHEMA) -> dict:
    (directive,) = parse_directives(text, schema, "page")
    return directive


@pytest.mark.parametrize(
    "line",
    [
        "<!-- @acme client redirects=follow -->",
        ".. @acme client redirects=follow",
        "% @acme client redirects=follow",
        "@acme client redirects=follow",
    ],
)
def test_each_form_reads_the_directive_and_points_at_its_own_characters(line):
    text = f"Title\n=====\n\nSome prose.\n\n{line}\n\nMore prose.\n"
    directive = only(text)
    assert (directive["operation"], directive["claim_key"], directive["value"]) == ("client", "redirects", "follow")
    assert directive["quote"] == "@acme client redirects=follow"
    assert text[directive["start"] : directive["end"]] == directive["quote"]
    assert directive["start_line"] == directive["end_line"] == 6


def test_a_multi_line_html_comment_still_reads_its_bare_line():
    text = "# Client\n<!--\n@acme client redirects=refuse\n-->\n"
    directive = only(text)
    assert directive["value"] == "refuse" and directive["start_line"] == 3


def test_an_rst_page_mixes_comment_directives_with_typed_values():
    text = ".. @acme client timeout=5\n\nClient\n------\n\n.. @acme client redirects=follow\n"
    directives = parse_directives(text, SCHEMA, "client.rst")
    assert [(d["claim_key"], d["value"], d.get("typed_value")) for d in directives] == [
        ("timeout", "5", 5.0),
        ("redirects", "follow", None),
    ]


@pytest.mark.parametrize(
    "line",
    [
        "<!--  @acme client redirects=follow -->",  # two spaces after the opening
        "<!-- @acme client redirects=follow-->",  # no space before the closing
        "<!-- @acme client redirects=follow --> trailing",
        "   <!-- @acme client redirects=follow -->",  # indented
        "..  @acme client redirects=follow",
        "   .. @acme client redirects=follow",  # an indented RST comment (inside a directive body)
        ".. @acme client redirects=follow extra",
        "<!-- @acme client redirects=follow --><!-- @acme client timeout=5 -->",  # two in one comment line
        '- "@acme client redirects=follow"',  # a YAML front-matter list item is not a form
        "%@acme client redirects=follow",
    ],
)
def test_a_malformed_hidden_form_is_refused_never_guessed(line):
    with pytest.raises(DirectiveError) as info:
        parse_directives(f"prose\n{line}\n", SCHEMA, "page")
    assert info.value.reason == "malformed_directive"
    assert "page:2" in info.value.detail


def test_a_hidden_form_with_an_unknown_value_keeps_the_value_reason():
    with pytest.raises(DirectiveError) as info:
        parse_directives("<!-- @acme client redirects=maybe -->\n", SCHEMA, "page")
    assert info.value.reason == "unknown_directive_value"


def test_prefix_scope_reads_a_hidden_form_and_still_ignores_prose_mentions():
    text = "Write to help@acme.dev.\n<!-- @acme client redirects=refuse -->\n.. @acme client redirects=follow\n"
    with pytest.raises(DirectiveError) as info:  # both forms are read: the second declares the key again
        parse_directives(text, PREFIX_SCOPE, "page")
    assert info.value.reason == "duplicate_directive" and "page:3" in info.value.detail
    assert only("Mail help@acme.dev\n<!-- @acme client redirects=refuse -->\n", PREFIX_SCOPE)["value"] == "refuse"


def test_the_forms_are_listed_as_data():
    assert [name for name, _, _ in DIRECTIVE_FORMS] == ["line", "html_comment", "rst_comment", "myst_comment"]


@given(
    form=st.sampled_from(DIRECTIVE_FORMS),
    before=st.lists(st.sampled_from(["", "Prose.", "## Heading", "<!--", "-->", "..", "text with words"]), max_size=4),
    value=st.sampled_from(["follow", "refuse"]),
)
def test_property_every_form_round_trips_its_span(form, before, value):
    _, opening, closing = form
    directive_text = f"@acme client redirects={value}"
    text = "\n".join([*before, opening + directive_text + closing, "after"]) + "\n"
    directive = only(text)
    assert text[directive["start"] : directive["end"]] == directive_text == directive["quote"]
    assert directive["start_line"] == len(before) + 1
