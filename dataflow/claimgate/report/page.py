"""The review page's frame: escaping, the inline style and script, the filter bar.

Why: a reviewer reads evidence taken from documents and model output, any of which may hold
markup, scripts or bidirectional controls that would make the page lie. Every string from an
input goes through ``escaped``: HTML-escaped (``&<>"'``), and every control, format or
bidirectional character (Unicode categories Cc except tab and newline, Cf, Cs, Co, and the line
and paragraph separators) shown as a visible ``⟨U+XXXX⟩`` tag instead of acting. The page loads
nothing from the network: its style and script are inline, and it links nowhere.
"""

from __future__ import annotations

import html
import unicodedata

from claimgate.textlines import SHOWN_CATEGORIES, shown_as_tag

#: Verdict and status colours (the screenshot test looks for the card border colours).
COLOURS = {
    "found": "#1a7f37", "supports": "#1a7f37", "supported": "#1a7f37", "accepted": "#1a7f37", "ready": "#1a7f37",
    "misattributed": "#bf8700", "partial": "#bf8700", "uncited": "#bf8700", "not_in_docs": "#bf8700",
    "not_found": "#cf222e", "insufficient_quote": "#cf222e", "invalid_citation": "#cf222e", "unrelated": "#cf222e",
    "contradicts": "#cf222e", "unsupported": "#cf222e", "refused": "#cf222e", "conflict": "#cf222e",
    # recheck statuses (docs/recheck-rules.md): still holds, holds with new spans, no longer holds
    "unchanged": "#1a7f37", "intact": "#0969da", "invalid": "#cf222e", "decision_changed": "#cf222e",
    "not_held": "#8c959f",  # rejected when audited: nothing that held was lost
}  # fmt: skip

STYLE = """
body{font-family:system-ui,sans-serif;margin:0;background:#f6f8fa;color:#1f2328}
header{background:#24292f;color:#fff;padding:12px 20px}
header h1{font-size:18px;margin:0}
main{padding:16px 20px;max-width:1100px}
.filters{margin:8px 0 16px;display:flex;gap:16px;align-items:center}
.card{background:#fff;border:1px solid #d0d7de;border-left:8px solid #8c959f;border-radius:6px;
padding:10px 14px;margin:10px 0}
.card h3{margin:0 0 6px;font-size:15px}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;color:#fff;background:#57606a;font-size:12px;
font-weight:600}
.label{color:#57606a;font-size:12px;font-weight:600;margin-top:8px}
.passage{white-space:pre-wrap;font-family:ui-monospace,monospace;font-size:13px;background:#f6f8fa;padding:6px;border-radius:4px}
mark{background:#fff8c5;outline:1px solid #d4a72c}
.ctl{color:#cf222e;font-family:ui-monospace,monospace;font-size:11px;border:1px dashed #cf222e}
.answer{background:#fff;border:1px solid #d0d7de;border-radius:6px;padding:12px;white-space:pre-wrap;line-height:1.6}
.claim{border-bottom:3px solid #8c959f;padding:0 1px}
.claim.supported{background:#dafbe1;border-color:#1a7f37}
.claim.unsupported{background:#ffebe9;border-color:#cf222e}
.claim.uncited{background:#fff8c5;border-color:#bf8700}
.hidden{display:none}
table.edits{border-collapse:collapse;font-size:13px}
table.edits td,table.edits th{border:1px solid #d0d7de;padding:2px 6px}
.picture svg{max-width:100%;height:auto}
"""
#: Colour rules per verdict, added to the style (``.card.v-found{border-left-color:…}``).
STYLE += "".join(
    f".card.v-{name}{{border-left-color:{colour}}}.badge.v-{name}{{background:{colour}}}"
    for name, colour in COLOURS.items()
)

SCRIPT = """
(function(){
  var verdict=document.getElementById('f-verdict'), reason=document.getElementById('f-reason');
  var count=document.getElementById('f-count');
  function apply(){
    var cards=document.querySelectorAll('.card[data-verdict]'), shown=0;
    for(var i=0;i<cards.length;i++){
      var c=cards[i];
      var ok=(!verdict.value||c.getAttribute('data-verdict')===verdict.value)&&
             (!reason.value||c.getAttribute('data-reason')===reason.value);
      c.classList.toggle('hidden',!ok); if(ok){shown++;}
    }
    count.textContent=shown+' of '+cards.length+' shown';
  }
  verdict.addEventListener('change',apply); reason.addEventListener('change',apply);
  var params=new URLSearchParams(location.search);
  if(params.get('verdict')){verdict.value=params.get('verdict');}
  if(params.get('reason')){reason.value=params.get('reason');}
  apply();
})();
"""


def _shown(ch: str) -> str:
    if shown_as_tag(ch):
        return f'<span class="ctl" title="U+{ord(ch):04X}">⟨U+{ord(ch):04X}⟩</span>'
    return html.escape(ch, quote=True)


def escaped(value: object) -> str:
    """``value`` as text safe to place in HTML content or a quoted attribute (see the module docstring)."""
    text = "" if value is None else str(value)
    if text.isascii() and text.isprintable():
        return html.escape(text, quote=True)
    return "".join(_shown(ch) for ch in text)


def attribute(value: object) -> str:
    """``value`` for a quoted attribute: ``escaped`` without markup (controls become ``U+XXXX`` text)."""
    text = "" if value is None else str(value)
    return html.escape(
        "".join(f"U+{ord(c):04X}" if unicodedata.category(c) in SHOWN_CATEGORIES else c for c in text), quote=True
    )


def badge(value: str) -> str:
    """A coloured badge for a verdict or status."""
    return f'<span class="badge v-{attribute(value)}">{escaped(value)}</span>'


def filter_bar(verdicts: list[str], reasons: list[str], label: str = "verdict") -> str:
    """The verdict and reason filters (``select`` elements the script reads), options in first-seen order;
    ``label`` names the first one as the page's cards do (``status`` on the case and recheck pages)."""

    def options(values: list[str]) -> str:
        unique = list(dict.fromkeys(values))
        return "".join(f'<option value="{attribute(v)}">{escaped(v)}</option>' for v in unique)

    return (
        f'<div class="filters"><label>{escaped(label)} <select id="f-verdict"><option value="">all</option>'
        f"{options(verdicts)}</select></label>"
        '<label>reason <select id="f-reason"><option value="">all</option>'
        f'{options(reasons)}</select></label><span id="f-count"></span></div>'
    )


def page(title: str, body: str) -> str:
    """One self-contained HTML document: inline style and script, no external resource, a strict CSP."""
    csp = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">'
        f"<title>{escaped(title)}</title><style>{STYLE}</style></head>"
        f"<body><header><h1>{escaped(title)}</h1></header><main>{body}</main>"
        f"<script>{SCRIPT}</script></body></html>\n"
    )
