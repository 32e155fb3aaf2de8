"""Context in the prepared request: the paragraph (or section) a claim belongs to, as a span, only when asked."""

from __future__ import annotations

import hashlib
import json

from claimgate.api import Gate
from claimgate.gate.context import context_span
from claimgate.gate.directives import parse_directives
from claimgate.gate.schema import schema_from_dict
from hypothesis import given
from hypothesis import strategies as st

OPS = {"client": {"timeout": {"type": "number"}, "mode": ["fast", "safe"]}}
ASKS = schema_from_dict({"prefix": "@wisp", "operations": OPS, "directives": {"context": True}})
SILENT = schema_from_dict({"prefix": "@wisp", "operations": OPS})


def test_the_paragraph_holding_a_hidden_directive_is_its_context():
    text = "# Client\n\nRequests time out\nafter five seconds.\n<!-- @wisp client timeout=5 -->\n\nOther prose.\n"
    (claim,) = parse_directives(text, ASKS, "guide")
    context = claim["context"]
    assert context["text"] == "Requests time out\nafter five seconds.\n<!-- @wisp client timeout=5 -->"
    assert text[context["start"] : context["end"]] == context["text"]


def test_a_directive_alone_gets_its_markdown_section():
    text = (
        "# Intro\n\nHello.\n\n## Modes\n\nThe client picks a mode.\n\n<!-- @wisp client mode=fast -->\n\n## Next\nx\n"
    )
    (claim,) = parse_directives(text, ASKS)
    assert claim["context"]["text"] == "## Modes\n\nThe client picks a mode.\n\n<!-- @wisp client mode=fast -->"


def test_a_directive_alone_gets_its_restructuredtext_section_with_the_title():
    text = (
        "=====\nWisp\n=====\n\nTimeouts\n--------\n\nThe client waits.\n\n.. @wisp client timeout=5.0\n\nModes\n-----\n"
    )
    (claim,) = parse_directives(text, ASKS)
    assert claim["context"]["text"] == "Timeouts\n--------\n\nThe client waits.\n\n.. @wisp client timeout=5.0"


def test_a_multi_line_comment_block_is_not_prose():
    text = "Title\n=====\n\nThe mode is fast.\n\n<!--\n@wisp client mode=fast\n-->\n"
    (claim,) = parse_directives(text, ASKS)
    assert claim["context"]["text"].startswith("Title\n=====") and claim["context"]["text"].endswith("-->")


def test_a_page_with_no_heading_and_no_prose_paragraph_gives_the_whole_page():
    text = "@wisp client mode=fast\n\n\n"
    (claim,) = parse_directives(text, ASKS)
    assert claim["context"] == {"start": 0, "end": 22, "text": "@wisp client mode=fast"}


def test_a_schema_that_does_not_ask_carries_no_context():
    (claim,) = parse_directives("Prose.\n@wisp client mode=fast\n", SILENT)
    assert "context" not in claim


def _gate(tmp_path, schema_text: str) -> Gate:
    raw = b"# Client\n\nRequests time out after five seconds.\n<!-- @wisp client timeout=5 -->\n"
    (tmp_path / "guide.md").write_bytes(raw)
    entry = {
        "source_id": "guide",
        "version": "1.0",
        "path": "guide.md",
        "url": "u",
        "sha256": hashlib.sha256(raw).hexdigest(),
    }
    (tmp_path / "m.json").write_text(json.dumps({"sources": [entry]}), encoding="utf-8")
    (tmp_path / "s.toml").write_text(schema_text, encoding="utf-8")
    return Gate.from_manifest(tmp_path / "m.json", tmp_path / "s.toml")


def test_the_prepared_request_carries_the_context_when_the_schema_asks(tmp_path):
    schema = 'prefix = "@wisp"\n[operations.client]\ntimeout = { type = "number" }\n[directives]\ncontext = true\n'
    gate = _gate(tmp_path, schema)
    row = {"case_id": "t", "candidate_ids": ["guide"], "requested_version": "1.0", "claim_key": "timeout"}
    one, batch = gate.decide(["guide"], "1.0", "timeout"), gate.decide_many([row])["result"][0]
    assert one == batch
    user = json.loads(one["answer_request"]["messages"][1]["content"])
    (claim,) = user["source_claims"]
    assert claim["context"]["text"] == "Requests time out after five seconds.\n<!-- @wisp client timeout=5 -->"
    assert claim["context"]["start"] == len("# Client\n\n")
    assert gate.schema.as_dict()["directives"]["context"] is True


def test_without_the_setting_the_request_has_no_context(tmp_path):
    gate = _gate(tmp_path, 'prefix = "@wisp"\n[operations.client]\ntimeout = { type = "number" }\n')
    result = gate.decide(["guide"], "1.0", "timeout")
    assert "context" not in result["answer_request"]["messages"][1]["content"]
    assert "directives" not in gate.schema.as_dict()


@given(
    st.lists(st.sampled_from(["", "Prose line.", "# Head", "Title", "=====", "<!--", "-->", "more words"]), max_size=6),
    st.lists(st.sampled_from(["", "Prose after.", "## Next", "tail"]), max_size=4),
)
def test_property_the_context_is_a_span_holding_the_directive(before, after):
    directive = "<!-- @wisp client mode=safe -->"
    text = "\n".join([*before, directive, *after]) + "\n"
    (claim,) = parse_directives(text, ASKS)
    context = claim["context"]
    assert text[context["start"] : context["end"]] == context["text"]
    assert context["start"] <= claim["start"] and claim["end"] <= context["end"]
    assert context_span(text, claim["start"], "@wisp") == context
