// Tiles (RULES.md R1): notation, names and tile elements drawn with the Noto Sans Symbols 2
// mahjong glyphs (assets/mahjong-tiles.woff2, OFL). Every tile element carries the DOM
// testing contract: data-tile="5p" and data-gold="1" for a gold (docs/web.md).

const SUITS = "mpszf";
const SUIT_BASE = { m: 0, p: 9, s: 18, z: 27, f: 34 };
const SUIT_MAX = { m: 9, p: 9, s: 9, z: 7, f: 8 };
const ZH_NUM = "一二三四五六七八九";
const ZH_SUIT = { m: "万", p: "饼", s: "条" };
const ZH_HONOUR = "东南西北中发白";
const ZH_BONUS = "春夏秋冬梅兰竹菊";
// English names as the Python side says them (fujian_mahjong.i18n.tile_name): "5 Dots",
// "1 Dot", "9 Characters", "3 Bamboo", "East wind", "Red dragon", "Chrysanthemum"
const EN_HONOUR = ["East wind", "South wind", "West wind", "North wind", "Red dragon", "Green dragon", "White dragon"];
const EN_BONUS = ["Spring", "Summer", "Autumn", "Winter", "Plum", "Orchid", "Bamboo", "Chrysanthemum"];
const EN_SUIT = { m: "Character", p: "Dot", s: "Bamboo" };

// Unicode Mahjong Tiles block: winds+dragons 1F000-1F006 (东南西北中发白), characters
// 1F007-1F00F, bamboo 1F010-1F018, circles 1F019-1F021, plants 1F022-1F025
// (梅兰竹菊), seasons 1F026-1F029 (春夏秋冬); 1F02B is the back.
const GLYPH_BASE = { m: 0x1f007, s: 0x1f010, p: 0x1f019, z: 0x1f000 };
export const BACK_GLYPH = String.fromCodePoint(0x1f02b);

/** Kind index (0..41) of a kind string such as "5p". */
export function kindIndex(k) {
  return SUIT_BASE[k[1]] + Number(k[0]) - 1;
}

/** Compact notation ("123m55p1z1z") → list of kind strings, in the given order. */
export function parseTiles(text) {
  const out = [];
  if (!text) return out;
  let digits = [];
  for (const ch of text) {
    if (ch >= "0" && ch <= "9") digits.push(ch);
    else if (SUITS.includes(ch)) {
      for (const d of digits) {
        const r = Number(d);
        if (r >= 1 && r <= SUIT_MAX[ch]) out.push(`${r}${ch}`);
      }
      digits = [];
    }
  }
  return out;
}

export function sortKinds(kinds) {
  return [...kinds].sort((a, b) => kindIndex(a) - kindIndex(b));
}

export function isFlower(k, profile) {
  if (k[1] === "f") return true;
  // R1: honours are flowers except in fuzhou-doudou (honours playable)
  return k[1] === "z" && profile !== "fuzhou-doudou";
}

export function glyph(k) {
  const r = Number(k[0]);
  const s = k[1];
  if (s === "f") return String.fromCodePoint(r <= 4 ? 0x1f026 + r - 1 : 0x1f022 + r - 5);
  return String.fromCodePoint(GLYPH_BASE[s] + r - 1);
}

/** A kind in words as the table names it ("五饼" / "5 Dots"; i18n.tile_name in Python). */
export function tileName(k, lang) {
  if (!k) return "";
  const r = Number(k[0]);
  const s = k[1];
  if (lang === "zh") {
    if (s === "z") return ZH_HONOUR[r - 1];
    if (s === "f") return ZH_BONUS[r - 1];
    return `${ZH_NUM[r - 1]}${ZH_SUIT[s]}`;
  }
  if (s === "z") return EN_HONOUR[r - 1];
  if (s === "f") return EN_BONUS[r - 1];
  return `${r} ${EN_SUIT[s]}${r === 1 || s === "s" ? "" : "s"}`;
}

/**
 * A tile element. opts: gold (kind string of the gold), size ("s"|"m"|"l"), drawn, back,
 * extra classes. Golds get data-gold="1", a golden face and a 金 badge.
 */
export function tileEl(k, opts = {}) {
  const el = document.createElement("span");
  el.className = `tile t-${opts.size || "m"}`;
  if (opts.back) {
    el.classList.add("back");
    el.dataset.back = "1";
    el.innerHTML = `<span class="g">${BACK_GLYPH}</span>`;
    return el;
  }
  el.dataset.tile = k;
  el.classList.add(`s-${k[1]}`);
  if (k[1] === "z") el.classList.add(`z${k[0]}`);
  const g = document.createElement("span");
  g.className = "g";
  g.textContent = glyph(k);
  el.appendChild(g);
  if (k[1] === "p" || k[1] === "s") {
    const ix = document.createElement("span");
    ix.className = "ix";
    ix.textContent = k[0];
    el.appendChild(ix);
  }
  if (opts.gold && k === opts.gold && !opts.notGold) {
    el.dataset.gold = "1";
    el.classList.add("gold");
    const b = document.createElement("span");
    b.className = "gold-badge";
    b.textContent = "金";
    el.appendChild(b);
  }
  if (opts.drawn) el.dataset.drawn = "1";
  if (opts.title !== false) el.title = tileName(k, opts.lang || "zh");
  return el;
}

/** A row of tiles from compact notation or a list. */
export function tileRow(tiles, opts = {}) {
  const row = document.createElement("span");
  row.className = `tiles ${opts.cls || ""}`;
  const list = typeof tiles === "string" ? parseTiles(tiles) : tiles;
  for (const k of list) row.appendChild(tileEl(k, opts));
  return row;
}

export function backRow(n, opts = {}) {
  const row = document.createElement("span");
  row.className = `tiles ${opts.cls || ""}`;
  for (let i = 0; i < n; i++) row.appendChild(tileEl("", { ...opts, back: true }));
  return row;
}
