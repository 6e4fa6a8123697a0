// Unit tests of the table's pure helpers (src/fujian_mahjong/web/js/helpers.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import { goldHeldBack, handLayout, hintReason, relation, riverRows, standings, tileKeys, waitCounts } from "../../src/fujian_mahjong/web/js/helpers.js";
import * as H from "../../src/fujian_mahjong/web/js/helpers.js";

test("relation: 下家 is the next seat, on the right (R2)", () => {
  assert.deepEqual(relation(1, 0, 4), { pos: "right", key: "rel_next" });
  assert.deepEqual(relation(2, 0, 4), { pos: "top", key: "rel_across" });
  assert.deepEqual(relation(3, 0, 4), { pos: "left", key: "rel_prev" });
  assert.deepEqual(relation(0, 1, 4), { pos: "left", key: "rel_prev" });
  assert.deepEqual(relation(2, 2, 4), { pos: "bottom", key: "me" });
  assert.deepEqual(relation(0, 2, 3), { pos: "right", key: "rel_next" });
  assert.deepEqual(relation(1, 2, 3), { pos: "left", key: "rel_prev" });
  assert.deepEqual(relation(1, 0, 2), { pos: "top", key: "rel_across" });
});

test("relation: a spectator's bottom seat is not labelled 我", () => {
  assert.equal(relation(0, null, 4).pos, "bottom");
  assert.notEqual(relation(0, null, 4).key, "me");
  assert.equal(relation(1, null, 4).key, "rel_next");
});

test("handLayout: golds first, the drawn tile apart", () => {
  const v = { hand: "1234m55p9s", gold: "5p", drawn: "3m" };
  assert.deepEqual(handLayout(v), { tiles: ["5p", "5p", "1m", "2m", "4m", "9s"], drawn: "3m" });
  assert.deepEqual(handLayout({ hand: "11m", gold: "9s", drawn: null }), { tiles: ["1m", "1m"], drawn: null });
  assert.deepEqual(handLayout({ hand: "", gold: null }), { tiles: [], drawn: null });
});

test("tileKeys: the n-th copy of a kind keeps its key", () => {
  assert.deepEqual(tileKeys(["1m", "1m", "2p", "1m"]), ["1m#1", "1m#2", "2p#1", "1m#3"]);
});

test("riverRows cuts the river in discard order", () => {
  assert.deepEqual(riverRows(["1m", "2m", "3m", "4m", "5m"], 2), [["1m", "2m"], ["3m", "4m"], ["5m"]]);
  assert.deepEqual(riverRows([], 6), []);
});

test("waitCounts: 4 of a kind less what this seat can see (R12: its own view only)", () => {
  const view = {
    hand: "3m3m4m",
    discards: ["3m", "", "6p", ""],
    melds: [[], [{ type: "pong", tiles: "666p" }], [{ type: "kong_concealed", tiles: null }], []],
    indicator: "9s",
    gold: "9s",
  };
  assert.deepEqual(waitCounts(view, ["3m", "6p", "9s", "1s"]), [
    { tile: "3m", left: 1 },
    { tile: "6p", left: 0 },
    { tile: "9s", left: 3 },
    { tile: "1s", left: 4 },
  ]);
  assert.deepEqual(waitCounts(view, null), []);
});

test("standings: ties share a rank", () => {
  const r = standings([4, 18, 4, -26]);
  assert.deepEqual(r.map((x) => [x.seat, x.rank]), [[1, 1], [0, 2], [2, 2], [3, 4]]);
  assert.deepEqual(standings({ 0: 5, 1: 5 }).map((x) => x.rank), [1, 1]);
});

test("hintReason: the action named once (建议: 打出 九条 — 打后两向听), a head that says more kept", () => {
  assert.equal(hintReason("打 九条: 打后两向听"), "打后两向听");
  assert.equal(hintReason("discard 9 Bamboo: leaves the hand 2 tiles from ready"), "leaves the hand 2 tiles from ready");
  assert.equal(hintReason("过: 已听牌, 吃碰只换听口, 还少摸一张"), "已听牌, 吃碰只换听口, 还少摸一张");
  assert.equal(hintReason("pass: no claim brings the hand closer to ready (it is ready)"), "no claim brings the hand closer to ready (it is ready)");
  assert.equal(hintReason("吃 八万 (用 七万九万): 手牌从两向听变为一向听"), "手牌从两向听变为一向听");
  assert.equal(hintReason("chow 8 Characters with 7 Characters and 9 Characters: the hand moves to 1 tile from ready (it was 2 tiles from ready)"), "the hand moves to 1 tile from ready (it was 2 tiles from ready)");
  assert.equal(hintReason("胡牌: 牌已成"), "牌已成");
  assert.equal(hintReason("kong 2 Bamboo: one more flower point, the hand stays 2 tiles from ready"), "one more flower point, the hand stays 2 tiles from ready");
  assert.equal(hintReason("杠: 多一花"), "多一花");
  assert.equal(hintReason("抢金: 已听牌"), "已听牌");
  assert.equal(hintReason("rob the gold (抢金): the hand is ready"), "the hand is ready");
  assert.equal(hintReason("concealed kong 2 Bamboo: one more flower point"), "one more flower point");
  // kept whole: they say more than the action
  for (const r of ["防守: 打 九条, 不打 七万 — 上家可能已听", "打 二条, 不打 九饼: 保持听牌", "过胡 (32): 等自摸期望 48", "pass the win (32): waiting for a self-draw is worth 48", "fold: discard 1 Character, not 8 Characters", "discard 2 Bamboo, not 9 Dots: keeps the hand ready"]) {
    assert.equal(hintReason(r), r);
  }
  assert.equal(hintReason(undefined), "");
});

test("goldHeldBack: a gold held that no offered discard names (R5, gold_discard forbidden: 三明) is said, from the offer alone", () => {
  // 三明: the gold 4m held, the server offers the other tiles only
  assert.equal(goldHeldBack(["4m", "1p", "2s"], "4m", new Set(["1p", "2s"])), true);
  // 福州 (self_draw_only): the gold is among the discards offered
  assert.equal(goldHeldBack(["4m", "1p", "2s"], "4m", new Set(["4m", "1p", "2s"])), false);
  // no gold held, or nothing to discard now (another seat's turn)
  assert.equal(goldHeldBack(["1p", "2s"], "4m", new Set(["1p", "2s"])), false);
  assert.equal(goldHeldBack(["4m", "1p"], "4m", new Set()), false);
  assert.equal(goldHeldBack(["4m"], null, new Set(["4m"])), false);
});

// A chow's button shows the run it makes, in rank order, the taken discard marked; the chows
// on one discard stand lowest run first after the other claims (R6).
test("a chow is shown as its run, the claimed tile marked", () => {
  assert.deepEqual(H.chowRun("46p", "5p"), [
    { tile: "4p", claimed: false },
    { tile: "5p", claimed: true },
    { tile: "6p", claimed: false },
  ]);
  assert.deepEqual(
    H.chowRun("45p", "3p").map((r) => r.tile),
    ["3p", "4p", "5p"],
  );
  // the server lists the chows on a 5p as it likes; the buttons read 345, 456, 567
  const order = ["win", "pong", "chow", "pass"];
  const acts = [
    { type: "pass" },
    { type: "chow", tiles: "67p" },
    { type: "chow", tiles: "46p" },
    { type: "pong", tile: "5p" },
    { type: "chow", tiles: "34p" },
  ];
  assert.deepEqual(
    H.sortActions(acts, order, "5p").map((a) => a.tiles || a.type),
    ["pong", "34p", "46p", "67p", "pass"],
  );
});
