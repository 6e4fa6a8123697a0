// The table's state as a pure reducer (docs/web.md): reduce(state, message, now) → state.
// `message` is a server message (docs/protocol.md) or a local one whose type starts with "@"
// (a tap, a timer); `now` is the caller's clock in ms (performance.now()), so the reducer
// reads no clock itself. The table state, the prompt, the countdown's deadline, the action
// log, the bubbles, the opening being shown and the sounds to play are all plain data here;
// table.js renders them. Unit tests: tests/js/reducer.test.mjs.
import { handLayout, tileKeys } from "./helpers.js";
import { parseTiles } from "./tiles.js";

export const BUBBLE_MS = 2600;
const CLAIMS = ["chow", "pong", "kong", "win"];
// the opening's pace (ms per step) when there is time for it; the steps are scaled down so
// that the whole opening fits in OPENING_BUDGET_MS
export const OPENING_PACE = { dice: 700, deal: 700, flower: 900, gold: 1300 };
// the extra time per further flower of one 补花 step (the tiles appear one by one)
export const FLOWER_TILE_MS = 250;
// the server's opening (docs/protocol.md, "The opening"): for this long after a hand is
// shown nothing is decided; the state's `opening_ms` says how much of it is left
export const OPENING_MS = 3000;
// the client shows the whole opening within this share of it, whatever the flowers
export const OPENING_BUDGET_MS = 2800;
// at most this share of the budget for the dice, the deal and the 开金 when the 补花 need
// the rest
const FRAME_SHARE = 0.4;

export function initState({ table = null, as = "player", autoPass = false } = {}) {
  return {
    table,
    spectator: as === "spectator",
    seat: null,
    me: null,
    code: null,
    info: null,
    seats: null,
    players: null,
    view: null,
    hand: null,
    number: null,
    handsTotal: null,
    totals: null,
    waits: null,
    readyDiscards: null, // 听牌提示 on our own turn: {tile: waits} (the server's ready_discards)
    seq: null,
    deadlineAt: null,
    mustAct: false,
    pending: false,
    sel: null, // index into the displayed hand (handLayout order, drawn tile last)
    hint: null,
    handEnd: null,
    matchEnd: null,
    closed: false, // the server closed the table (table_closed): nothing more will come
    lastDiscard: null,
    winTile: null,
    myClaim: null, // the claim this seat answered in the open window
    autoPass,
    autoWant: undefined, // 托管 as this player last asked, until the seat list agrees
    readySent: false,
    readyFor: null,
    inPlay: false, // a public notice of a hand in play came before any board (R12)
    online: true,
    opening: null,
    asked: false, // the latest state asks this seat to act (shown once the opening is over)
    prompt: null, // the decision to render: { phase, actions, deadlineAt } or null
    dissolved: false, // 解散房间: the match is dissolved by vote (no prompt from then on)
    voidByVote: false, // the hand in play was void by it (hand_void, dissolved)
    voidLeaver: null, // the seat whose leave voided the hand in play (hand_void)
    log: [],
    bubbles: [],
    sounds: [],
    nextId: 1,
  };
}

function push(s, field, item) {
  const id = s.nextId;
  s.nextId += 1;
  s[field] = [...s[field], { id, ...item }];
  return id;
}

/** Whether 托管 is on for this player: as last asked, until the seat list agrees (the
 * banner, the decisions and the sounds all follow it: js/table.js). */
export function autoOn(s) {
  const me = (s.seats && s.seat !== null && s.seats[s.seat]) || {};
  return s.autoWant !== undefined ? s.autoWant : Boolean(me.auto);
}

/** Announce an action: a log entry, a bubble at the acting seat (claims, wins, flowers, the
 * gold) and its sound. */
function announce(s, entry, now, { bubble = true, sound = null } = {}) {
  push(s, "log", entry);
  if (bubble && entry.kind !== "discard" && entry.kind !== "claim-lost") push(s, "bubbles", { seat: entry.seat, kind: entry.kind, tile: entry.tile || null, at: now });
  if (sound) push(s, "sounds", { name: sound });
}

function meldKind(type) {
  return type.startsWith("kong") ? "kong" : type;
}

function claimedTile(m, lastDiscard) {
  if (m.type === "chow" || m.type === "pong" || m.type === "kong_exposed") {
    if (lastDiscard && lastDiscard.seat === m.from) return lastDiscard.tile;
  }
  const t = parseTiles(m.tiles || "");
  return t.length ? t[t.length - 1] : null;
}

/** A view at the very start of a hand (after the deal, 补花 and 开金, before any discard). */
export function freshHand(v) {
  return v.phase !== "over" && untouched(v);
}

/** A hand that ended at its opening, before any discard or meld (三金倒 or 天胡 in window A,
 * R7: the other seats are shown it only once it is over, R12): its opening is still shown. */
export function endedAtOpening(v) {
  return v.phase === "over" && untouched(v);
}

/** No discard and no meld yet. */
function untouched(v) {
  return v.discards.every((d) => !d) && v.melds.every((ms) => !ms.length);
}

/** The opening as steps to show (R3, R4, R5): the dice, the deal, each 补花 in order from the
 * dealer on — one step per seat and round, its flowers and their replacements — and the 开金
 * flip with any flowers flipped onto the dealer.
 *
 * `opening` is the state message's optional `opening` (docs/protocol.md): the deal's flower
 * events `{"seat", "round", "flowers", "drawn"?}` and the gold's `{"gold", "to_dealer"}`, the
 * replacements (`drawn`) given for the receiving seat only (R12). Without it the client knows
 * only each seat's flowers from the view (and its own hand after the replacements): one step
 * per seat, the replacements counted but not named, the flowers flipped at 开金 among the
 * dealer's. Each flower step carries `tiles` (the flowers), `drawn` (the replacement tiles,
 * or null where they are not this viewer's to see) and `count` (how many were replaced). */
export function openingSteps(v, opening = null) {
  const steps = [{ kind: "dice", dice: v.dice || null }, { kind: "deal" }];
  let toDealer = [];
  if (Array.isArray(opening) && opening.length) {
    for (const e of opening) {
      if (e && typeof e.seat === "number" && e.flowers) {
        const tiles = parseTiles(e.flowers);
        const drawn = e.seat === v.seat && typeof e.drawn === "string" ? parseTiles(e.drawn) : null;
        steps.push({ kind: "flower", seat: e.seat, round: e.round ?? 1, tiles, drawn, count: tiles.length });
      } else if (e && e.to_dealer !== undefined) toDealer = parseTiles(e.to_dealer || "");
    }
  } else {
    for (let i = 0; i < v.players; i++) {
      const seat = (v.dealer + i) % v.players;
      const tiles = parseTiles(v.flowers[seat] || "");
      if (tiles.length) steps.push({ kind: "flower", seat, round: 1, tiles, drawn: null, count: tiles.length });
    }
  }
  steps.push({ kind: "gold", seat: v.dealer, indicator: v.indicator, gold: v.gold, toDealer });
  return steps;
}

/** Whether the opening has come to its 开金 (or is over): until then the gold stays
 * unnamed on the page — no gold mark and no gold-first order in the hand, no gold in the
 * centre — as at a real table, where the gold is turned up after the 补花 (R4, R5). */
export function openingGoldShown(opening) {
  if (!opening) return true;
  const at = opening.steps.findIndex((x) => x.kind === "gold");
  return at < 0 || opening.step >= at;
}

/** 余牌 (the live wall) as far as the opening has shown it: each 补花 still to be shown draws
 * as many tiles as it replaces flowers (R4), and the 开金 still to come turns up the
 * indicator and any flowers flipped onto the dealer (R5), all from the wall — so `live`
 * (the view's, after the whole opening) plus what is still to come; `live` itself once the
 * opening is over. The dice and the deal show the wall as dealt. */
export function openingLive(live, opening) {
  if (!opening || typeof live !== "number") return live;
  let n = live;
  opening.steps.forEach((x, i) => {
    if (i <= opening.step) return;
    if (x.kind === "flower") n += x.count ?? x.tiles.length;
    if (x.kind === "gold") n += 1 + (x.toDealer ? x.toDealer.length : 0);
  });
  return n;
}

/** The action log as far as the opening has shown it: the earlier hands' lines (ids below
 * the opening's `logFrom`), then this hand's 补花 lines one step at a time (the first k, k
 * the 补花 steps shown so far) and its 开金 line from the flip on, like the seat panels'
 * flowers (`openingFlowersShown`); what came after the opening (a bot's discard, a win at
 * the opening) once the card is gone; the whole log once the opening is over. */
export function openingLog(log, opening) {
  if (!opening) return log;
  let flowers = opening.steps.filter((x, i) => i <= opening.step && x.kind === "flower").length;
  const gold = openingGoldShown(opening);
  const from = opening.logFrom ?? 0;
  return log.filter((e) => {
    if (e.id < from) return true;
    if (e.kind === "gold") return gold;
    if (e.kind !== "flower") return false;
    flowers -= 1;
    return flowers >= 0;
  });
}

/** How many of each seat's flowers the opening has shown up to and including step `upto`
 * (the seat panels show only these while the opening runs; null: the opening is over, show
 * them all). */
export function openingFlowersShown(opening, players) {
  if (!opening) return null;
  const shown = Array.from({ length: players }, () => 0);
  opening.steps.forEach((st, i) => {
    if (i > opening.step) return;
    if (st.kind === "flower") shown[st.seat] += st.tiles.length;
    if (st.kind === "gold" && st.toDealer) shown[st.seat] += st.toDealer.length;
  });
  return shown;
}

/** The natural pace of a step (ms): a 补花 step lasts longer the more flowers it shows, so
 * that each flower and its replacement can be seen. */
function stepPace(step) {
  if (step.kind === "flower") return OPENING_PACE.flower + FLOWER_TILE_MS * Math.max(0, step.tiles.length - 1);
  return OPENING_PACE[step.kind] || OPENING_PACE.deal;
}

/** The opening's steps timed (`ms` each) to fit `budget` ms in all: each step its natural
 * pace when they fit; else the dice, the deal and the 开金 share at most FRAME_SHARE of the
 * budget and the 补花 steps the rest (all of it when they need it: many flowers), each
 * group scaled down evenly. */
export function timeOpening(steps, budget = OPENING_BUDGET_MS) {
  const paces = steps.map(stepPace);
  const sum = (pred) => paces.reduce((a, p, i) => a + (pred(steps[i]) ? p : 0), 0);
  const isFlower = (st) => st.kind === "flower";
  const frame = sum((st) => !isFlower(st));
  const flowers = sum(isFlower);
  if (frame + flowers <= budget) return steps.map((st, i) => ({ ...st, ms: paces[i] }));
  const flowerMs = Math.min(flowers, budget - Math.min(frame, budget * FRAME_SHARE));
  const frameMs = budget - flowerMs;
  const k = (st) => (isFlower(st) ? flowerMs / flowers : frameMs / frame);
  return steps.map((st, i) => ({ ...st, ms: Math.floor(paces[i] * k(st)) }));
}

/** The opening to show from a fresh hand's first state: its steps timed within the budget,
 * started where the server's opening is (`openingMs`: the state's `opening_ms`, the time
 * left of the server's OPENING_MS; a client that reloads mid-opening resumes it there).
 * null when nothing is left of it. */
export function startOpening(steps, hand, now, openingMs = undefined) {
  const timed = timeOpening(steps);
  if (openingMs === undefined || openingMs === null) return { hand, step: 0, steps: timed, at: now, timed: false };
  if (!(openingMs > 0)) return null;
  // the client's time line is the server's scaled to the budget: it ends a little earlier
  const elapsed = (Math.max(0, OPENING_MS - openingMs) * OPENING_BUDGET_MS) / OPENING_MS;
  let start = 0;
  for (let i = 0; i < timed.length; i++) {
    const end = start + timed[i].ms;
    if (elapsed < end) {
      const left = timed.slice();
      left[i] = { ...timed[i], ms: Math.max(1, Math.round(end - elapsed)) };
      return { hand, step: i, steps: left, at: now, timed: true };
    }
    start = end;
  }
  return null;
}

/** The time a step is shown (ms): its share of the opening's budget. */
export function openingStepMs(step) {
  if (!step) return 0;
  if (typeof step.ms === "number") return step.ms;
  return Math.min(stepPace(step), OPENING_BUDGET_MS);
}

/** The decision to render, derived: none while the opening is shown (nothing is decided
 * under it: the server gives the full time after it) or once the match is dissolved. */
function withPrompt(s) {
  const on = Boolean(s.asked && !s.opening && !s.dissolved && s.view);
  const prompt = on ? { phase: s.view.phase, actions: s.view.legal_actions || [], deadlineAt: s.deadlineAt } : null;
  if (on === s.mustAct && samePrompt(prompt, s.prompt)) return s;
  return { ...s, mustAct: on, prompt };
}

function samePrompt(a, b) {
  if (a === b) return true;
  if (!a || !b) return false;
  return a.phase === b.phase && a.actions === b.actions && a.deadlineAt === b.deadlineAt;
}

/** The first state after a join carries the hand's public `history` (docs/protocol.md,
 * server/visibility.py): the action log as a watching client has it, without bubbles or
 * sounds. */
function historyEntry(x) {
  switch (x.kind) {
    case "flower": {
      const e = { seat: x.seat, kind: "flower", tiles: parseTiles(x.flowers || "") };
      if (x.round !== undefined && x.round !== null) e.drawn = typeof x.drawn === "string" ? parseTiles(x.drawn) : null;
      return e;
    }
    case "gold":
      return { seat: x.seat, kind: "gold", tile: x.indicator, gold: x.gold, toDealer: parseTiles(x.to_dealer || "") };
    case "discard":
      return { seat: x.seat, kind: "discard", tile: x.tile };
    case "chow":
    case "pong":
    case "kong":
      return { seat: x.seat, kind: x.kind, meld: x.meld, tile: x.tile ?? null, tiles: x.tiles ?? null, from: x.from ?? null };
    case "win":
      return { seat: x.seat, kind: "win", win: x.win, tile: x.tile ?? null, from: x.from ?? null };
    case "draw":
      return { seat: x.seat, kind: "draw_game" };
    case "claim_lost":
      return { seat: x.seat, kind: "claim-lost", mine: x.mine, by: x.by, byKind: x.by_kind, tile: x.tile ?? null };
    default:
      return null;
  }
}

function restoreHistory(s, history) {
  for (const x of history) {
    const e = x && typeof x === "object" ? historyEntry(x) : null;
    if (e) push(s, "log", e);
    if (e && e.kind === "win" && x.tile) s.winTile = x.tile;
  }
}

/** What happened between two views of the same hand, announced. */
function diffViews(s, prev, v, now) {
  const n = v.players;
  for (let seat = 0; seat < n; seat++) {
    const before = parseTiles(prev.discards[seat] || "");
    const after = parseTiles(v.discards[seat] || "");
    if (after.length > before.length) {
      for (const tile of after.slice(before.length)) {
        announce(s, { seat, kind: "discard", tile }, now, { sound: "tile" });
        s.lastDiscard = { seat, tile };
      }
    }
  }
  for (let seat = 0; seat < n; seat++) {
    const before = prev.melds[seat] || [];
    const after = v.melds[seat] || [];
    after.forEach((m, i) => {
      const old = before[i];
      if (old && old.type === m.type) return;
      const kind = meldKind(m.type);
      announce(s, { seat, kind, meld: m.type, tile: claimedTile(m, s.lastDiscard), tiles: m.tiles || null, from: m.from ?? null }, now, { sound: "claim" });
    });
    const fb = parseTiles(prev.flowers[seat] || "");
    const fa = parseTiles(v.flowers[seat] || "");
    if (fa.length > fb.length) announce(s, { seat, kind: "flower", tiles: fa.slice(fb.length) }, now, { sound: "tile" });
  }
  if (v.phase === "over" && prev.phase !== "over") {
    const r = v.result;
    if (r) {
      let tile = null;
      if (r.win === "discard" && s.lastDiscard && s.lastDiscard.seat === r.discarder) tile = s.lastDiscard.tile;
      else if (r.win === "rob_gold") tile = v.indicator;
      else if (r.winner === s.seat && prev.drawn) tile = prev.drawn;
      s.winTile = tile;
      announce(s, { seat: r.winner, kind: "win", win: r.win, tile, from: r.discarder ?? null }, now, { sound: "win" });
    } else announce(s, { seat: v.dealer, kind: "draw_game" }, now, { bubble: false });
  }
  // a claim this seat made that lost to a higher one (R6), said as such
  if (s.myClaim && v.phase !== "claims") {
    const mine = s.myClaim;
    const myMelds = (v.melds[s.seat] || []).length > (prev.melds[s.seat] || []).length;
    const iWon = v.result && v.result.winner === s.seat;
    if (!myMelds && !iWon) {
      const taker = s.log.slice(-6).find((e) => e.seat !== s.seat && ["chow", "pong", "kong", "win"].includes(e.kind) && e.id > mine.since);
      if (taker) announce(s, { seat: s.seat, kind: "claim-lost", mine: mine.type, by: taker.seat, byKind: taker.kind, tile: mine.tile }, now, { bubble: false });
    }
    s.myClaim = null;
  }
}

function stateMessage(state, msg, now) {
  const s = { ...state };
  let v = msg.view || null;
  // a dissolved match (解散房间): a state still on its way asks nothing (the hand is void)
  if (v && s.dissolved && (v.legal_actions || []).length) v = { ...v, legal_actions: [] };
  s.seq = msg.seq ?? s.seq;
  if (msg.seats) s.seats = msg.seats;
  if (typeof msg.me === "number") s.seat = msg.me;
  else if (msg.me && typeof msg.me === "object") {
    s.me = { ...(s.me || {}), ...msg.me };
    if (msg.me.seat !== undefined) s.seat = msg.me.seat;
  }
  if (msg.number !== undefined) s.number = msg.number;
  if (msg.totals) s.totals = msg.totals;
  if (msg.hands !== undefined) s.handsTotal = msg.hands;
  s.players = msg.players ?? (v ? v.players : s.players);
  s.waits = msg.waits ?? null;
  s.readyDiscards = msg.ready_discards ?? null;
  s.pending = false;
  s.hint = null;
  const newHand = msg.hand !== state.hand;
  if (newHand) {
    s.voidLeaver = null;
    s.bubbles = []; // the last hand's 胡 is not said over the next one's table
    s.sel = null;
    s.lastDiscard = null;
    s.myClaim = null;
    s.winTile = null;
    s.opening = null;
  }
  if (s.handEnd && v && v.phase !== "over" && msg.hand !== s.handEnd.handNo) {
    s.handEnd = null;
    s.readyFor = null;
  }
  s.hand = msg.hand;
  s.deadlineAt = msg.deadline_ms !== null && msg.deadline_ms !== undefined ? now + msg.deadline_ms : null;
  s.asked = Boolean(v && s.seat !== null && (v.to_act || []).includes(s.seat) && (v.legal_actions || []).length);
  if (v) {
    const prev = state.view;
    const history = Array.isArray(msg.history) && (newHand || !prev) ? msg.history : null;
    // a new hand of the match: a line of its own in the log (第 2 盘), so that the hands'
    // lines do not run together (the log spans the match)
    if (newHand && prev && s.log.length && typeof msg.number === "number") push(s, "log", { kind: "hand", number: msg.number + 1 });
    if ((newHand || !prev) && (freshHand(v) || endedAtOpening(v))) {
      const steps = openingSteps(v, msg.opening);
      // a hand over at its opening: the server's opening time no longer bounds anything
      // (it sends 0), so the whole opening is shown at its own pace
      s.opening = startOpening(steps, msg.hand, now, endedAtOpening(v) ? undefined : msg.opening_ms);
      if (s.opening) {
        s.opening.shown = openingFlowersShown(s.opening, v.players);
        s.opening.logFrom = s.nextId; // this hand's lines start here (the log spans the match)
      }
      if (!history) {
        for (const st of steps) {
          if (st.kind === "flower") announce(s, { seat: st.seat, kind: "flower", tiles: st.tiles, drawn: st.drawn }, now, { bubble: false });
          if (st.kind === "gold") announce(s, { seat: st.seat, kind: "gold", tile: st.indicator, gold: st.gold, toDealer: st.toDealer }, now, { bubble: false });
        }
      }
    } else if (prev && !newHand) diffViews(s, prev, v, now);
    if (history) restoreHistory(s, history);
    // the server's opening ends at the first discard or meld (docs/protocol.md); without
    // its time (a table of bots) the opening runs on, but never over a decision of ours
    if (s.opening && !freshHand(v) && (s.opening.timed || s.asked)) s.opening = null;
    if (v.last_discard) s.lastDiscard = v.last_discard;
    else if (s.lastDiscard) {
      // a claimed discard leaves the river: it is no longer the last discard
      const r = parseTiles(v.discards[s.lastDiscard.seat] || "");
      if (r[r.length - 1] !== s.lastDiscard.tile) s.lastDiscard = null;
    }
    // (not under 托管: the server answers, and no prompt is shown, js/table.js)
    if (s.asked && !s.opening && !s.dissolved && v.phase === "claims" && !state.mustAct && !autoOn(s)) push(s, "sounds", { name: "prompt" });
    const count = handLayout(v).tiles.length + (handLayout(v).drawn ? 1 : 0);
    if (s.sel !== null && s.sel >= count) s.sel = null;
    if (v.phase === "over" && !s.handEnd) s.handEnd = { handNo: msg.hand, id: String(msg.hand), fromView: true };
  }
  s.view = v;
  s.bubbles = s.bubbles.filter((b) => now - b.at < BUBBLE_MS * 2);
  s.sounds = s.sounds.slice(-8);
  return s;
}

/** A public `discard` notice (R12 rev 2): the tile joins the river at once (and leaves this
 * seat's hand when it is ours); no decision is open until the next state. */
function discardMessage(state, msg, now) {
  if (!state.view || msg.hand !== state.hand || state.view.phase === "over") return state;
  const s = { ...state };
  const v = { ...state.view, legal_actions: [] };
  v.discards = v.discards.slice();
  v.discards[msg.seat] = `${v.discards[msg.seat] || ""}${msg.tile}`;
  if (Array.isArray(v.hand_sizes)) {
    v.hand_sizes = v.hand_sizes.slice();
    v.hand_sizes[msg.seat] = Math.max(0, v.hand_sizes[msg.seat] - 1);
  }
  if (msg.seat === s.seat && v.hand !== undefined) {
    const tiles = parseTiles(v.hand || "");
    const i = tiles.lastIndexOf(msg.tile);
    if (i >= 0) tiles.splice(i, 1);
    v.hand = tiles.join("");
    v.drawn = null;
    s.sel = null;
  }
  s.view = v;
  s.asked = false;
  s.deadlineAt = null;
  s.readyDiscards = null;
  s.lastDiscard = { seat: msg.seat, tile: msg.tile };
  // our own discard: we are done watching; any discard ends the server's opening
  if (msg.seat === s.seat || (s.opening && s.opening.timed)) s.opening = null;
  announce(s, { seat: msg.seat, kind: "discard", tile: msg.tile }, now, { sound: "tile" });
  return s;
}

/** Whether a page with no board yet belongs to a hand being played: the server shows nothing
 * to a newcomer while a claim window is open or the claim pause lasts (R12), so a spectator
 * can come in between a discard and the next state. Told by the table's summary
 * (`status: "playing"`), a public notice (`discard`, `added_kong`) or a hand number. Such a
 * page is not a waiting room: nobody is to get ready or be invited. */
export function handInProgress(st) {
  if (st.view || st.dealing || st.closed || st.matchEnd) return false;
  return Boolean(st.inPlay || st.hand !== null || (st.info && st.info.status === "playing"));
}

export function reduce(state, msg, now = 0) {
  const s = reduceMessage(state, msg, now);
  return s === state ? s : withPrompt(s);
}

/** A prompt that can no longer be answered (a void hand, a dissolved match, the table
 * gone): no decision, no countdown. */
function noPrompt(state) {
  const s = { ...state, asked: false, deadlineAt: null, pending: false };
  if (state.view && state.view.legal_actions && state.view.legal_actions.length) s.view = { ...state.view, legal_actions: [] };
  return s;
}

function reduceMessage(state, msg, now) {
  switch (msg.type) {
    case "welcome":
      return { ...state, me: { ...(state.me || {}), player_id: msg.player_id, name: msg.name } };
    case "seated":
      return { ...state, table: msg.table ?? state.table, code: msg.code ?? state.code, seat: msg.seat ?? null, pending: false };
    case "state":
      return stateMessage(state, msg, now);
    case "discard":
      // a public notice with no board yet (a spectator who came in a claim window: R12)
      // still tells that the hand is being played
      if (!state.view) return state.inPlay ? state : { ...state, inPlay: true };
      return discardMessage(state, msg, now);
    case "added_kong":
      if (!state.view) return state.inPlay ? state : { ...state, inPlay: true };
      if (state.view.phase !== "over") return { ...state, view: { ...state.view, legal_actions: [] }, asked: false, deadlineAt: null };
      return state;
    case "left":
      if (state.view && state.view.phase !== "over") return { ...state, view: { ...state.view, legal_actions: [] }, asked: false, deadlineAt: null };
      return state;
    case "dissolve":
      // 解散房间 agreed (docs/protocol.md): the hand is void, nothing is left to decide
      if (msg.outcome === "dissolved") return { ...noPrompt(state), dissolved: true, opening: null };
      return state;
    case "hand_void": {
      const s = { ...noPrompt(state), opening: null, dealing: null };
      if (!msg.dissolved && typeof msg.leaver === "number") {
        // void because a player left (R9/R11): its end screen says so, not 流局 (the wall
        // did not run out), after the toast has gone
        s.voidLeaver = msg.leaver;
        s.handEnd = null;
      }
      if (msg.dissolved) {
        // the hand in play is void by the vote: its end screen says so (not the result of
        // a hand that ended before it)
        s.dissolved = true;
        s.voidByVote = true;
        s.handEnd = null;
      }
      return s;
    }
    case "table_closed":
      return { ...noPrompt(state), closed: true, dealing: null };
    case "hand_start":
      // the hand is dealt: a page still in the waiting room says so until its first state
      // (which comes when the opening's pause, and any window in it, is over: R12)
      // and the last hand's bubbles (its 胡) go: they are not said over the next one
      if (state.view) return state.bubbles.length ? { ...state, bubbles: [] } : state;
      return { ...state, dealing: msg.hand ?? true, bubbles: [] };
    case "hand_end": {
      // a room table deals the next hand by itself (next_hand_ms): the page counts it down
      const nextHandAt = typeof msg.next_hand_ms === "number" ? now + msg.next_hand_ms : null;
      const s = { ...state, handEnd: { ...msg, handNo: msg.hand, id: msg.id ?? String(msg.hand), nextHandAt } };
      if (msg.hands_total) s.handsTotal = msg.hands_total;
      if (msg.totals) s.totals = msg.totals;
      return s;
    }
    case "match_end": {
      const s = { ...noPrompt(state), matchEnd: msg, dealing: null };
      if (msg.dissolved) s.dissolved = true;
      if (msg.totals) s.totals = msg.totals;
      if (!s.handEnd) s.handEnd = { handNo: state.hand, fromView: true };
      return s;
    }
    case "seats": {
      const s = { ...state, seats: msg.seats };
      const mine = s.seat !== null && msg.seats ? msg.seats[s.seat] : null;
      if (mine && s.autoWant !== undefined && Boolean(mine.auto) === s.autoWant) s.autoWant = undefined;
      return s;
    }
    case "hint": {
      const s = { ...state, hint: msg };
      // the hint selects the tile it suggests, so Enter (or the discard button) throws it
      if (msg.action && msg.action.type === "discard" && state.view) {
        const { tiles, drawn } = handLayout(state.view);
        const all = drawn ? [...tiles, drawn] : tiles;
        const i = drawn === msg.action.tile ? all.length - 1 : all.lastIndexOf(msg.action.tile);
        if (i >= 0) s.sel = i;
      }
      return s;
    }
    case "error":
      return { ...state, pending: false, readySent: false };
    // ---- local messages
    case "@info": {
      const s = { ...state, info: msg.info };
      if (msg.info && Array.isArray(msg.info.totals)) s.totals = msg.info.totals;
      if (msg.info && msg.info.players) s.players = msg.info.players;
      if (msg.info && Array.isArray(msg.info.seats) && !state.view) s.seats = msg.info.seats;
      return s;
    }
    case "@select":
      return { ...state, sel: msg.index };
    case "@sent": {
      // an answer sent: no countdown (after a claim answer the next state may come only when
      // the window closes, R12 rev 2)
      const s = { ...state, pending: true, sel: null, hint: null, deadlineAt: null };
      const a = msg.action;
      if (state.view && state.view.phase === "claims" && CLAIMS.includes(a.type)) {
        const ld = state.view.last_discard;
        s.myClaim = { type: a.type, tile: ld ? ld.tile : a.tile || null, since: state.nextId - 1 };
      }
      return s;
    }
    case "@online":
      // offline, the state's seq is the dead connection's: a move is made again on the
      // state the new connection sends (an old seq there reads as one never sent)
      return msg.online ? { ...state, online: true, replaced: false } : { ...state, online: false, seq: null };
    case "@replaced":
      // the seat opened in another window: offline here until the player takes it back
      return { ...state, online: false, seq: null, replaced: true };
    case "@auto":
      return { ...state, autoWant: msg.on };
    case "@auto-pass":
      return { ...state, autoPass: msg.on };
    case "@ready-sent":
      return { ...state, readySent: true };
    case "@ready-next":
      return { ...state, readyFor: state.hand };
    case "@opening-step": {
      if (!state.opening) return state;
      const step = state.opening.step + 1;
      if (step >= state.opening.steps.length) return { ...state, opening: null };
      const opening = { ...state.opening, step, at: now };
      opening.shown = openingFlowersShown(opening, state.view ? state.view.players : opening.shown.length);
      return { ...state, opening };
    }
    case "@opening-skip":
      return { ...state, opening: null };
    default:
      return state;
  }
}

/** The keys of the displayed hand (stable per tile: see helpers.tileKeys). */
export function handKeys(view) {
  const { tiles, drawn } = handLayout(view);
  const keys = tileKeys(tiles);
  if (drawn) keys.push("drawn");
  return keys;
}
