"""The NJUPT Guandan AI competition protocol: outside bots at our tables over WebSocket.

``python -m tools.njupt --port 23456 --seats ext,ai,ext,ai --deals N`` serves one run.
:mod:`~tools.njupt.protocol` (notation, legal-action lists, messages) and
:mod:`~tools.njupt.referee` (the match and who is told what) are pure;
:mod:`~tools.njupt.server` is the only module here that does I/O.
"""
