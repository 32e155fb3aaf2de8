"""A tiny PDF writer for tests: one page per list of lines, Helvetica, no compression; or any objects (``raw_pdf``)."""

from __future__ import annotations


def tiny_pdf(pages: list[list[str]]) -> bytes:
    """The bytes of a valid PDF whose page ``i`` shows ``pages[i]``, one line each (ASCII text)."""
    count = len(pages)
    font = 3 + 2 * count
    objects = ["<< /Type /Catalog /Pages 2 0 R >>"]
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(count))
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {count} >>")
    for i, lines in enumerate(pages):
        shown = " ".join(f"({line}) Tj 0 -16 Td" for line in lines)
        content = f"BT /F1 12 Tf 72 720 Td {shown} ET"
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * i} 0 R "
            f"/Resources << /Font << /F1 {font} 0 R >> >> >>"
        )
        objects.append(f"<< /Length {len(content)} >>\nstream\n{content}\nendstream")
    objects.append("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    return raw_pdf(objects)


def raw_pdf(objects: list[str]) -> bytes:
    """The bytes of a PDF whose object ``i + 1`` is ``objects[i]`` (object 1 the catalog), with its xref table."""
    out = b"%PDF-1.4\n"
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode("ascii")
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode("ascii")
    out += b"".join(f"{offset:010d} 00000 n \n".encode("ascii") for offset in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode("ascii")
    return out
