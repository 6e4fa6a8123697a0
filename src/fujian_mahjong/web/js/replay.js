// Replay and review (docs/web.md): a finished hand on the same table layout as play (every
// hand face up), stepped with the buttons, ←/→, or played at a chosen speed; claims that
// lost to a higher one are shown as such; at each decision of the chosen seat, the heuristic
// bot's choice and reason beside what was played. Data: GET api/hands/{id}/replay and
// api/hands/{id}/review?seat=S (server/web_api.py), available only once the hand is over
// (R12). Rendered with vdom.js like the table.
import { colon, getLang, pick, setLang, t } from "./i18n.js";
import { api } from "./net.js";
import { parseTiles, tileName } from "./tiles.js";
import { breakdownEl, decompositionEl } from "./handend.js";
import { hintReason, relation, riverRows } from "./helpers.js";
import { vtile } from "./table.js";
import { h, patch } from "./vdom.js";

const SPEEDS = [0.5, 1, 2, 4];

/** A decision in words; `phase`: the phase it was taken in (the state before it), so that
 * a win on one's own turn says 自摸 as the narration does, not 胡 (R7); `claimed`: the
 * discard open to claims then, which a pong, kong or chow takes ("Bot: Pong 9 Characters",
 * not "Bot: Pong"). */
export function actionText(a, phase = null, claimed = null) {
  if (!a) return "";
  const claim = a.type === "pong" || a.type === "kong" || a.type === "chow";
  const kind = a.tile || (claim && phase === "claims" ? claimed : null);
  const tile = kind ? tileName(kind, getLang()) : "";
  if (a.type === "discard") return t("act.discard", { tile });
  if (a.type === "chow") return t("act.chow", { tile, pair: parseTiles(a.tiles).map((k) => tileName(k, getLang())).join(" ") });
  // a win on its own draw: its turn, or the last group (R5: each draws, and wins on it)
  if (a.type === "win") return phase === "turn" || phase === "last_group" ? t("act.win_self") : t("act.win");
  if (a.type === "rob_gold") return a.tile ? t("act.rob_gold_tile", { tile }) : t("act.rob_gold");
  return t(`act.${a.type}`, { tile });
}

function sameAction(a, b) {
  return a && b && a.type === b.type && (a.tile || "") === (b.tile || "") && (a.tiles || "") === (b.tiles || "");
}

/** Control icons drawn inline (they render everywhere, unlike ⏮/⏭ glyphs). */
const ICONS = {
  first: "M6 5h2v14H6zM20 5v14L9 12z",
  prev: "M18 5v14L7 12z",
  next: "M6 5v14l11-7z",
  last: "M4 5v14l11-7zM16 5h2v14h-2z",
  play: "M7 4v16l13-8z",
  pause: "M6 5h4v14H6zM14 5h4v14h-4z",
};

function icon(name) {
  return h("svg", { viewBox: "0 0 24 24", width: "18", height: "18", "aria-hidden": "true" }, h("path", { d: ICONS[name], fill: "currentColor" }));
}

function seatLabel(data, s) {
  return (data.names && data.names[s]) || `#${s}`;
}

function boardV(data, frame, viewer, before = null) {
  const s0 = frame.state;
  const n = data.players;
  const seats = [];
  const order = [];
  for (let s = 0; s < n; s++) if (s !== viewer) order.push(s);
  order.push(viewer);
  for (const s of order) {
    const rel = relation(s, viewer, n);
    const disc = parseTiles(s0.discards[s]);
    const per = n === 4 && (rel.pos === "left" || rel.pos === "right") ? 6 : 8;
    const hand = parseTiles(s0.hands[s] || "");
    const golds = hand.filter((k) => k === s0.gold);
    const rest = hand.filter((k) => k !== s0.gold);
    const flowers = parseTiles(s0.flowers[s]);
    seats.push(
      h(
        "section",
        { key: `seat${s}`, class: `seat pos-${rel.pos}`, dataset: { seat: String(s) } },
        h(
          "div",
          { class: `seat-box box-${rel.pos}${frame.actor === s ? " turn" : ""}` },
          h(
            "div",
            { class: "seat-head" },
            h("span", { class: "rel" }, rel.key === "me" ? t("review_seat") : t(rel.key)),
            h("span", { class: "name" }, seatLabel(data, s)),
            s0.dealer === s ? h("span", { class: "badge dealer" }, t("dealer")) : null,
          ),
          h("div", { class: "seat-info" }, h("span", { class: "flower-count" }, t("flowers", { n: flowers.length })), h("span", { class: "flowers" }, flowers.map((k, i) => vtile(k, { key: `f${i}`, size: "s" })))),
          h("div", { class: "hand replay-hand", dataset: { role: "replay-hand" } }, [...golds, ...rest].map((k) => vtile(k, { size: "s", gold: s0.gold }))),
          h("div", { class: "melds" }, (s0.melds[s] || []).map((m, i) => h("span", { key: `m${i}`, class: "meld" }, parseTiles(m.tiles || "").map((k) => vtile(k, { size: "s", gold: s0.gold }))))),
        ),
        h(
          "div",
          { class: `river r-${rel.pos}`, dataset: { role: "river" } },
          riverRows(disc, per).map((row, ri) =>
            h(
              "div",
              { key: `r${ri}`, class: "river-row" },
              row.map((k, j) => {
                const i = ri * per + j;
                const last = s0.last_discard && s0.last_discard.seat === s && i === disc.length - 1;
                return vtile(k, { key: String(i), size: "r", gold: s0.gold, cls: last ? "last" : "", last });
              }),
            ),
          ),
        ),
      ),
    );
  }
  return h(
    "div",
    { key: "board", class: `table-grid tl replay-grid n${n}`, dataset: { role: "replay-board" } },
    seats,
    h(
      "section",
      { key: "center", class: "center" },
      h("div", { class: "gold-box" }, h("span", { class: "label" }, t("gold")), s0.indicator ? vtile(s0.indicator, { size: "m", gold: s0.gold }) : null),
      h("div", { class: "counts" }, h("span", {}, t("live", { n: s0.live })), h("span", {}, t("reserve", { n: s0.reserve }))),
      frame.actor !== null && frame.actor !== undefined ? h("div", { class: "turn-line", dataset: { role: "turn-line" } }, `${seatLabel(data, frame.actor)}${colon()}${actionText(frame.action, before && before.phase, before && before.last_discard && before.last_discard.tile)}`) : null,
    ),
  );
}

export async function showReplay(root, handId, seatParam, code = null, stepParam = null) {
  // a private table's hand opens to one not at the table by the table's code, as its
  // spectators came in (docs/protocol.md, "Private tables' hands")
  const withCode = code ? `code=${encodeURIComponent(code)}` : "";
  let data;
  try {
    data = await api("GET", `api/hands/${encodeURIComponent(handId)}/replay${withCode ? `?${withCode}` : ""}`);
  } catch (_e) {
    patch(root, h("main", { class: "lobby" }, h("section", { class: "card" }, h("p", {}, t("not_found")), h("a", { href: "./", class: "chip", dataset: { role: "back-to-lobby" } }, t("back_to_lobby")))));
    return;
  }
  let seat = seatParam !== null && seatParam !== undefined && seatParam !== "" ? Number(seatParam) : 0;
  let review = null;
  // the step from the address (a reload or a shared link opens where it was left)
  let i = Math.max(0, Math.min(data.frames.length - 1, Number.parseInt(stepParam ?? "0", 10) || 0));
  let playing = null; // the timer while playing
  let speed = 1;
  const loadReview = async () => {
    try {
      review = await api("GET", `api/hands/${encodeURIComponent(handId)}/review?seat=${seat}${withCode ? `&${withCode}` : ""}`);
    } catch (_e) {
      review = null;
    }
  };
  await loadReview();

  // the step and the seat in the address, so that a reload (or the link, shared) opens the
  // replay where it was left (docs/web.md): replaced, not pushed, as the table's address is
  // Browsers limit how often an address may be replaced (Safari: 100 times in 30 s) and
  // throw past it: while the steps play, at most once a second (and when they stop); a
  // step or a seat chosen by hand at once; a refusal never stops the board
  let placeTimer = null;
  const writePlace = () => {
    placeTimer = null;
    const q = new URLSearchParams(window.location.search);
    q.set("seat", String(seat));
    q.set("step", String(i));
    try {
      window.history.replaceState(window.history.state, "", `?${q.toString()}`);
    } catch (_e) {
      // the place is not kept this time; the replay goes on
    }
  };
  const keepPlace = (now = false) => {
    if (now) {
      if (placeTimer !== null) clearTimeout(placeTimer);
      writePlace();
    } else if (placeTimer === null) {
      placeTimer = setTimeout(writePlace, 1000);
    }
  };
  const go = (k) => {
    i = Math.max(0, Math.min(data.frames.length - 1, k));
    if (i === data.frames.length - 1) stop();
    render();
    keepPlace(!playing);
  };
  const stop = () => {
    if (playing) clearInterval(playing);
    playing = null;
  };
  const start = () => {
    stop();
    if (i >= data.frames.length - 1) i = 0;
    playing = setInterval(() => go(i + 1), 1000 / speed);
  };

  const render = () => {
    const frames = data.frames;
    const frame = frames[i];
    const last = frames.length - 1;
    document.title = `${t("title")} · ${t("replay_title", { id: handId })}`;
    const decision = review && review.decisions ? review.decisions.find((d) => d.frame === i) : null;
    // the phase the step's decision was taken in (the frame before it)
    // the state the step's action was taken in (the frame before it), and the state the
    // review seat's decision at this step is taken in (this frame's: the decision comes
    // next): its phase and the discard a claim takes. The decision read the frame before's
    // phase, so a win on another's discard said 自摸
    const before = i > 0 && frames[i - 1].state ? frames[i - 1].state : null;
    const now = frame.state || {};
    const said = (a) => actionText(a, now.phase, now.last_discard && now.last_discard.tile);
    const agree = decision && sameAction(decision.played, decision.bot);
    const reviewBox = h(
      "div",
      { key: "review", class: "review card", dataset: { role: "review" } },
      h(
        "div",
        { class: "row" },
        h("b", {}, t("review_seat")),
        h(
          "select",
          {
            dataset: { role: "review-seat" },
            onchange: async (e) => {
              seat = Number(e.target.value);
              keepPlace(true);
              await loadReview();
              render();
            },
          },
          Array.from({ length: data.players }, (_x, s) => h("option", { value: String(s), selected: s === seat || undefined }, seatLabel(data, s))),
        ),
        review ? h("span", { class: "muted" }, t("agreement", { a: review.agree, n: review.total })) : null,
      ),
      decision
        ? h(
            "div",
            { class: `decision ${agree ? "agree" : "differ"}`, dataset: { role: "decision", agree: agree ? "1" : "0" } },
            h("div", {}, t("played", { action: said(decision.played) })),
            h("div", {}, t("bot_choice", { action: said(decision.bot) }), " — ", hintReason(getLang() === "zh" ? decision.reason_zh || decision.reason : decision.reason)),
            h("div", { class: "verdict" }, agree ? t("agree") : t("differ")),
          )
        : h("div", { class: "muted" }, t("review_none")),
    );
    // the step's verdict in the header too: a phone held sideways has the review below the
    // board, out of the first screen (the stylesheet shows it there only). It stood in the
    // board's centre, as narrow as the gold's box, and was cut with … (by 20 px in Chinese
    // and up to 95 px in English at 667×375); the header has the width for it whole, the
    // hand's title giving way. Where they differ the bot's choice comes first, each part
    // whole on its line where the header has to wrap it
    const played = decision ? t("played", { action: said(decision.played) }) : "";
    const botSaid = decision && !agree ? t("bot_choice", { action: said(decision.bot) }) : "";
    const verdictText = decision ? (agree ? `✓ ${played}` : `✗ ${botSaid} · ${played}`) : "";
    const part = (text, key) => h("span", { key, class: "vpart" }, text);
    const verdict = decision
      ? h(
          "div",
          { class: `verdict-line ${agree ? "agree" : "differ"}`, title: verdictText, dataset: { role: "decision-verdict", agree: agree ? "1" : "0" } },
          agree ? [part(`✓ ${played}`, "p")] : [part(`✗ ${botSaid}`, "b"), h("span", { key: "dot", class: "vsep" }, " · "), part(played, "p")],
        )
      : null;
    const narr = h(
      "ol",
      { key: "narr", class: "narration", dataset: { role: "narration" } },
      // the hands at the end ("亮牌: 一万 二万 …") are on the board, face up, as tiles: not
      // said again as words
      (frame.text || []).filter((x) => x.kind !== "end").map((x) =>
        h("li", { class: x.lost ? "lost" : "", dataset: { kind: x.lost ? "claim-lost" : x.kind, seat: x.seat !== undefined && x.seat !== null ? String(x.seat) : undefined } }, x.lost ? h("b", {}, t("web.replay.lost")) : null, pick(x)),
      ),
    );
    const btn = (role, ic, label, disabled, onclick, text = null) => h("button", { class: `${text ? "primary" : "secondary"} icon`, dataset: { role }, title: label, "aria-label": label, disabled: disabled || undefined, onclick }, icon(ic), text);
    const controls = h(
      "div",
      { key: "controls", class: "replay-controls row" },
      btn("replay-first", "first", t("first"), i === 0, () => go(0)),
      btn("replay-prev", "prev", t("prev"), i === 0, () => go(i - 1)),
      btn(
        "replay-play",
        playing ? "pause" : "play",
        playing ? t("web.replay.pause") : t("web.replay.play"),
        false,
        () => {
          if (playing) stop();
          else start();
          render();
        },
        playing ? t("web.replay.pause") : t("web.replay.play"),
      ),
      h("span", { class: "step", dataset: { role: "replay-step" } }, t("step", { i, n: last })),
      btn("replay-next", "next", t("next"), i >= last, () => go(i + 1)),
      btn("replay-last", "last", t("last"), i >= last, () => go(last)),
      h(
        "select",
        {
          class: "speed",
          dataset: { role: "replay-speed" },
          title: t("web.replay.speed"),
          onchange: (e) => {
            speed = Number(e.target.value);
            if (playing) start();
          },
        },
        SPEEDS.map((x) => h("option", { value: String(x), selected: x === speed || undefined }, `${x}×`)),
      ),
    );
    const endBox =
      i === last && data.score
        ? h(
            "div",
            { key: "end", class: "card" },
            data.decomposition ? decompositionEl(data.decomposition, data.gold) : null,
            breakdownEl(data.score.breakdown),
          )
        : null;
    patch(root, [
      h(
        "header",
        { key: "bar", class: "bar replay-bar" },
        h("a", { href: "./", class: "home" }, t("lobby")),
        h("span", { class: "tinfo" }, t("replay_title", { id: handId }), ` · ${t(`profile.${data.profile}`)}`),
        verdict,
        h("span", { class: "grow" }),
        h("button", { class: "lang", dataset: { role: "lang" }, onclick: () => { setLang(getLang() === "zh" ? "en" : "zh"); render(); } }, t("lang_switch")),
      ),
      h("main", { key: "replay", class: "replay", dataset: { role: "replay", frame: String(i) } }, controls, h("div", { class: "replay-body" }, boardV(data, frame, seat, before), h("aside", { class: "replay-side" }, reviewBox, narr, endBox))),
    ]);
  };
  document.addEventListener("keydown", (e) => {
    if (e.target.tagName === "SELECT" || e.target.tagName === "INPUT") return;
    if (e.key === "ArrowRight" && i < data.frames.length - 1) go(i + 1);
    else if (e.key === "ArrowLeft" && i > 0) go(i - 1);
    else if (e.key === " ") {
      if (playing) stop();
      else start();
      render();
      e.preventDefault();
    }
  });
  render();
}
