"""The configuration file of ``fjmj serve --config FILE`` (docs/deploy.md, docs/economy.md):
``[server]`` (scalar ``Settings`` fields), ``[economy]`` (``house_bots``: whether bots at
room tables play for the house account, docs/economy.md), ``[relief]``, ``[tables]`` (the
bounds of a private table's stake) and ``[[rooms]]`` (the tiers of the rooms by stake,
server/rooms.py). :func:`parse_config` and :func:`load_config` answer the ``Settings``
fields it sets; every error is one line (:class:`ConfigError`)."""

from __future__ import annotations

import dataclasses
import math
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fujian_mahjong.server import economy
from fujian_mahjong.server.economy import MAX_SILVER
from fujian_mahjong.server.settings import Room, Settings, _players, _profiles

__all__ = ["ConfigError", "load_config", "parse_config"]


class ConfigError(ValueError):
    """A bad configuration file: one line saying where and what."""


# Settings fields the [server] table may not set (they have their own tables or options)
_NOT_IN_SERVER = {
    "rooms",
    "house_bots",
    "operator_token",
    "relief_threshold",
    "relief_amount",
    "relief_per_day",
    "relief_utc_offset_h",
    "table_stake_min",
    "table_stake_max",
}
# [server] strings with a fixed set of values
_CHOICES = {"claim_window": ("auto", "fast", "fixed")}
_ROOM_INTS = ("stake", "base", "fee", "cap", "min_balance", "max_balance", "hands")
_ROOM_KEYS = {"tier", "name_zh", "name_en", "profiles", *_ROOM_INTS}
_PROFILE_KEYS = {"name_zh", "name_en", *_ROOM_INTS}


def _int(where: str, v: Any, lo: int, hi: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise ConfigError(f"{where}: must be an integer, got {v!r}"[:200])
    if not lo <= v <= hi:
        raise ConfigError(f"{where}: must be {lo}-{hi}, got {v}")
    return v


def _num(where: str, v: Any, lo: float, hi: float) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        raise ConfigError(f"{where}: must be a number, got {v!r}"[:200])
    if not lo <= v <= hi:
        raise ConfigError(f"{where}: must be {lo:g}-{hi:g}, got {v:g}")
    return float(v)


def _str(where: str, v: Any, hi: int = 40) -> str:
    if not isinstance(v, str) or not v.strip() or len(v) > hi:
        raise ConfigError(f"{where}: must be a non-empty string of at most {hi} characters")
    return v.strip()


def _table(where: str, v: Any) -> Mapping[str, Any]:
    if not isinstance(v, Mapping):
        raise ConfigError(f"{where}: must be a table")
    return v


def _unknown(where: str, given: Mapping[str, Any], known: set[str]) -> None:
    extra = sorted(set(given) - known)
    if extra:
        raise ConfigError(
            f"{where}: unknown key {extra[0]!r}; expected one of {', '.join(sorted(known))}"
        )


def _server_fields() -> dict[str, Any]:
    defaults = Settings()
    return {
        f.name: getattr(defaults, f.name)
        for f in dataclasses.fields(Settings)
        if f.name not in _NOT_IN_SERVER
    }


def _server(data: Mapping[str, Any]) -> dict[str, Any]:
    fields = _server_fields()
    _unknown("[server]", data, set(fields))
    out: dict[str, Any] = {}
    for k, v in data.items():
        where = f"[server] {k}"
        d = fields[k]
        if isinstance(d, bool):
            if not isinstance(v, bool):
                raise ConfigError(f"{where}: must be true or false")
            out[k] = v
        elif isinstance(d, int):
            out[k] = _int(where, v, 0, 2**31 - 1)
        elif isinstance(d, float):
            out[k] = _num(where, v, 0.0, 10.0**9)
        elif isinstance(d, Path):
            out[k] = Path(_str(where, v, 4096)).expanduser()
        else:
            out[k] = _str(where, v, 4096)
            if k in _CHOICES and out[k] not in _CHOICES[k]:
                raise ConfigError(f"{where}: one of {', '.join(_CHOICES[k])}, got {out[k]!r}")
    return out


def _relief(data: Mapping[str, Any]) -> dict[str, Any]:
    _unknown("[relief]", data, {"threshold", "amount", "per_day", "utc_offset_hours"})
    out: dict[str, Any] = {}
    if "threshold" in data:
        out["relief_threshold"] = _int("[relief] threshold", data["threshold"], 0, MAX_SILVER)
    if "amount" in data:
        out["relief_amount"] = _int("[relief] amount", data["amount"], 0, MAX_SILVER)
    if "per_day" in data:
        out["relief_per_day"] = _int("[relief] per_day", data["per_day"], 0, 1000)
    if "utc_offset_hours" in data:
        out["relief_utc_offset_h"] = _num(
            "[relief] utc_offset_hours", data["utc_offset_hours"], -12.0, 14.0
        )
    return out


def _economy(data: Mapping[str, Any]) -> dict[str, Any]:
    _unknown("[economy]", data, {"house_bots"})
    out: dict[str, Any] = {}
    if "house_bots" in data:
        if not isinstance(data["house_bots"], bool):
            raise ConfigError("[economy] house_bots: must be true or false")
        out["house_bots"] = data["house_bots"]
    return out


def _tables(data: Mapping[str, Any]) -> dict[str, Any]:
    _unknown("[tables]", data, {"stake_min", "stake_max"})
    out: dict[str, Any] = {}
    if "stake_min" in data:
        out["table_stake_min"] = _int("[tables] stake_min", data["stake_min"], 0, 10**9)
    if "stake_max" in data:
        out["table_stake_max"] = _int("[tables] stake_max", data["stake_max"], 0, 10**9)
    lo = out.get("table_stake_min", 0)
    hi = out.get("table_stake_max", 10**9)
    if lo > hi:
        raise ConfigError(f"[tables]: stake_min {lo} is above stake_max {hi}")
    return out


def _room(
    where: str, tier: str, base: Mapping[str, Any], profile: str, max_fee_ratio: float
) -> Room:
    v: dict[str, Any] = {}
    for k in _ROOM_INTS:
        if k in base:
            hi = 64 if k == "hands" else MAX_SILVER
            lo = 1 if k in ("base", "hands") else 0
            v[k] = _int(f"{where} {k}", base[k], lo, hi)
    try:
        st = economy.make_stakes(
            v.get("stake", 1),
            v.get("base", 1),
            v.get("fee", 0),
            v.get("cap", 0),
            v.get("min_balance"),
            profile=profile,
            max_fee_ratio=max_fee_ratio,
        )
    except economy.EconomyError as e:
        raise ConfigError(f"{where}: {e.message}") from None
    mx = v.get("max_balance")
    if mx is not None and mx < st.min_balance:
        raise ConfigError(f"{where}: max_balance {mx} is below min_balance {st.min_balance}")
    return Room(
        id=f"{profile}:{tier}",
        tier=tier,
        name_zh=_str(f"{where} name_zh", base.get("name_zh", tier)),
        name_en=_str(f"{where} name_en", base.get("name_en", tier)),
        profile=profile,
        stake=st.stake,
        base=st.base,
        fee=st.fee,
        cap=st.cap,
        min_balance=st.min_balance,
        max_balance=mx,
        hands=v.get("hands", 8),
        players=_players(profile),
    )


def _rooms(data: Any, max_fee_ratio: float) -> tuple[Room, ...]:
    if not isinstance(data, list):
        raise ConfigError("rooms: must be an array of tables ([[rooms]])")
    known = _profiles()
    out: list[Room] = []
    tiers: set[str] = set()
    for i, raw in enumerate(data):
        t = _table(f"rooms[{i}]", raw)
        _unknown(f"rooms[{i}]", t, _ROOM_KEYS)
        if "tier" not in t:
            raise ConfigError(f"rooms[{i}]: needs a 'tier' (an id such as \"novice\")")
        tier = _str(f"rooms[{i}] tier", t["tier"], 24)
        if not all(ch.isascii() and (ch.isalnum() or ch in "-_") for ch in tier):
            raise ConfigError(f"rooms[{i}] tier: letters, digits, - and _ only, got {tier!r}")
        if tier in tiers:
            raise ConfigError(f"rooms[{i}] tier: {tier!r} appears twice")
        tiers.add(tier)
        base = {k: v for k, v in t.items() if k != "profiles"}
        profiles = t.get("profiles")
        per: dict[str, Mapping[str, Any]]
        if profiles is None:
            per = {p: {} for p in known}
        elif isinstance(profiles, list):
            per = {}
            for p in profiles:
                if not isinstance(p, str) or p not in known:
                    raise ConfigError(
                        f"rooms[{i}] profiles: unknown profile {p!r}; expected {', '.join(known)}"[
                            :300
                        ]
                    )
                per[p] = {}
        else:
            per = {}
            for p, over in _table(f"rooms[{i}] profiles", profiles).items():
                if p not in known:
                    raise ConfigError(
                        f"rooms[{i}] profiles: unknown profile {p!r}; expected {', '.join(known)}"[
                            :300
                        ]
                    )
                o = _table(f"rooms[{i}] profiles.{p}", over)
                _unknown(f"rooms[{i}] profiles.{p}", o, _PROFILE_KEYS)
                per[p] = o
        for p, over in per.items():
            where = f"rooms[{i}] ({tier}, {p})"
            out.append(_room(where, tier, {**base, **over}, p, max_fee_ratio))
    return tuple(out)


def parse_config(text: str, max_fee_ratio: float | None = None) -> dict[str, Any]:
    """The ``Settings`` fields a TOML configuration sets (ConfigError: one line).

    ``max_fee_ratio`` (the command line's ``--max-fee-ratio``, which wins over the file's
    ``[server] max_fee_ratio``) bounds the rooms' fees; rooms are checked with the same
    bounds as a table made by ``POST /api/tables`` (``economy.make_stakes``)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"not valid TOML: {e}") from None
    _unknown("the file", data, {"server", "economy", "relief", "tables", "rooms"})
    out: dict[str, Any] = {}
    if "server" in data:
        out.update(_server(_table("[server]", data["server"])))
    if "economy" in data:
        out.update(_economy(_table("[economy]", data["economy"])))
    if "relief" in data:
        out.update(_relief(_table("[relief]", data["relief"])))
    if "tables" in data:
        out.update(_tables(_table("[tables]", data["tables"])))
    if "rooms" in data:
        ratio = max_fee_ratio if max_fee_ratio is not None else out.get("max_fee_ratio", 1.0)
        out["rooms"] = _rooms(data["rooms"], float(ratio))
    return out


def load_config(path: str | Path, max_fee_ratio: float | None = None) -> dict[str, Any]:
    """:func:`parse_config` of a file (an unreadable file is a ConfigError too)."""
    try:
        text = Path(path).expanduser().read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"cannot read it: {type(e).__name__}: {e}") from None
    return parse_config(text, max_fee_ratio)
