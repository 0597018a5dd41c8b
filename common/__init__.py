"""The bottom room: what every layer may import and which imports nothing of ours.

``metrics`` (what an operator watches) and ``faults`` (a store that cannot take a write right
now, the one fault every layer speaks of: storage raises it, the application passes it on,
a handler answers "not saved, try again"). ``tests/test_layers.py`` keeps it at the bottom.
"""
