"""Tools around the engine, none of them part of the bot: the duplicate-deal arena, the engine
benchmark, self-play (``python -m tools {bench,selfplay}``) and the NJUPT competition protocol
server (``python -m tools.njupt``), the one place here that does network I/O.
"""
