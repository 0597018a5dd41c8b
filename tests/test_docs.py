"""The documents stay findable: README within its size, and every relative link in README and
docs/ names a file of the repository and, with ``#``, a heading that file has.

README is for players, organisers and operators; references belong in docs/ (issue 41). A link
to a moved section is easy to leave behind when text moves between files, and the reader only
finds out on GitHub: this test finds out first.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README_LIMIT = 30 * 1024
DOCUMENTS = sorted([ROOT / "README.md", *ROOT.glob("docs/*.md"), *ROOT.glob("*/README.md")])
LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^(```|~~~)")


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped (letters of any script,
    digits, ``-`` and ``_`` kept), each space a hyphen."""
    kept = "".join(
        char for char in heading.lower() if char in " -_" or unicodedata.category(char)[0] in ("L", "N")
    )
    return kept.replace(" ", "-")


def anchors(document: Path) -> set[str]:
    found: set[str] = set()
    counts: dict[str, int] = {}
    fenced = False
    for line in document.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        heading = None if fenced else HEADING.match(line)
        if heading:
            base = slug(heading.group(1))
            seen = counts.get(base, 0)
            counts[base] = seen + 1
            found.add(base if seen == 0 else f"{base}-{seen}")
    return found


def relative_links(document: Path) -> list[str]:
    text = document.read_text(encoding="utf-8")
    text = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    return [link for link in LINK.findall(text) if not re.match(r"[a-z]+:", link)]


def test_readme_stays_within_its_size() -> None:
    size = len((ROOT / "README.md").read_bytes())
    assert size <= README_LIMIT, f"README.md is {size:,} bytes; move reference text into docs/"


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_relative_link_finds_its_file_and_heading(document: Path) -> None:
    broken = []
    for link in relative_links(document):
        path, _, anchor = link.partition("#")
        target = (document.parent / path).resolve() if path else document
        if not target.exists():
            broken.append(f"{link}: no such file")
        elif anchor and target.suffix == ".md" and anchor not in anchors(target):
            broken.append(f"{link}: {target.name} has no such heading")
    assert not broken, "\n".join(broken)


def test_the_slugs_are_githubs() -> None:
    assert slug("Backups: `python -m storage backup DEST`") == "backups-python--m-storage-backup-dest"
    assert slug("Records: 战绩, /top, /history and 复盘") == "records-战绩-top-history-and-复盘"
    assert slug("不洗牌: what hands it deals") == "不洗牌-what-hands-it-deals"
