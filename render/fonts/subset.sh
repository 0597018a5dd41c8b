#!/bin/sh
# Rebuild the bundled CJK fonts: Noto Sans CJK SC (OFL 1.1) cut down to the GB2312
# character set plus Latin, Greek, Cyrillic, punctuation and the card symbols, so a
# fresh machine renders the same pixels without a 100 MB font package.
# Source: Debian's fonts-noto-cjk (apt-get install fonts-noto-cjk); face 2 of each
# collection is "Noto Sans CJK SC".
set -eu
here=$(dirname "$0")
python=${PYTHON:-"$here/../../.venv/bin/python"}
src=${NOTO_DIR:-/usr/share/fonts/opentype/noto}
codes=$(mktemp)
"$python" - >"$codes" <<'PY'
ranges = [(0x20, 0x7E), (0xA0, 0x17F), (0x370, 0x3FF), (0x400, 0x4FF), (0x2000, 0x206F),
          (0x20A0, 0x20BF), (0x2100, 0x215F), (0x2190, 0x21FF), (0x2460, 0x24FF),
          (0x2500, 0x26FF), (0x2700, 0x27BF), (0x3000, 0x30FF), (0xFF00, 0xFFEF)]
codes = {c for lo, hi in ranges for c in range(lo, hi + 1)}
for hi in range(0xA1, 0xF8):
    for lo in range(0xA1, 0xFF):
        try:
            codes.add(ord(bytes((hi, lo)).decode("gb2312")))
        except UnicodeDecodeError:
            pass
print("\n".join(f"U+{c:04X}" for c in sorted(codes)))
PY
for weight in Regular Bold; do
    "$python" -m fontTools.subset "$src/NotoSansCJK-$weight.ttc" --font-number=2 \
        --unicodes-file="$codes" --layout-features='*' --no-hinting \
        --name-IDs='*' --output-file="$here/NotoSansSC-$weight-subset.otf"
done
rm -f "$codes"
# The renderer replaces characters the subset lacks (emoji in player names, rare
# hanzi) instead of drawing tofu boxes; it reads the covered code points from here.
"$python" - "$here/NotoSansSC-Regular-subset.otf" >"$here/coverage.txt" <<'PY'
import sys
from fontTools.ttLib import TTFont
codes = sorted(TTFont(sys.argv[1])["cmap"].getBestCmap())
runs, start, prev = [], codes[0], codes[0]
for code in codes[1:] + [-1]:
    if code != prev + 1:
        runs.append(f"{start:04X}-{prev:04X}")
        start = code
    prev = code
print("\n".join(runs))
PY
