// The client's side of the message catalogue (docs/web.md): one catalogue per language,
// src/fujian_mahjong/web/locale/<lang>/<part>.json, flat {"key": "text with {placeholders}"}.
// The browser table reads the parts `web` (this client), `lobby` (lobby, profile,
// leaderboard), `errors` (the server's error codes, key `error.<code>`) and `engine` (the
// narration of events), merged per language. The language defaults to the browser's and is
// remembered in localStorage.
import zhWeb from "../locale/zh/web.json" with { type: "json" };
import zhLobby from "../locale/zh/lobby.json" with { type: "json" };
import zhErrors from "../locale/zh/errors.json" with { type: "json" };
import zhEngine from "../locale/zh/engine.json" with { type: "json" };
import enWeb from "../locale/en/web.json" with { type: "json" };
import enLobby from "../locale/en/lobby.json" with { type: "json" };
import enErrors from "../locale/en/errors.json" with { type: "json" };
import enEngine from "../locale/en/engine.json" with { type: "json" };

/** The catalogue parts per language, as loaded (tests walk them). */
export const PARTS = {
  zh: { web: zhWeb, lobby: zhLobby, errors: zhErrors, engine: zhEngine },
  en: { web: enWeb, lobby: enLobby, errors: enErrors, engine: enEngine },
};

const CAT = {
  zh: { ...zhEngine, ...zhErrors, ...zhLobby, ...zhWeb },
  en: { ...enEngine, ...enErrors, ...enLobby, ...enWeb },
};

function detect() {
  try {
    const saved = globalThis.localStorage && localStorage.getItem("fjmj.lang");
    if (saved === "zh" || saved === "en") return saved;
  } catch (_e) {
    /* storage unavailable */
  }
  const nav = globalThis.navigator ? (navigator.languages && navigator.languages[0]) || navigator.language || "en" : "zh";
  return String(nav).toLowerCase().startsWith("zh") ? "zh" : "en";
}

let lang = detect();

function markDocument() {
  if (globalThis.document) document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
}

export function getLang() {
  return lang;
}

export function setLang(l) {
  lang = l === "zh" ? "zh" : "en";
  try {
    if (globalThis.localStorage) localStorage.setItem("fjmj.lang", lang);
  } catch (_e) {
    /* storage unavailable */
  }
  markDocument();
}

/** Translate a key with {placeholders}: the UI language's text, else the English text, else
 * the key itself. */
export function t(key, kw = {}) {
  let text = CAT[lang][key] ?? CAT.en[key] ?? key;
  for (const [k, v] of Object.entries(kw)) text = text.split(`{${k}}`).join(String(v));
  return text;
}

/** The colon after a label in the UI language: full-width in Chinese (房号：), ": " else. */
export function colon() {
  return getLang() === "zh" ? "：" : ": ";
}

export function has(key) {
  return key in CAT[lang] || key in CAT.en;
}

/** A server error in the UI language: the catalogue's `error.<code>` when it has one, else
 * the server's own message. */
export function errorText(msg) {
  const code = msg && msg.code;
  if (code && has(`error.${code}`)) return t(`error.${code}`);
  return (msg && (msg.message || msg.detail || code)) || "";
}

/** A {zh, en} object from the server (score terms, specials) in the UI language. */
export function pick(obj) {
  if (!obj) return "";
  return lang === "zh" ? obj.zh || obj.en || "" : obj.en || obj.zh || "";
}

markDocument();
