"""One message catalogue per language for user-facing text (STYLE.md).

The catalogue is JSON, shipped inside the package and shared with the browser client:
``fujian_mahjong/web/locale/<lang>/<part>.json``, one flat ``{"key": "text with
{placeholders}"}`` object per part. Languages: :data:`LANGS`; parts: :data:`PARTS` (``web``
and ``lobby`` for the browser, ``errors`` for the server's error codes — key
``error.<code>`` —, ``engine`` for the narration of events, ``tui`` and ``cli``). Every key
starts with its part (``cli.hand``, ``engine.discard``…).

- :func:`msg` ``(key, lang, **kw)``: one message, formatted;
- :func:`t` ``(key, lang, **kw)``: the CLI's messages by their short key (``t("hand")`` is
  ``cli.hand``); any full key works too;
- :func:`part` / :func:`catalogue`: a part, or all of a language's messages;
- :func:`tile_name` ``(kind, lang)``: a tile as the table names it in words (``五饼`` /
  ``5 Dots``), the same as the browser's ``tileName`` (``web/js/tiles.js``).

A key missing from a language falls back to the other language, then to the key itself (a
UI never crashes on a missing text; ``tests/test_vocabulary.py`` keeps the parts complete).
"""

from __future__ import annotations

import json
from functools import cache, lru_cache
from importlib import resources
from typing import Any

LANGS = ("zh", "en")
PARTS = ("web", "lobby", "errors", "engine", "tui", "cli")
_FULL = ("web.", "lobby.", "error.", "engine.", "tui.", "cli.")  # keys start with their part


def norm_lang(lang: str | None) -> str:
    """``zh`` for Chinese (``zh``, ``zh-CN``…), else ``en``."""
    return "zh" if (lang or "").lower().startswith("zh") else "en"


@cache
def part(lang: str, name: str) -> dict[str, str]:
    """One part of a language's catalogue (read once from the package's data)."""
    if name not in PARTS:
        raise KeyError(f"no catalogue part {name!r}; parts: {', '.join(PARTS)}")
    f = resources.files("fujian_mahjong").joinpath("web", "locale", norm_lang(lang), name + ".json")
    try:
        data: Any = json.loads(f.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    if not isinstance(data, dict):
        raise ValueError(f"{lang}/{name}.json: not a JSON object")
    return {str(k): str(v) for k, v in data.items()}


@cache
def catalogue(lang: str) -> dict[str, str]:
    """Every message of a language (all parts)."""
    out: dict[str, str] = {}
    for p in PARTS:
        out.update(part(lang, p))
    return out


def has(key: str, lang: str = "zh") -> bool:
    return key in catalogue(norm_lang(lang))


def msg(key: str, lang: str = "zh", **kw: object) -> str:
    """The message ``key`` in ``lang`` with its ``{placeholders}`` filled from ``kw``."""
    lang = norm_lang(lang)
    text = catalogue(lang).get(key)
    if text is None:
        text = catalogue("en" if lang == "zh" else "zh").get(key, key)
    return text.format(**kw) if kw else text


def t(key: str, lang: str = "zh", **kw: object) -> str:
    """Translate a CLI message key (``"hand"`` → ``cli.hand``) or any full key."""
    if not key.startswith(_FULL):
        key = "cli." + key
    return msg(key, lang, **kw)


_EN_SUIT = ("Character", "Dot", "Bamboo")
_EN_HONOUR = (
    "East wind",
    "South wind",
    "West wind",
    "North wind",
    "Red dragon",
    "Green dragon",
    "White dragon",
)


# the bots name tiles in every decision's reason: 42 kinds x the languages asked for (a
# bound, since ``lang`` may come from a request)
@lru_cache(maxsize=256)
def tile_name(kind: int, lang: str = "zh") -> str:
    """A tile kind (R1: 0-41) in words as the table names it: ``五饼``, ``东``, ``春`` (zh);
    ``5 Dots``, ``1 Dot``, ``9 Characters``, ``3 Bamboo``, ``East wind``, ``Red dragon``,
    ``Spring`` (en). The browser's ``tileName`` (web/js/tiles.js) says the same; reasons,
    narration and the replay use it, so a player reads one name per tile."""
    from fujian_mahjong.tiles import long_name

    if norm_lang(lang) == "zh":
        return long_name(kind, "zh")
    if kind < 27:
        r = kind % 9 + 1
        suit = _EN_SUIT[kind // 9]
        plural = "" if r == 1 or suit == "Bamboo" else "s"
        return f"{r} {suit}{plural}"
    if kind < 34:
        return _EN_HONOUR[kind - 27]
    return long_name(kind, "en")
