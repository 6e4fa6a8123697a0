// Pure helpers of the lobby and the profile pages (no DOM, no network): the seed's level
// names in the UI language and the stakes a private table may be offered with. Unit tests:
// tests/js/lobbyhelpers.test.mjs.
import { getLang, has, t } from "./i18n.js";

/** The seed's 级别 and 段位 of a level (R11) in the UI language: in Chinese exactly as the
 * server gives them (`title_zh`, `rank_zh`), else the catalogue's `lobby.level_title.N` and
 * `lobby.level_rank.N` (the Chinese when a level has no entry). */
export function levelNames(level) {
  const zh = getLang() === "zh";
  const title = !zh && has(`lobby.level_title.${level.n}`) ? t(`lobby.level_title.${level.n}`) : level.title_zh;
  const rank = !zh && has(`lobby.level_rank.${level.n}`) ? t(`lobby.level_rank.${level.n}`) : level.rank_zh;
  return { title, rank };
}

// the private table's stakes the create form offers (silver per point; 0: points only)
export const STAKES = [0, 1, 2, 5, 10, 20, 50, 100];

/** The stakes to offer within the operator's bounds (`GET /api/stakes` → `{min, max}`;
 * null: the server does not say, offer the usual list): the usual ones inside the bounds,
 * and the bounds themselves when they are not among them (the largest only up to the
 * usual top, 100); never a stake outside. */
export function allowedStakes(bounds, usual = STAKES) {
  if (!bounds || !Number.isInteger(bounds.min) || !Number.isInteger(bounds.max) || bounds.min > bounds.max) return usual.slice();
  const { min, max } = bounds;
  const top = usual[usual.length - 1];
  const out = new Set(usual.filter((s) => s >= min && s <= max));
  out.add(min);
  if (max <= top) out.add(max);
  return [...out].sort((a, b) => a - b);
}

/** The stake the form starts on: 1 silver when allowed, else the least allowed one. */
export function defaultStake(stakes) {
  return stakes.includes(1) ? 1 : stakes[0];
}

/** The address of a finished hand's replay, seen from `seat` (app.js: `/?replay=HAND&seat=S`):
 * the review a player opens from their profile or the lobby's history is of their own seat,
 * as the server's `watch_url` has it (not seat 0's). A seat that is not a number is left out. */
export function replayHref(hand, seat) {
  const at = Number.isInteger(seat) && seat >= 0 ? `&seat=${seat}` : "";
  return `./?replay=${encodeURIComponent(hand)}${at}`;
}

/** What a table's summary (`GET /api/tables/{id}`) says to one who would sit there:
 * "closed", "playing" (a hand dealt, or between two hands of its match), "full" (every
 * seat taken, not dealt yet: nobody can sit, anyone can watch) or "open" (a seat is free). */
export function tableState(info, me = null) {
  const status = (info && info.status) || "open";
  if (status === "closed") return "closed";
  // a table where this player holds a seat is theirs to go back to, full or in play
  if (me !== null && me !== undefined && Array.isArray(info.seats) && info.seats.some((s) => s && !s.bot && s.player_id !== undefined && String(s.player_id) === String(me))) return "open";
  if (status !== "open") return "playing";
  const n = info.players ?? (Array.isArray(info.seats) ? info.seats.length : null);
  const taken = info.seats_taken ?? (Array.isArray(info.seats) ? info.seats.filter((s) => s && (s.name || s.bot)).length : null);
  return n !== null && taken !== null && taken >= n ? "full" : "open";
}

/**
 * What leaving mid-hand does to this player, for the warning before 离开 (docs/economy.md,
 * "Leaving mid-hand"): `{key, n}` of the locale line and the silver it costs. Practice:
 * nothing is charged. An account: the escape penalty where one applies. A guest at a table
 * where silver moves between the others (a stake): a bot plays its seat to the hand's end,
 * which is settled as played, then the match ends (the server's `hand_plays_on`); elsewhere
 * a guest's leave voids the hand, free.
 */
export function leaveWarning({ practice = false, penalty = null, guest = false, stake = 0 } = {}) {
  if (practice) return { key: "lobby.leave_practice", n: 0 };
  if (!guest && penalty !== null && penalty !== undefined && penalty > 0) return { key: "lobby.leave_costs", n: penalty };
  if (guest && stake > 0) return { key: "lobby.leave_guest_plays_on", n: 0 };
  if (guest && penalty) return { key: "lobby.leave_guest", n: 0 };
  return { key: "lobby.leave_voids", n: 0 };
}
