"""Every size Parley shows is in one unit system, decimal: an attachment's chip, a folder's
line and a refusal read the same bytes the same way; a model's size is the same units,
rounded."""

from __future__ import annotations

from app.text.sizes import human_size, rough_size
from app.ui.attachments.describe import human_size as chip_size


def test_a_size_reads_in_decimal_units() -> None:
    assert [human_size(n) for n in (999, 1000, 1_572_864, 4_300_000_000)] == [
        "999 bytes",
        "1.0 kB",
        "1.6 MB",
        "4.3 GB",
    ]


def test_an_attachments_size_reads_as_every_other_size() -> None:
    assert chip_size(1_572_864) == human_size(1_572_864) == "1.6 MB"
    assert chip_size(2048) == "2.0 kB"
    assert chip_size(None) == ""


def test_a_models_size_is_rounded_in_the_same_units() -> None:
    assert [rough_size(n) for n in (0, 98_000_000, 1_234_000_000)] == ["0 MB", "98 MB", "1.2 GB"]


def test_a_size_that_rounds_up_to_the_next_unit_is_written_in_it() -> None:
    """999,999 bytes are "1.0 MB", not "1000.0 kB"; past terabytes the number grows."""
    assert [human_size(n) for n in (999_949, 999_999, 999_999_999, 10**12, 2 * 10**15)] == [
        "999.9 kB",
        "1.0 MB",
        "1.0 GB",
        "1.0 TB",
        "2000.0 TB",
    ]
    assert [rough_size(n) for n in (999_499_999, 999_999_999, 1_000_000_000)] == [
        "999 MB",
        "1.0 GB",
        "1.0 GB",
    ]
