// The lobby's pure helpers (src/fujian_mahjong/web/js/lobbyhelpers.js): the seed's level names
// in the UI language (R11: the Chinese exactly as scoring/settlement.py's LEVELS, an English
// rendering per level in the lobby catalogue) and the stakes the create form offers within
// the operator's bounds (GET /api/stakes).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { setLang } from "../../src/fujian_mahjong/web/js/i18n.js";
import { STAKES, allowedStakes, defaultStake, leaveWarning, levelNames, replayHref, tableState } from "../../src/fujian_mahjong/web/js/lobbyhelpers.js";

const ROOT = new URL("../../src/fujian_mahjong/", import.meta.url);
const SEED = [...readFileSync(new URL("scoring/settlement.py", ROOT), "utf8").matchAll(/\((\d+), "([^"]+)", "([^"]+)", \d+\)/g)].map((m) => ({
  n: Number(m[1]),
  title_zh: m[2],
  rank_zh: m[3],
}));
const lobby = (lang) => JSON.parse(readFileSync(new URL(`web/locale/${lang}/lobby.json`, ROOT), "utf8"));

test("the catalogue has every level of the seed: Chinese exactly as R11, English apart", () => {
  assert.equal(SEED.length, 24);
  assert.deepEqual(SEED[0], { n: 1, title_zh: "待业", rank_zh: "麻袋" });
  assert.deepEqual(SEED[23], { n: 24, title_zh: "财神", rank_zh: "麻将无敌" });
  const zh = lobby("zh");
  const en = lobby("en");
  for (const lv of SEED) {
    assert.equal(zh[`lobby.level_title.${lv.n}`], lv.title_zh);
    assert.equal(zh[`lobby.level_rank.${lv.n}`], lv.rank_zh);
    for (const k of [`lobby.level_title.${lv.n}`, `lobby.level_rank.${lv.n}`]) {
      assert.ok(en[k] && !/[\u4e00-\u9fff]/.test(en[k]), `${k} in English: ${en[k]}`);
    }
  }
  const titles = new Set(SEED.map((lv) => en[`lobby.level_title.${lv.n}`]));
  assert.equal(titles.size, 24, "every English title differs");
});

test("the English ladder reads as titles: short, capitalised, faithful in its steps", () => {
  // "Jobless · Rookie" read oddly: titles as a player reads a rank, each part short enough
  // for the lobby's badge and a leaderboard's column (20 characters at most), in title case
  const en = lobby("en");
  for (const lv of SEED) {
    for (const k of [`lobby.level_title.${lv.n}`, `lobby.level_rank.${lv.n}`]) {
      assert.ok(en[k].length <= 20, `${k} is long: ${en[k]}`);
      assert.ok(/^[A-Z0-9]/.test(en[k]) && !en[k].includes("·"), `${k}: ${en[k]}`);
    }
  }
  // the ladder's steps as the Chinese has them: the street's, the teahouse's and the hotel's
  // three dans, the gamblers' films, the richest from the club to the world
  assert.deepEqual([2, 3, 4].map((n) => en[`lobby.level_rank.${n}`]), ["Street 1st Dan", "Street 2nd Dan", "Street 3rd Dan"]);
  assert.deepEqual([17, 18, 19].map((n) => en[`lobby.level_title.${n}`]), ["King of Gamblers", "Saint of Gamblers", "God of Gamblers"]);
  assert.equal(en["lobby.level_title.23"], "Richest in the World");
});

test("levelNames: the server's Chinese in zh, the catalogue's English in en", () => {
  setLang("zh");
  assert.deepEqual(levelNames(SEED[0]), { title: "待业", rank: "麻袋" });
  setLang("en");
  assert.deepEqual(levelNames(SEED[0]), { title: "Job Seeker", rank: "Novice" });
  assert.deepEqual(levelNames(SEED[23]), { title: "God of Wealth", rank: "The Invincible" });
  // a level the catalogue does not know keeps the server's words
  assert.deepEqual(levelNames({ n: 99, title_zh: "某", rank_zh: "某段" }), { title: "某", rank: "某段" });
  setLang("zh");
});

test("allowedStakes: only stakes within the operator's bounds", () => {
  assert.deepEqual(allowedStakes({ min: 0, max: 10 ** 9, max_fee_ratio: 1 }), STAKES);
  assert.deepEqual(allowedStakes({ min: 0, max: 50 }), [0, 1, 2, 5, 10, 20, 50]);
  assert.deepEqual(allowedStakes({ min: 3, max: 30 }), [3, 5, 10, 20, 30]);
  assert.deepEqual(allowedStakes({ min: 7, max: 7 }), [7]);
  assert.deepEqual(allowedStakes({ min: 200, max: 10 ** 9 }), [200]);
  for (const b of [{ min: 0, max: 50 }, { min: 3, max: 30 }, { min: 200, max: 10 ** 9 }]) {
    for (const s of allowedStakes(b)) assert.ok(b.min <= s && s <= b.max);
  }
  // the server said nothing usable: the usual list (the server still refuses outside)
  assert.deepEqual(allowedStakes(null), STAKES);
  assert.deepEqual(allowedStakes({ min: 5, max: 2 }), STAKES);
});

test("defaultStake: 1 silver when allowed, else the least", () => {
  assert.equal(defaultStake(allowedStakes({ min: 0, max: 100 })), 1);
  assert.equal(defaultStake(allowedStakes({ min: 3, max: 30 })), 3);
  assert.equal(defaultStake(allowedStakes({ min: 0, max: 0 })), 0);
});

test("a replay link from the profile or the lobby keeps the player's seat", () => {
  // as the server's watch_url: /?replay=H&seat=S (the review of that seat, not seat 0's)
  assert.equal(replayHref(41, 2), "./?replay=41&seat=2");
  assert.equal(replayHref("41", 0), "./?replay=41&seat=0");
  assert.equal(replayHref(41, null), "./?replay=41");
  assert.equal(replayHref(41, undefined), "./?replay=41");
});

test("a full table that has not dealt is told from one in play", () => {
  // GET /api/tables/{id}: status open|playing|between|closed, seats_taken of players
  assert.equal(tableState({ status: "open", players: 4, seats_taken: 2 }), "open");
  assert.equal(tableState({ status: "open", players: 4, seats_taken: 4 }), "full");
  assert.equal(tableState({ status: "open", players: 3, seats: [{ name: "a" }, { bot: true }, { name: "c" }] }), "full");
  assert.equal(tableState({ status: "open", players: 3, seats: [{ name: "a" }, {}, { name: "c" }] }), "open");
  assert.equal(tableState({ status: "playing", players: 4, seats_taken: 4 }), "playing");
  assert.equal(tableState({ status: "between", players: 4, seats_taken: 4 }), "playing");
  // a player seated there goes back to their seat, full or in play
  const seats = [{ name: "a", player_id: 7 }, { bot: true }, { name: "c", player_id: 9 }];
  assert.equal(tableState({ status: "open", players: 3, seats }, 7), "open");
  assert.equal(tableState({ status: "playing", players: 3, seats }, "9"), "open");
  assert.equal(tableState({ status: "playing", players: 3, seats }, 8), "playing");
  assert.equal(tableState({ status: "closed", players: 3, seats }, 7), "closed");
  assert.equal(tableState({ status: "closed", players: 4, seats_taken: 4 }), "closed");
  assert.equal(tableState({}), "open");
});

test("the leave warning says what the server does (docs/economy.md, Leaving mid-hand)", () => {
  // an account pays the escape penalty; practice is free
  assert.deepEqual(leaveWarning({ penalty: 127, stake: 5 }), { key: "lobby.leave_costs", n: 127 });
  assert.equal(leaveWarning({ practice: true, penalty: 127, stake: 5 }).key, "lobby.leave_practice");
  // a guest where silver moves between the others: the hand plays on (a bot in its seat),
  // settled as played; it said the hand would be void (economy.hand_plays_on)
  assert.equal(leaveWarning({ guest: true, penalty: 127, stake: 5 }).key, "lobby.leave_guest_plays_on");
  // a guest at a points-only table (a fee, no stake): the hand is void, free
  assert.equal(leaveWarning({ guest: true, penalty: 2, stake: 0 }).key, "lobby.leave_guest");
  assert.equal(leaveWarning({ penalty: null }).key, "lobby.leave_voids");
  for (const lang of ["zh", "en"]) assert.ok(lobby(lang)["lobby.leave_guest_plays_on"], lang);
});
