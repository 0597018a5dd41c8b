"""The computer players, apart from the rules they play by: they import :mod:`engine`, never the reverse.

:mod:`~players.easy` is 简单, the casual rule player (and the time-out's 托管 choice);
:mod:`~players.planner` is 标准, the planning player 提示 and 托管 use, scoring hands with
:mod:`~players.handvalue`; :mod:`~players.master` is 大师, the searching player;
:mod:`~players.policies` names them for tables, the arena and the protocol server.
"""
