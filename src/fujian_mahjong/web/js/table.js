// The table: seats around the table relative to you, rivers, flowers,
// melds, the gold, your hand with the drawn tile apart, the claim prompt with its countdown,
// every engine option as a button, hint, auto-pass and 托管; then the end of hand (handend.js).
//
// Everything shown comes from the server's `state` messages, whose `view` is exactly the
// engine's Game.view(seat) (R12: only what this seat may see).
import { getLang, t } from "./i18n.js";
import { api, hasPath, serverPaths, TableConn } from "./net.js";
import { rememberHand } from "./lobby.js";
import { go, h, langButton, toast } from "./ui.js";
import { parseTiles, tileEl, tileName, tileRow } from "./tiles.js";
import { renderHandEnd } from "./handend.js";

const ORDER = ["win", "three_golds", "rob_gold", "kong", "pong", "chow", "concealed_kong", "added_kong", "jin_kan", "pass"];
const KEYS = { win: "W", three_golds: "T", rob_gold: "R", kong: "K", pong: "P", concealed_kong: "K", added_kong: "K", jin_kan: "J", pass: "X" };
const CHOW_KEYS = ["C", "V", "B"];

/** Position and label of a seat relative to the viewer (R2: 下家 is the next seat). */
export function relation(seat, me, n) {
  const rel = (seat - me + n) % n;
  if (rel === 0) return { pos: "bottom", key: "me" };
  if (n === 4) return [null, { pos: "right", key: "rel_next" }, { pos: "top", key: "rel_across" }, { pos: "left", key: "rel_prev" }][rel];
  if (n === 3) return rel === 1 ? { pos: "right", key: "rel_next" } : { pos: "left", key: "rel_prev" };
  return { pos: "top", key: "rel_across" };
}

function seatName(st, s) {
  const info = st.seats && st.seats[s];
  if (info && info.name) return info.name;
  return `#${s}`;
}

function actionLabel(st, a) {
  const v = st.view;
  const ld = v.last_discard;
  const tile = a.tile ? tileName(a.tile, getLang()) : ld ? tileName(ld.tile, getLang()) : "";
  const from = ld ? seatName(st, ld.seat) : "";
  switch (a.type) {
    case "win":
      if (v.phase === "claims" && ld) return t("act.win_discard", { tile, name: from });
      if (v.phase === "window_a") return t("act.win_heaven");
      return t("act.win_self");
    case "chow": {
      const pair = parseTiles(a.tiles).map((k) => tileName(k, getLang())).join(" ");
      return t("act.chow", { tile, pair });
    }
    case "rob_gold":
      return a.tile ? t("act.rob_gold_tile", { tile }) : t("act.rob_gold");
    default:
      return t(`act.${a.type}`, { tile });
  }
}

function actionHelp(st, a) {
  if (a.type === "win" && st.view.phase === "window_a") return t("help.heaven");
  return t(`help.${a.type}`);
}

/** The tiles a button shows: the claimed tile and, for a chow, the pair from the hand. */
function actionTiles(st, a) {
  const gold = st.view.gold;
  const ld = st.view.last_discard;
  const list = [];
  if (a.type === "chow") list.push(...parseTiles(a.tiles));
  if (a.tile) list.push(a.tile);
  else if (ld && ["win", "pong", "kong", "chow"].includes(a.type)) list.push(ld.tile);
  if (!list.length) return null;
  return tileRow(list, { size: "s", gold, lang: getLang() });
}

function legal(st) {
  return (st.view && st.view.legal_actions) || [];
}

function discardKinds(st) {
  return new Set(legal(st).filter((a) => a.type === "discard").map((a) => a.tile));
}

/** The hand as displayed: golds first, then by kind; the drawn tile apart at the end. */
export function handLayout(view) {
  const tiles = parseTiles(view.hand || "");
  let drawn = null;
  if (view.drawn) {
    const i = tiles.lastIndexOf(view.drawn);
    if (i >= 0) {
      tiles.splice(i, 1);
      drawn = view.drawn;
    }
  }
  const golds = tiles.filter((k) => k === view.gold);
  const rest = tiles.filter((k) => k !== view.gold);
  return { tiles: [...golds, ...rest], drawn };
}

function meldEl(m, gold) {
  const wrap = h("span", { class: `meld m-${m.type}`, dataset: { meld: m.type } });
  if (m.tiles === null || m.tiles === undefined) {
    for (let i = 0; i < 4; i++) wrap.appendChild(tileEl("", { back: true, size: "s" }));
  } else {
    const list = parseTiles(m.tiles);
    list.forEach((k, i) => {
      // a concealed kong shows two tiles face down to the owner too, as at a real table
      const back = m.type === "kong_concealed" && (i === 0 || i === 3);
      wrap.appendChild(back ? tileEl("", { back: true, size: "s" }) : tileEl(k, { size: "s", gold, lang: getLang() }));
    });
  }
  return wrap;
}

function seatPanel(st, s) {
  const v = st.view;
  const n = v.players;
  const me = st.seat ?? 0;
  const rel = relation(s, me, n);
  const info = (st.seats && st.seats[s]) || {};
  const flowers = parseTiles(v.flowers[s]);
  const badges = [];
  if (v.dealer === s) badges.push(h("span", { class: "badge dealer", title: t("dealer") }, t("dealer")), v.streak ? h("span", { class: "badge" }, t("streak", { n: v.streak })) : null);
  if (info.bot) badges.push(h("span", { class: "badge bot" }, t("bot")));
  if (info.connected === false && !info.bot) badges.push(h("span", { class: "badge off" }, t("offline")));
  if (info.auto) badges.push(h("span", { class: "badge auto" }, t("auto_badge")));
  if ((v.xian_jin || []).includes(s)) badges.push(h("span", { class: "badge warn" }, t("xian_jin")));
  if (v.jin_kan && v.jin_kan[String(s)] !== undefined) badges.push(h("span", { class: "badge warn" }, t("jin_kan"), tileRow(v.jin_kan[String(s)], { size: "xs", gold: v.gold })));
  if ((v.gold_discarded || []).includes(s)) badges.push(h("span", { class: "badge warn", title: t("gold_discarded_me") }, t("gold_discarded_badge")));
  const points = info.points ?? info.total ?? info.silver ?? (st.totals ? st.totals[s] : null);
  const turn = v.phase !== "over" && v.phase !== "claims" && v.turn === s;
  const river = h("div", { class: "river", dataset: { role: "river" } });
  const disc = parseTiles(v.discards[s]);
  disc.forEach((k, i) => {
    const el = tileEl(k, { size: "r", gold: v.gold, lang: getLang() });
    if (st.lastDiscard && st.lastDiscard.seat === s && i === disc.length - 1 && st.lastDiscard.tile === k) {
      el.classList.add("last");
      el.dataset.last = "1";
    }
    river.appendChild(el);
  });
  const panel = h(
    "section",
    { class: `seat pos-${rel.pos}${turn ? " turn" : ""}${rel.pos === "bottom" ? " mine" : ""}`, dataset: { seat: String(s) } },
    h(
      "div",
      { class: "seat-head" },
      h("span", { class: "rel" }, t(rel.key)),
      h("span", { class: "name", dataset: { role: "seat-name" } }, seatName(st, s)),
      badges.filter(Boolean),
      h("span", { class: "grow" }),
      points !== null && points !== undefined ? h("span", { class: "points", title: t("totals") }, String(points)) : null,
    ),
    h(
      "div",
      { class: "seat-info" },
      h("span", { class: "flower-count", dataset: { role: "flower-count" } }, t("flowers", { n: flowers.length })),
      h("span", { class: "flowers", dataset: { role: "flowers" } }, flowers.map((k) => tileEl(k, { size: "xs", lang: getLang() }))),
      rel.pos !== "bottom" || st.seat === null ? h("span", { class: "concealed", dataset: { role: "concealed-count" } }, t("concealed", { n: v.hand_sizes[s] })) : null,
    ),
    h("div", { class: "melds", dataset: { role: "melds" } }, (v.melds[s] || []).map((m) => meldEl(m, v.gold))),
    river,
  );
  return panel;
}

function centerPanel(st) {
  const v = st.view;
  const ld = st.lastDiscard;
  let turnText = "";
  if (v.phase === "claims") turnText = st.mustAct ? "" : t("waiting_claims");
  else if (v.phase === "last_group") turnText = t("last_group");
  else if (v.phase !== "over") turnText = v.turn === st.seat ? t("your_turn") : t("turn_of", { name: seatName(st, v.turn) });
  return h(
    "section",
    { class: "center", dataset: { role: "center" } },
    h(
      "div",
      { class: "gold-box", dataset: { role: "gold" } },
      h("span", { class: "label" }, t("gold")),
      v.indicator ? tileEl(v.indicator, { size: "m", gold: v.gold, lang: getLang() }) : null,
      v.gold ? h("span", { class: "gold-name" }, tileName(v.gold, getLang())) : null,
    ),
    h(
      "div",
      { class: "counts" },
      h("span", { dataset: { role: "live" } }, t("live", { n: v.live })),
      h("span", { dataset: { role: "reserve" } }, t("reserve", { n: v.reserve })),
      v.dice ? h("span", { class: "muted" }, t("dice", { a: v.dice[0], b: v.dice[1] })) : null,
    ),
    ld
      ? h(
          "div",
          { class: "last-discard", dataset: { role: "last-discard", from: String(ld.seat) } },
          h("span", {}, t("last_discard", { name: seatName(st, ld.seat) })),
          tileEl(ld.tile, { size: "m", gold: v.gold, lang: getLang() }),
        )
      : null,
    h("div", { class: "turn-line" }, h("span", {}, turnText), st.deadlineAt && st.mustAct ? h("span", { class: "countdown", dataset: { role: "countdown" } }, "") : null),
  );
}

function statusLine(st) {
  const v = st.view;
  const items = [];
  if (st.seat === null) return h("div", { class: "status-line" }, t("spectating"));
  if (st.waits && st.waits.length) {
    items.push(h("span", { class: "tenpai", dataset: { role: "tenpai" } }, h("b", {}, t("tenpai")), " ", t("waits"), tileRow(st.waits, { size: "xs", gold: v.gold, lang: getLang() })));
  } else if (Array.isArray(st.waits)) items.push(h("span", { class: "muted", dataset: { role: "tenpai" } }, t("not_tenpai")));
  if ((v.gold_discarded || []).includes(st.seat)) items.push(h("span", { class: "warn" }, t("gold_discarded_me")));
  if (v.profile === "sanming" && handLayout(v).tiles.includes(v.gold) && discardKinds(st).size) items.push(h("span", { class: "muted" }, t("gold_forbidden")));
  if ((v.xian_jin || []).includes(st.seat)) items.push(h("span", { class: "warn" }, t("xian_jin_me")));
  if (v.jin_kan && v.jin_kan[String(st.seat)] !== undefined) items.push(h("span", { class: "warn" }, t("jin_kan_me")));
  return h("div", { class: "status-line", dataset: { role: "status" } }, items);
}

function claimPrompt(st) {
  const v = st.view;
  if (!st.mustAct) return null;
  if (v.phase !== "claims" && v.phase !== "window_a") return null;
  const ld = v.last_discard;
  return h(
    "div",
    { class: "claim-prompt", dataset: { role: "claim-prompt" } },
    ld ? h("span", { class: "what" }, t("claim_prompt", { name: seatName(st, ld.seat), tile: "" }), tileEl(ld.tile, { size: "m", gold: v.gold, lang: getLang() }), h("b", {}, tileName(ld.tile, getLang()))) : null,
    st.deadlineAt ? h("span", { class: "countdown big", dataset: { role: "countdown" } }, "") : null,
  );
}

function actionBar(st, send) {
  const bar = h("div", { class: "actions", dataset: { role: "actions" } });
  if (st.seat === null || st.pending) return bar;
  const acts = legal(st).filter((a) => a.type !== "discard");
  acts.sort((a, b) => ORDER.indexOf(a.type) - ORDER.indexOf(b.type));
  let chowIx = 0;
  for (const a of acts) {
    const key = a.type === "chow" ? CHOW_KEYS[chowIx++] || "" : KEYS[a.type] || "";
    const btn = h(
      "button",
      { class: `act a-${a.type}`, dataset: { action: a.type, key, tile: a.tile || undefined, tiles: a.tiles || undefined }, title: actionHelp(st, a), onclick: () => send(a) },
      h("span", { class: "act-main" }, actionTiles(st, a), h("span", { class: "act-label" }, actionLabel(st, a)), key ? h("kbd", {}, key) : null),
      h("span", { class: "act-help" }, actionHelp(st, a)),
    );
    bar.appendChild(btn);
  }
  const dk = discardKinds(st);
  if (dk.size) {
    const k = discardTarget(st);
    if (k) {
      const a = { type: "discard", tile: k };
      bar.appendChild(
        h(
          "button",
          { class: "act a-discard", dataset: { action: "discard", key: "Enter", tile: k }, onclick: () => send(a) },
          h("span", { class: "act-main" }, tileRow([k], { size: "s", gold: st.view.gold }), h("span", { class: "act-label" }, t("act.discard", { tile: tileName(k, getLang()) })), h("kbd", {}, "⏎")),
          h("span", { class: `act-help${k === st.view.gold ? " warn" : ""}` }, k === st.view.gold ? t("gold_discard_warn") : t("select_tile")),
        ),
      );
    }
  }
  return bar;
}

/** The tile the discard button throws: the selected one, else the drawn one, else the
 * rightmost legal one. */
function discardTarget(st) {
  const dk = discardKinds(st);
  const sel = selectedKind(st);
  if (sel && dk.has(sel)) return sel;
  const { tiles, drawn } = handLayout(st.view);
  if (drawn && dk.has(drawn)) return drawn;
  for (let i = tiles.length - 1; i >= 0; i--) if (dk.has(tiles[i])) return tiles[i];
  return null;
}

function selectedKind(st) {
  if (st.sel === null) return null;
  const { tiles, drawn } = handLayout(st.view);
  const all = drawn ? [...tiles, drawn] : tiles;
  return all[st.sel] ?? null;
}

function handArea(st, send, rerender) {
  const v = st.view;
  const box = h("div", { class: "hand", dataset: { role: "hand" } });
  if (st.seat === null) return box;
  const { tiles, drawn } = handLayout(v);
  const dk = discardKinds(st);
  const all = drawn ? [...tiles, drawn] : tiles;
  if (st.sel !== null && st.sel >= all.length) st.sel = null;
  all.forEach((k, i) => {
    const isDrawn = drawn !== null && i === all.length - 1;
    const el = tileEl(k, { size: "l", gold: v.gold, drawn: isDrawn, lang: getLang() });
    el.dataset.idx = String(i);
    if (isDrawn) el.classList.add("drawn");
    if (st.sel === i) el.classList.add("selected");
    if (dk.size && !dk.has(k)) el.classList.add("disabled");
    el.addEventListener("click", () => {
      if (st.pending) return;
      if (st.sel === i && dk.has(k)) {
        send({ type: "discard", tile: k });
        return;
      }
      st.sel = i;
      rerender();
    });
    box.appendChild(el);
  });
  return box;
}

function toolbar(st, conn, rerender) {
  if (st.seat === null) return null;
  const me = (st.seats && st.seats[st.seat]) || {};
  // 托管 as the player last set it until the server's seat list agrees (a re-render for
  // another message in between must not flip the box back)
  if (st.autoWant !== undefined && !!me.auto === st.autoWant) st.autoWant = undefined;
  const auto = st.autoWant !== undefined ? st.autoWant : !!me.auto;
  return h(
    "div",
    { class: "toolbar" },
    h(
      "button",
      {
        class: "secondary",
        dataset: { role: "hint-button", key: "H" },
        disabled: !legal(st).length || undefined,
        onclick: () => conn.send({ type: "hint" }),
      },
      t("hint"),
      h("kbd", {}, "H"),
    ),
    h(
      "label",
      { class: "toggle", dataset: { role: "auto-pass" } },
      h("input", {
        type: "checkbox",
        checked: st.autoPass || undefined,
        onchange: (e) => {
          st.autoPass = e.target.checked;
          try {
            localStorage.setItem("fjmj.autopass", st.autoPass ? "1" : "0");
          } catch (_e) {
            /* ignore */
          }
          rerender();
        },
      }),
      t("auto_pass"),
    ),
    h(
      "label",
      { class: "toggle", dataset: { role: "tuoguan" } },
      h("input", {
        type: "checkbox",
        checked: auto || undefined,
        onchange: (e) => {
          st.autoWant = e.target.checked;
          conn.send({ type: "auto", on: e.target.checked });
        },
      }),
      t("tuoguan"),
    ),
    st.hint ? h("span", { class: "hint", dataset: { role: "hint" } }, t("hint_says", { action: hintAction(st.hint.action), reason: getLang() === "zh" ? st.hint.reason_zh || st.hint.reason : st.hint.reason })) : null,
  );
}

function hintAction(a) {
  if (!a) return "";
  const tile = a.tile ? tileName(a.tile, getLang()) : "";
  if (a.type === "discard") return t("act.discard", { tile });
  if (a.type === "chow") return t("act.chow", { tile: "", pair: parseTiles(a.tiles).map((k) => tileName(k, getLang())).join(" ") });
  return t(`act.${a.type}`, { tile });
}

function waitingRoom(st, conn, rerender) {
  // nothing is shown until the table is known (no guessed seat count)
  const n = st.players || (st.info && st.info.players) || (st.seats && st.seats.length) || 0;
  const seats = st.seats || (st.info && st.info.seats) || [];
  const rows = [];
  for (let s = 0; s < n; s++) {
    const info = seats[s] || {};
    const name = info.name || (info.bot ? t("bot") : t("empty_seat"));
    rows.push(
      h(
        "div",
        { class: "wait-seat", dataset: { seat: String(s) } },
        h("span", { class: "name" }, name, s === st.seat ? ` (${t("me")})` : ""),
        info.bot ? h("span", { class: "badge bot" }, t("bot")) : null,
        !info.bot && info.name ? h("span", { class: `badge ${info.ready ? "ok" : ""}` }, info.ready ? t("is_ready") : t("not_ready")) : null,
      ),
    );
  }
  const mine = seats[st.seat] || {};
  const code = (st.info && st.info.code) || st.code;
  // a private table opens by its code only (its id is refused to anyone not seated there)
  const ref = st.info && st.info.private && code ? code : st.table;
  const invite = st.table !== null ? new URL(`./?table=${encodeURIComponent(ref)}`, window.location.href).href : "";
  return h(
    "section",
    { class: "card waiting", dataset: { role: "waiting-room" } },
    h("h2", {}, t("waiting_room")),
    code ? h("p", {}, `${t("code")}: `, h("b", { dataset: { role: "table-code" } }, code)) : null,
    invite ? h("p", { class: "muted small" }, `${t("invite")}: `, h("code", {}, invite)) : null,
    h("div", { class: "wait-seats" }, rows),
    h(
      "div",
      { class: "row" },
      // hidden as soon as it is pressed (not when the server confirms): a second tap in
      // between could land on nothing once the hand starts
      st.seat !== null && (mine.ready || st.readySent)
        ? h("span", { class: "muted", dataset: { role: "ready-sent" } }, t("is_ready"))
        : null,
      st.seat !== null && !mine.ready && !st.readySent
        ? h("button", { class: "primary", dataset: { action: "ready" }, onclick: () => { conn.send({ type: "ready" }); st.readySent = true; rerender(); } }, t("ready"))
        : null,
      canBots(st) ? h("button", { class: "secondary", dataset: { role: "add-bot" }, onclick: () => botCall(st, "POST", rerender) }, t("add_bot")) : null,
      canBots(st) && (st.seats || []).some((x) => x && x.bot) ? h("button", { class: "secondary", dataset: { role: "remove-bot" }, onclick: () => botCall(st, "DELETE", rerender) }, t("remove_bot")) : null,
    ),
  );
}

function canBots(st) {
  const pid = st.me && st.me.player_id;
  return Boolean(st.botsApi && st.info && pid !== undefined && st.info.creator_id === pid && st.seat !== null);
}

async function botCall(st, method, rerender) {
  try {
    await api(method, `api/tables/${encodeURIComponent(st.table)}/bots`);
    await refreshInfo(st);
    rerender();
  } catch (e) {
    toast(t("error", { msg: e.message }), "error");
  }
}

async function refreshInfo(st) {
  try {
    st.info = await api("GET", `api/tables/${encodeURIComponent(st.table)}`);
    if (st.info && Array.isArray(st.info.totals)) st.totals = st.info.totals;
    if (st.info && st.info.players) st.players = st.info.players;
    if (st.info && Array.isArray(st.info.seats) && !st.view) st.seats = st.info.seats;
  } catch (_e) {
    /* the socket keeps us informed anyway */
  }
}

function trackLastDiscard(st, v) {
  if (v.last_discard) {
    st.lastDiscard = v.last_discard;
  } else if (st.prevDiscards) {
    for (let s = 0; s < v.players; s++) {
      const now = parseTiles(v.discards[s]);
      const before = parseTiles(st.prevDiscards[s] || "");
      if (now.length > before.length) st.lastDiscard = { seat: s, tile: now[now.length - 1] };
    }
  }
  // a claimed discard leaves the river: stop highlighting it
  if (st.lastDiscard) {
    const r = parseTiles(v.discards[st.lastDiscard.seat] || "");
    if (r[r.length - 1] !== st.lastDiscard.tile) st.lastDiscard = null;
  }
  st.prevDiscards = v.discards.slice();
}

/** A public `discard` notice: the tile joins the discarder's river at once (and leaves the
 * discarder's own hand when it is this seat); no decision is open until the next state. */
function noteDiscard(st, msg) {
  const v = { ...st.view, legal_actions: [] };
  v.discards = v.discards.slice();
  v.discards[msg.seat] = `${v.discards[msg.seat] || ""}${msg.tile}`;
  if (Array.isArray(v.hand_sizes)) {
    v.hand_sizes = v.hand_sizes.slice();
    v.hand_sizes[msg.seat] = Math.max(0, v.hand_sizes[msg.seat] - 1);
  }
  if (msg.seat === st.seat && v.hand !== undefined) {
    const tiles = parseTiles(v.hand || ""); // the drawn tile is in it too
    const i = tiles.lastIndexOf(msg.tile);
    if (i >= 0) tiles.splice(i, 1);
    v.hand = tiles.join("");
    v.drawn = null;
    st.sel = null;
  }
  st.view = v;
  st.mustAct = false;
  st.deadlineAt = null;
  st.lastDiscard = { seat: msg.seat, tile: msg.tile };
  st.prevDiscards = v.discards.slice();
}

export async function showTable(root, tableRef, as) {
  const st = {
    table: tableRef,
    seat: null,
    as,
    view: null,
    seats: null,
    waits: null,
    hand: null,
    seq: null,
    deadlineAt: null,
    mustAct: false,
    sel: null,
    pending: false,
    autoPass: (() => {
      try {
        return localStorage.getItem("fjmj.autopass") === "1";
      } catch (_e) {
        return false;
      }
    })(),
    hint: null,
    handEnd: null,
    matchEnd: null,
    info: null,
    botsApi: false,
    me: null,
    online: true, // false only while reconnecting
    lastDiscard: null,
    prevDiscards: null,
    totals: null,
    summaryPath: false,
  };
  const paths = await serverPaths();
  st.botsApi = Object.keys(paths).some((p) => /^\/api\/tables\/\{[^}]+\}\/bots$/.test(p) && hasPath(paths, p, "post"));
  st.summaryPath = Object.keys(paths).some((p) => /^\/api\/hands\/\{[^}]+\}\/summary$/.test(p));

  let conn = null;
  const send = (action) => {
    if (st.pending || st.seq === null) return;
    if (conn.send({ type: "act", seq: st.seq, action })) {
      st.pending = true;
      st.sel = null;
      st.hint = null;
      // answered: no countdown (after a claim answer the next state may come only when the
      // window closes, R12 rev 2)
      st.deadlineAt = null;
      render();
    }
  };

  const render = () => {
    document.title = `${t("title")} · ${t("table_no", { id: st.table })}`;
    const header = h(
      "header",
      { class: "bar" },
      h("a", { href: "./", class: "home", onclick: () => conn && conn.stop() }, t("lobby")),
      h("span", { class: "tinfo" }, t("table_no", { id: st.table }), st.view ? ` · ${t(`profile.${st.view.profile}`)}` : "", st.hand ? ` · ${handNo(st)}` : ""),
      h("span", { class: "grow" }),
      st.online ? null : h("span", { class: "reconnecting", dataset: { role: "reconnecting" } }, t("reconnecting")),
      langButton(render),
      st.seat !== null ? h("button", { class: "secondary", dataset: { role: "leave" }, onclick: () => { conn.send({ type: "leave" }); conn.stop(); go({}); } }, t("leave")) : null,
    );
    const parts = [header];
    if (!st.view) {
      parts.push(h("main", { class: "lobby" }, waitingRoom(st, conn, render)));
    } else {
      const v = st.view;
      const me = st.seat ?? 0;
      const grid = h("main", { class: `table-grid n${v.players}`, dataset: { role: "table", phase: v.phase } });
      for (let s = 0; s < v.players; s++) if (s !== me) grid.appendChild(seatPanel(st, s));
      grid.appendChild(centerPanel(st));
      const mine = seatPanel(st, me);
      grid.appendChild(mine);
      const dock = h(
        "section",
        { class: "dock", dataset: { role: "dock" } },
        statusLine(st),
        claimPrompt(st),
        actionBar(st, send),
        handArea(st, send, render),
        v.phase === "over" ? null : toolbar(st, conn, render),
      );
      // the end of hand takes the table's place (not an overlay): the dock stays in view and
      // nothing covers a tile someone is about to tap when the hand ends
      parts.push(st.handEnd ? renderHandEnd(st, conn, render) : grid, dock);
    }
    root.classList.toggle("table-page", Boolean(st.view));
    root.replaceChildren(...parts.filter(Boolean));
    tick();
  };

  const tick = () => {
    const left = st.deadlineAt ? Math.max(0, Math.ceil((st.deadlineAt - performance.now()) / 1000)) : null;
    for (const el of document.querySelectorAll("[data-role=countdown]")) {
      el.textContent = left === null ? "" : t("seconds", { n: left });
      el.classList.toggle("urgent", left !== null && left <= 5);
    }
  };
  setInterval(tick, 250);

  const onMessage = (msg) => {
    switch (msg.type) {
      case "welcome":
        st.me = { ...(st.me || {}), player_id: msg.player_id, name: msg.name };
        break;
      case "seated":
        st.table = msg.table;
        if (msg.code) st.code = msg.code;
        st.seat = msg.seat ?? null;
        st.pending = false;
        refreshInfo(st).then(render);
        break;
      case "state": {
        const v = msg.view;
        st.seq = msg.seq;
        if (msg.seats) st.seats = msg.seats;
        if (msg.me && typeof msg.me === "object") st.me = { ...(st.me || {}), ...msg.me };
        if (typeof msg.me === "number") st.seat = msg.me;
        else if (msg.me && msg.me.seat !== undefined) st.seat = msg.me.seat;
        if (msg.number !== undefined) st.number = msg.number;
        if (msg.totals) st.totals = msg.totals;
        st.players = msg.players ?? (v ? v.players : st.players);
        st.waits = msg.waits ?? null;
        st.pending = false;
        if (msg.hand !== st.hand) {
          st.sel = null;
          st.lastDiscard = null;
          st.prevDiscards = null;
        }
        if (st.handEnd && v && v.phase !== "over" && msg.hand !== st.handEnd.handNo) {
          st.handEnd = null;
          st.readyFor = null;
        }
        st.hand = msg.hand;
        st.handsTotal = msg.hands ?? st.handsTotal;
        st.view = v || null;
        st.deadlineAt = msg.deadline_ms !== null && msg.deadline_ms !== undefined ? performance.now() + msg.deadline_ms : null;
        st.mustAct = Boolean(v && st.seat !== null && (v.to_act || []).includes(st.seat) && (v.legal_actions || []).length);
        if (v) trackLastDiscard(st, v);
        if (v && v.phase === "over" && !st.handEnd) st.handEnd = { handNo: msg.hand, id: String(msg.hand), fromView: true };
        if (!v) refreshInfo(st).then(render);
        // auto-pass: decline claims (never a win) at once
        if (st.autoPass && st.mustAct && v.phase === "claims") {
          const acts = v.legal_actions;
          if (acts.some((a) => a.type === "pass") && !acts.some((a) => ["win", "three_golds", "rob_gold"].includes(a.type))) {
            render();
            send({ type: "pass" });
            return;
          }
        }
        render();
        break;
      }
      case "hand_end": {
        const id = handId(msg);
        if (id !== null) rememberHand(id);
        st.handEnd = { ...msg, handNo: msg.hand, id: id ?? String(msg.hand) };
        if (msg.hands_total) st.handsTotal = msg.hands_total;
        if (msg.totals) st.totals = msg.totals;
        render();
        break;
      }
      case "match_end":
        st.matchEnd = msg;
        if (msg.totals) st.totals = msg.totals;
        if (!st.handEnd) st.handEnd = { handNo: st.hand, fromView: true };
        render();
        break;
      case "discard":
        // the public notice of a discard (R12 rev 2): shown at once to everybody; the next
        // state follows the claim pause (or comes at once to a seat asked to answer)
        if (st.view && msg.hand === st.hand && st.view.phase !== "over") noteDiscard(st, msg);
        render();
        break;
      case "added_kong":
      case "hand_start":
      case "left":
        // public notices: the state that follows shows them; nothing to act on meanwhile
        if (st.view && st.view.phase !== "over" && msg.type !== "hand_start") {
          st.view = { ...st.view, legal_actions: [] };
          st.mustAct = false;
          st.deadlineAt = null;
        }
        render();
        break;
      case "hand_void":
        toast(t("hand_void", { seat: msg.leaver ?? "?" }), "error");
        render();
        break;
      case "table_closed":
        toast(t("table_closed"));
        render();
        break;
      case "pong":
        break;
      case "status":
        // the server cannot save the game (full disk, lost database): it waits, then
        // continues by itself (docs/protocol.md)
        toast(getLang() === "zh" ? msg.message_zh || msg.message : msg.message, msg.store === "failing" ? "error" : "info");
        break;
      case "seats":
        st.seats = msg.seats;
        render();
        break;
      case "hint":
        st.hint = msg;
        render();
        break;
      case "error":
        st.pending = false;
        st.readySent = false;
        toast(t("error", { msg: msg.message || msg.code }), "error");
        render();
        break;
      default:
        break;
    }
  };
  const onStatus = (s) => {
    st.online = s === "online";
    render();
  };
  conn = new TableConn({ table: tableRef, as, onMessage, onStatus });
  // for tests and debugging: drop the socket as a network failure would
  window.fjmjDropConnection = () => conn.drop();
  conn.start();
  render();

  document.addEventListener("keydown", (e) => onKey(e, st, send, conn, render));
}

function handNo(st) {
  const total = st.handsTotal || (st.info && st.info.hands);
  // the server counts hands from 0 (hands played before this one)
  const n = st.number !== undefined && st.number !== null ? st.number + 1 : st.hand;
  return total ? t("hand_no", { n, m: total }) : `#${n}`;
}

export function handId(msg) {
  const m = /hands\/([^/]+)\/log/.exec(msg.log_url || "");
  if (m) return decodeURIComponent(m[1]);
  if (msg.hand_id !== undefined) return String(msg.hand_id);
  return null;
}

function onKey(e, st, send, conn, render) {
  if (!st.view || st.seat === null || e.target.tagName === "INPUT" || e.ctrlKey || e.metaKey || e.altKey) return;
  const { tiles, drawn } = handLayout(st.view);
  const count = tiles.length + (drawn ? 1 : 0);
  if (e.key === "ArrowLeft" || e.key === "ArrowRight") {
    if (!count) return;
    const d = e.key === "ArrowLeft" ? -1 : 1;
    st.sel = st.sel === null ? (d > 0 ? 0 : count - 1) : (st.sel + d + count) % count;
    render();
    e.preventDefault();
    return;
  }
  if (e.key === "Enter") {
    const btn = document.querySelector("[data-action=discard]");
    if (btn) {
      btn.click();
      e.preventDefault();
    }
    return;
  }
  if (e.key === "Escape") {
    const p = document.querySelector("[data-action=pass]");
    if (p) p.click();
    return;
  }
  const k = e.key.length === 1 ? e.key.toUpperCase() : "";
  if (k === "H") {
    conn.send({ type: "hint" });
    return;
  }
  if (!k) return;
  const btn = document.querySelector(`.actions [data-key="${k}"]`);
  if (btn) {
    btn.click();
    e.preventDefault();
  }
}

