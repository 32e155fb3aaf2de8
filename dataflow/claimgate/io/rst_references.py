"""docutils' dangling-reference step in linear time: the same tree, without a list search per reference.

Why: docutils' ``DanglingReferences`` transform swaps each reference to a missing target (``name_``,
```text`_``, ``[#]_``, ``[cite]_``) for a ``problematic`` node with ``replace_self``, which finds the
node among its parent's children by a list search. A paragraph holding N of them costs N² steps: a
100 KB page of dangling references took two minutes to read (30 KB: 5 s), so a page from someone else's
repository could stall a docs CI run. Here the same visitor runs (docutils' own, so what is resolved,
what is reported and what the ``problematic`` node holds are docutils' rules), but each swap is recorded
and done afterwards, one pass over each parent's children. The tree is the same node for node
(``tests/io/test_rst_references.py`` compares the two on random and real pages).

The transform's second half, telling of targets nobody references, only makes ``info`` messages that
are never put in the tree; with the page's ``report_level`` of 5 nothing reads them, so it is left out.
Rules: docs/documents.md, "Rendered Markdown and reStructuredText".
"""

from __future__ import annotations

from functools import cache


@cache
def linear_reader_class():
    """docutils' standalone ``Reader`` with ``DanglingReferences`` replaced by the linear step (a class)."""
    from docutils.readers import standalone
    from docutils.transforms import references

    class DeferredVisitor(references.DanglingReferencesVisitor):
        """docutils' visitor, with each ``replace_self`` recorded instead of done."""

        def __init__(self, document, resolvers) -> None:
            super().__init__(document, resolvers)
            self.swaps: list[tuple[object, object]] = []

        def visit_reference(self, node) -> None:
            node.replace_self = lambda new: self.swaps.append((node, new))
            try:
                super().visit_reference(node)
            finally:
                del node.replace_self

        visit_footnote_reference = visit_citation_reference = visit_reference

        def swap_all(self) -> None:
            """Do the recorded swaps: ``replace_self``'s attribute copy, then one pass per parent."""
            by_parent: dict[int, tuple[object, dict[int, object]]] = {}
            for old, new in self.swaps:
                new.update_basic_atts(old)  # what replace_self does first (``new`` is one Element here)
                by_parent.setdefault(id(old.parent), (old.parent, {}))[1][id(old)] = new
            for parent, news in by_parent.values():
                for i, child in enumerate(parent.children):
                    if id(child) in news:
                        parent[i] = news[id(child)]  # Element.__setitem__: setup_child, then the slot

    class LinearDanglingReferences(references.DanglingReferences):
        """``DanglingReferences`` with its swaps done once per parent (the same tree)."""

        def apply(self) -> None:
            visitor = DeferredVisitor(self.document, self.document.transformer.unknown_reference_resolvers)
            self.document.walk(visitor)
            visitor.swap_all()

    class LinearReader(standalone.Reader):
        """The standalone reader, its dangling-reference transform the linear one."""

        def get_transforms(self):
            swap = {references.DanglingReferences: LinearDanglingReferences}
            return [swap.get(transform, transform) for transform in super().get_transforms()]

    return LinearReader
