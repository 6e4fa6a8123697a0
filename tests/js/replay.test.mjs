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
