// Unit tests of the table's reducer (src/fujian_mahjong/web/js/reducer.js): server messages
// and local ones in, the table state, the action log, bubbles, the opening and sounds out.
import { test } from "node:test";
import assert from "node:assert/strict";
import { OPENING_PACE, initState, openingGoldShown, openingLive, openingLog, openingStepMs, openingSteps, handInProgress, reduce } from "../../src/fujian_mahjong/web/js/reducer.js";

function view(over = {}) {
  return {
    seat: 0,
    profile: "fuzhou-tcy",
    players: 4,
    dealer: 0,
    streak: 0,
    dice: [3, 4],
    gold: "4m",
    indicator: "4m",
    phase: "turn",
    turn: 0,
    to_act: [0],
    hand: "1234m56p789s11p2s3s",
    hand_sizes: [17, 16, 16, 16],
    melds: [[], [], [], []],
    flowers: ["1f", "", "2f3f", ""],
    discards: ["", "", "", ""],
    live: 80,
    reserve: 16,
    last_discard: null,
    xian_jin: [],
    jin_kan: {},
    gold_discarded: [],
    legal_actions: [{ type: "discard", tile: "1m" }],
    drawn: null,
    ...over,
  };
}

function state(v, extra = {}) {
  return { type: "state", table: 7, hand: 12, seq: 4, view: v, deadline_ms: 15000, seats: [{ name: "我" }, { name: "Bot 2", bot: true }, { name: "Bot 3", bot: true }, { name: "Bot 4", bot: true }], me: { seat: 0 }, ...extra };
}

test("a first state of a fresh hand starts the opening: dice, deal, 补花 from the dealer on, 开金", () => {
  const s = reduce(initState({ table: 7 }), state(view()), 1000);
  assert.equal(s.seat, 0);
  // nothing to decide while the opening is shown; the decision comes with it over
  assert.equal(s.mustAct, false);
  assert.equal(s.prompt, null);
  assert.equal(s.deadlineAt, 16000);
  assert.deepEqual(s.opening.steps.map((x) => x.kind), ["dice", "deal", "flower", "flower", "gold"]);
  assert.deepEqual(s.opening.steps.filter((x) => x.kind === "flower").map((x) => x.seat), [0, 2]);
  assert.deepEqual(s.log.map((e) => [e.kind, e.seat]), [["flower", 0], ["flower", 2], ["gold", 0]]);
  let t = s;
  for (let i = 0; i < 5; i++) t = reduce(t, { type: "@opening-step" }, 2000 + i);
  assert.equal(t.opening, null);
  assert.equal(t.mustAct, true);
  assert.deepEqual(t.prompt, { phase: "turn", actions: [{ type: "discard", tile: "1m" }], deadlineAt: 16000 });
  const skipped = reduce(s, { type: "@opening-skip" });
  assert.equal(skipped.opening, null);
  assert.equal(skipped.mustAct, true);
});

test("openingSteps starts the 补花 at the dealer", () => {
  const steps = openingSteps(view({ dealer: 2, flowers: ["1f", "2f", "3f", ""] }));
  assert.deepEqual(steps.filter((x) => x.kind === "flower").map((x) => x.seat), [2, 0, 1]);
});

test("the gold is named from the opening's 开金 on (R5: after the 补花), and with no opening", () => {
  const steps = openingSteps(view({ dealer: 2, flowers: ["1f", "2f", "3f", ""] }));
  const gold = steps.findIndex((x) => x.kind === "gold");
  assert.equal(gold, steps.length - 1);
  for (let step = 0; step < steps.length; step++) assert.equal(openingGoldShown({ steps, step }), step >= gold, `step ${step}`);
  assert.equal(openingGoldShown(null), true);
});

test("the log shows the opening's 补花 and 开金 lines as the opening reaches them", () => {
  const steps = openingSteps(view({ dealer: 2, flowers: ["1f", "2f", "3f", ""] }));
  const log = [
    { seat: 2, kind: "flower" },
    { seat: 0, kind: "flower" },
    { seat: 1, kind: "flower" },
    { seat: 2, kind: "gold" },
  ];
  const seen = steps.map((_x, step) => openingLog(log, { steps, step }).map((e) => `${e.kind}${e.seat}`).join(" "));
  assert.deepEqual(seen, ["", "", "flower2", "flower2 flower0", "flower2 flower0 flower1", "flower2 flower0 flower1 gold2"]);
  assert.equal(openingLog(log, null), log);
});

test("the second hand's opening leaves the first hand's lines in the log and shows its own as it goes", () => {
  // hand 12: its opening (补花 seat 0 and seat 2, 开金), skipped, then our discard
  let s = reduce(initState({ table: 7 }), state(view()), 1000);
  s = reduce(s, { type: "@opening-skip" }, 1100);
  s = reduce(s, { type: "discard", hand: 12, seat: 0, tile: "1m" }, 1200);
  const first = s.log.map((e) => `${e.kind}${e.seat}`);
  assert.deepEqual(first, ["flower0", "flower2", "gold0", "discard0"]);
  // hand 13 (下家 deals, flowers at seats 1 and 3): the log spans the match
  const v13 = view({ dealer: 1, turn: 1, to_act: [], legal_actions: [], hand_sizes: [16, 17, 16, 16], flowers: ["", "1f", "", "2f"] });
  s = reduce(s, state(v13, { hand: 13 }), 2000);
  assert.deepEqual(s.opening.steps.map((x) => x.kind), ["dice", "deal", "flower", "flower", "gold"]);
  const shown = () => openingLog(s.log, s.opening).map((e) => `${e.kind}${e.seat}`);
  assert.deepEqual(shown(), first); // the dice: none of this hand's lines yet
  s = reduce(s, { type: "@opening-step" }, 2100); // the deal
  s = reduce(s, { type: "@opening-step" }, 2200); // 下家's 补花
  assert.deepEqual(shown(), [...first, "flower1"]);
  // a bot's discard that arrives while the card still plays (a table without the
  // server's opening time) waits for the card, like the 开金 before it
  s = reduce(s, { type: "discard", hand: 13, seat: 1, tile: "9s" }, 2250);
  assert.deepEqual(shown(), [...first, "flower1"]);
  s = reduce(s, { type: "@opening-step" }, 2300); // 上家's 补花
  s = reduce(s, { type: "@opening-step" }, 2400); // 开金
  assert.deepEqual(shown(), [...first, "flower1", "flower3", "gold1"]);
  s = reduce(s, { type: "@opening-skip" }, 2500);
  assert.deepEqual(openingLog(s.log, s.opening).map((e) => `${e.kind}${e.seat}`), [...first, "flower1", "flower3", "gold1", "discard1"]);
});

test("余牌 counts down as the opening shows each 补花 and the 开金 (R4, R5)", () => {
  // from the view's flowers: 1f (the dealer), 2f 3f; then the indicator
  const steps = openingSteps(view({ dealer: 0, flowers: ["1f", "", "2f3f", ""] }));
  const seen = steps.map((_x, step) => openingLive(40, { steps, step }));
  assert.deepEqual(seen, [44, 44, 43, 41, 40]);
  assert.equal(openingLive(40, null), 40);
  // from the state's `opening`: a second round, and a flower flipped onto the dealer at 开金
  const opening = [
    { seat: 1, round: 1, flowers: "1f2f" },
    { seat: 0, round: 1, flowers: "3f", drawn: "5z" },
    { seat: 0, round: 2, flowers: "5z", drawn: "7p" },
    { gold: "4m", to_dealer: "6f" },
  ];
  const s = reduce(initState({ table: 7 }), state(view({ dealer: 1, live: 30 }), { opening }), 0);
  const all = s.opening.steps.map((_x, step) => openingLive(30, { steps: s.opening.steps, step }));
  assert.deepEqual(all, [36, 36, 34, 33, 32, 30]);
});

test("a hand over at its opening (三金倒 in window A, shown to the others only once over) still shows its opening", () => {
  const over = view({ phase: "over", to_act: [], legal_actions: [], result: { winner: 2, win: "three_golds", discarder: null } });
  const s = reduce(initState({ table: 7 }), state(over, { deadline_ms: null, opening_ms: 0 }), 1000);
  assert.deepEqual(s.opening.steps.map((x) => x.kind), ["dice", "deal", "flower", "flower", "gold"]);
  // one that ended later (a discard in a river) opens on its result
  const later = reduce(initState({ table: 7 }), state({ ...over, discards: ["9s", "", "", ""] }, { deadline_ms: null }), 1000);
  assert.equal(later.opening, null);
});

test("a reconnect mid-hand shows no opening", () => {
  const s = reduce(initState(), state(view({ discards: ["9s", "", "", ""] })), 0);
  assert.equal(s.opening, null);
  assert.equal(s.log.length, 0);
});

test("offline, no move can go with the dead connection's seq: the new connection's state brings its own", () => {
  let s = reduce(initState(), state(view({ discards: ["9s", "", "", ""] })), 0);
  assert.equal(s.seq, 4);
  s = reduce(s, { type: "@online", online: false }, 10);
  assert.equal(s.online, false);
  assert.equal(s.seq, null);
  s = reduce(s, { type: "seated", table: 7, seat: 0 }, 20);
  s = reduce(s, { type: "@online", online: true }, 20);
  assert.equal(s.online, true);
  assert.equal(s.seq, null); // seated, but no state of the new connection yet
  s = reduce(s, state(view({ discards: ["9s", "", "", ""] }), { seq: 2 }), 30);
  assert.equal(s.seq, 2);
});

test("a discard notice: into the river, out of our hand, logged with a sound", () => {
  let s = reduce(initState(), state(view()), 0);
  s = reduce(s, { type: "@sent", action: { type: "discard", tile: "1m" } }, 10);
  assert.equal(s.pending, true);
  s = reduce(s, { type: "discard", hand: 12, seat: 0, tile: "1m" }, 20);
  assert.equal(s.view.discards[0], "1m");
  assert.equal(s.view.hand.includes("1m"), false);
  assert.deepEqual(s.lastDiscard, { seat: 0, tile: "1m" });
  const last = s.log[s.log.length - 1];
  assert.deepEqual([last.kind, last.seat, last.tile], ["discard", 0, "1m"]);
  assert.equal(s.sounds[s.sounds.length - 1].name, "tile");
  assert.equal(s.mustAct, false);
});

test("an opponent's pong is announced with a bubble; a chow that lost is said", () => {
  let s = reduce(initState(), state(view({ turn: 3, to_act: [], legal_actions: [] })), 0);
  // seat 3 discards 5p; we (its 下家) are asked and answer chow
  s = reduce(s, { type: "discard", hand: 12, seat: 3, tile: "5p" }, 10);
  s = reduce(s, state(view({ phase: "claims", turn: 3, discards: ["", "", "", "5p"], last_discard: { seat: 3, tile: "5p" }, legal_actions: [{ type: "chow", tiles: "46p" }, { type: "pass" }] }), { seq: 5 }), 20);
  assert.equal(s.mustAct, true);
  s = reduce(s, { type: "@sent", action: { type: "chow", tiles: "46p" } }, 30);
  assert.equal(s.myClaim.type, "chow");
  // the window closes: seat 2 (对家) pongs the 5p
  const after = view({ phase: "turn", turn: 2, to_act: [], legal_actions: [], discards: ["", "", "", ""], melds: [[], [], [{ type: "pong", tiles: "555p", from: 3 }], []] });
  s = reduce(s, state(after, { seq: 6 }), 40);
  const kinds = s.log.map((e) => e.kind);
  assert.deepEqual(kinds.slice(-2), ["pong", "claim-lost"]);
  const pong = s.log[s.log.length - 2];
  assert.deepEqual([pong.seat, pong.tile], [2, "5p"]);
  const lost = s.log[s.log.length - 1];
  assert.deepEqual([lost.seat, lost.mine, lost.by, lost.byKind], [0, "chow", 2, "pong"]);
  assert.deepEqual(s.bubbles.map((b) => [b.seat, b.kind]), [[2, "pong"]]);
  assert.equal(s.myClaim, null);
  assert.equal(s.sounds[s.sounds.length - 1].name, "claim");
});

test("our own successful claim is not a lost one", () => {
  let s = reduce(initState(), state(view({ phase: "claims", to_act: [0], discards: ["", "", "", "5p"], last_discard: { seat: 3, tile: "5p" }, legal_actions: [{ type: "pong" }, { type: "pass" }] })), 0);
  s = reduce(s, { type: "@sent", action: { type: "pong" } }, 1);
  s = reduce(s, state(view({ discards: ["", "", "", ""], melds: [[{ type: "pong", tiles: "555p", from: 3 }], [], [], []] }), { seq: 5 }), 2);
  assert.deepEqual(s.log.map((e) => e.kind), ["pong"]);
});

test("a win on a discard: the winning tile and who dealt in", () => {
  let s = reduce(initState(), state(view({ turn: 1, discards: ["9s", "", "", ""], to_act: [] })), 0);
  s = reduce(s, { type: "discard", hand: 12, seat: 1, tile: "7p" }, 5);
  const over = view({ phase: "over", discards: ["9s", "", "", ""], result: { winner: 2, win: "discard", discarder: 1 }, hands: {} });
  s = reduce(s, state(over, { deadline_ms: null }), 10);
  const win = s.log[s.log.length - 1];
  assert.deepEqual([win.kind, win.seat, win.tile, win.from], ["win", 2, "7p", 1]);
  assert.equal(s.winTile, "7p");
  assert.ok(s.handEnd);
  assert.equal(s.sounds[s.sounds.length - 1].name, "win");
});

test("the hint selects the tile it suggests (the drawn one when it is that kind)", () => {
  let s = reduce(initState(), state(view({ hand: "1234m56p789s11p2s3s", drawn: "3s" })), 0);
  s = reduce(s, { type: "hint", action: { type: "discard", tile: "3s" }, reason: "r" });
  assert.equal(s.sel, 12); // 4m (the gold) first, 12 tiles, then the drawn 3s
  s = reduce(s, { type: "hint", action: { type: "discard", tile: "2m" }, reason: "r" });
  assert.equal(s.sel, 2);
});

test("托管 as asked until the seat list agrees", () => {
  let s = reduce(initState(), state(view()), 0);
  s = reduce(s, { type: "@auto", on: false });
  assert.equal(s.autoWant, false);
  s = reduce(s, { type: "seats", seats: [{ name: "我", auto: true }] });
  assert.equal(s.autoWant, false);
  s = reduce(s, { type: "seats", seats: [{ name: "我", auto: false }] });
  assert.equal(s.autoWant, undefined);
});

test("the reducer never changes the state it is given", () => {
  const s0 = reduce(initState(), state(view()), 0);
  const frozen = JSON.stringify(s0);
  reduce(s0, { type: "discard", hand: 12, seat: 0, tile: "1m" }, 1);
  reduce(s0, { type: "hint", action: { type: "discard", tile: "2m" } });
  reduce(s0, state(view({ phase: "over", result: null })), 2);
  assert.equal(JSON.stringify(s0), frozen);
});

test("the seat panels' flowers appear one 补花 at a time as the opening shows them", () => {
  const s0 = reduce(initState({ table: 7 }), state(view({ flowers: ["1f", "", "2f3f", ""] })), 0);
  // dice, deal: no flower shown yet
  assert.deepEqual(s0.opening.shown, [0, 0, 0, 0]);
  let s = reduce(s0, { type: "@opening-step" }, 1);
  assert.deepEqual(s.opening.shown, [0, 0, 0, 0]);
  s = reduce(s, { type: "@opening-step" }, 2); // seat 0 (the dealer) 补花
  assert.deepEqual(s.opening.shown, [1, 0, 0, 0]);
  s = reduce(s, { type: "@opening-step" }, 3); // seat 2
  assert.deepEqual(s.opening.shown, [1, 0, 2, 0]);
  assert.equal(s0.opening.shown[2], 0, "the state given is never changed");
  s = reduce(s, { type: "@opening-step" }, 4); // the gold
  s = reduce(s, { type: "@opening-step" }, 5);
  assert.equal(s.opening, null); // over: the panels show every flower
  // skipping shows them all at once
  assert.equal(reduce(s0, { type: "@opening-skip" }).opening, null);
});

test("with the state's `opening`: each 补花 in order, the replacements of our own seat only", () => {
  const opening = [
    { seat: 1, round: 1, flowers: "1f2f" },
    { seat: 0, round: 1, flowers: "3f", drawn: "5z" },
    { seat: 2, round: 1, flowers: "4f", drawn: "9m" }, // another seat's: never shown (R12)
    { seat: 0, round: 2, flowers: "5z", drawn: "7p" },
    { gold: "4m", to_dealer: "6f" },
  ];
  const v = view({ dealer: 1, flowers: ["3f5z", "1f2f6f", "4f", ""], hand_sizes: [16, 17, 16, 16] });
  const s = reduce(initState({ table: 7 }), state(v, { opening }), 0);
  const flowers = s.opening.steps.filter((x) => x.kind === "flower");
  assert.deepEqual(
    flowers.map((x) => [x.seat, x.round, x.tiles, x.drawn]),
    [
      [1, 1, ["1f", "2f"], null],
      [0, 1, ["3f"], ["5z"]],
      [2, 1, ["4f"], null],
      [0, 2, ["5z"], ["7p"]],
    ],
  );
  const gold = s.opening.steps[s.opening.steps.length - 1];
  assert.deepEqual([gold.kind, gold.seat, gold.toDealer], ["gold", 1, ["6f"]]);
  // the log names our replacements and nobody else's
  const logged = s.log.filter((e) => e.kind === "flower");
  assert.deepEqual(logged.map((e) => [e.seat, e.drawn]), [[1, null], [0, ["5z"]], [2, null], [0, ["7p"]]]);
  // the panels: the dealer's flipped flower appears with the gold step
  let t = s;
  const seen = [];
  while (t.opening) {
    seen.push(t.opening.shown.slice());
    t = reduce(t, { type: "@opening-step" }, 1);
  }
  assert.deepEqual(seen, [
    [0, 0, 0, 0],
    [0, 0, 0, 0],
    [0, 2, 0, 0],
    [1, 2, 0, 0],
    [1, 2, 1, 0],
    [2, 2, 1, 0],
    [2, 3, 1, 0],
  ]);
});

test("a spectator's opening names no replacement at all", () => {
  const opening = [{ seat: 0, round: 1, flowers: "1f", drawn: "2m" }, { gold: "4m", to_dealer: "" }];
  const v = view({ seat: null, hand: "", legal_actions: [], to_act: [] });
  const s = reduce(initState({ table: 7, as: "spectator" }), state(v, { me: { seat: null }, opening }), 0);
  const step = s.opening.steps.find((x) => x.kind === "flower");
  assert.equal(step.drawn, null);
  assert.equal(step.count, 1);
});

test("openingStepMs: longer for more flowers, bounded", () => {
  assert.equal(openingStepMs({ kind: "dice" }), OPENING_PACE.dice);
  const one = openingStepMs({ kind: "flower", tiles: ["1f"] });
  const four = openingStepMs({ kind: "flower", tiles: ["1f", "2f", "3f", "4f"] });
  assert.ok(four > one && four <= 3000);
  assert.ok(openingStepMs({ kind: "flower", tiles: Array(20).fill("1f") }) <= 3000);
});

test("听牌提示: a state of our own turn keeps the server's ready discards until a discard or the next state", () => {
  // mid-hand (a discard in a river: no opening), our turn
  const mid = view({ discards: ["", "9s", "", ""], hand: "123m456p789s1m2m3m1p1p2s3s7m", legal_actions: [{ type: "discard", tile: "7m" }, { type: "discard", tile: "1p" }] });
  const s = reduce(initState({ table: 7 }), state(mid, { ready_discards: { "7m": ["1s", "4s"] } }), 1000);
  assert.equal(s.mustAct, true);
  assert.deepEqual(s.readyDiscards, { "7m": ["1s", "4s"] });
  // our discard goes out: no more ready discards to show
  const after = reduce(s, { type: "discard", table: 7, hand: 12, seat: 0, tile: "7m" }, 1100);
  assert.equal(after.readyDiscards, null);
  // a state without them (another seat's turn) clears them too
  const next = reduce(s, state(view({ discards: ["7m", "9s", "", ""], turn: 1, to_act: [], legal_actions: [] })), 1200);
  assert.equal(next.readyDiscards, null);
});

test("a claim offered under 托管 plays no prompt sound: the server answers it, nothing is shown", () => {
  const claims = view({ phase: "claims", turn: 3, to_act: [0], discards: ["", "", "", "5p"], last_discard: { seat: 3, tile: "5p" }, legal_actions: [{ type: "pong" }, { type: "pass" }] });
  const before = reduce(initState(), state(view({ turn: 3, to_act: [], legal_actions: [] })), 0);
  const asked = reduce(before, state(claims, { seq: 5 }), 20);
  assert.ok(asked.sounds.some((x) => x.name === "prompt"));
  const auto = reduce(reduce(before, { type: "@auto", on: true }), state(claims, { seq: 5 }), 20);
  assert.equal(auto.sounds.some((x) => x.name === "prompt"), false);
  // the server's seat list says so too, once our ask has been agreed
  const seats = [{ name: "我", auto: true }, { name: "Bot 2", bot: true }, { name: "Bot 3", bot: true }, { name: "Bot 4", bot: true }];
  const listed = reduce(before, state(claims, { seq: 5, seats }), 20);
  assert.equal(listed.sounds.some((x) => x.name === "prompt"), false);
});

test("hand_start in the waiting room marks the hand as being dealt; with a table shown, nothing", () => {
  const waiting = reduce(initState(), { type: "hand_start", table: 1, hand: 7 });
  assert.equal(waiting.dealing, 7);
  const shown = { ...initState(), view: view() };
  assert.equal(reduce(shown, { type: "hand_start", table: 1, hand: 8 }), shown);
});

test("a new hand of the match starts with a line of its own in the log", () => {
  let s = reduce(initState(), { type: "state", table: 1, hand: 7, number: 0, seq: 1, view: view({ discards: ["1m", "", "", ""] }) });
  s = reduce(s, { type: "discard", table: 1, hand: 7, seat: 1, tile: "2m" });
  const before = s.log.length;
  assert.ok(before > 0);
  s = reduce(s, { type: "state", table: 1, hand: 8, number: 1, seq: 2, view: view() });
  const divider = s.log.find((e) => e.kind === "hand");
  assert.ok(divider, "no divider");
  assert.equal(divider.number, 2);
  assert.equal(s.log.indexOf(divider), before);
});

test("a hand dealt and then void, or a table closed, in the waiting room is not dealing any more", () => {
  const dealing = reduce(initState(), { type: "hand_start", table: 1, hand: 7 });
  for (const msg of [{ type: "hand_void", table: 1, hand: 7, leaver: 1 }, { type: "table_closed", table: 1 }, { type: "match_end", table: 1, totals: [0, 0, 0, 0] }]) {
    assert.equal(reduce(dealing, msg).dealing, null, msg.type);
  }
});

test("a room table's hand_end counts down to the next hand it deals by itself (next_hand_ms)", () => {
  let s = initState({ table: 7 });
  s = reduce(s, { type: "hand_end", table: 7, hand: 3, result: null, match_over: false, next_hand_ms: 20000, seq: 4 }, 1000);
  assert.equal(s.handEnd.nextHandAt, 21000);
  // a private table waits for its players: no countdown
  s = reduce(initState({ table: 7 }), { type: "hand_end", table: 7, hand: 3, result: null, match_over: false, seq: 4 }, 1000);
  assert.equal(s.handEnd.nextHandAt, null);
});

test("a hand void because a player left says who left (not a drawn hand: the wall did not run out)", () => {
  let s = reduce(initState({ table: 7 }), { type: "state", table: 7, hand: 5, view: view(), deadline_ms: null, seq: 1 }, 0);
  s = reduce(s, { type: "hand_void", table: 7, hand: 5, leaver: 2, seq: 2 }, 10);
  assert.equal(s.voidLeaver, 2);
  assert.equal(s.handEnd, null);
  // a vote's void is the 解散 screen's, not a leave
  const d = reduce(s, { type: "hand_void", table: 7, hand: 5, leaver: null, dissolved: true, seq: 3 }, 20);
  assert.equal(d.voidByVote, true);
  // the next hand's first state forgets it
  s = reduce(s, { type: "state", table: 7, hand: 6, view: view(), deadline_ms: null, seq: 4 }, 30);
  assert.equal(s.voidLeaver, null);
});

test("the last hand's bubbles (its 胡) go when the next hand is dealt", () => {
  let s = { ...initState({ table: 7 }), bubbles: [{ seat: 1, kind: "win", tile: "5p", at: 100 }] };
  s = reduce(s, { type: "hand_start", table: 7, hand: 6, seq: 3 }, 200);
  assert.deepEqual(s.bubbles, []);
});

test("a spectator who comes in a claim window sees a hand in progress, not a waiting room", () => {
  // R12: no board while the window is open; the page must not offer 准备 or an invite
  let s = { ...initState({ table: 7, as: "spectator" }) };
  assert.equal(handInProgress(s), false); // nothing known yet: the waiting room
  s = reduce(s, { type: "seated", table: 7, seat: null }, 0);
  assert.equal(handInProgress(s), false);
  // the table's summary says it plays
  assert.equal(handInProgress(reduce(s, { type: "@info", info: { status: "playing", players: 4, seats: [] } }, 1)), true);
  assert.equal(handInProgress(reduce(s, { type: "@info", info: { status: "open", players: 4, seats: [] } }, 1)), false);
  // a public notice of a discard, or of an added kong, before any board
  const d = reduce(s, { type: "discard", table: 7, hand: 3, seat: 1, tile: "5p" }, 2);
  assert.equal(d.view, null);
  assert.equal(handInProgress(d), true);
  assert.equal(handInProgress(reduce(s, { type: "added_kong", table: 7, hand: 3, seat: 1, tile: "5p" }, 2)), true);
  // the board arrives: the table is drawn as usual
  const v = reduce(d, { type: "state", table: 7, hand: 3, view: view(), deadline_ms: null, seq: 1 }, 3);
  assert.equal(handInProgress(v), false);
  // a hand being dealt says so itself (开局中)
  assert.equal(handInProgress({ ...d, dealing: 3 }), false);
});
