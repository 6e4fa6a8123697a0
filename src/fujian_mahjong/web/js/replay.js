// Replay and review: step forward/back through a finished hand with every
// hand visible; at each decision of the chosen seat, the heuristic bot's choice and reason
// beside what was played. Data: GET api/hands/{id}/replay and api/hands/{id}/review?seat=S
// (server/web_api.py), available only once the hand is over (R12).
import { getLang, pick, t } from "./i18n.js";
import { api } from "./net.js";
import { h, langButton } from "./ui.js";
import { parseTiles, tileEl, tileName, tileRow } from "./tiles.js";
import { decompositionEl } from "./handend.js";
import { relation } from "./table.js";

function actionText(a) {
  if (!a) return "";
  const tile = a.tile ? tileName(a.tile, getLang()) : "";
  if (a.type === "discard") return t("act.discard", { tile });
  if (a.type === "chow") return t("act.chow", { tile: "", pair: parseTiles(a.tiles).map((k) => tileName(k, getLang())).join(" ") });
  if (a.type === "win") return t("act.win");
  if (a.type === "rob_gold") return a.tile ? t("act.rob_gold_tile", { tile }) : t("act.rob_gold");
  return t(`act.${a.type}`, { tile });
}

function sameAction(a, b) {
  return a && b && a.type === b.type && (a.tile || "") === (b.tile || "") && (a.tiles || "") === (b.tiles || "");
}

function boardEl(data, frame, viewer) {
  const s0 = frame.state;
  const n = data.players;
  const grid = h("div", { class: `table-grid replay-grid n${n}`, dataset: { role: "replay-board" } });
  const order = [];
  for (let s = 0; s < n; s++) if (s !== viewer) order.push(s);
  order.push(viewer);
  for (const s of order) {
    const rel = relation(s, viewer, n);
    const name = (data.names && data.names[s]) || `${t("bot")} #${s}`;
    const river = h("div", { class: "river", dataset: { role: "river" } });
    const disc = parseTiles(s0.discards[s]);
    disc.forEach((k, i) => {
      const el = tileEl(k, { size: "x", gold: s0.gold, lang: getLang() });
      if (s0.last_discard && s0.last_discard.seat === s && i === disc.length - 1) el.classList.add("last");
      river.appendChild(el);
    });
    const hand = parseTiles(s0.hands[s] || "");
    const golds = hand.filter((k) => k === s0.gold);
    const rest = hand.filter((k) => k !== s0.gold);
    grid.appendChild(
      h(
        "section",
        { class: `seat pos-${rel.pos}${frame.actor === s ? " turn" : ""}`, dataset: { seat: String(s) } },
        h(
          "div",
          { class: "seat-head" },
          h("span", { class: "rel" }, rel.key === "me" ? t("review_seat") : t(rel.key)),
          h("span", { class: "name" }, name),
          s0.dealer === s ? h("span", { class: "badge dealer" }, t("dealer")) : null,
          h("span", { class: "flower-count" }, t("flowers", { n: parseTiles(s0.flowers[s]).length })),
          h("span", { class: "flowers" }, parseTiles(s0.flowers[s]).map((k) => tileEl(k, { size: "xs" }))),
        ),
        h("div", { class: "melds" }, (s0.melds[s] || []).map((m) => h("span", { class: "meld" }, tileRow(m.tiles || "", { size: "s", gold: s0.gold })))),
        h("div", { class: "hand replay-hand", dataset: { role: "replay-hand" } }, tileRow([...golds, ...rest], { size: "x", gold: s0.gold, lang: getLang() })),
        river,
      ),
    );
  }
  grid.appendChild(
    h(
      "section",
      { class: "center" },
      h("div", { class: "gold-box" }, h("span", { class: "label" }, t("gold")), s0.indicator ? tileEl(s0.indicator, { size: "m", gold: s0.gold }) : null),
      h("div", { class: "counts" }, h("span", {}, t("live", { n: s0.live })), h("span", {}, t("reserve", { n: s0.reserve }))),
    ),
  );
  return grid;
}

export async function showReplay(root, handId, seatParam) {
  let data;
  try {
    data = await api("GET", `api/hands/${encodeURIComponent(handId)}/replay`);
  } catch (_e) {
    root.replaceChildren(h("main", { class: "lobby" }, h("section", { class: "card" }, h("p", {}, t("not_found")), h("a", { href: "./" }, t("back_to_lobby")))));
    return;
  }
  let seat = seatParam !== null && seatParam !== undefined && seatParam !== "" ? Number(seatParam) : 0;
  let review = null;
  let i = 0;
  const loadReview = async () => {
    try {
      review = await api("GET", `api/hands/${encodeURIComponent(handId)}/review?seat=${seat}`);
    } catch (_e) {
      review = null;
    }
  };
  await loadReview();

  const render = () => {
    const frames = data.frames;
    const frame = frames[i];
    const next = frames[i + 1];
    document.title = `${t("title")} · ${t("replay_title", { id: handId })}`;
    const seatSel = h(
      "select",
      {
        dataset: { role: "review-seat" },
        onchange: async (e) => {
          seat = Number(e.target.value);
          await loadReview();
          render();
        },
      },
      Array.from({ length: data.players }, (_x, s) => {
        const o = h("option", { value: String(s) }, (data.names && data.names[s]) || `${t("bot")} #${s}`);
        if (s === seat) o.selected = true;
        return o;
      }),
    );
    // the decision taken at this step (the act that leads to the next frame)
    const decision = review && review.decisions ? review.decisions.find((d) => d.frame === i) : null;
    const reviewBox = h(
      "div",
      { class: "review card", dataset: { role: "review" } },
      h("div", { class: "row" }, h("b", {}, t("review_seat")), seatSel, review ? h("span", { class: "muted" }, t("agreement", { a: review.agree, n: review.total })) : null),
      decision
        ? h(
            "div",
            { class: `decision ${sameAction(decision.played, decision.bot) ? "agree" : "differ"}`, dataset: { role: "decision", agree: sameAction(decision.played, decision.bot) ? "1" : "0" } },
            h("div", {}, t("played", { action: actionText(decision.played) })),
            h("div", {}, t("bot_choice", { action: actionText(decision.bot) }), " — ", getLang() === "zh" ? decision.reason_zh || decision.reason : decision.reason),
            h("div", { class: "verdict" }, sameAction(decision.played, decision.bot) ? t("agree") : t("differ")),
          )
        : h("div", { class: "muted" }, t("review_none")),
    );
    const narr = h("ol", { class: "narration", dataset: { role: "narration" } }, (frame.text || []).map((x) => h("li", {}, pick(x))));
    const controls = h(
      "div",
      { class: "replay-controls row" },
      h("button", { class: "secondary", dataset: { role: "replay-first" }, disabled: i === 0 || undefined, onclick: () => { i = 0; render(); } }, t("first")),
      h("button", { dataset: { role: "replay-prev" }, disabled: i === 0 || undefined, onclick: () => { i = Math.max(0, i - 1); render(); } }, t("prev")),
      h("span", { class: "step", dataset: { role: "replay-step" } }, t("step", { i: i, n: frames.length - 1 })),
      h("button", { dataset: { role: "replay-next" }, disabled: i >= frames.length - 1 || undefined, onclick: () => { i = Math.min(frames.length - 1, i + 1); render(); } }, t("next")),
      h("button", { class: "secondary", dataset: { role: "replay-last" }, disabled: i >= frames.length - 1 || undefined, onclick: () => { i = frames.length - 1; render(); } }, t("last")),
    );
    const endBox =
      i === frames.length - 1 && data.score
        ? h(
            "div",
            { class: "card" },
            data.decomposition ? decompositionEl(data.decomposition, data.gold) : null,
            h("table", { class: "breakdown" }, data.score.breakdown.map((term) => h("tr", {}, h("td", {}, pick(term)), h("td", { class: "num" }, String(term.value))))),
          )
        : null;
    root.replaceChildren(
      h("header", { class: "bar" }, h("a", { href: "./", class: "home" }, t("lobby")), h("span", { class: "tinfo" }, t("replay_title", { id: handId }), ` · ${t(`profile.${data.profile}`)}`), h("span", { class: "grow" }), langButton(render)),
      h("main", { class: "replay", dataset: { role: "replay", frame: String(i) } }, controls, h("div", { class: "replay-body" }, boardEl(data, frame, seat), h("aside", { class: "replay-side" }, reviewBox, narr, endBox))),
    );
  };
  document.addEventListener("keydown", (e) => {
    if (e.target.tagName === "SELECT" || e.target.tagName === "INPUT") return;
    if (e.key === "ArrowRight" && i < data.frames.length - 1) i += 1;
    else if (e.key === "ArrowLeft" && i > 0) i -= 1;
    else return;
    render();
  });
  render();
}
