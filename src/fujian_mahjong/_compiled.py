"""Compiled or pure Python (README.md): which implementation of the hot modules is in use.

``pip install`` compiles the modules in :data:`COMPILED` with mypyc when a C compiler is
present (see setup.py); the ``.py`` files stay beside the compiled ones as the pure-Python
fallback. The compiled modules are used only as a whole, and only when

* ``FJMJ_PURE_PYTHON`` is unset (or ``0``),
* every module in :data:`COMPILED` has its compiled extension, and
* no ``.py`` file is newer than its extension (an edited source after a build: the build is
  stale, and a stale compiled module would run old rules).

Otherwise a finder placed first on ``sys.meta_path`` loads the ``.py`` sources of these
modules, so every module runs the same (pure) code. Compiled code calls the other compiled
modules directly, so mixing the two would be unsafe: it is all or nothing.

``status()`` says which is in use and why (``make bench`` prints it).
"""

from __future__ import annotations

import importlib.machinery
import os
import sys

TYPE_CHECKING = False  # not typing's: pathlib and typing cost start-up (`fjmj --help`)
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any

# The hot modules (analysis, the engine's turn/claim loop, the seat view, the heuristic
# bot's evaluation and its frozen reference heuristic-v1, the scorer). setup.py reads this
# tuple without importing the package.
COMPILED = (
    "fujian_mahjong.tiles",
    "fujian_mahjong.analysis.tables",
    "fujian_mahjong.analysis.core",
    "fujian_mahjong.engine.wall",
    "fujian_mahjong.engine.game",
    "fujian_mahjong.engine.view",
    "fujian_mahjong.bots.base",
    "fujian_mahjong.bots.heuristic",
    "fujian_mahjong.bots.heuristic_v1",
    "fujian_mahjong.scoring.situation",
    "fujian_mahjong.scoring.score",
)

# A wheel's files are written one after another: allow that much between a source and its
# extension before calling the build stale.
_STALE_SLACK_S = 2.0

_PKG_DIR = os.path.dirname(os.path.abspath(__file__))
_state: dict[str, Any] = {}


def _source(mod: str) -> str:
    return os.path.join(_PKG_DIR, *mod.split(".")[1:]) + ".py"


def _extension(mod: str) -> str | None:
    stem = _source(mod)[: -len(".py")]
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        if os.path.isfile(stem + suffix):
            return stem + suffix
    return None


def _decide() -> tuple[bool, str]:
    exts = {m: _extension(m) for m in COMPILED}
    built = sum(1 for p in exts.values() if p is not None)
    if os.environ.get("FJMJ_PURE_PYTHON", "") not in ("", "0"):
        return False, "pure Python (FJMJ_PURE_PYTHON is set)"
    if built == 0:
        return False, "pure Python (not compiled: no C compiler or mypyc when installed)"
    if built < len(COMPILED):
        missing = [m for m, p in exts.items() if p is None]
        return False, f"pure Python (incomplete build: {', '.join(missing)} not compiled)"
    for m, p in exts.items():
        assert p is not None
        if os.path.getmtime(_source(m)) > os.path.getmtime(p) + _STALE_SLACK_S:
            name = os.path.basename(_source(m))
            return False, f"pure Python (stale build: {name} changed; reinstall)"
    return True, f"compiled with mypyc ({len(COMPILED)} modules)"


class _SourceFinder:
    """Loads the ``.py`` source of the modules in COMPILED (ignoring their extensions). A
    meta path finder by protocol (``importlib.abc`` is not imported: it costs start-up)."""

    def find_spec(
        self, fullname: str, path: Any = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in COMPILED:
            return None
        src = _source(fullname)
        if not os.path.isfile(src):
            return None
        import importlib.util  # only in pure-Python mode

        return importlib.util.spec_from_file_location(fullname, src)


def install() -> None:
    """Decide once per process (called by ``fujian_mahjong/__init__``)."""
    if _state:
        return
    compiled, reason = _decide()
    _state.update(compiled=compiled, reason=reason)
    if not compiled and any(m in sys.modules for m in COMPILED):
        raise ImportError("fujian_mahjong: a hot module was imported before the package")
    if not compiled and not any(isinstance(f, _SourceFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _SourceFinder())


def status() -> dict[str, Any]:
    """``{"compiled": bool, "reason": str, "modules": {name: file}}`` for this process."""
    install()
    files = {m: getattr(sys.modules.get(m), "__file__", None) for m in COMPILED}
    return {"compiled": _state["compiled"], "reason": _state["reason"], "modules": files}


def reduce_dataclass(obj: Any) -> tuple[Any, ...]:
    """``__reduce__`` for a frozen dataclass: its class and its init fields, in order.

    Compiled with mypyc a frozen dataclass is a native class that the default pickling
    cannot rebuild (it sets attributes on a frozen instance), so the value classes of the
    compiled modules define ``__reduce__`` with this (the same in pure Python)."""
    from dataclasses import fields  # (not at import: `fjmj --help` imports this module)

    return (type(obj), tuple(getattr(obj, f.name) for f in fields(obj) if f.init))
