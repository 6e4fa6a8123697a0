// The table (docs/web.md): seats around the table relative to you (R2), each opponent's
// concealed tiles as backs with their count, melds and flowers beside them, the rivers in the
// centre in discard order, the gold, wall and reserve, dealer and streak, whose turn and the
// countdown; your hand large at the bottom with the drawn tile apart; the claim prompt, every
// engine option as a button, hint, auto-pass and 托管; the opening (dice, deal, 补花, 开金);
// an action log and a bubble at the acting seat; sounds; then the end of hand (handend.js).
//
// The state is reducer.js's (a pure reduce(state, message, now)); render() describes the page
// with vdom.js and patches it, so unchanged tiles, buttons and rivers keep their DOM nodes.
// Everything shown comes from the server's messages, whose `view` is exactly the engine's
// Game.view(seat) (R12: only what this seat may see).
import { colon, errorText, getLang, has, setLang, t } from "./i18n.js";
import { api, hasPath, serverPaths, TableConn } from "./net.js";
import { rememberHand } from "./lobby.js";
import { go, toast } from "./ui.js";
import { BACK_GLYPH, glyph, parseTiles, tileName } from "./tiles.js";
import { nextHandText, renderHandEnd } from "./handend.js";
import { h, patch } from "./vdom.js";
import { chowRun, goldHeldBack, handLayout, hintReason, relation, riverRows, seatName, sortActions, tileKeys, waitCounts } from "./helpers.js";
import { BUBBLE_MS, FLOWER_TILE_MS, autoOn, initState, openingGoldShown, openingLive, openingLog, openingStepMs, handInProgress, reduce } from "./reducer.js";
import { isMuted, play, setMuted } from "./sound.js";
import { confirmLeave, mountSocial } from "./social.js";

// how long a hand's table stays in view before its result may cover it (see holdingEnd)
const END_HOLD_MS = 2500;

export { handLayout, relation };

const ORDER = ["win", "three_golds", "rob_gold", "kong", "pong", "chow", "concealed_kong", "added_kong", "jin_kan", "pass"];
const KEYS = { win: "W", three_golds: "T", rob_gold: "R", kong: "K", pong: "P", concealed_kong: "K", added_kong: "K", jin_kan: "J", pass: "X" };
const CHOW_KEYS = ["C", "V", "B"];
const WINDOW_ACTS = ["win", "three_golds", "rob_gold"];
// the server's error codes for a table that is not there (docs/protocol.md)
const TABLE_GONE = ["no_table", "not_found", "table_closed"];

/** A tile as a virtual element (the DOM contract of tiles.js: data-tile, data-gold). */
export function vtile(k, o = {}) {
  const lang = getLang();
  if (o.back) return h("span", { key: o.key ?? null, class: `tile t-${o.size || "m"} back`, dataset: { back: "1" } }, h("span", { class: "g" }, BACK_GLYPH));
  const gold = o.gold && k === o.gold && !o.notGold;
  const cls = `tile t-${o.size || "m"} s-${k[1]}${k[1] === "z" ? ` z${k[0]}` : ""}${gold ? " gold" : ""}${o.cls ? ` ${o.cls}` : ""}`;
  return h(
    "span",
    { key: o.key ?? null, class: cls, title: tileName(k, lang), dataset: { tile: k, gold: gold ? "1" : undefined, drawn: o.drawn ? "1" : undefined, last: o.last ? "1" : undefined, idx: o.idx, ...(o.data || {}) }, onclick: o.onclick },
    h("span", { class: "g" }, glyph(k)),
    k[1] === "p" || k[1] === "s" ? h("span", { class: "ix" }, k[0]) : null,
    gold ? h("span", { class: "gold-badge" }, "金") : null,
    o.badge ? h("span", { class: "ready-badge" }, o.badge) : null,
  );
}

function vrow(list, o = {}) {
  const kinds = typeof list === "string" ? parseTiles(list) : list;
  return h("span", { class: `tiles ${o.rowCls || ""}` }, kinds.map((k) => vtile(k, o)));
}

/** A seat as the viewer names it: 你 / the relation and the name. A spectator has no 你: it
 * watches from the bottom seat (seat 0), named by its name, and the others are 上家/对家/下家
 * of that seat with their names (R2). */
function who(st, s) {
  const watching = st.seat === null || st.seat === undefined;
  if (!watching && s === st.seat) return t("web.you");
  const name = seatName(st.seats, s);
  const rel = relation(s, watching ? null : st.seat, st.view ? st.view.players : st.players || 4);
  if (rel.pos === "bottom") return name;
  return `${t(rel.key)} ${name}`;
}

function legal(st) {
  return (st.view && st.view.legal_actions) || [];
}

function discardKinds(st) {
  return new Set(legal(st).filter((a) => a.type === "discard").map((a) => a.tile));
}

function allHand(view) {
  const { tiles, drawn } = handLayout(view);
  return { tiles, drawn, all: drawn ? [...tiles, drawn] : tiles };
}

function selectedKind(st) {
  if (st.sel === null || !st.view) return null;
  return allHand(st.view).all[st.sel] ?? null;
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

function actionLabel(st, a) {
  const v = st.view;
  const ld = v.last_discard;
  const tile = a.tile ? tileName(a.tile, getLang()) : ld ? tileName(ld.tile, getLang()) : "";
  const from = ld ? seatName(st.seats, ld.seat) : "";
  switch (a.type) {
    case "win":
      if (v.phase === "claims" && ld) return t("act.win_discard", { tile, name: from });
      if (v.phase === "window_a") return t("act.win_heaven");
      return t("act.win_self");
    case "chow":
      return t("act.chow", { tile, pair: parseTiles(a.tiles).map((k) => tileName(k, getLang())).join(" ") });
    case "rob_gold":
      return a.tile ? t("act.rob_gold_tile", { tile }) : t("act.rob_gold");
    default:
      return t(`act.${a.type}`, { tile });
  }
}

function shortLabel(a) {
  if (["chow", "pong", "kong", "win"].includes(a.type)) return t(`web.bubble.${a.type}`);
  if (a.type === "pass") return t("act.pass");
  // 抢金 and 金坎 name their discard by the tile the button shows (four 庄家抢金 (打 …) in
  // full, each two lines high, ran a phone's table off the foot)
  if (a.type === "rob_gold") return t("act.rob_gold_short");
  if (a.type === "jin_kan") return t("jin_kan");
  return "";
}

function actionHelp(st, a) {
  if (a.type === "win" && st.view.phase === "window_a") return t("help.heaven");
  return t(`help.${a.type}`);
}

function actionTiles(st, a) {
  const ld = st.view.last_discard;
  const list = [];
  if (a.type === "chow" && ld) {
    const run = chowRun(a.tiles, ld.tile);
    const tiles = run.map((r, i) => vtile(r.tile, { key: String(i), size: "s", gold: st.view.gold, cls: r.claimed ? "claimed" : "", data: { claimed: r.claimed ? "1" : undefined } }));
    return h("span", { class: "tiles" }, tiles);
  }
  if (a.type === "chow") list.push(...parseTiles(a.tiles));
  if (a.tile) list.push(a.tile);
  else if (ld && ["win", "pong", "kong", "chow"].includes(a.type)) list.push(ld.tile);
  return list.length ? vrow(list, { size: "s", gold: st.view.gold }) : null;
}

export function hintAction(a) {
  if (!a) return "";
  const tile = a.tile ? tileName(a.tile, getLang()) : "";
  if (a.type === "discard") return t("act.discard", { tile });
  if (a.type === "chow") return t("act.chow", { tile: "", pair: parseTiles(a.tiles).map((k) => tileName(k, getLang())).join(" ") });
  return t(`act.${a.type}`, { tile });
}

/** A log entry's text in the UI language. */
export function entryText(st, e) {
  if (e.kind === "hand") return t("web.log.hand", { n: e.number }); // a new hand's divider
  const name = who(st, e.seat);
  const tile = e.tile ? tileName(e.tile, getLang()) : "";
  // the viewer's own seat is "You": English takes the base verb ("You pong", engine.you.*)
  const mine = st.seat !== null && st.seat !== undefined && e.seat === st.seat;
  const say = (kind, args) => (mine && has(`engine.you.${kind}`) ? t(`engine.you.${kind}`, args) : t(`web.log.${kind}`, { name, ...args }));
  switch (e.kind) {
    case "discard":
      return say("discard", { tile });
    case "chow":
      return say("chow", { tile, tiles: parseTiles(e.tiles || "").map((k) => tileName(k, getLang())).join(" ") });
    case "pong":
      return say("pong", { tile });
    case "kong":
      return e.meld === "kong_concealed" ? say("kong_concealed", {}) : say("kong", { tile });
    case "flower": {
      const names = (list) => list.map((k) => tileName(k, getLang())).join(" ");
      // the replacements are named for this viewer's own seat only (R12)
      if (e.drawn && e.drawn.length) return say("flower_drawn", { tiles: names(e.tiles), n: e.tiles.length, drawn: names(e.drawn) });
      return say("flower", { tiles: names(e.tiles), n: e.tiles.length });
    }
    case "gold":
      if (e.toDealer && e.toDealer.length) return say("gold_to_dealer", { tile: tileName(e.tile, getLang()), gold: tileName(e.gold, getLang()), flowers: e.toDealer.map((k) => tileName(k, getLang())).join(" ") });
      return t("web.log.gold", { tile: tileName(e.tile, getLang()), gold: tileName(e.gold, getLang()) });
    case "win":
      return e.from !== null && e.from !== undefined ? say("win_discard", { tile, from: who(st, e.from) }) : say("win", { how: t(`wintype.${e.win}`) });
    case "claim-lost":
      return t("web.log.claim_lost", { name: who(st, e.by), act: t(`web.claim.${e.byKind}`), mine: t(`web.claim.${e.mine}`) });
    case "draw_game":
      return t("draw_game");
    default:
      return e.kind;
  }
}

// ------------------------------------------------------------------ the seats

/** Options of a face-up tile on the table (a river's, a meld's) that is of the kind selected
 * in your hand: marked, as 同城游 marks them, so you count what is out at a glance. */
function sameAs(same, k) {
  return same !== null && k === same ? { cls: "same", data: { same: "1" } } : {};
}

function meldV(m, gold, key, same = null) {
  if (m.tiles === null || m.tiles === undefined) return h("span", { key, class: `meld m-${m.type}`, dataset: { meld: m.type } }, [0, 1, 2, 3].map(() => vtile("", { back: true, size: "s" })));
  return h(
    "span",
    { key, class: `meld m-${m.type}`, dataset: { meld: m.type } },
    // a concealed kong shows two tiles face down to the owner too, as at a real table
    parseTiles(m.tiles).map((k, i) => (m.type === "kong_concealed" && (i === 0 || i === 3) ? vtile("", { back: true, size: "s" }) : vtile(k, { size: "s", gold, ...sameAs(same, k) }))),
  );
}

function badgesV(st, s) {
  const v = st.view;
  const info = (st.seats && st.seats[s]) || {};
  const out = [];
  if (v.dealer === s) out.push(h("span", { class: "badge dealer", title: t("dealer") }, t("dealer")), v.streak ? h("span", { class: "badge" }, t("streak", { n: v.streak })) : null);
  if (info.bot && !info.bot_level) out.push(h("span", { class: "badge bot" }, t("bot")));
  if (info.connected === false && !info.bot) out.push(h("span", { class: "badge off" }, t("offline")));
  // yours is said by the 托管 banner (autoBannerV): a badge more here wrapped your panel a
  // line taller than your hand on a phone held sideways
  if (s !== st.seat && info.auto) out.push(h("span", { class: "badge auto" }, t("auto_badge")));
  if ((v.xian_jin || []).includes(s)) out.push(h("span", { class: "badge warn" }, t("xian_jin")));
  if (v.jin_kan && v.jin_kan[String(s)] !== undefined) out.push(h("span", { class: "badge warn" }, t("jin_kan"), vrow(v.jin_kan[String(s)], { size: "xs", gold: v.gold })));
  if ((v.gold_discarded || []).includes(s)) out.push(h("span", { class: "badge warn", title: t("gold_discarded_me") }, t("gold_discarded_badge")));
  return out;
}

function bubblesV(st, s, now) {
  return st.bubbles
    .filter((b) => b.seat === s && now - b.at < BUBBLE_MS)
    .map((b) => h("span", { key: `b${b.id}`, class: `bubble k-${b.kind}`, dataset: { role: "bubble", kind: b.kind, seat: String(s) } }, t(`web.bubble.${b.kind}`), b.tile ? vtile(b.tile, { size: "xs", gold: st.view.gold }) : null));
}

/** The seat's place at the square table, relative to the viewer (docs/web.md: data-rel). */
export const REL = { bottom: "self", left: "left", top: "top", right: "right" };

/** A bot's level by its kind (the server's `bot_level`), in the UI language. */
export function botLevelName(kind) {
  if (!kind) return "";
  if (has(`lobby.bot_kind.${kind}`)) return t(`lobby.bot_kind.${kind}`);
  const base = String(kind).replace(/-v\d+$/, "");
  return has(`lobby.bot_kind.${base}`) ? `${t(`lobby.bot_kind.${base}`)} ${String(kind).slice(base.length + 1)}` : String(kind);
}

function seatV(st, s, now) {
  const v = st.view;
  const n = v.players;
  const rel = relation(s, st.seat, n);
  const side = rel.pos === "left" || rel.pos === "right";
  const info = (st.seats && st.seats[s]) || {};
  // while the opening runs, only the flowers it has shown so far (one 补花 at a time)
  const shownFlowers = st.opening && st.opening.shown ? st.opening.shown[s] : null;
  const allFlowers = parseTiles(v.flowers[s]);
  const flowers = shownFlowers === null || shownFlowers === undefined ? allFlowers : allFlowers.slice(0, shownFlowers);
  const points = info.points ?? info.total ?? info.silver ?? (st.totals ? st.totals[s] : null);
  const turn = v.phase !== "over" && v.phase !== "claims" && v.turn === s;
  const mine = rel.pos === "bottom" && st.seat !== null;
  const disc = parseTiles(v.discards[s]);
  const ld = st.lastDiscard;
  const same = selectedKind(st);
  // rows of 8 in front of 对家 and you, of 6 for the side seats (docs/web.md)
  const per = n === 4 && side ? 6 : 8;
  const rows = riverRows(disc, per);
  // a seat's callouts stand on the side of its panel that faces the centre; the bottom
  // seat's (yours, or the one a spectator watches) over the top edge of its river, in its
  // grid area (the panel's sides are your tools and your hand), beside the river, not in
  // it: the river holds its discards only
  const bottom = rel.pos === "bottom";
  const bubbles = h("div", { key: "bubbles", class: `bubbles${bottom ? " b-bottom" : ""}` }, bubblesV(st, s, now));
  const river = h(
    "div",
    { class: `river r-${rel.pos}`, dataset: { role: "river", count: String(disc.length) } },
    rows.map((row, ri) =>
      h(
        "div",
        { key: `r${ri}`, class: "river-row" },
        row.map((k, j) => {
          const i = ri * per + j;
          const last = ld && ld.seat === s && i === disc.length - 1 && ld.tile === k;
          const mark = sameAs(same, k);
          return vtile(k, { key: `${i}`, size: "r", gold: v.gold, last, cls: [last ? "last" : "", mark.cls || ""].join(" ").trim(), data: mark.data });
        }),
      ),
    ),
  );
  const hidden = v.hand_sizes[s];
  const level = info.bot ? botLevelName(info.bot_level) : "";
  // an opponent's concealed tiles as backs along its edge (turned on the sides); a
  // spectator sees the bottom seat's as backs where a player's hand is (handV)
  const backs = !bottom
    ? h("span", { class: `backs${side ? " backs-v" : ""}`, "aria-hidden": "true" }, Array.from({ length: Math.min(hidden, 17) }, (_x, i) => vtile("", { key: `h${i}`, back: true, size: "xs" })))
    : null;
  return h(
    "section",
    { key: `seat${s}`, class: `seat pos-${rel.pos}${turn ? " turn" : ""}${mine ? " mine" : ""}`, dataset: { seat: String(s), rel: REL[rel.pos] } },
    h(
      "div",
      // data-seat here too: the seat's visible box (the section is display: contents)
      { class: `seat-box box-${rel.pos}${turn ? " turn" : ""}`, dataset: { seat: String(s) } },
      side ? backs : null,
      h(
        "div",
        { class: "seat-main" },
        h(
          "div",
          { class: "seat-head" },
          h("span", { class: "rel" }, t(rel.key)),
          h("span", { class: "name", dataset: { role: "seat-name" } }, seatName(st.seats, s)),
          level ? h("span", { class: "badge bot level", dataset: { role: "bot-level", level: String(info.bot_level) } }, h("span", { class: "lv-bot" }, t("web.bot_level", { level: "" })), level) : null,
          badgesV(st, s),
          // the match's running total, signed as the end screen's payments are (+120, -40)
          points !== null && points !== undefined ? h("span", { class: `points${points > 0 ? " plus" : points < 0 ? " minus" : ""}`, title: t("totals"), dataset: { role: "seat-total" } }, points > 0 ? `+${points}` : String(points)) : null,
        ),
        h(
          "div",
          { class: "seat-info" },
          h("span", { class: "flower-count", dataset: { role: "flower-count" } }, t("flowers", { n: flowers.length })),
          h("span", { class: "flowers", dataset: { role: "flowers" } }, flowers.map((k, i) => vtile(k, { key: `f${i}`, size: "xs" }))),
          !mine ? h("span", { class: "concealed", dataset: { role: "concealed-count" } }, t("concealed", { n: hidden })) : null,
        ),
        !side && backs ? h("div", { class: "concealed-row" }, backs) : null,
        h("div", { class: "melds", dataset: { role: "melds" } }, (v.melds[s] || []).map((m, i) => meldV(m, v.gold, `m${i}`, same))),
      ),
      bottom ? null : bubbles,
    ),
    river,
    bottom ? bubbles : null,
  );
}

// ------------------------------------------------------------------ the centre

function openingV(st, send) {
  const o = st.opening;
  const v = st.view;
  const lines = o.steps.map((step, i) => {
    const cls = `o-step${i === o.step ? " now" : ""}${i > o.step ? " later" : ""}`;
    switch (step.kind) {
      case "dice":
        return h("div", { key: "dice", class: cls, dataset: { step: "dice" } }, t("web.opening.dice"), step.dice ? h("span", { class: "dice" }, step.dice.map((d) => String.fromCodePoint(0x2680 + d - 1)).join(" ")) : null, step.dice ? ` ${step.dice[0]}+${step.dice[1]}` : "");
      case "deal":
        return h("div", { key: "deal", class: cls, dataset: { step: "deal" } }, t("web.opening.deal", { name: who(st, v.dealer) }));
      case "flower":
        return h(
          "div",
          { key: `f${i}`, class: cls, dataset: { step: "flower", seat: String(step.seat), round: String(step.round || 1) } },
          h("span", {}, t("web.opening.flower", { name: who(st, step.seat), n: step.tiles.length })),
          h(
            "span",
            { class: "o-pairs" },
            // each flower and what replaced it (R4): the tile itself for this viewer's own
            // seat, a tile back for any other seat (R12)
            step.tiles.map((k, j) =>
              h(
                "span",
                { key: `p${j}`, class: "o-pair", style: `--d:${j * FLOWER_TILE_MS}ms`, dataset: { role: "flower-pair", seat: String(step.seat) } },
                vtile(k, { size: "s" }),
                h("span", { class: "o-arrow" }, "→"),
                step.drawn && step.drawn[j] ? vtile(step.drawn[j], { size: "s", data: { role: "replacement" } }) : vtile("", { back: true, size: "s" }),
              ),
            ),
          ),
        );
      default:
        return h(
          "div",
          { key: "gold", class: cls, dataset: { step: "gold" } },
          t("web.opening.gold"),
          step.indicator ? vtile(step.indicator, { size: "m", gold: step.gold, cls: i === o.step ? "flip" : "" }) : null,
          step.gold ? h("b", {}, t("web.opening.gold_is", { tile: tileName(step.gold, getLang()) })) : null,
          step.toDealer && step.toDealer.length ? h("span", { class: "o-to-dealer", dataset: { role: "to-dealer" } }, t("web.opening.to_dealer", { name: who(st, step.seat) }), vrow(step.toDealer, { size: "s" })) : null,
        );
    }
  });
  return h(
    "div",
    { key: "opening", class: "opening", dataset: { role: "opening", step: o.steps[o.step].kind } },
    h("div", { class: "o-title" }, t("web.opening.title")),
    lines,
    h(
      "div",
      { class: "o-foot" },
      // the wall as it counts down (the card covers the centre's count on a wide screen)
      h("span", { class: "o-live", dataset: { role: "opening-live" } }, t("live", { n: shownView(st).live })),
      h("button", { class: "secondary small", dataset: { action: "skip-opening" }, onclick: () => send({ type: "@opening-skip" }) }, t("web.opening.skip")),
    ),
  );
}

/** The view as the page may show it now: before the opening's 开金 no gold is named (no
 * gold mark, no gold-first order in the hand, no gold in the centre; `openingGoldShown`). */
function shownView(st) {
  if (!st.opening) return st.view;
  const v = openingGoldShown(st.opening) ? st.view : { ...st.view, gold: null, indicator: null };
  return { ...v, live: openingLive(v.live, st.opening) };
}

/** The centre's line of whose turn it is (empty when our own decision speaks for itself). */
function turnLine(st, v) {
  if (v.phase === "claims") return st.mustAct ? "" : t("waiting_claims");
  if (v.phase === "window_a") return st.mustAct ? "" : t("web.window_a");
  if (v.phase === "last_group") return t("last_group");
  // our own turn already answered (a discard sent): nothing of it is ours to do now, and what
  // comes next is shown when the claim pause ends (R12) — not 轮到你出牌 beside our discard
  if (v.phase !== "over" && v.turn === st.seat && st.pending) return t("waiting_claims");
  if (v.phase !== "over") return v.turn === st.seat ? t("your_turn") : t("turn_of", { name: who(st, v.turn) });
  return "";
}

function centerV(st) {
  const v = shownView(st);
  const ld = st.lastDiscard;
  // while the opening plays, its card says what happens; whose turn it is comes after it
  const turnText = st.opening ? "" : turnLine(st, v);
  // the hand over on the table (shown before its result covers it): who won, and how
  const r = v.phase === "over" ? v.result : null;
  const outcome = v.phase !== "over" || st.opening ? null : r && r.winner !== null && r.winner !== undefined
    ? `${t("winner_is", { name: who(st, r.winner) })} · ${r.discarder !== null && r.discarder !== undefined ? t("win_discard", { name: who(st, r.discarder) }) : t(`wintype.${r.win}`)}`
    : t("draw_game");
  // the centre's edge toward the seat to act lights up, as a 同城游 table's compass does
  // (while a discard is open to claims, toward its discarder, until the next seat draws)
  const turnRel = !st.opening && v.phase !== "over" && v.turn !== null && v.turn !== undefined ? REL[relation(v.turn, st.seat, v.players).pos] : undefined;
  return h(
    "section",
    { key: "center", class: "center", dataset: { role: "center", turn: turnRel } },
    st.practice ? h("span", { class: "badge practice", dataset: { role: "practice" }, title: t("web.practice_help") }, t("web.practice")) : null,
    h(
      "div",
      { class: "gold-box", dataset: { role: "gold" } },
      h("span", { class: "label" }, t("gold")),
      v.indicator ? vtile(v.indicator, { size: "m", gold: v.gold }) : null,
      v.gold ? h("span", { class: "gold-name" }, tileName(v.gold, getLang())) : null,
    ),
    h(
      "div",
      { class: "counts" },
      h("span", { dataset: { role: "live" } }, t("live", { n: v.live })),
      h("span", { dataset: { role: "reserve" } }, t("reserve", { n: v.reserve })),
      h("span", { dataset: { role: "dealer" } }, t("web.dealer_is", { name: who(st, v.dealer) }), v.streak ? ` · ${t("streak", { n: v.streak })}` : ""),
    ),
    ld
      ? h("div", { class: "last-discard", dataset: { role: "last-discard", from: String(ld.seat) } }, h("span", {}, t("last_discard", { name: seatName(st.seats, ld.seat) })), vtile(ld.tile, { size: "m", gold: v.gold }))
      : null,
    outcome ? h("div", { class: "turn-line outcome", dataset: { role: "center-outcome" } }, h("b", {}, outcome)) : null,
    // the countdown of whoever is to act: ours when we must act, else the one the server
    // gives (a spectator's view of the turn)
    h("div", { class: "turn-line" }, h("span", {}, turnText), st.deadlineAt && !st.opening ? h("span", { class: "countdown", dataset: { role: "countdown" } }, "") : null),
  );
}

// ------------------------------------------------------------------ the dock

/** Waits as tiles, each with how many are still unseen from this seat. */
function waitChips(v, waits) {
  return h(
    "span",
    { class: "wait-count", dataset: { role: "wait-count" }, title: t("web.wait_count_help") },
    waitCounts(v, waits).map((w) => h("span", { key: w.tile, class: `wc${w.left ? "" : " none"}`, dataset: { tile: w.tile, left: String(w.left) } }, vtile(w.tile, { size: "xs", gold: v.gold }), h("span", { class: "left" }, t("web.wait_left", { n: w.left })), h("span", { class: "left-short" }, t("web.wait_left_short", { n: w.left })))),
  );
}

/** 听牌提示 on our own turn: the discards that leave the hand ready (the server's
 * `ready_discards`, from our own tiles), or none while a decision cannot be shown. */
function readyDiscards(st) {
  return canDecide(st) && st.readyDiscards && st.mustAct ? st.readyDiscards : null;
}

function statusV(st) {
  const v = st.view;
  if (st.seat === null) return h("div", { class: "status-line", dataset: { role: "status" } }, t("spectating"));
  const items = [];
  const ready = readyDiscards(st);
  const sel = selectedKind(st);
  if (ready && sel && ready[sel]) {
    // the selected tile leaves the hand ready: what it would wait on then
    items.push(h("span", { class: "tenpai", dataset: { role: "ready-after", tile: sel } }, h("b", {}, t("web.ready_after", { tile: tileName(sel, getLang()) })), " ", waitChips(v, ready[sel])));
  } else if (ready) items.push(h("span", { class: "muted", dataset: { role: "ready-hint" } }, t("web.ready_hint")));
  if (st.waits && st.waits.length) {
    items.push(h("span", { class: "tenpai", dataset: { role: "tenpai" } }, h("b", {}, t("tenpai")), " ", waitChips(v, st.waits)));
  } else if (Array.isArray(st.waits)) items.push(h("span", { class: "muted", dataset: { role: "tenpai" } }, t("not_tenpai")));
  if ((v.gold_discarded || []).includes(st.seat)) items.push(h("span", { class: "warn" }, t("gold_discarded_me")));
  if (goldHeldBack(allHand(v).all, v.gold, discardKinds(st))) items.push(h("span", { class: "muted" }, t("gold_forbidden")));
  if ((v.xian_jin || []).includes(st.seat)) items.push(h("span", { class: "warn" }, t("xian_jin_me")));
  if (v.jin_kan && v.jin_kan[String(st.seat)] !== undefined) items.push(h("span", { class: "warn" }, t("jin_kan_me")));
  return h("div", { class: "status-line", dataset: { role: "status" } }, items);
}

/** Whether the player may be shown a decision now: never under the opening card (it is
 * shown first, docs/web.md) nor at a dissolved table. */
function canDecide(st) {
  return !st.opening && !st.dissolved;
}

function claimPromptV(st) {
  const v = st.view;
  // under 托管 the server answers it (as it plays your turns: actionsV)
  if (!canDecide(st) || !st.mustAct || autoOn(st) || (v.phase !== "claims" && v.phase !== "window_a")) return null;
  const ld = v.last_discard;
  const windows = legal(st).filter((a) => WINDOW_ACTS.includes(a.type) && v.phase === "window_a");
  return h(
    "div",
    { class: "claim-prompt", dataset: { role: "claim-prompt" } },
    ld && v.phase === "claims" ? h("span", { class: "what" }, t("claim_prompt", { name: seatName(st.seats, ld.seat), tile: "" }), vtile(ld.tile, { size: "m", gold: v.gold }), h("b", {}, tileName(ld.tile, getLang()))) : null,
    windows.length ? h("span", { class: "window-help", dataset: { role: "window-help" } }, t("web.window_help"), windows.map((a) => h("span", { class: "wh" }, ` ${t(`web.window.${a.type === "win" ? "heaven" : a.type}`)}`))) : null,
    st.deadlineAt ? h("span", { class: "countdown big", dataset: { role: "countdown" } }, "") : null,
  );
}

function actionsV(st, act) {
  const out = [];
  // under 托管 the server decides: the banner's 取消托管 stands in their place (as at a
  // 同城游 table), and on a phone held sideways the two together ran your hand off the foot
  if (st.seat === null || st.pending || !canDecide(st) || autoOn(st)) return h("div", { class: "actions", dataset: { role: "actions" } });
  const ld = st.view.last_discard;
  const acts = sortActions(
    legal(st).filter((a) => a.type !== "discard"),
    ORDER,
    ld ? ld.tile : null,
  );
  let chowIx = 0;
  for (const a of acts) {
    const key = a.type === "chow" ? CHOW_KEYS[chowIx++] || "" : KEYS[a.type] || "";
    out.push(
      h(
        "button",
        { key: `${a.type}:${a.tile || ""}:${a.tiles || ""}`, class: `act a-${a.type}`, dataset: { action: a.type, key, tile: a.tile, tiles: a.tiles }, title: actionHelp(st, a), onclick: () => act(a) },
        // the short label (吃/碰…) where the room is short (a phone), the full one elsewhere
        h("span", { class: "act-main" }, actionTiles(st, a), h("span", { class: "act-label" }, actionLabel(st, a)), h("span", { class: "act-short" }, shortLabel(a)), key ? h("kbd", {}, key) : null),
        h("span", { class: "act-help" }, actionHelp(st, a)),
      ),
    );
  }
  const k = discardKinds(st).size ? discardTarget(st) : null;
  if (k) {
    out.push(
      h(
        "button",
        { key: "discard", class: "act a-discard", dataset: { action: "discard", key: "Enter", tile: k }, onclick: () => act({ type: "discard", tile: k }) },
        h("span", { class: "act-main" }, vrow([k], { size: "s", gold: st.view.gold }), h("span", { class: "act-label" }, t("act.discard", { tile: tileName(k, getLang()) })), h("kbd", {}, "⏎")),
        h("span", { class: `act-help${k === st.view.gold ? " warn" : ""}` }, k === st.view.gold ? t("gold_discard_warn") : t("select_tile")),
      ),
    );
  }
  return h("div", { class: "actions", dataset: { role: "actions" } }, out);
}

function handV(st, dispatch, act) {
  // before the opening's 开金 the hand is shown as dealt (shownView); no decision is open
  // then, so no selection can point into this order
  const v = shownView(st);
  if (st.seat === null) {
    // a spectator has no hand: the watched seat's concealed tiles (seat 0, at the bottom)
    // stand there as backs the size of a player's hand, none face up (R12), the last one
    // apart while it is the seat's turn with a tile to discard. They were 10 px backs in
    // its panel over a row of empty felt: the table a size smaller than a player's
    const n = Math.min((v.hand_sizes && v.hand_sizes[0]) || 0, 17);
    const apart = n % 3 === 2 && v.turn === 0 && v.phase !== "over";
    return h(
      "div",
      { class: `hand watched${apart ? " has-drawn" : ""}`, dataset: { role: "hand", watched: "1" } },
      Array.from({ length: n }, (_x, i) => vtile("", { key: `w${i}`, back: true, size: "l" })),
    );
  }
  const { tiles, drawn, all } = allHand(v);
  const keys = tileKeys(tiles);
  if (drawn) keys.push("drawn");
  const dk = discardKinds(st);
  const ready = readyDiscards(st);
  return h(
    "div",
    { class: "hand", dataset: { role: "hand" } },
    all.map((k, i) => {
      const isDrawn = drawn !== null && i === all.length - 1;
      const toReady = Boolean(ready && ready[k]);
      const cls = `${isDrawn ? "drawn" : ""}${st.sel === i ? " selected" : ""}${dk.size && !dk.has(k) ? " disabled" : ""}${toReady ? " to-ready" : ""}`;
      return vtile(k, {
        key: keys[i],
        size: "l",
        gold: v.gold,
        drawn: isDrawn,
        idx: String(i),
        cls,
        // 听牌提示: discarding it leaves the hand ready
        badge: toReady ? t("web.ready_badge") : null,
        data: toReady ? { ready: "1" } : undefined,
        onclick: () => {
          if (st.pending || !canDecide(st)) return;
          if (st.sel === i && dk.has(k)) act({ type: "discard", tile: k });
          else dispatch({ type: "@select", index: i });
        },
      });
    }),
  );
}

function toolbarV(st, conn, dispatch) {
  if (st.seat === null) return null;
  const auto = autoOn(st);
  const hint = canDecide(st) ? st.hint : null;
  const reason = hint ? hintReason(getLang() === "zh" ? hint.reason_zh || hint.reason : hint.reason) : "";
  return h(
    "div",
    { class: "toolbar" },
    h("button", { class: "secondary", dataset: { role: "hint-button", key: "H" }, disabled: !legal(st).length || !canDecide(st) || undefined, onclick: () => conn.send({ type: "hint" }) }, t("hint"), h("kbd", {}, "H")),
    h(
      "label",
      { class: "toggle", dataset: { role: "auto-pass" } },
      h("input", {
        type: "checkbox",
        checked: st.autoPass,
        onchange: (e) => {
          try {
            localStorage.setItem("fjmj.autopass", e.target.checked ? "1" : "0");
          } catch (_e) {
            /* ignore */
          }
          dispatch({ type: "@auto-pass", on: e.target.checked });
        },
      }),
      t("auto_pass"),
    ),
    h(
      "label",
      { class: "toggle", dataset: { role: "tuoguan" } },
      h("input", {
        type: "checkbox",
        checked: auto,
        onchange: (e) => {
          dispatch({ type: "@auto", on: e.target.checked });
          conn.send({ type: "auto", on: e.target.checked });
        },
      }),
      t("tuoguan"),
    ),
    hint ? h("span", { class: "hint", dataset: { role: "hint" } }, t("hint_says", { action: hintAction(hint.action), reason })) : null,
  );
}

function autoBannerV(st, conn, dispatch) {
  if (st.seat === null || !st.view || st.view.phase === "over" || !autoOn(st)) return null;
  return h(
    "div",
    { key: "auto-banner", class: "auto-banner", dataset: { role: "auto-banner" } },
    h("span", { class: "ab-long" }, t("web.auto_banner")),
    h("span", { class: "ab-short" }, t("web.auto_short")),
    h(
      "button",
      {
        class: "primary",
        dataset: { action: "cancel-auto" },
        onclick: () => {
          dispatch({ type: "@auto", on: false });
          conn.send({ type: "auto", on: false });
        },
      },
      t("web.cancel_auto"),
    ),
  );
}

function logV(st, open, toggle) {
  // the opening's lines join the log as the opening shows them, not before (openingLog)
  const entries = openingLog(st.log, st.opening);
  return h(
    "aside",
    { key: "log", class: `action-log${open ? " open" : ""}`, dataset: { role: "log", open: open ? "1" : "0" } },
    h("button", { class: "log-toggle secondary small", dataset: { action: "toggle-log" }, "aria-expanded": open ? "true" : "false", onclick: toggle }, t("web.log.title", { n: entries.filter((e) => e.kind !== "hand").length })),
    h(
      "ol",
      { class: "log-list" },
      // a new hand's line is a divider, not an entry (data-role=log-hand)
      entries.map((e) => h("li", { key: `e${e.id}`, class: `log-entry k-${e.kind}`, dataset: { role: e.kind === "hand" ? "log-hand" : "log-entry", seat: e.kind === "hand" ? undefined : String(e.seat), kind: e.kind } }, entryText(st, e))),
    ),
  );
}

function muteIcon(muted) {
  // a speaker drawn inline (renders everywhere), crossed out when muted
  return h(
    "svg",
    { viewBox: "0 0 24 24", width: "20", height: "20", "aria-hidden": "true" },
    h("path", { d: "M4 9h4l5-4v14l-5-4H4z", fill: "currentColor" }),
    muted ? h("path", { d: "M16 9l5 6M21 9l-5 6", stroke: "currentColor", "stroke-width": "2", fill: "none" }) : h("path", { d: "M16 8.5a5 5 0 0 1 0 7M18.5 6a8.5 8.5 0 0 1 0 12", stroke: "currentColor", "stroke-width": "2", fill: "none" }),
  );
}

// ------------------------------------------------------------------ the waiting room

/** The invite link to the clipboard, to send to friends. Where the page has no Clipboard
 * API (served over plain http to another machine: it needs a secure context) the link is
 * selected and copied with the older copy command, which browsers still honour on a tap;
 * where that is refused too, the selection stays for the player to copy by hand. */
async function copyInvite(url) {
  try {
    await navigator.clipboard.writeText(url);
    toast(t("web.invite_copied"));
    return;
  } catch (_e) {
    // no Clipboard API here, or it was refused: the selection below
  }
  const code = document.querySelector("[data-role=invite-link]");
  let copied = false;
  if (code) {
    const range = document.createRange();
    range.selectNodeContents(code);
    const sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
    try {
      copied = document.execCommand("copy");
    } catch (_e) {
      copied = false;
    }
  }
  toast(t(copied ? "web.invite_copied" : "web.invite_select"));
}

function waitingRoomV(st, conn, dispatch, botCall) {
  const n = st.players || (st.info && st.info.players) || (st.seats && st.seats.length) || 0;
  const seats = st.seats || (st.info && st.info.seats) || [];
  // a room's table deals by itself once the wait is over (bots fill the free seats): no
  // 准备 and no bots to add there (docs/economy.md, quick match); nor a ready badge, a
  // code or an invite, which a quick match's players do not look for
  const room = Boolean(st.info && st.info.room);
  const rows = [];
  for (let s = 0; s < n; s++) {
    const info = seats[s] || {};
    const name = info.name || (info.bot ? t("bot") : t("empty_seat"));
    rows.push(
      h(
        "div",
        { key: `w${s}`, class: "wait-seat", dataset: { seat: String(s) } },
        h("span", { class: "name" }, name, s === st.seat ? t("me_mark") : ""),
        info.bot ? h("span", { class: "badge bot" }, t("bot")) : null,
        info.bot && info.bot_level ? h("span", { class: "badge level", dataset: { role: "bot-level", level: String(info.bot_level) } }, botLevelName(info.bot_level)) : null,
        !room && !info.bot && info.name && !st.dealing ? h("span", { class: `badge ${info.ready ? "ok" : ""}` }, info.ready ? t("is_ready") : t("not_ready")) : null,
      ),
    );
  }
  const mine = seats[st.seat] || {};
  const code = (st.info && st.info.code) || st.code;
  // a private table opens by its code only (its id is refused to anyone not seated there)
  const ref = st.info && st.info.private && code ? code : st.table;
  const invite = st.table !== null && !room ? new URL(`./?table=${encodeURIComponent(ref)}`, window.location.href).href : "";
  // the hand is being dealt (hand_start came, the first state not yet): nothing to ready
  if (st.dealing) {
    return h(
      "section",
      { key: "waiting", class: "card waiting", dataset: { role: "waiting-room", dealing: "1" } },
      h("h2", {}, t("web.dealing")),
      h("div", { class: "wait-seats" }, rows),
    );
  }
  const canBots = !room && Boolean(st.botsApi && st.info && st.me && st.me.player_id !== undefined && st.info.creator_id === st.me.player_id && st.seat !== null);
  return h(
    "section",
    { key: "waiting", class: "card waiting", dataset: { role: "waiting-room" } },
    h("h2", {}, t("waiting_room")),
    code && !room ? h("p", {}, `${t("code")}${colon()}`, h("b", { dataset: { role: "table-code" } }, code)) : null,
    invite ? h("p", { class: "muted small" }, `${t("invite")}${colon()}`, h("code", { dataset: { role: "invite-link" } }, invite)) : null,
    h("div", { class: "wait-seats" }, rows),
    h(
      "div",
      { class: "row" },
      // hidden as soon as it is pressed (not when the server confirms): a second tap in
      // between could land on nothing once the hand starts
      room ? h("span", { class: "muted", dataset: { role: "room-wait" } }, t("web.room_wait")) : null,
      !room && st.seat !== null && (mine.ready || st.readySent) ? h("span", { class: "muted", dataset: { role: "ready-sent" } }, t("is_ready")) : null,
      !room && st.seat !== null && !mine.ready && !st.readySent
        ? h("button", { key: "ready", class: "primary", dataset: { action: "ready" }, onclick: () => { conn.send({ type: "ready" }); dispatch({ type: "@ready-sent" }); } }, t("ready"))
        : null,
      // in the buttons' row, not beside the link: a line of its own ran the waiting room
      // 10 px under the fold of a phone held sideways (740×360)
      invite ? h("button", { class: "secondary", dataset: { action: "copy-invite" }, onclick: () => copyInvite(invite) }, t("web.copy_invite")) : null,
      // only while a seat is free (at a full table it could do nothing)
      canBots && Array.from({ length: n }, (_, i) => seats[i] || {}).some((x) => !x.bot && !x.name) ? h("button", { class: "secondary", dataset: { role: "add-bot" }, onclick: () => botCall("POST") }, t("add_bot")) : null,
      canBots && seats.some((x) => x && x.bot) ? h("button", { class: "secondary", dataset: { role: "remove-bot" }, onclick: () => botCall("DELETE") }, t("remove_bot")) : null,
    ),
  );
}

// ------------------------------------------------------------------ the page

export async function showTable(root, tableRef, as) {
  let st = initState({
    table: tableRef,
    as,
    autoPass: (() => {
      try {
        return localStorage.getItem("fjmj.autopass") === "1";
      } catch (_e) {
        return false;
      }
    })(),
  });
  const paths = await serverPaths();
  const botsApi = Object.keys(paths).some((p) => /^\/api\/tables\/\{[^}]+\}\/bots$/.test(p) && hasPath(paths, p, "post"));
  const summaryPath = Object.keys(paths).some((p) => /^\/api\/hands\/\{[^}]+\}\/summary$/.test(p));
  // what handend.js reads and writes besides the reducer's state (its summaries, ready)
  const endCtx = { summaries: {}, summaryPath };
  // the log starts folded where the room is short (a phone, either way up), except on a
  // tall phone upright: the height to spare between the table and its seat holds it there
  // (style.css)
  const TALL_UPRIGHT = "(orientation: portrait) and (max-width: 700px) and (min-height: 800px)";
  let logOpen = !window.matchMedia("(max-width: 700px), (max-height: 500px)").matches || window.matchMedia(TALL_UPRIGHT).matches;
  let endLogOpen = false;
  let playedSound = 0;
  let openingTimer = null;
  // the result of a hand covers its table only once that table has been in view for
  // END_HOLD_MS: a hand that ends at its opening (三金倒 or 抢金 on the first discard, R7,
  // R8.2) still shows its deal, its gold and the winning move on the table first, as the
  // tables players know do; a hand seen for longer shows its result at once
  let seenHand = null;
  let seenAt = 0;
  let holdTimer = null;
  let endCache = { key: null, node: null };
  let conn = null;
  let notFound = null;

  const dissolvedV = () =>
    h(
      "main",
      { class: "end-wrap" },
      h(
        "section",
        { class: "hand-end card dissolved", dataset: { role: "dissolved" } },
        h("h2", {}, t("web.dissolved")),
        h("div", { class: "row" }, h("a", { class: "button primary", href: "./", dataset: { action: "back-to-lobby" } }, t("back_to_lobby"))),
      ),
    );

  const socialBox = document.createElement("section");
  socialBox.className = "social";
  socialBox.dataset.role = "social";
  let social = null;

  const dispatch = (msg) => {
    st = reduce(st, msg, performance.now());
    render();
  };

  const act = (action) => {
    if (st.pending) return;
    // no connection (or not yet the new connection's state): the move is not made, and said so
    if (!st.online || st.seq === null || !conn.send({ type: "act", seq: st.seq, action })) return toast(t("web.not_sent"), "error");
    if (action.type === "discard") play("tile");
    dispatch({ type: "@sent", action });
  };

  const botCall = async (method) => {
    try {
      await api(method, `api/tables/${encodeURIComponent(st.table)}/bots`);
      await refreshInfo();
    } catch (e) {
      toast(t("error", { msg: errorText({ code: e.code, message: e.message }) }), "error");
    }
  };

  const refreshInfo = async () => {
    try {
      const info = await api("GET", `api/tables/${encodeURIComponent(st.table)}`);
      dispatch({ type: "@info", info });
    } catch (_e) {
      /* the socket keeps us informed anyway */
    }
  };

  const leave = async () => {
    const mid = Boolean(st.view && !st.matchEnd);
    if (mid && !(await confirmLeave(socialCtx))) return;
    conn.send({ type: "leave" });
    conn.stop();
    go({});
  };

  const socialCtx = {
    send: (obj) => conn && conn.send(obj),
    lang: getLang,
    seats: () => st.seats,
    mySeat: () => st.seat,
    spectator: as === "spectator",
    table: () => st.info,
  };

  const endScreen = () => {
    // the end screen is rebuilt only when what it shows changes (its buttons keep their
    // nodes otherwise)
    const key = JSON.stringify([st.handEnd && st.handEnd.handNo, Boolean(st.handEnd && !st.handEnd.fromView), Boolean(st.matchEnd), st.closed, st.readyFor, getLang(), st.view && st.view.phase, st.winTile, Object.keys(endCtx.summaries).map((k) => [k, Boolean(endCtx.summaries[k])]), st.seats && st.seats.map((x) => x && x.name)]);
    if (endCache.key !== key) {
      const view = { ...st, ...endCtx };
      const node = renderHandEnd(view, conn, () => {
        endCtx.summaries = view.summaries;
        if (view.readyFor === st.hand && st.readyFor !== st.hand) st = reduce(st, { type: "@ready-next" }, performance.now());
        endCache.key = null;
        render();
      });
      endCtx.summaries = view.summaries || endCtx.summaries;
      endCache = { key, node };
    }
    return endCache.node;
  };

  // whether the end of the hand waits (END_HOLD_MS above); schedules the render that ends it
  const holdingEnd = (now) => {
    const e = st.handEnd;
    if (!e || st.dissolved || !st.view) return false;
    // the end of a hand shown again (a reload between two hands): its table was seen
    if (e.again) return false;
    if (st.opening) return true; // the opening plays to its end first (its steps render)
    if (seenHand !== e.handNo) {
      // the hand ended before its table was shown without the opening card (a 三金倒 in
      // window A is shown to the others only once the hand is over, R12): from now
      seenHand = e.handNo;
      seenAt = now;
    }
    const left = seenAt + END_HOLD_MS - now;
    if (left <= 0) return false;
    if (!holdTimer) {
      holdTimer = setTimeout(() => {
        holdTimer = null;
        render();
      }, left + 20);
    }
    return true;
  };

  const render = () => {
    const now = performance.now();
    if (st.view && !st.opening && !st.handEnd && seenHand !== st.hand) {
      seenHand = st.hand; // this hand's table in view without the opening card from now
      seenAt = now;
    }
    // a dissolved match's end comes with the server's word (hand_void, or a hand_end or
    // match_end: each sets handEnd), not with the vote: a hand decided in the claim pause
    // still ends settled
    const showEnd = Boolean(st.voidByVote || (st.handEnd && !holdingEnd(now)));
    document.title = `${t("title")} · ${t("table_no", { id: st.table })}`;
    const header = h(
      "header",
      { key: "bar", class: "bar" },
      h("a", { href: "./", class: "home", onclick: () => conn && conn.stop() }, t("lobby")),
      // the hand's number first: it stays when a phone has room for nothing else
      h("span", { class: "tinfo" }, st.hand ? h("span", { class: "t-hand", dataset: { role: "hand-no" } }, handNo(st)) : null, h("span", { class: "t-table" }, t("table_no", { id: st.table })), st.view ? h("span", { class: "t-profile" }, t(`profile.${st.view.profile}`)) : null),
      h("span", { class: "grow" }),
      h("button", { class: "icon secondary", dataset: { action: "mute" }, "aria-pressed": isMuted() ? "true" : "false", title: isMuted() ? t("web.unmute") : t("web.mute"), onclick: () => { setMuted(!isMuted()); render(); } }, muteIcon(isMuted())),
      h("button", { class: "lang", dataset: { role: "lang" }, title: getLang() === "zh" ? "Switch to English" : "切换到中文", onclick: () => { setLang(getLang() === "zh" ? "en" : "zh"); endCache.key = null; render(); if (social) social.relabel(); } }, t("lang_switch")),
      st.seat !== null ? h("button", { class: "secondary", dataset: { role: "leave" }, onclick: leave }, t("leave")) : null,
    );
    const parts = [header];
    // the connection lost: said over the middle of the screen, not in the header's corner
    // (on a phone held sideways that stood over 对家's panel), and the decisions and the
    // hand dimmed and out of reach until it is back (nothing tapped then could be sent)
    if (st.replaced) {
      // opened in another window: this one waits, and can take the seat back
      const here = () => {
        dispatch({ type: "@online", online: false });
        conn.start();
      };
      parts.push(h("div", { key: "replaced", class: "conn-lost", role: "status", dataset: { role: "replaced" } }, h("span", { class: "conn-lost-card" }, t("error.replaced"), h("button", { class: "primary", dataset: { action: "take-back" }, onclick: here }, t("web.continue_here")))));
    } else if (!st.online) parts.push(h("div", { key: "conn-lost", class: "conn-lost", role: "status", dataset: { role: "reconnecting" } }, h("span", { class: "conn-lost-card" }, t("reconnecting"))));
    if (notFound) {
      // a table that does not exist (or is gone): the error and the way back, nothing else
      parts.push(h("main", { key: "gone", class: "lobby" }, h("section", { class: "card", dataset: { role: "table-gone" } }, h("p", {}, notFound), h("a", { class: "button primary", href: "./", dataset: { action: "back-to-lobby" } }, t("back_to_lobby")))));
    } else if (!st.view && handInProgress(st)) {
      // the hand is being played and the server shows us nothing until its claim window
      // closes (R12): a placeholder, never the waiting room and its invite
      parts.push(h("main", { key: "lobby", class: "lobby" }, h("section", { key: "in-play", class: "card waiting in-play", dataset: { role: "hand-in-progress" } }, h("h2", {}, t("web.hand_in_progress"))), h("div", { class: "social-wrap" }, socialBox)));
    } else if (!st.view) {
      parts.push(h("main", { key: "lobby", class: "lobby" }, waitingRoomV(st, conn, dispatch, botCall), h("div", { class: "social-wrap" }, socialBox)));
    } else {
      const v = st.view;
      const me = st.seat ?? 0;
      if (showEnd) parts.push(h("div", { key: "end", class: "end-host" }, st.handEnd ? endScreen() : dissolvedV()));
      else {
        const seats = [];
        for (let s = 0; s < v.players; s++) if (s !== me) seats.push(seatV(st, s, now));
        // the square table (docs/web.md): the opponents on the left, top and right edges,
        // each river in front of its seat, the centre; you at the bottom with the hand, the
        // decisions beside your river; the log and the social box in the corners
        parts.push(h("div", { key: "rotate", class: "rotate-hint", dataset: { role: "rotate-hint" } }, t("web.rotate")));
        parts.push(
          h(
            "main",
            { key: "table", class: `table-grid sq n${v.players}${st.seat === null ? " watching" : ""}`, dataset: { role: "table", phase: v.phase } },
            seats,
            centerV(st),
            seatV(st, me, now),
            logV(st, logOpen, () => {
              logOpen = !logOpen;
              render();
            }),
            h("div", { key: "social", class: "social-wrap" }, socialBox),
            h(
              "section",
              { key: "dock", class: "dock", dataset: { role: "dock" } },
              h("div", { key: "side", class: "dock-side" }, statusV(st), toolbarV(st, conn, dispatch)),
              h("div", { key: "act", class: "dock-act" }, autoBannerV(st, conn, dispatch), claimPromptV(st), actionsV(st, act)),
              handV(st, dispatch, act),
            ),
            st.opening ? openingV(st, dispatch) : null,
          ),
        );
      }
      // between hands the log and the social box (chat, the dissolve vote) stay in reach
      if (showEnd) parts.push(h("div", { key: "log-end", class: "end-log" }, logV(st, endLogOpen, () => {
        endLogOpen = !endLogOpen;
        render();
      }), h("div", { class: "social-wrap" }, socialBox)));
    }
    root.classList.toggle("table-page", Boolean(st.view));
    // dimmed from the connection's loss until the new connection's first state (the hand
    // and its decisions shown meanwhile are the dead connection's)
    root.classList.toggle("offline", !st.online || (Boolean(st.view) && st.seq === null));
    patch(root, parts.filter(Boolean));
    markMore();
    // the newest log entry in view
    for (const list of root.querySelectorAll(".action-log .log-list")) if (list.dataset.n !== String(st.log.length)) {
      list.dataset.n = String(st.log.length);
      list.scrollTop = list.scrollHeight;
    }
    // sounds queued by the reducer, each played once
    for (const snd of st.sounds) {
      if (snd.id > playedSound) {
        playedSound = snd.id;
        play(snd.name);
      }
    }
    scheduleOpening();
    tick();
  };

  // the end of a hand taller than the screen: a cue at its foot until scrolled there
  const markMore = () => {
    const host = root.querySelector(".end-host");
    if (!host) return;
    if (!host.dataset.watched) {
      host.dataset.watched = "1";
      host.addEventListener("scroll", markMore, { passive: true });
    }
    host.classList.toggle("more", host.scrollTop + host.clientHeight < host.scrollHeight - 4);
  };
  window.addEventListener("resize", markMore);

  const scheduleOpening = () => {
    if (!st.opening) {
      if (openingTimer) clearTimeout(openingTimer);
      openingTimer = null;
      return;
    }
    if (openingTimer) return;
    const step = st.opening.steps[st.opening.step];
    openingTimer = setTimeout(() => {
      openingTimer = null;
      if (step.kind === "flower") play("tile");
      if (step.kind === "gold") play("claim");
      dispatch({ type: "@opening-step" });
    }, openingStepMs(step));
  };

  let lastLeft = null;
  let bubblesShown = false;
  const tick = () => {
    const left = st.deadlineAt ? Math.max(0, Math.ceil((st.deadlineAt - performance.now()) / 1000)) : null;
    for (const el of document.querySelectorAll("[data-role=countdown]")) {
      const text = left === null ? "" : t("seconds", { n: left });
      if (el.textContent !== text) el.textContent = text;
      el.classList.toggle("urgent", left !== null && left <= 5);
    }
    const nextAt = st.handEnd && st.handEnd.nextHandAt;
    for (const el of document.querySelectorAll("[data-role=next-hand-in]")) {
      const text = nextAt ? nextHandText(nextAt, performance.now()) : "";
      if (el.textContent !== text) el.textContent = text;
    }
    // under 托管 the server answers: no tick for a decision that is not shown
    if (left !== null && left !== lastLeft && left <= 3 && left > 0 && st.mustAct && !autoOn(st)) play("tick");
    lastLeft = left;
    // bubbles fade: re-render when one is due to go
    const now = performance.now();
    const live = st.bubbles.some((b) => now - b.at < BUBBLE_MS);
    if (bubblesShown && !live) {
      bubblesShown = false;
      render();
    } else if (live) bubblesShown = true;
  };
  setInterval(tick, 250);

  const onMessage = (msg) => {
    if (social) social.onMessage(msg);
    const before = st;
    st = reduce(st, msg, performance.now());
    // a practice table (docs/economy.md): the server says so in every state
    if (msg.type === "state" && msg.practice !== undefined && Boolean(msg.practice) !== Boolean(st.practice)) st = { ...st, practice: Boolean(msg.practice) };
    switch (msg.type) {
      case "seated":
        refreshInfo();
        break;
      case "state":
        if (!msg.view) refreshInfo();
        // auto-pass: decline claims (never a win) at once
        if (st.autoPass && st.mustAct && st.view.phase === "claims") {
          const acts = st.view.legal_actions;
          if (acts.some((a) => a.type === "pass") && !acts.some((a) => WINDOW_ACTS.includes(a.type))) {
            render();
            act({ type: "pass" });
            return;
          }
        }
        break;
      case "hand_end": {
        const id = handId(msg);
        if (id !== null) rememberHand(id, st.seat);
        st = { ...st, handEnd: { ...st.handEnd, id: id ?? String(msg.hand) } };
        break;
      }
      case "hand_void":
        // a dissolve agreed (no leaver): the end screen says 房间已解散 · 本盘作废 itself
        if (!msg.dissolved) toast(t("web.hand_void", { name: msg.leaver !== null && msg.leaver !== undefined ? who(st, msg.leaver) : "?" }), "error");
        break;
      case "table_closed":
        // after the end of the match the end screen already says so (its standings and the
        // way back to the lobby): a toast there would only cover its title
        if (!st.handEnd && !st.matchEnd) toast(t("table_closed"));
        break;
      case "status":
        // the server cannot save the game (full disk, lost database): it waits, then
        // continues by itself (docs/protocol.md)
        toast(getLang() === "zh" ? msg.message_zh || msg.message : msg.message, msg.store === "failing" ? "error" : "info");
        break;
      case "error":
        if (!st.view && !st.seats && TABLE_GONE.includes(msg.code)) {
          // no such table: say so and offer the way back (no waiting room beside it)
          notFound = t("error", { msg: errorText(msg) });
          conn.stop();
          render();
          return;
        }
        if (msg.code !== "replaced") toast(t("error", { msg: errorText(msg) }), "error"); // (said over the table)
        break;
      case "pong":
        return;
      default:
        break;
    }
    if (st !== before || msg.type === "error") render();
  };
  const onStatus = (s) => dispatch(s === "replaced" ? { type: "@replaced" } : { type: "@online", online: s === "online" });
  conn = new TableConn({ table: tableRef, as, onMessage, onStatus });
  // for tests and debugging: drop the socket as a network failure would
  window.fjmjDropConnection = () => conn.drop();
  st = { ...st, botsApi };
  conn.start();
  render();
  social = mountSocial(socialBox, socialCtx);

  document.addEventListener("keydown", (e) => onKey(e, () => st, act, conn, dispatch));
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

function onKey(e, current, act, conn, dispatch) {
  const st = current();
  if (!st || !st.view || st.seat === null || e.target.tagName === "INPUT" || e.target.tagName === "TEXTAREA" || e.ctrlKey || e.metaKey || e.altKey) return;
  const { all } = allHand(st.view);
  const count = all.length;
  if (e.key === "ArrowLeft" || e.key === "ArrowRight") {
    if (!count) return;
    const d = e.key === "ArrowLeft" ? -1 : 1;
    dispatch({ type: "@select", index: st.sel === null ? (d > 0 ? 0 : count - 1) : (st.sel + d + count) % count });
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
