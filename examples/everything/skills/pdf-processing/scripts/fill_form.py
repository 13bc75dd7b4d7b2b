"""Fills the fields of a PDF form: fill_form.py <input.pdf> <values.json> <output.pdf>."""
import json
import sys

from pypdf import PdfReader, PdfWriter


def main(source: str, values_file: str, target: str) -> None:
    reader = PdfReader(source)
    writer = PdfWriter()
    writer.append(reader)
    with open(values_file, encoding="utf-8") as handle:
        values = json.load(handle)
    known = set(reader.get_fields() or {})
    unknown = sorted(set(values) - known)
    if unknown:
        sys.exit(f"unknown fields: {', '.join(unknown)}")
    for page in writer.pages:
        writer.update_page_form_field_values(page, values)
    with open(target, "wb") as handle:
        writer.write(handle)


if __name__ == "__main__":
    main(*sys.argv[1:4])
