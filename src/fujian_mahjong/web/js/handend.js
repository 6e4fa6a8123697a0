// End of hand and match: every hand revealed, the winning hand as its
// decomposition with what each gold stands for, the scorer's zh/en breakdown (R10: every
// term named), payments, match totals; the next hand only on a deliberate click.
import { colon, getLang, pick, t } from "./i18n.js";
import { api } from "./net.js";
import { go, h } from "./ui.js";
import { parseTiles, tileEl, tileName, tileRow } from "./tiles.js";
import { num, standings as rankStandings } from "./helpers.js";

function seatName(st, s) {
  const info = st.seats && st.seats[s];
  return (info && info.name) || `#${s}`;
}

/** `&code=…` for a private table's hand seen by a spectator: it came in by the code, and
 * the hands open to one not at the table by that code only (docs/protocol.md). */
function withCode(st) {
  // a spectator's only: players see their hands by their token, and a code in a replay
  // link a player shares would open the private table to whoever has the link
  const watching = st.seat === null || st.seat === undefined;
  return st.code && watching ? `&code=${encodeURIComponent(st.code)}` : "";
}

/** The winning tile from the finished hand's log (its `win` event), once it is public. */
function fetchWinTile(st, id, rerender) {
  const key = `win:${id}`;
  if (st.summaries[key] !== undefined) return st.summaries[key];
  st.summaries[key] = null;
  api("GET", `api/hands/${encodeURIComponent(id)}/log?format=json${withCode(st)}`)
    .then((events) => {
      const win = (Array.isArray(events) ? events : []).find((e) => e.type === "win");
      st.summaries[key] = (win && win.tile) || "";
      if (st.summaries[key]) rerender();
    })
    .catch(() => {
      st.summaries[key] = "";
    });
  return null;
}

/** A revealed hand with the winning tile (its last copy) marked. */
function handRow(tiles, gold, winning) {
  const row = tileRow(tiles || "", { size: "s", gold, lang: getLang() });
  if (winning) {
    const els = row.querySelectorAll(`[data-tile="${winning}"]`);
    if (els.length) els[els.length - 1].classList.add("winning");
  }
  return row;
}

/** Groups of a decomposition (analysis Decomposition.to_json) with gold roles. */
export function decompositionEl(dec, gold) {
  const box = h("div", { class: "decomp", dataset: { role: "decomposition" } });
  const groups = [...(dec.melds || []), dec.pair].filter(Boolean);
  for (const g of groups) {
    const kinds = parseTiles(g.tiles);
    const golds = [...(g.golds || [])];
    const grp = h("span", { class: `group g-${g.type}` });
    for (const k of kinds) {
      const gi = golds.indexOf(k);
      if (gi >= 0) {
        golds.splice(gi, 1);
        // a gold standing for k: shown as the gold, labelled with what it stands for
        const el = tileEl(gold, { size: "s", gold, lang: getLang() });
        el.dataset.as = k;
        el.title = t("gold_as", { tile: tileName(k, getLang()) });
        grp.appendChild(h("span", { class: "as-wrap" }, el, h("span", { class: "as" }, k === gold ? t("gold") : `=${tileName(k, getLang())}`)));
      } else grp.appendChild(tileEl(k, { size: "s", gold, notGold: true, lang: getLang() }));
    }
    box.appendChild(grp);
  }
  return box;
}

function meldsEl(melds, gold) {
  return h(
    "span",
    { class: "melds" },
    (melds || []).map((m) => h("span", { class: "meld" }, m.tiles ? tileRow(m.tiles, { size: "xs", gold, lang: getLang() }) : null)),
  );
}

function fetchSummary(st, id, rerender) {
  st.summaries = st.summaries || {};
  if (st.summaries[id] !== undefined) return st.summaries[id];
  st.summaries[id] = null;
  api("GET", `api/hands/${encodeURIComponent(id)}/summary${withCode(st).replace("&", "?")}`)
    .then((s) => {
      st.summaries[id] = s;
      rerender();
    })
    .catch(() => {
      st.summaries[id] = { error: true };
    });
  return null;
}

function winTileEl(k, gold) {
  const el = tileEl(k, { size: "m", gold, lang: getLang() });
  el.dataset.winning = "1";
  el.classList.add("winning");
  return el;
}

// the terms a formula comes to (R10): its sums and products, set apart from what is added
const SUMS = new Set(["subtotal", "doubled", "winner_points", "points_doubled", "self_draw_doubled", "discard_doubled", "total", "total_discard"]);

/** The 算分: the scorer's terms in the formula's order (R10), read down the first column
 * and on down the second (across the rows, 花 · 套花 / 明杠 · 暗杠, a reader going down
 * the left column met 花, 明杠, 金, 底, 小计×2), the sums in bold. */
export function breakdownEl(terms, props = {}) {
  return h(
    "table",
    { class: "breakdown", style: `--rows:${Math.ceil(terms.length / 2)}`, ...props },
    h("caption", {}, t("breakdown")),
    terms.map((term) => h("tr", { class: SUMS.has(term.key) ? "sum" : "", dataset: { key: term.key } }, h("td", {}, pick(term)), h("td", { class: "num" }, String(term.value)))),
  );
}

// a room table's wait before it deals the next hand by itself (hand_end's next_hand_ms)
export function nextHandText(at, now) {
  return t("web.next_hand_in", { n: Math.max(0, Math.ceil((at - now) / 1000)) });
}

/** Your silver over the match (match_end's ``silver`` for your seat) in words: "本场银子 −496
 * （服务费 16）"; null for a spectator, a seat without an account or a match where
 * nothing moved (practice, no stake). */
export function matchSilverText(st, match) {
  const me = st.seat;
  const line = match && Array.isArray(match.silver) && me !== null && me !== undefined ? match.silver[me] : null;
  if (!line) return null;
  const c = line.change > 0 ? `+${num(line.change)}` : num(line.change);
  // (the balance after it is on the last hand's own line, above)
  return t("web.match_silver", { c, f: num(line.fees) });
}

function mySilver(st, match) {
  const text = matchSilverText(st, match);
  return text === null ? null : h("p", { class: "match-silver", dataset: { role: "match-silver", change: String(match.silver[st.seat].change) } }, text);
}

export function renderHandEnd(st, conn, rerender) {
  const he = st.handEnd;
  const v = st.view && st.view.phase === "over" ? st.view : null;
  const n = (v && v.players) || st.players || 4;
  const result = (v && v.result) ?? he.result ?? null;
  const score = (v && v.score) ?? he.score ?? null;
  const hands = (v && v.hands) || he.hands || {};
  const gold = (v && v.gold) || he.gold || null;
  const id = he.id ?? null;
  // the summary is asked for only once the server has announced the end (hand_end): the
  // hand is stored as finished by then, so the request cannot 404
  const summary = id !== null && st.summaryPath && !he.fromView ? fetchSummary(st, id, rerender) : null;
  st.summaries = st.summaries || {};
  const logged = result && id !== null && !he.fromView ? fetchWinTile(st, id, rerender) : null;
  const winTile = logged || st.winTile || null;
  const dealtIn = result && result.discarder !== null && result.discarder !== undefined ? result.discarder : null;

  // void by the vote (hand_void); a hand whose end was decided first (a win held by the
  // claim pause) or that ended before the vote was settled: its result, and a line saying so
  const voided = st.voidByVote;
  const left = st.voidLeaver;
  const title = voided
    ? h("h2", { dataset: { role: "winner" } }, h("span", { dataset: { role: "dissolved" } }, t("web.dissolved")))
    : typeof left === "number" && !result
    ? h("h2", { dataset: { role: "winner" } }, h("span", { dataset: { role: "void-left" } }, t("web.void_left", { name: seatName(st, left) })))
    : result
    ? h(
        "h2",
        { dataset: { role: "winner" } },
        t("winner_is", { name: seatName(st, result.winner) }),
        " · ",
        dealtIn !== null ? t("win_discard", { name: seatName(st, dealtIn) }) : t(`wintype.${result.win}`),
        winTile ? h("span", { class: "win-tile" }, " · ", t("web.winning_tile"), winTileEl(winTile, gold)) : null,
      )
    : h("h2", { dataset: { role: "winner" } }, t("draw_game"));

  const rows = [];
  for (let s = 0; s < n; s++) {
    const pay = score && score.payments ? score.payments[s] : null;
    const flowers = v ? parseTiles(v.flowers[s]).length : null;
    rows.push(
      h(
        "div",
        { class: `end-seat${result && result.winner === s ? " winner" : ""}${dealtIn === s ? " dealt-in" : ""}`, dataset: { endSeat: String(s), dealtIn: dealtIn === s ? "1" : undefined } },
        // who, the flowers, the payment and the match total: on a phone held sideways in
        // columns around the tiles (.end-info before, .end-score after), elsewhere on one
        // line above them (the wrappers are drawn away there)
        h(
          "span",
          { class: "end-info" },
          h("span", { class: "end-who" }, h("span", { class: "name", title: seatName(st, s) }, seatName(st, s), s === st.seat ? t("me_mark") : ""), dealtIn === s ? h("span", { class: "badge warn" }, t("web.dealt_in")) : null),
          h("span", { class: "end-nums" }, flowers !== null ? h("span", { class: "muted" }, t("flowers", { n: flowers })) : null),
        ),
        h("span", { class: "end-tiles" }, handRow(hands[String(s)], gold, result && result.winner === s ? winTile : null), v ? meldsEl(v.melds[s], gold) : null),
        // the hand's payment and the match's running total (after the tiles when held sideways)
        h(
          "span",
          { class: "end-score" },
          pay !== null ? h("span", { class: `pay ${pay > 0 ? "plus" : pay < 0 ? "minus" : ""}`, dataset: { role: "payment" } }, pay > 0 ? `+${pay}` : String(pay)) : null,
          st.totals && st.totals[s] !== undefined
            ? h("span", { class: "total muted" }, h("span", { class: "total-long" }, t("totals")), h("span", { class: "total-short" }, t("totals_short")), ` ${st.totals[s]}`)
            : null,
        ),
        // a player's silver is its own business: only its own line, never to a spectator
        he.silver && he.silver[s] && !he.practice && st.seat !== null && st.seat !== undefined && s === st.seat
          ? h(
              "span",
              { class: "silver", dataset: { role: "silver-change" } },
              t("silver_change", { c: he.silver[s].change > 0 ? `+${num(he.silver[s].change)}` : num(he.silver[s].change), b: num(he.silver[s].balance), f: num(he.silver[s].fee) }),
            )
          : null,
      ),
    );
  }

  const breakdown = score && score.breakdown ? breakdownEl(score.breakdown, { dataset: { role: "breakdown" } }) : null;

  let decomp = null;
  if (summary && summary.decomposition) {
    decomp = h("div", { class: "win-shape" }, h("h3", {}, t("winning_hand")), decompositionEl(summary.decomposition, summary.gold || gold));
  }
  const specials = score && score.specials && score.specials.length ? h("p", { class: "specials" }, t("specials", { list: (summary && summary.specials_named ? summary.specials_named.map(pick) : score.specials).join(" · ") })) : null;

  const match = st.matchEnd;
  const standings = match
    ? h(
        "div",
        { class: "standings", dataset: { role: "match-end" } },
        h("h3", {}, t("match_over"), " · ", t("standings")),
        h(
          "ol",
          {},
          // ties share a rank (helpers.standings); the name in a box of its own, cut with …
          // where a column is narrow, the points never (style.css)
          rankStandings(match.totals).map((r) => h("li", { value: String(r.rank), dataset: { rank: String(r.rank), seat: String(r.seat) } }, h("span", { class: "st-entry" }, h("span", { class: "name" }, seatName(st, r.seat)), `${colon()}${r.points}`))),
        ),
        // the silver the match moved for you, its hands summed by the server (match_end's
        // ``silver``: your own line, never a spectator's; none at a practice table)
        mySilver(st, match),
        // seats whose silver fell below the table's minimum between hands ended the match
        // (docs/economy.md, "Between hands")
        Array.isArray(match.short) && match.short.length
          ? h("p", { class: "muted", dataset: { role: "short-of-silver" } }, t("web.short_of_silver", { names: match.short.map((s) => seatName(st, s)).join(" · ") }))
          : null,
      )
    : null;

  // a room table deals the next hand by itself: how soon, on a line of its own under the
  // buttons (table.js's tick writes it; beside them it broke their words on a small phone)
  const soon =
    !match && !he.fromView && !he.match_over && !st.dissolved && st.seat !== null && he.nextHandAt
      ? h("p", { class: "muted small next-hand-in", dataset: { role: "next-hand-in" } }, nextHandText(he.nextHandAt, performance.now()))
      : null;
  const buttons = h(
    "div",
    { class: "row" },
    // only once the server has said the hand is over and the match goes on (hand_end's
    // match_over): a button shown before match_end could vanish under a tap
    !match && !he.fromView && !he.match_over && !st.dissolved && st.seat !== null
      ? st.readyFor === st.hand
        ? h("span", { class: "muted" }, t("is_ready"))
        : h(
            "button",
            {
              class: "primary",
              dataset: { action: "ready" },
              onclick: () => {
                conn.send({ type: "ready" });
                st.readyFor = st.hand;
                rerender();
              },
            },
            t("next_hand"),
          )
      : null,
    id !== null ? h("a", { class: "button secondary", href: `./?replay=${encodeURIComponent(id)}${st.seat !== null ? `&seat=${st.seat}` : ""}${withCode(st)}`, target: "_blank", rel: "noopener", dataset: { role: "open-replay" } }, t("open_replay")) : null,
    match || st.dissolved ? h("button", { class: "secondary", dataset: { action: "back-to-lobby" }, onclick: () => go({}) }, t("back_to_lobby")) : null,
  );

  return h(
    "main",
    { class: "end-wrap" },
    h(
      "section",
      // data-closed: the table is closed (table_closed), nothing more will come to it
      { class: "hand-end card", dataset: { role: "hand-end", closed: st.closed ? "1" : undefined } },
      h("h2", { class: "small muted" }, t("hand_over")),
      title,
      st.dissolved && !voided ? h("p", { class: "muted dissolved-note", dataset: { role: "dissolved-settled" } }, t("web.dissolved_settled")) : null,
      // two columns: every hand and the 算分 on the left, what to do next, the winning
      // shape and the standings on the right (one column on a phone held upright)
      h(
        "div",
        { class: "end-body" },
        h("div", { class: "end-left" }, h("div", { class: "end-seats" }, h("h3", {}, t("all_hands")), rows), breakdown),
        h("div", { class: "end-right" }, buttons, soon, decomp, specials, standings),
      ),
      h("div", { class: "scroll-cue", "aria-hidden": "true" }, t("web.scroll_more")),
    ),
  );
}
