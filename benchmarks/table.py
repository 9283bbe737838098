"""The row type every benchmark module returns, and the table `python -m benchmarks` prints."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Row:
    """One measurement, optionally beside a reference measurement of the same unit.

    `ratio` is value / reference_value unless given.
    """

    name: str
    value: float
    unit: str
    reference_name: str | None = None
    reference_value: float | None = None
    ratio: float | None = field(default=None)

    def __post_init__(self) -> None:
        if self.ratio is None and self.reference_value:
            object.__setattr__(self, "ratio", self.value / self.reference_value)


def _number(value: float | None) -> str:
    if value is None:
        return ""
    if value == 0 or abs(value) >= 100:
        return f"{value:,.0f}"
    if abs(value) >= 1:
        return f"{value:,.2f}"
    return f"{value:.3g}"


HEADER = ("benchmark", "measurement", "value", "unit", "reference", "reference value", "ratio")


def _cells(rows: Iterable[tuple[str, Row]]) -> list[tuple[str, ...]]:
    return [
        (
            module,
            row.name,
            _number(row.value),
            row.unit,
            row.reference_name or "",
            _number(row.reference_value),
            f"{row.ratio:.2f}x" if row.ratio is not None else "",
        )
        for module, row in rows
    ]


def format_markdown(rows: Iterable[tuple[str, Row]]) -> str:
    """The same table in Markdown, for benchmarks/README.md."""
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "|".join(("---", "---", "---:", "---", "---", "---:", "---:")) + "|"]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |" for cells in _cells(rows)]
    return "\n".join(lines)


def format_table(rows: Iterable[tuple[str, Row]]) -> str:
    """A plain-text table of (benchmark module, row) pairs."""
    header = HEADER
    body = _cells(rows)
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *body)]
    numeric = {2, 5, 6}

    def line(cells: tuple[str, ...]) -> str:
        return "  ".join(
            cell.rjust(width) if index in numeric else cell.ljust(width)
            for index, (cell, width) in enumerate(zip(cells, widths))
        ).rstrip()

    rule = "  ".join("-" * width for width in widths)
    return "\n".join([line(header), rule, *(line(cells) for cells in body)])
