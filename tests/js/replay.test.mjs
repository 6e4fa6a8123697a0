// The replay's words for a decision (src/fujian_mahjong/web/js/replay.js `actionText`): the
// board's centre line says what the narration says (R7: a win on one's own turn is 自摸).
import { test } from "node:test";
import assert from "node:assert/strict";
import { setLang } from "../../src/fujian_mahjong/web/js/i18n.js";
import { actionText } from "../../src/fujian_mahjong/web/js/replay.js";

test("a win on one's own turn reads 自摸, a win on a discard 胡", () => {
  setLang("zh");
  assert.equal(actionText({ type: "win" }, "turn"), "自摸");
  assert.equal(actionText({ type: "win" }, "claims"), "胡");
  assert.equal(actionText({ type: "win" }), "胡");
  assert.equal(actionText({ type: "win" }, "last_group"), "自摸"); // the last group's draws
  setLang("en");
  assert.equal(actionText({ type: "win" }, "turn"), "Win (self-draw)");
  assert.equal(actionText({ type: "win" }, "claims"), "Win");
  setLang("zh");
});

test("a claim names the discard it takes (the action itself carries no tile)", () => {
  setLang("zh");
  assert.equal(actionText({ type: "pong" }, "claims", "9m"), "碰 九万");
  assert.equal(actionText({ type: "kong" }, "claims", "9m"), "杠 九万");
  assert.equal(actionText({ type: "chow", tiles: "89m" }, "claims", "7m"), "吃 七万（八万 九万）");
  assert.equal(actionText({ type: "pass" }, "claims", "7m"), "过");
  // a concealed kong on one's own turn is its own tile, never the last discard
  assert.equal(actionText({ type: "concealed_kong", tile: "3s" }, "turn", "7m"), "暗杠 三条");
  setLang("en");
  assert.equal(actionText({ type: "pong" }, "claims", "5p"), "Pong 5 Dots");
  assert.equal(actionText({ type: "chow", tiles: "89m" }, "claims", "7m"), "Chow 7 Characters with 8 Characters 9 Characters");
  setLang("zh");
});
