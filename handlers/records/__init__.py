"""What a group remembers of its matches (issue 21): /stats, /top, /history, 复盘, /forgetme."""
