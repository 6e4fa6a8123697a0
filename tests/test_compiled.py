"""The mypyc-compiled hot modules and their pure-Python fallback (README, "Compiled and
pure Python").

The whole suite runs in both modes under `make test` (the second pass with
FJMJ_PURE_PYTHON=1); these tests check the switch itself, that both modes give
byte-identical event logs, and that the public values still pickle and copy when compiled.
Under CI (``FJMJ_REQUIRE_COMPILED=1``) an uncompiled build fails. The golden logs
(tests/test_determinism.py) run in both passes, so both modes match the logs recorded
before the speed work."""

from __future__ import annotations

import copy
import importlib.machinery
import json
import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

from fujian_mahjong import _compiled
from fujian_mahjong.analysis import decompositions
from fujian_mahjong.bots import Decision
from fujian_mahjong.engine import Action, Game, to_jsonl
from fujian_mahjong.rules import BUILTIN
from fujian_mahjong.tiles import counts_of, parse

SRC = Path(_compiled.__file__).resolve().parent.parent
EXT = importlib.machinery.EXTENSION_SUFFIXES[0]

_STATUS = (
    "import json, fujian_mahjong._compiled as c\n"
    "import fujian_mahjong.engine.game, fujian_mahjong.bots.heuristic, fujian_mahjong.scoring\n"
    "print(json.dumps(c.status()))\n"
)


def _status(env_extra: dict[str, str], path: Path = SRC) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if k != "FJMJ_PURE_PYTHON"}
    env.update(env_extra, PYTHONPATH=str(path), PYTHONDONTWRITEBYTECODE="1")
    out = subprocess.run([sys.executable, "-c", _STATUS], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    return dict(json.loads(out.stdout))


def test_pure_python_mode_loads_every_hot_module_from_its_source() -> None:
    st = _status({"FJMJ_PURE_PYTHON": "1"})
    assert st["compiled"] is False
    assert "FJMJ_PURE_PYTHON" in str(st["reason"])
    files = st["modules"]
    assert isinstance(files, dict) and set(files) == set(_compiled.COMPILED)
    for mod, f in files.items():
        assert f is not None and f.endswith(".py"), (mod, f)


def test_default_mode_uses_the_compiled_modules_when_built() -> None:
    st = _status({})
    built = all(_compiled._extension(m) is not None for m in _compiled.COMPILED)
    if os.environ.get("FJMJ_REQUIRE_COMPILED") == "1":
        assert st["compiled"] is True, f"FJMJ_REQUIRE_COMPILED=1 but {st['reason']}"
    files = st["modules"]
    assert isinstance(files, dict)
    if st["compiled"]:
        assert built
        for mod, f in files.items():
            assert f is not None and f.endswith(EXT), (mod, f)
    else:
        for mod, f in files.items():
            assert f is not None and f.endswith(".py"), (mod, f)


def _fake_build(tmp_path: Path, modules: tuple[str, ...]) -> Path:
    """A copy of the package's sources with (empty, never imported) extension files."""
    root = tmp_path / "src"
    shutil.copytree(
        SRC / "fujian_mahjong",
        root / "fujian_mahjong",
        ignore=shutil.ignore_patterns("__pycache__", "*.so", "web"),
    )
    for m in modules:
        src = root.joinpath(*m.split(".")).with_suffix(".py")
        ext = src.with_name(src.stem + EXT)
        ext.write_bytes(b"")
        os.utime(src, (1_000_000, 1_000_000))  # sources older than their build
        os.utime(ext, (1_000_010, 1_000_010))
    return root


def test_an_edited_source_after_a_build_means_pure_python(tmp_path: Path) -> None:
    root = _fake_build(tmp_path, _compiled.COMPILED)
    game_py = root / "fujian_mahjong" / "engine" / "game.py"
    game_py.touch()  # edited after the build: the compiled game module is stale
    st = _status({}, root)
    assert st["compiled"] is False
    assert "stale build" in str(st["reason"]) and "game.py" in str(st["reason"])
    files = st["modules"]
    assert isinstance(files, dict)
    assert all(str(f).endswith(".py") for f in files.values())


def test_an_incomplete_build_means_pure_python(tmp_path: Path) -> None:
    root = _fake_build(tmp_path, _compiled.COMPILED[:3])
    st = _status({}, root)
    assert st["compiled"] is False
    assert "incomplete build" in str(st["reason"])
    assert "fujian_mahjong.engine.game" in str(st["reason"])


_HASHES = (
    "import hashlib, json\n"
    "from fujian_mahjong.engine import to_jsonl\n"
    "from fujian_mahjong.engine.game import Game\n"
    "from fujian_mahjong.bots import HeuristicBot\n"
    "from fujian_mahjong.rules import BUILTIN\n"
    "out = {}\n"
    "for p in BUILTIN:\n"
    "    for i in range(12):\n"
    "        g = Game.new(p, seed=f'modes:{i}', dealer=i % 4)\n"
    "        bots = [HeuristicBot() for _ in range(4)]\n"
    "        while not g.is_over():\n"
    "            s = g.to_act()[0]\n"
    "            g.apply(s, bots[s].act(g.seat_view(s)).action)\n"
    "        sc = g.score()\n"
    "        out[f'{p}:{i}'] = hashlib.sha256((to_jsonl(g.events) + json.dumps(\n"
    "            sc.to_json() if sc else None)).encode()).hexdigest()\n"
    "print(json.dumps(out))\n"
)


def test_compiled_and_pure_python_play_byte_identical_hands() -> None:
    """Same seeds and heuristic bots: identical event logs and scores in both modes."""
    runs = []
    for pure in ("0", "1"):
        env = dict(os.environ, FJMJ_PURE_PYTHON=pure, PYTHONPATH=str(SRC))
        out = subprocess.run(
            [sys.executable, "-c", _HASHES], env=env, capture_output=True, text=True, check=True
        )
        runs.append(json.loads(out.stdout))
    assert len(runs[0]) == 12 * len(BUILTIN)
    assert runs[0] == runs[1]


def _played(seed: str, steps: int) -> Game:
    g = Game.new("fuzhou-tcy", seed=seed)
    for _ in range(steps):
        if g.is_over():
            break
        s = g.to_act()[0]
        g.apply(s, g.legal_actions(s)[0])
    return g


def test_a_game_deep_copies_and_pickles_and_plays_on_identically() -> None:
    """Search code copies games (MCTS): the copy must be independent and play on alike."""
    g = _played("copy", 12)
    assert not g.is_over()
    for clone in (copy.deepcopy(g), pickle.loads(pickle.dumps(g))):
        assert clone.view(0) == g.view(0) and clone.to_act() == g.to_act()
        before = to_jsonl(g.events)
        for h in (g, clone):
            while not h.is_over():
                s = h.to_act()[0]
                h.apply(s, h.legal_actions(s)[0])
        assert to_jsonl(clone.events) == to_jsonl(g.events)
        assert to_jsonl(g.events).startswith(before)
        g = _played("copy", 12)  # a fresh original for the next kind of copy


def test_public_values_pickle_and_copy() -> None:
    g = _played("values", 2000)
    assert g.is_over()
    sc = g.score()
    a = Action("chow", -1, (0, 1))
    ds = decompositions(counts_of(parse("123m456p789s111z222z33z"), 34), 0, 0, honours=True)
    d = Decision(a, "a reason", "理由")
    values: list[object] = [a, d, sc, g.result(), ds[0] if ds else None, *g.melds[0]]
    for v in values:
        if v is None:
            continue
        for r in (pickle.loads(pickle.dumps(v)), copy.deepcopy(v)):
            assert type(r) is type(v) and r is not v
            if hasattr(v, "to_json"):
                assert r.to_json() == v.to_json()  # type: ignore[attr-defined]
            else:
                assert r == v
