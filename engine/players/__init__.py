"""The computer players, apart from the rules they play by: they import :mod:`engine`, never the reverse.

:mod:`~engine.players.easy` is 简单, the casual rule player (and the time-out's 托管 choice);
:mod:`~engine.players.planner` is 标准, the planning player 提示 and 托管 use, scoring hands with
:mod:`~engine.players.handvalue`; :mod:`~engine.players.master` is 大师, the searching player;
:mod:`~engine.players.policies` names them for tables, the arena and the protocol server.
"""
