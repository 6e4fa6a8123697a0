// Pure helpers of the table (no DOM, no clock): seat relations, the hand as displayed, river
// rows, the wait counter and standings. Unit tests: tests/js/helpers.test.mjs.
import { kindIndex, parseTiles, sortKinds } from "./tiles.js";

/** Position and label key of a seat relative to the viewer (R2: 下家 is the next seat, on
 * the viewer's right). A spectator (me null) sees seat 0 at the bottom, labelled by name. */
export function relation(seat, me, n) {
  const base = me ?? 0;
  const rel = (seat - base + n) % n;
  if (rel === 0) return { pos: "bottom", key: me === null || me === undefined ? "web.rel_bottom" : "me" };
  if (n === 4) return [null, { pos: "right", key: "rel_next" }, { pos: "top", key: "rel_across" }, { pos: "left", key: "rel_prev" }][rel];
  if (n === 3) return rel === 1 ? { pos: "right", key: "rel_next" } : { pos: "left", key: "rel_prev" };
  return { pos: "top", key: "rel_across" };
}

/** The hand as displayed: golds first, then by kind as the server sorts it; the drawn tile
 * apart at the end. */
export function handLayout(view) {
  const tiles = parseTiles((view && view.hand) || "");
  let drawn = null;
  if (view && view.drawn) {
    const i = tiles.lastIndexOf(view.drawn);
    if (i >= 0) {
      tiles.splice(i, 1);
      drawn = view.drawn;
    }
  }
  const gold = view ? view.gold : null;
  const golds = tiles.filter((k) => k === gold);
  const rest = tiles.filter((k) => k !== gold);
  return { tiles: [...golds, ...rest], drawn };
}

/** Keys that stay with a tile while the hand changes around it: the n-th copy of a kind keeps
 * the key `5p#n`, so a discard or a draw moves only the tiles it concerns. */
export function tileKeys(list) {
  const seen = {};
  return list.map((k) => {
    seen[k] = (seen[k] || 0) + 1;
    return `${k}#${seen[k]}`;
  });
}

/** A river cut into rows of `per` tiles, in discard order. */
export function riverRows(tiles, per = 6) {
  const rows = [];
  for (let i = 0; i < tiles.length; i += per) rows.push(tiles.slice(i, i + per));
  return rows;
}

/** Tiles of every kind this seat can see: its own hand, every river, every meld shown to it,
 * every flower, and the gold indicator (R12: nothing else). */
export function visibleCounts(view) {
  const c = {};
  const add = (k) => {
    c[k] = (c[k] || 0) + 1;
  };
  parseTiles(view.hand || "").forEach(add);
  for (const d of view.discards || []) parseTiles(d).forEach(add);
  for (const ms of view.melds || []) for (const m of ms || []) if (m && m.tiles) parseTiles(m.tiles).forEach(add);
  if (view.indicator) add(view.indicator);
  return c;
}

/** The wait counter: for each tile the seat waits on, how many are still unseen from its
 * own view (4 of each kind, less those it can see). */
export function waitCounts(view, waits) {
  if (!view || !Array.isArray(waits)) return [];
  const seen = visibleCounts(view);
  return waits.map((k) => ({ tile: k, left: Math.max(0, 4 - (seen[k] || 0)) }));
}

/** Standings from match totals (a list or {seat: points}): by points, ties share a rank
 * (18, 4, 4, -26 → 1, 2, 2, 4). */
export function standings(totals) {
  const entries = Array.isArray(totals) ? totals.map((p, s) => [s, p]) : Object.entries(totals || {}).map(([s, p]) => [Number(s), p]);
  const rows = entries.map(([seat, p]) => ({ seat, points: typeof p === "number" ? p : (p && (p.points ?? p.total)) ?? 0 }));
  rows.sort((a, b) => b.points - a.points || a.seat - b.seat);
  rows.forEach((r, i) => {
    r.rank = i > 0 && rows[i - 1].points === r.points ? rows[i - 1].rank : i + 1;
  });
  return rows;
}

/** A seat's name as the table shows it: the server's name, else its number. */
export function seatName(seats, s) {
  const info = seats && seats[s];
  if (info && info.name) return info.name;
  return `#${s}`;
}

/** Silver as digits with thousands separators (the lobby, the profile, the end screen). */
export function num(n) {
  if (n === null || n === undefined) return "—";
  return Number(n).toLocaleString("en-US");
}

// the bots' reasons begin with their action where it is all they decide ("打 九条: 打后两向听",
// "pass: no claim brings …"); a head that says more ("防守: …", "打 二条, 不打 九饼: …",
// "过胡 (32): …") is kept
const ACTION_HEAD = /^(?:(?:打|吃|碰|杠|暗杠|加杠) [^,:]+|杠|暗杠|加杠|抢金|过|胡牌|(?:discard|chow|pong|kong|concealed kong|added kong) [^,:]+|kong|concealed kong|added kong|rob the gold \(抢金\)|pass|win): /;

/** A hint's reason as shown after its action ("建议: 打出 九条 — 打后两向听"): without its
 * first words where they only name the action again. */
export function hintReason(reason) {
  const m = (reason || "").match(ACTION_HEAD);
  return m ? reason.slice(m[0].length) : reason || "";
}

/** Whether the seat holds a gold it may not discard now (R5: the profile's gold_discard
 * "forbidden", as in 三明): decided by the discards the server offers, not by the profile's
 * name — discards are offered and none of them is the gold held. */
export function goldHeldBack(held, gold, discards) {
  return Boolean(gold) && held.includes(gold) && discards.size > 0 && !discards.has(gold);
}

/** A chow offered on a discard as the run it makes: its three tiles in rank order, the
 * claimed discard marked (R6: a chow takes 上家's discard into a run of its suit), as a 吃
 * choice shows it at a 同城游 table, so 2-3-4 and 3-4-5 on the same 3 read apart at a glance. */
export function chowRun(pair, claimed) {
  const run = sortKinds([...parseTiles(pair), ...(claimed ? [claimed] : [])]);
  const at = run.indexOf(claimed);
  return run.map((tile, i) => ({ tile, claimed: i === at }));
}

/** The claim and window buttons in their order: by kind (`order`), and chows among
 * themselves left to right by the run they make (the lowest run first). */
export function sortActions(acts, order, claimed) {
  const low = (a) => (a.type === "chow" ? kindIndex(chowRun(a.tiles, claimed)[0].tile) : 0);
  return [...acts].sort((a, b) => order.indexOf(a.type) - order.indexOf(b.type) || low(a) - low(b));
}
