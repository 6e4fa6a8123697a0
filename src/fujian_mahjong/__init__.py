"""Fujian gold mahjong (福州麻将, 三明麻将): rules engine, scoring, bots, simulator, clients."""

from fujian_mahjong import _compiled

# Before any hot module is imported: use the mypyc-compiled modules or, with
# FJMJ_PURE_PYTHON=1 / no or a stale build, their pure-Python sources (_compiled.py).
_compiled.install()
