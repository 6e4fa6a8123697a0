"""Rule profiles (data) — see RULES.md and the TOML files in ``profiles/``."""

from fujian_mahjong.rules.profile import (
    BUILTIN,
    DEFAULT,
    SPECIAL_KEYS,
    Profile,
    get_profile,
    load_profile_file,
)

__all__ = ["BUILTIN", "DEFAULT", "SPECIAL_KEYS", "Profile", "get_profile", "load_profile_file"]
