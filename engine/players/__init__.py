"""Computer players that build on the rule players of :mod:`engine.ai` and :mod:`engine.planner`.

:mod:`engine.players.master` is 大师, the searching player.
"""
