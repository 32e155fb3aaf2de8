"""The array rules of normalization give exactly the reference tokenizer's tokens, offsets and joins."""

from __future__ import annotations

from claimgate.audit.text.normalize import code_points, fallback_positions, normalize_text
from claimgate.audit.text.reference import normalize_text_reference
from hypothesis import given, settings
from hypothesis import strategies as st

#: Characters whose rules differ in context: number marks, signs, symbols, breaks, hyphens,
#: ligatures, look-alikes, super/subscripts, and characters that must send a text to the reference.
_TRICKY = list("aeEzZ019.,'’٫٬-‐‑–−﹣%±×!/ \n\r\t\u00a0\u00ad\u200bﬁßİΩоÀé⁶⁻₁<>=_^+人ไ\u0301…")
#: And the symbol, case, fraction and digit rules (docs/audit-rules.md, "Symbols", "Case", "Numbers").
_TRICKY += list("¥$€✔✘↑≈~#@¾½⁄٣३３ـıMBAsTtGkHz|`◦") + ["\ufe0f"]
_NUMBER_PARTS = ["12", ",", "500", "1e", "-", "6", "x", " ", "\n", "%", "’", "ab", "-\n"]
_NUMBER_PARTS += ["://", "mA", "Ms", "rT", "HTt", " MB", "- ", "¾", "/", "@", ".", "a", "C++", "٣"]
_TEXT = st.text(alphabet=st.sampled_from(_TRICKY) | st.characters(max_codepoint=0x2400), max_size=60)


@settings(max_examples=3000, deadline=None)
@given(_TEXT)
def test_fast_normalizer_equals_the_reference_on_random_text(text: str) -> None:
    assert normalize_text(text) == normalize_text_reference(text)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_NUMBER_PARTS), max_size=25))
def test_fast_normalizer_equals_the_reference_on_number_shapes(parts: list[str]) -> None:
    text = "".join(parts)
    assert normalize_text(text) == normalize_text_reference(text)


def test_two_character_symbol_is_left_to_the_reference() -> None:
    assert len(fallback_positions(code_points("a != b"))) > 0
    assert normalize_text("x != 3").tokens == ("x", "≠", "3")


def test_exponent_minus_and_leading_minus_are_part_of_the_number() -> None:
    assert normalize_text("net -4 at 1e-6, 18-65").tokens == ("net", "-4", "at", "1e-6", "18", "65")
