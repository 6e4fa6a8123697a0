// The end of a match's silver line (src/fujian_mahjong/web/js/handend.js): match_end's
// `silver` for your own seat (docs/economy.md), never a spectator's, none where nothing moved.
import { test } from "node:test";
import assert from "node:assert/strict";
import { setLang } from "../../src/fujian_mahjong/web/js/i18n.js";
import { matchSilverText } from "../../src/fujian_mahjong/web/js/handend.js";

const MATCH = { silver: [{ change: -496, fees: 16, balance: 9504 }, null, { change: 480, fees: 16, balance: null }, null] };

test("your silver over the match, in both languages", () => {
  setLang("zh");
  assert.match(matchSilverText({ seat: 0 }, MATCH), /^本场银子 [−-]496（服务费 16）$/);
  assert.match(matchSilverText({ seat: 2 }, MATCH), /^本场银子 \+480（服务费 16）$/);
  setLang("en");
  assert.match(matchSilverText({ seat: 0 }, MATCH), /^Silver this match [−-]496 \(fees 16\)$/);
  setLang("zh");
});

test("no line for a spectator, a seat without an account or a match without silver", () => {
  assert.equal(matchSilverText({ seat: null }, MATCH), null);
  assert.equal(matchSilverText({ seat: 1 }, MATCH), null);
  assert.equal(matchSilverText({ seat: 0 }, { totals: [1, -1] }), null);
});
