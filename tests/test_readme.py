"""The README's tour runs as written (so the README stays true)."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_python_blocks_run(tmp_path, monkeypatch):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert blocks, "the README has no Python tour"
    monkeypatch.chdir(tmp_path)
    for block in blocks:
        exec(compile(block, str(README), "exec"), {"__name__": "readme"})


def test_readme_shows_the_two_setup_commands():
    text = README.read_text()
    assert "pip install -e . && robodyn demo" in text
    chromium = "(command -v chromium || (apt-get update && apt-get install -y chromium))"
    assert chromium + ' && pip install -e ".[test]" && pytest' in text
