// Small shared UI helpers: toast, language button, navigation, element builder.
import { getLang, setLang, t } from "./i18n.js";

let toastTimer = null;

/** A short message at the bottom of the screen (errors from the server, hints). */
export function toast(text, kind = "info") {
  const el = document.getElementById("toast");
  if (!el) return;
  el.textContent = text;
  el.className = `show ${kind}`;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => {
    el.className = "";
  }, 4000);
}

/** The zh/en switch button, remembered across visits. */
export function langButton(rerender) {
  const b = document.createElement("button");
  b.className = "lang";
  b.dataset.role = "lang";
  b.textContent = t("lang_switch");
  b.title = getLang() === "zh" ? "Switch to English" : "切换到中文";
  b.addEventListener("click", () => {
    setLang(getLang() === "zh" ? "en" : "zh");
    rerender();
  });
  return b;
}

export function go(params) {
  const q = new URLSearchParams(params);
  const s = q.toString();
  window.location.href = s ? `./?${s}` : "./";
}

/** Build an element: h("div", {class: "x", dataset: {role: "hand"}}, child, "text"). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "dataset") {
      // an absent value sets no attribute (not data-x="undefined")
      for (const [dk, dv] of Object.entries(v)) if (dv !== undefined && dv !== null) el.dataset[dk] = dv;
    }
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "text") el.textContent = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  }
  return el;
}
