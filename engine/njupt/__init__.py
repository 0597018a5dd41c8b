"""The NJUPT Guandan AI competition protocol: outside bots at our tables over WebSocket.

``python -m engine.njupt --port 23456 --seats ext,ai,ext,ai --deals N`` serves one run.
:mod:`~engine.njupt.protocol` (notation, legal-action lists, messages) and
:mod:`~engine.njupt.referee` (the match and who is told what) are pure;
:mod:`~engine.njupt.server` is the only module here that does I/O.
"""
