// The message catalogue (src/fujian_mahjong/web/locale/<lang>/<part>.json): every key of a
// zh part is in its en part and the other way round, placeholders agree, and the loader
// (js/i18n.js) resolves keys with the fallbacks docs/web.md describes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { PARTS, errorText, getLang, has, setLang, t } from "../../src/fujian_mahjong/web/js/i18n.js";

const LOCALE = new URL("../../src/fujian_mahjong/web/locale/", import.meta.url);

const holes = (s) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

const read = (lang, file) => JSON.parse(readFileSync(new URL(`${lang}/${file}`, LOCALE), "utf8"));

test("every part exists in both languages; the browser loads web, lobby, errors, engine", () => {
  const files = (lang) => readdirSync(new URL(`${lang}/`, LOCALE)).filter((f) => f.endsWith(".json")).sort();
  assert.deepEqual(files("zh"), files("en"));
  for (const part of ["web", "lobby", "errors", "engine"]) assert.deepEqual(PARTS.zh[part], read("zh", `${part}.json`));
});

for (const file of readdirSync(new URL("zh/", LOCALE)).filter((f) => f.endsWith(".json"))) {
  test(`catalogue part ${file}: the same keys and placeholders in zh and en`, () => {
    const zh = read("zh", file);
    const en = read("en", file);
    const part = file.replace(/\.json$/, "");
    assert.deepEqual(Object.keys(zh).filter((k) => !(k in en)), [], `missing in en/${part}.json`);
    assert.deepEqual(Object.keys(en).filter((k) => !(k in zh)), [], `missing in zh/${part}.json`);
    for (const k of Object.keys(zh)) if (k in en) assert.deepEqual(holes(zh[k]), holes(en[k]), `placeholders of ${k}`);
  });
}

test("t: the language's text, then en, then the key", () => {
  setLang("zh");
  assert.equal(getLang(), "zh");
  assert.equal(t("web.cancel_auto"), "取消托管");
  assert.equal(t("web.log.pong", { name: "对家", tile: "五饼" }), "对家 碰 五饼");
  assert.equal(t("no.such.key"), "no.such.key");
  assert.ok(has("ready"));
  setLang("en");
  assert.equal(t("web.cancel_auto"), "Cancel auto-play");
  assert.equal(t("ready"), "Ready"); // an old key lobby.js still uses
});

test("errorText: the catalogue's error.<code>, else the server's message", () => {
  assert.equal(errorText({ code: "no_such_code_here", message: "as the server says" }), "as the server says");
});

test("a seat's running total on the end screen and its title at the table: one total, singular", () => {
  // one number beside each seat (累计 -44): "Match totals -44" read as a plural of one
  setLang("en");
  assert.equal(t("totals"), "Match total");
  assert.equal(t("totals_short"), "Total");
  setLang("zh");
  assert.equal(t("totals"), "累计");
});
