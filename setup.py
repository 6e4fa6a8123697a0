"""Build hook (README, "Compiled and pure Python"): compile the hot modules with mypyc when
a C compiler is present.

Everything else is in pyproject.toml. The compiled modules are the analysis tables, the
engine's turn/claim loop, the seat view, the heuristic bot's evaluation and the scorer; the
same ``.py`` files stay in the package as the pure-Python fallback, used when

* no C compiler is found, or the build fails (the extensions are optional: ``pip install``
  then installs the pure-Python package and says so);
* ``FJMJ_PURE_PYTHON=1`` is set when building (nothing is compiled) or at run time (the
  compiled modules are ignored, see ``fujian_mahjong/_compiled.py``).

``FJMJ_NO_COMPILE=1`` builds no extension either (the Makefile sets it when it reinstalls
the editable package only to add the dev extras, keeping the modules it just compiled in
place).

The list of compiled modules is ``COMPILED`` in ``src/fujian_mahjong/_compiled.py`` (one
place, read here without importing the package).
"""

from __future__ import annotations

import ast
import os
import shutil
import sys
import sysconfig
from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).resolve().parent
SRC = ROOT / "src"


def _compiled_modules() -> list[str]:
    tree = ast.parse((SRC / "fujian_mahjong" / "_compiled.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.AnnAssign | ast.Assign):
            targets = [node.target] if isinstance(node, ast.AnnAssign) else node.targets
            if any(isinstance(t, ast.Name) and t.id == "COMPILED" for t in targets):
                assert node.value is not None
                value = ast.literal_eval(node.value)
                return [str(m) for m in value]
    raise RuntimeError("src/fujian_mahjong/_compiled.py defines no COMPILED tuple")


def _have_compiler() -> bool:
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    return shutil.which(os.environ.get("CC", cc).split()[0]) is not None


def _ext_modules() -> list[object]:
    if os.environ.get("FJMJ_NO_COMPILE", "") not in ("", "0"):
        # `make` reinstalls for the dev extras: keep the modules compiled in place just before
        return []
    if os.environ.get("FJMJ_PURE_PYTHON", "") not in ("", "0"):
        print("fujian-mahjong: FJMJ_PURE_PYTHON is set: installing pure Python", file=sys.stderr)
        return []
    if not _have_compiler():
        print("fujian-mahjong: no C compiler found: installing pure Python", file=sys.stderr)
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        print("fujian-mahjong: mypyc not available: installing pure Python", file=sys.stderr)
        return []
    paths = [str(Path("src", *m.split(".")).with_suffix(".py")) for m in _compiled_modules()]
    exts = mypycify(paths, opt_level="3", debug_level="0")
    for ext in exts:
        ext.optional = True  # a failed compile leaves the pure-Python modules in use
    return list(exts)


setup(ext_modules=_ext_modules())
