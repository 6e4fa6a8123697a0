"""Rule scenarios: stacked-wall situations with scripted moves and expected outcomes.

A scenario (JSON) deals exactly the given tiles, plays exactly the given moves and checks
what happens (see docs/scenarios.md). ``load_scenarios`` validates files (ScenarioError:
file, scenario, field, reason); ``run_scenario`` plays one and returns its checks.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeGuard

from fujian_mahjong.engine import ACTION_TYPES, Action, Game, Phase, build_wall
from fujian_mahjong.engine.game import MAX_STREAK as ENGINE_MAX_STREAK
from fujian_mahjong.errors import IllegalAction, MahjongError, ScenarioError
from fujian_mahjong.fileio import misspelt
from fujian_mahjong.rules import get_profile
from fujian_mahjong.tiles import KIND_STR, fmt, fmt_sorted, parse, parse_kind

STATE_KEYS = (
    "to_act",
    "live",
    "reserve",
    "wall",
    "gold",
    "flowers",
    "hand",
    "hand_sizes",
    "melds",
    "xian_jin",
)


@dataclass
class Scenario:
    name: str
    source: str
    data: dict[str, Any]
    profile: str
    players: int
    dealer: int
    streak: int
    dice: tuple[int, int]
    wall: list[int]
    actions: list[dict[str, Any]]
    expect: dict[str, Any]


@dataclass
class Check:
    check: str
    ok: bool
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"check": self.check, "ok": self.ok, "detail": self.detail}


@dataclass
class Outcome:
    scenario: Scenario
    checks: list[Check] = field(default_factory=list)
    game: Game | None = None

    @property
    def passed(self) -> bool:
        return all(c.ok for c in self.checks)

    def to_json(self) -> dict[str, Any]:
        g = self.game
        result: dict[str, Any] | None = None
        sc = None
        if g is not None and g.is_over():
            result = dict(g.win) if g.win else {"draw": True}
            s = g.score()
            sc = {"points": s.points, "payments": list(s.payments)} if s else None
        return {
            "name": self.scenario.name,
            "passed": self.passed,
            "checks": [c.to_json() for c in self.checks],
            "result": result,
            "score": sc,
        }


# ---------------------------------------------------------------------------- loading


MAX_SCENARIOS = 1000  # per file
MAX_STREAK = ENGINE_MAX_STREAK  # the engine refuses more (R9)


def load_scenarios(path: str | Path) -> list[Scenario]:
    """Read a ``.json`` (one object, or a list) or ``.jsonl`` file of scenarios.

    Hostile files are refused with one-line ScenarioErrors: not a regular file, over 10 MiB,
    not UTF-8, JSON nested too deeply or with absurd numbers, no scenario at all."""
    from fujian_mahjong.errors import InputError
    from fujian_mahjong.fileio import decode, loads, read_bytes

    path = Path(path)
    src = str(path)
    items: list[Any] = []
    try:
        text = decode(read_bytes(src), src)
        if path.suffix == ".jsonl":
            for i, line in enumerate(text.splitlines(), 1):
                if line.strip():
                    items.append(loads(line, f"{src}: line {i}"))
        elif text.strip():
            data = loads(text, src)
            items = data if isinstance(data, list) else [data]
    except InputError as e:
        raise ScenarioError(str(e)) from None
    if not items:
        raise ScenarioError(f"{src}: no scenario in the file (it is empty)")
    if len(items) > MAX_SCENARIOS:
        raise ScenarioError(f"{src}: {len(items):,} scenarios (at most {MAX_SCENARIOS:,} a file)")
    return [parse_scenario(item, src, i) for i, item in enumerate(items, 1)]


def _is_int(v: Any) -> TypeGuard[int]:
    """A JSON whole number (booleans are not numbers here)."""
    return isinstance(v, int) and not isinstance(v, bool)


def _seat_key(k: Any, players: int) -> bool:
    """A seat number written as an object key: ASCII digits naming a seat (not '²')."""
    return isinstance(k, str) and k.isascii() and k.isdigit() and len(k) <= 2 and int(k) < players


def _err(src: str, name: str, fld: str, reason: str) -> ScenarioError:
    return ScenarioError(f"{src}: scenario {_short(name)}: field '{fld}': {reason}")


def _tiles(src: str, name: str, fld: str, v: Any) -> list[int]:
    if not isinstance(v, str):
        raise _err(src, name, fld, f"expected a string of tiles, got {_short(v)}")
    try:
        return parse(v)
    except MahjongError as e:
        raise _err(src, name, fld, str(e)) from None


# docs/scenarios.md, "The format"
SCENARIO_KEYS = (
    "name",
    "profile",
    "players",
    "dealer",
    "streak",
    "dice",
    "deal",
    "draws",
    "tail",
    "wall",
    "actions",
    "expect",
)


def parse_scenario(data: Any, src: str = "<scenario>", index: int = 1) -> Scenario:
    if not isinstance(data, dict):
        raise ScenarioError(f"{src}: scenario #{index}: must be a JSON object")
    name = data.get("name", f"#{index}")
    if not isinstance(name, str):
        raise _err(src, f"#{index}", "name", "must be a string")
    typo = misspelt(data, SCENARIO_KEYS)
    if typo is not None:
        raise _err(src, name, typo[0], f"unknown key (did you mean {typo[1]!r}?)")
    prof_name = data.get("profile", "fuzhou-tcy")
    try:
        prof = get_profile(str(prof_name))
    except MahjongError as e:
        raise _err(src, name, "profile", str(e)) from None
    players = data.get("players", 4)
    if not _is_int(players) or not prof.players_min <= players <= prof.players_max:
        raise _err(
            src, name, "players", f"{prof.name} plays with {prof.players_min}-{prof.players_max}"
        )
    dealer = data.get("dealer", 0)
    if not _is_int(dealer) or not 0 <= dealer < players:
        raise _err(src, name, "dealer", f"must be a seat 0-{players - 1}")
    streak = data.get("streak", 0)
    if not _is_int(streak) or not 0 <= streak <= MAX_STREAK:
        raise _err(src, name, "streak", f"must be a whole number 0-{MAX_STREAK}")
    dice = data.get("dice", [1, 1])
    if (
        not isinstance(dice, list)
        or len(dice) != 2
        or not all(_is_int(d) and 1 <= d <= 6 for d in dice)
    ):
        raise _err(src, name, "dice", "must be two numbers 1-6")
    if "wall" in data:
        wall = _tiles(src, name, "wall", data["wall"])
        if len(wall) != 144:
            raise _err(src, name, "wall", f"must hold all 144 tiles, got {len(wall)}")
        try:
            Game.from_wall(prof, wall, (dice[0], dice[1]), players, dealer, streak)
        except MahjongError as e:
            raise _err(src, name, "wall", str(e)) from None
    else:
        deal_in = data.get("deal")
        if not isinstance(deal_in, dict):
            raise _err(src, name, "deal", "required (or give 'wall'): an object seat -> tiles")
        deal: dict[int, list[int]] = {}
        for k, v in deal_in.items():
            if not _seat_key(k, players):
                raise _err(src, name, "deal", f"key {_short(k)} is not a seat 0-{players - 1}")
            deal[int(k)] = _tiles(src, name, f"deal.{k}", v)
        draws = _tiles(src, name, "draws", data.get("draws", ""))
        tail = _tiles(src, name, "tail", data.get("tail", ""))
        try:
            wall = build_wall(deal, draws, tail, players, dealer)
        except MahjongError as e:
            fld = "deal" if str(e).startswith("deal") else "deal/draws/tail"
            raise _err(src, name, fld, str(e).removeprefix("deal: ")) from None
    actions = data.get("actions", [])
    if not isinstance(actions, list):
        raise _err(src, name, "actions", "must be a list")
    for i, a in enumerate(actions, 1):
        _check_action(src, name, f"actions[{i}]", a, players, need_seat=True)
    expect = data.get("expect", {})
    if not isinstance(expect, dict):
        raise _err(src, name, "expect", "must be an object")
    _check_expect(src, name, expect, players, len(actions))
    return Scenario(
        name,
        src,
        data,
        prof.name,
        players,
        dealer,
        streak,
        (dice[0], dice[1]),
        wall,
        actions,
        expect,
    )


def _check_action(src: str, name: str, fld: str, a: Any, players: int, need_seat: bool) -> None:
    if not isinstance(a, dict):
        raise _err(src, name, fld, "must be an object")
    if need_seat:
        s = a.get("seat")
        if not _is_int(s) or not 0 <= s < players:
            raise _err(src, name, f"{fld}.seat", f"must be a seat 0-{players - 1}")
    do = a.get("do", a.get("type"))
    if not isinstance(do, str) or do not in ACTION_TYPES:
        raise _err(
            src,
            name,
            f"{fld}.do",
            f"unknown action {_short(do)} (one of {', '.join(ACTION_TYPES)})",
        )
    for key in ("tile", "tiles"):
        if key in a and a[key] is not None:
            _tiles(src, name, f"{fld}.{key}", a[key])
    if "tile" in a and a["tile"] is not None and len(parse(str(a["tile"]))) != 1:
        raise _err(src, name, f"{fld}.tile", "must be exactly one tile")


def _check_point(src: str, name: str, fld: str, item: dict[str, Any], n_actions: int) -> None:
    keys = [k for k in ("after", "before") if k in item]
    if len(keys) != 1:
        raise _err(src, name, fld, "needs exactly one of 'after' or 'before'")
    v = item[keys[0]]
    hi = n_actions if keys[0] == "after" else n_actions + 1
    lo = 0 if keys[0] == "after" else 1
    if not _is_int(v) or not lo <= v <= hi:
        raise _err(src, name, f"{fld}.{keys[0]}", f"must be an action number {lo}-{hi}")


def _list(src: str, name: str, fld: str, v: Any) -> list[Any]:
    if not isinstance(v, list):
        raise _err(src, name, fld, "must be a list")
    return v


def _seat_map(src: str, name: str, fld: str, v: Any, players: int) -> dict[str, Any]:
    if not isinstance(v, dict):
        raise _err(src, name, fld, "must be an object seat -> value")
    for k in v:
        if not _seat_key(k, players):
            raise _err(src, name, fld, f"{_short(k)} is not a seat 0-{players - 1}")
    return v


def _int_list(x: Any) -> bool:
    return isinstance(x, list) and all(_is_int(i) for i in x)


def _check_state_value(src: str, name: str, fld: str, key: str, v: Any, players: int) -> None:
    if key in ("to_act", "hand_sizes", "xian_jin"):
        if not _int_list(v):
            raise _err(src, name, fld, "must be a list of numbers")
    elif key in ("live", "reserve", "wall"):
        if not _is_int(v):
            raise _err(src, name, fld, "must be a number")
    elif key == "gold":
        if len(_tiles(src, name, fld, v)) != 1:
            raise _err(src, name, fld, "must be one tile")
    elif key in ("flowers", "hand"):
        for seat, tiles in _seat_map(src, name, fld, v, players).items():
            _tiles(src, name, f"{fld}.{seat}", tiles)
    elif key == "melds":
        for seat, ms in _seat_map(src, name, fld, v, players).items():
            for j, m in enumerate(_list(src, name, f"{fld}.{seat}", ms)):
                if not isinstance(m, str) or " " not in m.strip():
                    raise _err(src, name, f"{fld}.{seat}[{j}]", 'must look like "pong 555p"')
                _tiles(src, name, f"{fld}.{seat}[{j}]", m.strip().partition(" ")[2])


def _check_expect(src: str, name: str, ex: dict[str, Any], players: int, n: int) -> None:
    for key in ex:
        if key not in ("result", "score", "state", "legal", "illegal"):
            raise _err(src, name, f"expect.{key}", "unknown expectation")
    for i, st in enumerate(_list(src, name, "expect.state", ex.get("state", [])), 1):
        fld = f"expect.state[{i}]"
        if not isinstance(st, dict):
            raise _err(src, name, fld, "must be an object")
        _check_point(src, name, fld, st, n)
        for k, v in st.items():
            if k not in (*STATE_KEYS, "after", "before"):
                raise _err(
                    src, name, f"{fld}.{k}", f"unknown state key (one of {', '.join(STATE_KEYS)})"
                )
            if k not in ("after", "before"):
                _check_state_value(src, name, f"{fld}.{k}", k, v, players)
    for i, lg in enumerate(_list(src, name, "expect.legal", ex.get("legal", [])), 1):
        fld = f"expect.legal[{i}]"
        if not isinstance(lg, dict):
            raise _err(src, name, fld, "must be an object")
        _check_point(src, name, fld, lg, n)
        _seat_of(src, name, f"{fld}.seat", lg.get("seat", 0), players)
        for key in ("includes", "excludes"):
            for j, a in enumerate(_list(src, name, f"{fld}.{key}", lg.get(key, [])), 1):
                _check_action(src, name, f"{fld}.{key}[{j}]", a, players, need_seat=False)
    for i, il in enumerate(_list(src, name, "expect.illegal", ex.get("illegal", [])), 1):
        fld = f"expect.illegal[{i}]"
        if not isinstance(il, dict):
            raise _err(src, name, fld, "must be an object")
        _check_point(src, name, fld, il, n)
        _seat_of(src, name, f"{fld}.seat", il.get("seat", 0), players)
        if not isinstance(il.get("action"), dict):
            raise _err(src, name, f"{fld}.action", "required: the action to try")
        _check_action(src, name, f"{fld}.action", il["action"], players, need_seat=False)
    if "result" in ex and not isinstance(ex["result"], dict):
        raise _err(src, name, "expect.result", "must be an object")
    if "score" in ex and not isinstance(ex["score"], dict):
        raise _err(src, name, "expect.score", "must be an object")
    if isinstance(ex.get("score"), dict) and "specials" in ex["score"]:
        sp = _list(src, name, "expect.score.specials", ex["score"]["specials"])
        if not all(isinstance(x, str) for x in sp):
            raise _err(src, name, "expect.score.specials", "must be a list of special names")
    for key in ("points", "payments"):
        v = ex.get("score", {}).get(key) if isinstance(ex.get("score"), dict) else None
        if v is not None and not (_is_int(v) if key == "points" else _int_list(v)):
            raise _err(
                src,
                name,
                f"expect.score.{key}",
                "must be a number" if key == "points" else "must be a list of numbers",
            )


def _seat_of(src: str, name: str, fld: str, v: Any, players: int) -> None:
    if not _is_int(v) or not 0 <= v < players:
        raise _err(src, name, fld, f"must be a seat 0-{players - 1}")


def _short(v: Any) -> str:
    """A value for an error message: its repr, cut to 40 characters."""
    r = repr(v)
    return r if len(r) <= 40 else r[:39] + "…"


# ---------------------------------------------------------------------------- running


def _action_of(a: dict[str, Any]) -> Action:
    d = dict(a)
    d["type"] = d.pop("do", d.get("type"))
    return Action.from_json(d)


def _matches(pattern: dict[str, Any], act: Action) -> bool:
    do = pattern.get("do", pattern.get("type"))
    if do != act.type:
        return False
    if pattern.get("tile") is not None and parse_kind(str(pattern["tile"])) != act.tile:
        return False
    return not (
        pattern.get("tiles") is not None
        and tuple(sorted(parse(str(pattern["tiles"])))) != act.tiles
    )


def _fingerprint(g: Game) -> str:
    state = {
        "events": len(g.events),
        "views": [g.view(s) for s in range(g.n)],
        "counts": g.counts,
        "keys": g.keys,
        "head": g.head,
        "tail": g.tail,
        "phase": g.phase,
        "answers": {s: a.to_json() for s, a in g.answers.items()},
    }
    return json.dumps(state, sort_keys=True, default=str)


def _auto_moment(g: Game) -> bool:
    """A moment where several seats may answer (claims, windows) or a last-group kong choice."""
    return g.phase in (Phase.CLAIMS, Phase.WINDOW_A) or (g.phase is Phase.TURN and g.last_group)


# Actions that only ever answer a discard / opening window; ``win`` and ``three_golds`` may
# also be a seat's own turn action, so they count as answers only when offered now.
_ANSWERS = frozenset({"pass", "chow", "pong", "kong", "rob_gold"})


def _is_answer(g: Game, seat: int, a: dict[str, Any]) -> bool:
    """Is the scripted action ``a`` this seat's answer at the current multi-seat moment?"""
    if seat not in g.to_act():
        return False
    do = a.get("do", a.get("type"))
    if g.phase is Phase.TURN:  # last-group kong choice: the seat's own decision
        return True
    if do in _ANSWERS and not (do == "rob_gold" and a.get("tile")):
        return True
    legal = g.legal_actions(seat)
    if do == "win" and Action("rob_gold") in legal:
        return True  # R8.2: written as a win, taken as 抢金
    return any(x.type == do for x in legal)


def _auto_pass_one(g: Game) -> None:
    s = g.to_act()[0]
    g.apply(s, Action("pass"))


def _state_checks(g: Game, st: dict[str, Any], where: str) -> list[Check]:
    out = []
    for key, want in st.items():
        if key in ("after", "before"):
            continue
        got: Any
        ok: bool
        if key == "to_act":
            got = g.to_act()
            ok = sorted(got) == sorted(want)
        elif key in ("live", "reserve"):
            got = getattr(g, key)
            ok = got == want
        elif key == "wall":
            got = g.wall_left
            ok = got == want
        elif key == "gold":
            got = KIND_STR[g.gold] if g.gold >= 0 else None
            ok = got == want
        elif key == "hand_sizes":
            got = [g.hand_size(s) for s in range(g.n)]
            ok = got == want
        elif key == "xian_jin":
            got = [s for s in range(g.n) if g.xian_jin[s]]
            ok = sorted(got) == sorted(want)
        elif key in ("flowers", "hand"):
            got = {}
            ok = True
            for s, tiles in want.items():
                seat = int(s)
                have = g.flowers[seat] if key == "flowers" else g.hand(seat)
                got[s] = fmt_sorted(have)
                if sorted(have) != sorted(parse(tiles)):
                    ok = False
        elif key == "melds":
            got = {}
            ok = True
            for s, ms in want.items():
                have_melds = sorted(f"{m.type} {fmt(m.tiles)}" for m in g.melds[int(s)])
                got[s] = have_melds
                left = [_norm_meld(x) for x in have_melds]
                for x in ms:
                    w = _norm_meld(x)
                    hit = next((h for h in left if _meld_eq(w, h)), None)
                    if hit is None:
                        ok = False
                        break
                    left.remove(hit)
                if left:
                    ok = False
        else:
            continue
        out.append(
            Check(f"state {key} {where}", ok, "" if ok else f"expected {want!r}, got {got!r}")
        )
    return out


_MELD_ALIASES = {
    "exposed_kong": "kong_exposed",
    "concealed_kong": "kong_concealed",
    "added_kong": "kong_added",
    "ming_kong": "kong_exposed",
    "an_kong": "kong_concealed",
}


def _norm_meld(text: str) -> tuple[str, tuple[int, ...]]:
    typ, _, tiles = str(text).partition(" ")
    return _MELD_ALIASES.get(typ, typ), tuple(sorted(parse(tiles)))


def _meld_eq(a: tuple[str, tuple[int, ...]], b: tuple[str, tuple[int, ...]]) -> bool:
    ta, tb = a[0], b[0]
    same_type = (
        ta == tb
        or (ta == "kong" and tb.startswith("kong"))
        or (tb == "kong" and ta.startswith("kong"))
    )
    return same_type and a[1] == b[1]


def _point_checks(sc: Scenario, g: Game, point: str, n: int) -> list[Check]:
    out: list[Check] = []
    ex = sc.expect
    where = f"{point} {n}"
    for st in ex.get("state", []):
        if st.get(point) == n:
            out += _state_checks(g, st, where)
    for lg in ex.get("legal", []):
        if lg.get(point) != n:
            continue
        seat = int(lg.get("seat", 0))
        legal = g.legal_actions(seat)
        for a in lg.get("includes", []):
            ok = any(_matches(a, x) for x in legal)
            out.append(
                Check(
                    f"legal seat {seat} includes {_fmt_pat(a)} {where}",
                    ok,
                    "" if ok else f"legal actions: {', '.join(str(x) for x in legal) or 'none'}",
                )
            )
        for a in lg.get("excludes", []):
            bad = [x for x in legal if _matches(a, x)]
            out.append(
                Check(
                    f"legal seat {seat} excludes {_fmt_pat(a)} {where}",
                    not bad,
                    "" if not bad else f"but {', '.join(str(x) for x in bad)} is legal",
                )
            )
    for il in ex.get("illegal", []):
        if il.get(point) != n:
            continue
        seat = int(il.get("seat", 0))
        before = _fingerprint(g)
        try:
            g.apply(seat, _action_of(il["action"]))
            out.append(
                Check(
                    f"illegal seat {seat} {_fmt_pat(il['action'])} {where}",
                    False,
                    "the action was accepted",
                )
            )
        except IllegalAction as e:
            same = _fingerprint(g) == before
            out.append(
                Check(
                    f"illegal seat {seat} {_fmt_pat(il['action'])} {where}",
                    same,
                    f"raised: {e}" if same else "raised, but the state changed",
                )
            )
    return out


def _fmt_pat(a: dict[str, Any]) -> str:
    do = a.get("do", a.get("type"))
    extra = a.get("tile") or a.get("tiles") or ""
    return f"{do} {extra}".strip()


def _step_failed(n: int, why: str) -> Check:
    return Check(
        f"action {n}",
        False,
        f"action {n}: {why}" if not why.startswith("(") else f"action {n} {why}",
    )


def run_scenario(sc: Scenario) -> Outcome:
    """Play a scenario and evaluate its expectations."""
    out = Outcome(sc)
    g = Game.from_wall(sc.profile, sc.wall, sc.dice, sc.players, sc.dealer, sc.streak)
    out.game = g
    out.checks += _point_checks(sc, g, "after", 0)
    acts = sc.actions
    i = 0
    failed = False
    while i < len(acts):
        a = acts[i]
        n = i + 1
        seat = int(a["seat"])
        if g.is_over():
            out.checks.append(
                Check(
                    f"action {n}",
                    False,
                    f"the hand is already over before action {n} ({_fmt_pat(a)} by seat {seat})",
                )
            )
            failed = True
            break
        if _auto_moment(g) and not _is_answer(g, seat, a):
            _auto_pass_one(g)
            continue
        if g.phase is Phase.TURN and seat != g.turn:
            out.checks.append(
                _step_failed(n, f"seat {seat} acts ({_fmt_pat(a)}) but it is seat {g.turn}'s turn")
            )
            failed = True
            break
        out.checks += _point_checks(sc, g, "before", n)
        if g.is_over():  # an illegal-action probe cannot end the hand, but be safe
            break
        act = _action_of(a)
        legal_now = g.legal_actions(seat)
        if act.type == "win" and act not in legal_now and Action("rob_gold") in legal_now:
            act = Action("rob_gold")  # R8.2: a win on the dealer's first discard is 抢金
        try:
            g.apply(seat, act)
        except IllegalAction as e:
            out.checks.append(_step_failed(n, f"({_fmt_pat(a)} by seat {seat}) is illegal: {e}"))
            failed = True
            break
        out.checks += _point_checks(sc, g, "after", n)
        i += 1
    if not failed:
        while not g.is_over() and _auto_moment(g):
            _auto_pass_one(g)
        out.checks += _point_checks(sc, g, "before", len(acts) + 1)
    ex = sc.expect
    if "result" in ex:
        want = ex["result"]
        if not g.is_over():
            out.checks.append(
                Check(
                    "result",
                    False,
                    f"the hand is not over (seat(s) {g.to_act()} to act, phase {g.phase})",
                )
            )
        elif want.get("draw"):
            ok = g.win is None
            out.checks.append(Check("result", ok, "" if ok else f"expected a draw, got {g.win}"))
        else:
            got = dict(g.win) if g.win else {"draw": True}
            diffs = [
                f"{k}: expected {v!r}, got {got.get(k)!r}"
                for k, v in want.items()
                if got.get(k) != v
            ]
            out.checks.append(Check("result", not diffs, "; ".join(diffs)))
    if "score" in ex:
        want = ex["score"]
        s = g.score() if g.is_over() else None
        if s is None:
            out.checks.append(Check("score", False, "the hand is not over"))
        else:
            gs: dict[str, Any] = {
                "points": s.points,
                "payments": list(s.payments),
                "specials": list(s.specials),
            }
            diffs = []
            for k, v in want.items():
                gv = gs.get(k)
                if k == "specials":
                    if sorted(v) != sorted(gv or []):
                        diffs.append(f"specials: expected {v!r}, got {gv!r}")
                elif gv != v:
                    diffs.append(f"{k}: expected {v!r}, got {gv!r}")
            out.checks.append(Check("score", not diffs, "; ".join(diffs)))
    return out
