// The reducer's opening within its time, a reload that keeps the log and the opening, and a
// dissolved match that leaves no prompt (docs/web.md "The opening", docs/protocol.md "The
// opening", `history`, 解散房间).
import { test } from "node:test";
import assert from "node:assert/strict";
import * as R from "../../src/fujian_mahjong/web/js/reducer.js";

const { initState, openingStepMs, openingSteps, reduce } = R;
// the server's opening and the client's share of it (docs/protocol.md, "The opening")
const OPENING_MS = R.OPENING_MS ?? 3000;
const OPENING_BUDGET_MS = R.OPENING_BUDGET_MS ?? 2800;

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

const SEATS = [{ name: "我" }, { name: "Bot 2", bot: true }, { name: "Bot 3", bot: true }, { name: "Bot 4", bot: true }];

function state(v, extra = {}) {
  return { type: "state", table: 7, hand: 12, seq: 4, view: v, deadline_ms: 15000, seats: SEATS, me: { seat: 0 }, ...extra };
}

// every flower there is, spread over the seats in several rounds: the longest opening
const MANY = [
  { seat: 0, round: 1, flowers: "1234f5z6z", drawn: "1m2m3m4m5m6m" },
  { seat: 1, round: 1, flowers: "5f6f7f8f" },
  { seat: 2, round: 1, flowers: "1z2z3z4z" },
  { seat: 3, round: 1, flowers: "7z" },
  { seat: 0, round: 2, flowers: "5z", drawn: "7m" },
  { seat: 1, round: 2, flowers: "6z" },
  { seat: 2, round: 2, flowers: "7z" },
  { gold: "4m", to_dealer: "" },
];

/** The whole opening as table.js runs it: each step shown for openingStepMs of it. */
function runOpening(s) {
  let total = 0;
  let t = s;
  let guard = 0;
  while (t.opening && guard++ < 100) {
    total += openingStepMs(t.opening.steps[t.opening.step]);
    t = reduce(t, { type: "@opening-step" }, 0);
  }
  return { total, end: t };
}

test("the whole opening fits in 3 s, whatever the flowers", () => {
  for (const opening of [undefined, [{ gold: "4m", to_dealer: "" }], MANY]) {
    for (const openingMs of [undefined, OPENING_MS]) {
      const s = reduce(initState(), state(view({ flowers: ["1234f567z", "5678f6z", "12347z", "7z"] }), { opening, opening_ms: openingMs }), 0);
      const { total, end } = runOpening(s);
      assert.ok(total > 0 && total <= OPENING_BUDGET_MS, `${total} ms`);
      // every step long enough to be seen, the dice and the 开金 too
      for (const st of s.opening.steps) assert.ok(openingStepMs(st) >= 150, `${st.kind}: ${openingStepMs(st)} ms`);
      assert.ok(openingStepMs(s.opening.steps[0]) >= 250);
      assert.ok(total <= 3000);
      assert.equal(end.opening, null);
    }
  }
  // the legacy pace of a step never exceeds the budget either
  for (const st of openingSteps(view(), MANY)) assert.ok(openingStepMs(st) <= OPENING_BUDGET_MS);
});

test("nothing is asked while the opening is shown; its deadline is kept for after it", () => {
  const s = reduce(initState(), state(view(), { opening: MANY, opening_ms: OPENING_MS, deadline_ms: OPENING_MS + 15000 }), 1000);
  assert.ok(s.opening);
  assert.equal(s.mustAct, false);
  assert.equal(s.prompt, null);
  assert.equal(s.deadlineAt, 1000 + OPENING_MS + 15000);
  const { end } = runOpening(s);
  assert.equal(end.mustAct, true);
  // the full turn is left once the opening is over (the server's deadline counts from its end)
  assert.equal(end.prompt.deadlineAt - (1000 + OPENING_MS), 15000);
  assert.deepEqual(end.prompt.actions, [{ type: "discard", tile: "1m" }]);
});

test("a reload mid-opening resumes it where the server's opening is; over: closed", () => {
  const at = (ms) => reduce(initState(), state(view(), { opening: MANY, opening_ms: ms, deadline_ms: ms + 15000 }), 0);
  const full = at(OPENING_MS);
  assert.equal(full.opening.step, 0);
  const half = at(OPENING_MS / 2);
  assert.ok(half.opening.step > 0, "resumed past the first steps");
  const left = runOpening(half).total;
  assert.ok(left > 0 && left <= OPENING_MS / 2, `${left} ms left`);
  // the flowers of the steps already shown are on the seat panels
  assert.ok(half.opening.shown[0] >= 6);
  // at its very end: the 开金 for what is left
  const last = at(100);
  assert.equal(last.opening.steps[last.opening.step].kind, "gold");
  assert.ok(runOpening(last).total <= 100);
  // over: no opening, the prompt at once, the log as it was
  const over = at(0);
  assert.equal(over.opening, null);
  assert.equal(over.mustAct, true);
  assert.deepEqual(over.log.map((e) => e.kind), ["flower", "flower", "flower", "flower", "flower", "flower", "flower", "gold"]);
});

test("a discard ends the server's opening (a player who acts first ends it for all)", () => {
  let s = reduce(initState(), state(view({ seat: 1, to_act: [], legal_actions: [], hand: "1234m56p789s11p2s3" }), { me: { seat: 1 }, opening_ms: 2000 }), 0);
  assert.ok(s.opening);
  s = reduce(s, { type: "discard", hand: 12, seat: 0, tile: "9s" }, 10);
  assert.equal(s.opening, null);
});

test("after a reload the action log comes back from the state's history", () => {
  const history = [
    { seat: 0, kind: "flower", round: 1, flowers: "1f", drawn: "9s" },
    { seat: 2, kind: "flower", round: 1, flowers: "2f3f" },
    { seat: 0, kind: "gold", indicator: "4m", gold: "4m", to_dealer: "" },
    { seat: 0, kind: "discard", tile: "9m" },
    { seat: 1, kind: "flower", flowers: "4f" },
    { seat: 1, kind: "discard", tile: "5p" },
    { seat: 2, kind: "pong", meld: "pong", tiles: "555p", from: 1, tile: "5p" },
    { seat: 0, kind: "claim_lost", mine: "chow", by: 2, by_kind: "pong", tile: "5p" },
    { seat: 2, kind: "kong", meld: "kong_concealed" },
    { seat: 2, kind: "discard", tile: "1s" },
  ];
  const v = view({ turn: 3, to_act: [], legal_actions: [], discards: ["9m", "", "1s", ""], flowers: ["1f", "4f", "2f3f", ""], melds: [[], [], [{ type: "pong", tiles: "555p", from: 1 }, { type: "kong_concealed", tiles: null }], []], last_discard: { seat: 2, tile: "1s" } });
  const s = reduce(initState(), state(v, { history, deadline_ms: null }), 0);
  assert.equal(s.opening, null);
  assert.deepEqual(s.log.map((e) => e.kind), ["flower", "flower", "gold", "discard", "flower", "discard", "pong", "claim-lost", "kong", "discard"]);
  assert.deepEqual(s.log[0].drawn, ["9s"]);
  assert.deepEqual(s.log[2], { id: s.log[2].id, seat: 0, kind: "gold", tile: "4m", gold: "4m", toDealer: [] });
  assert.deepEqual([s.log[6].seat, s.log[6].tile, s.log[6].from], [2, "5p", 1]);
  assert.deepEqual([s.log[7].mine, s.log[7].by, s.log[7].byKind], ["chow", 2, "pong"]);
  assert.equal(s.log[8].meld, "kong_concealed");
  assert.equal(s.bubbles.length, 0);
  assert.deepEqual(s.lastDiscard, { seat: 2, tile: "1s" });
  // the history is read once: a later state of the same hand adds to the log by comparing
  const t = reduce(s, state({ ...v, discards: ["9m", "", "1s", "2s"] }, { seq: 5, history }), 10);
  assert.equal(t.log.length, 11);
});

test("a reload in a fresh hand: the log from the history, the opening from its time", () => {
  const history = [
    { seat: 0, kind: "flower", round: 1, flowers: "1f", drawn: "9s" },
    { seat: 2, kind: "flower", round: 1, flowers: "2f3f" },
    { seat: 0, kind: "gold", indicator: "4m", gold: "4m", to_dealer: "" },
  ];
  const opening = [{ seat: 0, round: 1, flowers: "1f", drawn: "9s" }, { seat: 2, round: 1, flowers: "2f3f" }, { gold: "4m", to_dealer: "" }];
  const s = reduce(initState(), state(view(), { history, opening, opening_ms: 1200 }), 0);
  assert.ok(s.opening && s.opening.step > 0);
  assert.deepEqual(s.log.map((e) => e.kind), ["flower", "flower", "gold"]);
});

test("a dissolved match leaves no prompt, no countdown and says so", () => {
  const claim = view({ phase: "claims", turn: 3, discards: ["", "", "", "5p"], last_discard: { seat: 3, tile: "5p" }, legal_actions: [{ type: "chow", tiles: "46p" }, { type: "pass" }] });
  const asked = reduce(initState(), state(claim), 0);
  assert.equal(asked.mustAct, true);
  assert.ok(asked.prompt);
  for (const msg of [
    { type: "dissolve", table: 7, votes: { 0: true, 2: true }, deadline_ms: null, proposer: 2, outcome: "dissolved", seq: 9 },
    { type: "hand_void", table: 7, hand: 12, leaver: null, dissolved: true, seq: 9 },
    { type: "match_end", table: 7, totals: [0, 0, 0, 0], hands_played: 0, leaver: null, dissolved: true, history: [], seq: 9 },
  ]) {
    const s = reduce(asked, msg, 5);
    assert.equal(s.dissolved, true, msg.type);
    assert.equal(s.mustAct, false, msg.type);
    assert.equal(s.prompt, null, msg.type);
    assert.equal(s.deadlineAt, null, msg.type);
    assert.deepEqual(s.view.legal_actions, [], msg.type);
  }
  // a state that still comes before the void (the window closing) asks nothing either
  let s = reduce(asked, { type: "dissolve", outcome: "dissolved", votes: {}, deadline_ms: null, proposer: 0, table: 7, seq: 9 }, 5);
  s = reduce(s, state(view({ discards: ["", "", "", "5p"] }), { seq: 10 }), 6);
  assert.equal(s.mustAct, false);
  assert.equal(s.prompt, null);
  assert.deepEqual(s.view.legal_actions, []);
  // a vote refused or expired changes nothing
  const refused = reduce(asked, { type: "dissolve", outcome: "refused", votes: {}, deadline_ms: null, proposer: 0, table: 7, seq: 9 }, 5);
  assert.equal(refused.mustAct, true);
  assert.equal(refused.dissolved, false);
});

test("a hand decided before an agreed dissolution ends settled, not void", () => {
  // a win held by the claim pause when the vote is agreed: the hand ends as decided (its
  // hand_end, with its result and silver), then the match is dissolved (docs/protocol.md);
  // the vote alone asks nothing more but voids nothing: handend.js shows the result
  const over = reduce(initState(), state(view({ phase: "over", result: { winner: 1, discarder: 3, win: "discard" } })), 0);
  let s = reduce(over, { type: "dissolve", outcome: "dissolved", votes: {}, deadline_ms: null, proposer: 0, table: 7, seq: 9 }, 5);
  assert.equal(s.dissolved, true);
  assert.equal(s.voidByVote, false);
  s = reduce(s, { type: "hand_end", table: 7, hand: 12, id: 12, result: { winner: 1, discarder: 3, win: "discard" }, silver: { 0: { change: 0, fee: 1, balance: 99 } }, seq: 10 }, 6);
  s = reduce(s, { type: "match_end", table: 7, totals: [0, 5, 0, -5], hands_played: 1, leaver: null, dissolved: true, history: [], seq: 11 }, 7);
  assert.equal(s.voidByVote, false);
  assert.equal(s.handEnd.id, 12); // the settled hand's end, not a void one
  // a hand in play voided by the vote: its hand_void replaces an earlier hand's end screen
  const between = { ...s, dissolved: false, matchEnd: null };
  const next = reduce(between, state(view({ discards: ["9s", "", "", ""] }), { hand: 13, seq: 12 }), 8);
  const shown = { ...next, handEnd: { id: 12, handNo: 12 } };
  const voided = reduce(shown, { type: "hand_void", table: 7, hand: 13, leaver: null, dissolved: true, seq: 13 }, 9);
  assert.equal(voided.voidByVote, true);
  assert.equal(voided.handEnd, null);
  const ended = reduce(voided, { type: "match_end", table: 7, totals: [0, 5, 0, -5], hands_played: 1, leaver: null, dissolved: true, history: [], seq: 14 }, 10);
  assert.equal(ended.voidByVote, true);
  assert.equal(ended.handEnd.fromView, true);
});

test("a leaver's void hand and a closed table leave no prompt either", () => {
  const asked = reduce(initState(), state(view({ discards: ["9s", "", "", ""] })), 0);
  assert.equal(asked.mustAct, true);
  for (const msg of [{ type: "hand_void", table: 7, hand: 12, leaver: 2, seq: 9 }, { type: "table_closed", table: 7, reason: "match over", seq: 9 }]) {
    const s = reduce(asked, msg, 5);
    assert.equal(s.mustAct, false, msg.type);
    assert.equal(s.deadlineAt, null, msg.type);
    assert.equal(s.dissolved, false, msg.type);
    // the end screen marks a closed table (handend.js: data-closed) and no toast covers it
    assert.equal(s.closed, msg.type === "table_closed", msg.type);
  }
});
