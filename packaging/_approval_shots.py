"""Render the approval dialog (one call, and a batch) to PNG, for ``screenshots.py``.

Run on its own: ``.venv/bin/python packaging/_approval_shots.py OUT_DIR THEME [SUFFIX]``.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def render(out_dir: Path, theme: str, suffix: str = "") -> list[Path]:
    """Write approval-single{suffix}.png and approval-batch{suffix}.png into ``out_dir``."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from app.core.tools import ApprovalRequest, args_fingerprint
    from app.tools._diff import write_preview
    from app.tools.builtin import read_text_file, write_text_file
    from app.ui.approvals import ToolApprovalDialog
    from app.ui.theme import apply_theme

    app = QApplication.instance() or QApplication(["parley-screenshots"])
    assert isinstance(app, QApplication)
    apply_theme(app, theme)
    with tempfile.TemporaryDirectory() as tmp:
        existing = Path(tmp) / "oslo.txt"
        existing.write_text("Flights: SK 4035, 09:40\nPack: passport, charger\n")
        content = "Flights: SK 4035, 09:40\nPack: passport, charger, rain jacket\n"
        preview = write_preview(os.open(existing, os.O_RDONLY), "~/notes/oslo.txt", content)

    def request(
        call_id: str,
        tool: str,
        description: str,
        perms: list[str],
        args: dict[str, object],
        **extra: object,
    ) -> ApprovalRequest:
        return ApprovalRequest(
            call_id=call_id,
            tool=tool,
            description=description,
            permissions=perms,
            args=args,
            fingerprint=args_fingerprint(args),
            thread_id="t1",
            **extra,  # type: ignore[arg-type]
        )

    write = request(
        "c1",
        "write_text_file",
        write_text_file.description,
        ["files:write"],
        {"path": "~/notes/oslo.txt", "content": content, "overwrite": True},
        preview=preview,
    )
    read = request(
        "c2",
        "read_text_file",
        read_text_file.description,
        ["files:read"],
        {"path": "~/notes/packing-list.md"},
    )
    other = request(
        "c3",
        "write_text_file",
        write_text_file.description,
        ["files:write"],
        {
            "path": "~/notes/weather.txt",
            "content": "Tomorrow: 4 °C, light rain",
            "overwrite": False,
        },
    )
    tools = {"write_text_file": write_text_file, "read_text_file": read_text_file}
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, requests in (("single", [write]), ("batch", [write, read, other])):
        dialog = ToolApprovalDialog(None, requests, thread_title="Trip to Oslo", tools=tools)  # type: ignore[arg-type]
        dialog.show()
        for _ in range(5):
            app.processEvents()
        target = out_dir / f"approval-{name}{suffix}.png"
        dialog.grab().save(str(target))
        dialog.hide()
        written.append(target)
    return written


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    for path in render(Path(sys.argv[1]), sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else ""):
        print(path)
