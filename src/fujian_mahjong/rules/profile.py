"""Rule profiles as data (one TOML file each). Engine and scoring branch on named fields,
never on a profile's name (STYLE.md)."""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields
from functools import cache
from pathlib import Path
from typing import Any

from fujian_mahjong.errors import ProfileError

PROFILE_DIR = Path(__file__).with_name("profiles")
BUILTIN = ("fuzhou-tcy", "fuzhou-bianfeng", "fuzhou-doudou", "sanming")
DEFAULT = "fuzhou-tcy"

SPECIAL_KEYS = (
    "tian_hu",
    "qiang_jin",
    "san_jin_dao",
    "jin_que",
    "jin_long",
    "ping_hu",
    "ping_hu_one_flower",
    "wu_shui_hu",
    "qing_yi_se",
    "jin_kan",
)

_CHOICES: dict[str, tuple[str, ...]] = {
    "dealer_first": ("random", "dice"),
    "gold_open": ("tail", "dice"),
    "gold_discard": ("self_draw_only", "forbidden", "free"),
    "discard_winner": ("jin_que_then_nearest", "highest_score", "nearest"),
    "streak": ("dealer_wins", "hands_dealt", "wins_and_draws"),
    "scoring": ("tcy", "bianfeng", "doudou", "sanming"),
    "honours": ("flowers", "playable"),
}


@dataclass(frozen=True, slots=True)
class Profile:
    """Every difference between the rule variants, as a named field (RULES.md)."""

    name: str
    title_zh: str
    title_en: str
    players_min: int  # R2
    players_max: int
    dealer_first: str  # R2: "random" | "dice"
    reserve_base: int  # R5 reserve
    reserve_exposed_kong: int
    reserve_concealed_kong: int
    reserve_flower_set: int
    gold_open: str  # R5: "tail" (Fuzhou) | "dice" (sanming, D-3)
    gold_discard: str  # R5: "self_draw_only" (D-4) | "forbidden" | "free"
    rob_kong: bool  # R6 抢杠
    opening_priority: tuple[str, ...]  # R8 window A
    discard_winner: str  # R6: "jin_que_then_nearest" | "highest_score" (拦胡) | "nearest"
    three_golds_on_discard: bool  # R7 斗斗
    last_group_kongs: bool  # R5 / D-17
    xian_jin: bool  # R8.4 闲金
    jin_kan: bool  # R8.5 金坎
    heavenly_as_rob_gold: bool  # R7: 天胡 scored as 抢金
    streak: str  # R9
    scoring: str  # R10 formula
    base: int  # R10 base (b, n, or sanming's 5)
    draw_payment: int  # R10 sanming 黄庄
    specials: tuple[str, ...]  # R7 table: specials that exist here
    special_values: dict[str, int]  # R10
    jin_que_pure: bool  # R7: 金雀 needs G = 2 both in the pair (sanming)
    cap: int = 0  # R10 doudou: T <= cap (0 = none)
    ping_hu_combo_bonus: int = 0  # R10 doudou +10
    hand_cap: int = 0  # R11 per-hand loss cap in points (0 = none); a table setting
    # R1 (revision 2): "flowers" — 1z–7z are flowers like 1f–8f; "playable" (斗斗) — the
    # 28 honours are ordinary tiles (字牌) and only 1f–8f are flowers
    honours: str = "flowers"
    # R9 (revision 2): after a draw the dealer deals again (False: 边锋, his next player deals
    # and the streak resets)
    draw_keeps_dealer: bool = True

    @property
    def honours_playable(self) -> bool:
        """R1: are 东南西北中发白 ordinary playable tiles (not flowers)?"""
        return self.honours == "playable"

    @property
    def playable_kinds(self) -> int:
        """R1: 27 suited kinds, or 34 with playable honours (kind ids 0..n-1)."""
        return 34 if self.honours == "playable" else 27

    @property
    def players_text(self) -> str:
        """R2: how many players the profile seats, in words: "4 players", "2-4 players"."""
        if self.players_min == self.players_max:
            return f"{self.players_min} players"
        return f"{self.players_min}-{self.players_max} players"

    def reserve(self, exposed_kongs: int, concealed_kongs: int, sets: int) -> int:
        """R5: the number of tiles at the end of the wall never drawn from the head."""
        return (
            self.reserve_base
            + self.reserve_exposed_kong * exposed_kongs
            + self.reserve_concealed_kong * concealed_kongs
            + self.reserve_flower_set * sets
        )

    def special_value(self, key: str) -> int:
        return self.special_values.get(key, 0)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):
            v = getattr(self, f.name)
            out[f.name] = list(v) if isinstance(v, tuple) else v
        return out


def _validate(data: dict[str, Any], source: str) -> Profile:
    kw: dict[str, Any] = {}
    # an unknown key first: a misspelt field would otherwise be reported as a missing one
    unknown = set(data) - {f.name for f in fields(Profile)}
    if unknown:
        raise ProfileError(f"{source}: unknown field '{sorted(unknown)[0]}'")
    for f in fields(Profile):
        if f.name not in data:
            if f.default is not MISSING:  # optional field with a default
                continue
            raise ProfileError(f"{source}: missing field '{f.name}'")
        v = data[f.name]
        typ = str(f.type)
        if typ == "int":
            if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v <= MAX_VALUE:
                raise ProfileError(
                    f"{source}: field '{f.name}' must be a whole number 0-{MAX_VALUE}"
                )
        elif typ == "bool":
            if not isinstance(v, bool):
                raise ProfileError(f"{source}: field '{f.name}' must be true or false")
        elif typ == "str":
            if not isinstance(v, str):
                raise ProfileError(f"{source}: field '{f.name}' must be a string")
            if f.name in _CHOICES and v not in _CHOICES[f.name]:
                raise ProfileError(
                    f"{source}: field '{f.name}' is {v!r}; expected one of {', '.join(_CHOICES[f.name])}"
                )
        elif typ.startswith("tuple"):
            if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
                raise ProfileError(f"{source}: field '{f.name}' must be a list of strings")
            v = tuple(v)
        elif typ.startswith("dict"):
            if not isinstance(v, dict) or not all(
                isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= MAX_VALUE
                for x in v.values()
            ):
                raise ProfileError(
                    f"{source}: field '{f.name}' must be a table of whole numbers 0-{MAX_VALUE}"
                )
            v = dict(v)
        kw[f.name] = v
    unknown = set(data) - {f.name for f in fields(Profile)}
    if unknown:
        raise ProfileError(f"{source}: unknown field '{sorted(unknown)[0]}'")
    p = Profile(**kw)
    if p.reserve_base > MAX_RESERVE:
        # R5: the tiles kept back at the tail; more and no hand would ever be drawn to a win
        raise ProfileError(f"{source}: field 'reserve_base' must be 0-{MAX_RESERVE}")
    if not 2 <= p.players_min <= p.players_max <= 4:
        raise ProfileError(
            f"{source}: field 'players_min'/'players_max' must satisfy 2 <= min <= max <= 4"
        )
    for s in p.specials:
        if s not in SPECIAL_KEYS:
            raise ProfileError(f"{source}: field 'specials' has unknown special {s!r}")
    for s in p.special_values:
        if s not in SPECIAL_KEYS:
            raise ProfileError(f"{source}: field 'special_values' has unknown special {s!r}")
    if sorted(p.opening_priority) != ["san_jin_dao", "tian_hu"]:
        raise ProfileError(f"{source}: field 'opening_priority' must order tian_hu and san_jin_dao")
    return p


PROFILE_MAX_BYTES = 1024 * 1024  # a profile is a few hundred bytes
MAX_VALUE = 1_000_000  # any count, point value or cap of a profile (the largest is 202)
MAX_RESERVE = 60  # R5: 144 tiles less a deal of 65 leave 79 to draw


def load_profile_file(path: str | Path) -> Profile:
    """Load and validate a user profile file (TOML)."""
    import tomllib  # here, not at the top: `fjmj --help` never parses a profile (start-up)

    from fujian_mahjong.errors import InputError
    from fujian_mahjong.fileio import decode, read_bytes

    path = Path(path)
    try:
        # a regular file of at most 1 MiB (a FIFO hung, /dev/zero filled the memory)
        text = decode(read_bytes(str(path), PROFILE_MAX_BYTES), str(path))
        data = tomllib.loads(text)
    except InputError as e:
        raise ProfileError(str(e)) from None
    except tomllib.TOMLDecodeError as e:
        raise ProfileError(f"{path}: not valid TOML: {e}") from None
    p = _validate(data, str(path))
    if p.name in BUILTIN and path.resolve() != (PROFILE_DIR / f"{p.name}.toml").resolve():
        # a hand's log names its profile; a name of the built-in rules means those rules
        raise ProfileError(
            f"{path}: name {p.name!r} is a built-in profile's; give it a name of its own"
        )
    return p


@cache
def get_profile(name_or_path: str = DEFAULT) -> Profile:
    """A built-in profile by name, or a user profile by TOML path."""
    if name_or_path in BUILTIN:
        return load_profile_file(PROFILE_DIR / f"{name_or_path}.toml")
    if name_or_path.endswith(".toml"):
        return load_profile_file(name_or_path)
    raise ProfileError(
        f"unknown profile {name_or_path!r}; built-in: {', '.join(BUILTIN)} (or a path to a .toml file)"
    )
