// Table chat by preset phrases, the dissolve vote and the leave warning (docs/web.md,
// "Lobby, profile and table chat"). The table (table.js) mounts this once into its
// [data-role=social] container and passes every server message to onMessage; confirmLeave
// is asked before 离开.
//
// ctx = {send(obj), lang, seats(), mySeat(), spectator, table()}: seats() the last `seats`
// list, mySeat() our seat or null, table() the GET /api/tables/{ref} answer or null.
//
// Chat carries nothing but a phrase id from GET /api/phrases (no free text, docs/protocol.md);
// a phrase shows as a bubble at the seat's element ([data-seat=N]) for a few seconds and in
// the short chat log. Each viewer may mute a player: remembered in localStorage per viewer.
import { colon, pick, t } from "./i18n.js";
import { hasPath, load, save, serverPaths, token } from "./net.js";
import { call, modal, num } from "./lobby.js";
import { leaveWarning } from "./lobbyhelpers.js";
import { h } from "./ui.js";

const BUBBLE_MS = 6000;
const LOG_LINES = 6;

// Reactions drawn as inline SVG: a stock Debian Chromium has no colour emoji font and shows
// 👍 and 👏 as empty boxes. Keyed by the phrase id (GET /api/phrases); others keep their
// emoji, which the usual fonts have.
const SVG_REACTIONS = {
  thumbs_up:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><rect x="2.5" y="10" width="4.5" height="10.5" rx="1" fill="#3b82c4" stroke="#1d4f7a" stroke-width="1.2"/><path d="M7.5 10h2.7l2.4-5.3c.4-.8 1.2-1.3 2-1.1.9.2 1.4 1.1 1.2 2L15 9.6h4.2c1.2 0 2.1 1.1 1.8 2.3l-1.4 6.9c-.2 1-1 1.7-2 1.7H7.5z" fill="#f5b43c" stroke="#8a5a00" stroke-width="1.2" stroke-linejoin="round"/></svg>',
  clap:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><g stroke="#d9822b" stroke-width="1.5" stroke-linecap="round" fill="none"><path d="M3 6l2 1.6M5.6 2.6l.9 2.4M20.5 5l-2 1.4"/></g><path d="M8 21.5l-3.6-6c-.5-.9-.2-2 .7-2.4.8-.4 1.7-.1 2.2.7l1.1 1.8-1.5-7.4c-.2-.8.3-1.6 1.1-1.8.8-.2 1.6.3 1.8 1.1l1 4.4-.3-5.3c0-.8.6-1.5 1.4-1.5.8 0 1.5.6 1.5 1.4l.5 5.6 1-3.6c.2-.8 1-1.2 1.8-1 .8.2 1.2 1 1 1.8l-1.8 7.5c-.7 3-2.9 4.7-5.6 4.7z" fill="#f5b43c" stroke="#8a5a00" stroke-width="1.2" stroke-linejoin="round"/></svg>',
};

/** A reaction's picture: an <img> of inline SVG (SVG_REACTIONS) or the emoji itself. */
function reactionGlyph(p, words) {
  const svg = SVG_REACTIONS[p.id];
  if (!svg) return p.emoji;
  return h("img", { class: "lb-reaction", src: `data:image/svg+xml,${encodeURIComponent(svg)}`, alt: words, width: "24", height: "24", dataset: { reaction: String(p.id) } });
}

// What the leave warning needs to know about a mounted table (mountSocial fills it).
const STATE = new WeakMap();

let phraseList = null;

/** The preset phrases ([{id, zh, en, kind}]), fetched once per page. */
function loadPhrases() {
  if (!phraseList) {
    phraseList = serverPaths()
      .then((paths) => (hasPath(paths, "/api/phrases", "get") ? call("GET", "api/phrases") : []))
      .then((list) => (Array.isArray(list) ? list : []))
      .catch(() => {
        phraseList = null;
        return [];
      });
  }
  return phraseList;
}

function muteKey() {
  return `mute.${load("player_id") || "anon"}`;
}

function mutedSet() {
  try {
    const v = JSON.parse(load(muteKey()) || "[]");
    return new Set(Array.isArray(v) ? v.map(String) : []);
  } catch (_e) {
    return new Set();
  }
}

function setMuted(playerId, on) {
  const s = mutedSet();
  if (on) s.add(String(playerId));
  else s.delete(String(playerId));
  save(muteKey(), JSON.stringify([...s]));
}

function seatInfo(ctx, seat) {
  const seats = (ctx.seats && ctx.seats()) || [];
  return seats.find((s) => s && Number(s.seat) === Number(seat)) || seats[seat] || null;
}

function seatName(ctx, seat) {
  const s = seatInfo(ctx, seat);
  return (s && s.name) || t("lobby.seat_n", { n: Number(seat) + 1 });
}

function hasHand(ctx, st) {
  if (st && st.playing !== null) return st.playing;
  const info = ctx.table && ctx.table();
  return Boolean(info && info.status === "playing" && info.hand !== null && info.hand !== undefined);
}

/** Where a seat is on the page: of the [data-seat=N] elements the largest visible box (the
 * seat's panel, not a tile or a notice inside it); an element laid out with
 * `display: contents` is placed by its first visible child. Null when none shows. */
function seatRect(seat) {
  let best = null;
  let area = 0;
  for (const el of document.querySelectorAll(`[data-seat="${Number(seat)}"]`)) {
    if (el.closest("[data-role=chat-bubble]")) continue;
    let r = el.getBoundingClientRect();
    if (!(r.width * r.height)) {
      const child = [...el.children].find((c) => {
        const cr = c.getBoundingClientRect();
        return cr.width * cr.height > 0;
      });
      if (!child) continue;
      r = child.getBoundingClientRect();
    }
    if (r.width * r.height > area) {
      best = r;
      area = r.width * r.height;
    }
  }
  return best;
}

export function mountSocial(container, ctx) {
  const st = {
    playing: null, // a hand in progress (null: not known from the messages yet)
    seatedKey: null, // who sat where at the last seats message (player ids and bots)
    registered: null,
    phrases: [],
    byId: new Map(),
    open: false, // the phrase list
    log: [],
    vote: null, // {votes, deadlineAt, result}
    bubbles: new Set(),
    timer: null,
    info: null, // our own copy of the table's terms (tableInfo)
    practice: null, // 练习, as the last `state` said (null: not said yet)
    closed: false, // table_closed: no chat, no 解散
  };
  STATE.set(ctx, st);
  let alive = true;

  const panel = h("div", { class: "lb-social", dataset: { role: "chat-panel" } });
  // bubbles of seats not on the page (render() redraws the panel, not this)
  const bubbleBox = h("div", { class: "lb-bubble-box" });
  container.append(panel, bubbleBox);
  const voteLayer = h("div", { class: "lb-vote-layer" });
  document.body.appendChild(voteLayer);

  loadPhrases().then((list) => {
    if (!alive) return;
    st.phrases = list;
    st.byId = new Map(list.map((p) => [String(p.id), p]));
    render();
  });
  if (token()) {
    serverPaths()
      .then((paths) => (hasPath(paths, "/api/me", "get") ? call("GET", "api/me") : null))
      .then((me) => {
        if (me) st.registered = Boolean(me.registered);
      })
      .catch(() => {
        /* unknown: the warning names the table's penalty */
      });
  }

  // a reaction (表情) shows its emoji, a phrase (快捷语) its words in the UI language
  const phraseText = (id, withWords = false) => {
    const p = st.byId.get(String(id));
    if (!p) return "…";
    if (p.emoji) return withWords ? [reactionGlyph(p, pick(p)), ` ${pick(p)}`] : reactionGlyph(p, pick(p));
    return pick(p);
  };

  const seated = () => !ctx.spectator && ctx.mySeat() !== null && ctx.mySeat() !== undefined;

  // The table's terms (GET /api/tables/{id}): our own copy, fetched when the socket says
  // where we sit and again when the seats change (a second human makes a practice table
  // one for silver), else the table page's (ctx.table()). The stakes line must not depend
  // on the page's fetch having landed: after a reload the socket's first messages come
  // before it, and a render then drew no line until something else changed.
  const tableInfo = () => st.info || (ctx.table && ctx.table()) || null;
  const fetchInfo = (table) => {
    if (table === null || table === undefined) return;
    call("GET", `api/tables/${encodeURIComponent(table)}`)
      .then((info) => {
        if (!alive || !info || typeof info !== "object") return;
        st.info = info;
        render();
      })
      .catch(() => {
        /* the page's own copy, if any, is used */
      });
  };

  const sendPhrase = (id) => {
    ctx.send({ type: "chat", phrase: id });
    st.open = false;
    render();
  };

  const bubble = (seat, phrase, playerId) => {
    // one bubble per seat: a new phrase replaces the seat's last one
    for (const old of [...st.bubbles]) {
      if (old.dataset.from === String(seat)) {
        old.remove();
        st.bubbles.delete(old);
      }
    }
    const p = st.byId.get(String(phrase));
    const emoji = Boolean(p && p.emoji);
    const r = seatRect(seat);
    const el = h(
      "div",
      { class: `lb-bubble${emoji ? " emoji" : ""}${r ? " at-seat" : ""}`, dataset: { role: "chat-bubble", from: String(seat), player: playerId === null || playerId === undefined ? undefined : String(playerId), phrase: String(phrase) } },
      h("span", { class: "lb-bubble-name" }, seatName(ctx, seat)),
      h("span", { class: "lb-bubble-text", title: p ? pick(p) : undefined }, phraseText(phrase)),
      playerId !== null && playerId !== undefined && Number(seat) !== Number(ctx.mySeat())
        ? h("button", { class: "lb-mute", title: t("lobby.mute_player", { name: seatName(ctx, seat) }), "aria-label": t("lobby.mute_player", { name: seatName(ctx, seat) }), dataset: { action: "mute-player", player: String(playerId) }, onclick: () => mute(playerId, true) }, t("lobby.mute"))
        : null,
    );
    if (r) {
      // fixed over the seat: the table re-renders its seats at every message, so the bubble
      // lives outside them
      el.style.left = `${Math.round(r.left + r.width / 2)}px`;
      el.style.top = `${Math.round(Math.max(4, r.top + Math.min(r.height / 2, 60) - 16))}px`;
      document.body.appendChild(el);
    } else {
      bubbleBox.appendChild(el);
    }
    st.bubbles.add(el);
    setTimeout(() => {
      el.remove();
      st.bubbles.delete(el);
    }, BUBBLE_MS);
  };

  const mute = (playerId, on) => {
    setMuted(playerId, on);
    if (on) {
      st.log = st.log.filter((x) => String(x.player) !== String(playerId));
      for (const b of [...st.bubbles]) {
        if (b.dataset.player === String(playerId)) {
          b.remove();
          st.bubbles.delete(b);
        }
      }
    }
    render();
  };

  const onChat = (msg) => {
    const info = seatInfo(ctx, msg.seat);
    const pid = info ? info.player_id : null;
    if (pid !== null && pid !== undefined && mutedSet().has(String(pid))) return;
    st.log.push({ seat: msg.seat, phrase: msg.phrase, player: pid });
    if (st.log.length > LOG_LINES) st.log.shift();
    bubble(msg.seat, msg.phrase, pid);
    render();
  };

  // ---------------------------------------------------------------- dissolve vote

  const voteTick = () => {
    const v = st.vote;
    if (!v) return;
    const el = voteLayer.querySelector("[data-role=dissolve-countdown]");
    if (el && v.deadlineAt !== null) el.textContent = t("lobby.seconds_left", { n: Math.max(0, Math.ceil((v.deadlineAt - performance.now()) / 1000)) });
    if (!v.result && v.deadlineAt !== null && performance.now() >= v.deadlineAt) {
      v.result = "expired";
      renderVote();
      render(); // the 解散 button is enabled again
    }
  };

  const endVote = (result) => {
    if (!st.vote) st.vote = { votes: {}, deadlineAt: null, result };
    st.vote.result = result;
    renderVote();
  };

  const onDissolve = (msg) => {
    const votes = msg.votes || {};
    const deadlineAt = msg.deadline_ms === null || msg.deadline_ms === undefined ? null : performance.now() + Number(msg.deadline_ms);
    const values = Object.values(votes);
    // outcome: null while open, else "dissolved" | "refused" | "expired" (docs/protocol.md)
    let result = msg.outcome ? String(msg.outcome) : null;
    if (!result && values.some((x) => x === false)) result = "refused";
    st.vote = { votes, deadlineAt: result ? null : deadlineAt, result };
    renderVote();
  };

  const renderVote = () => {
    const v = st.vote;
    voteLayer.replaceChildren();
    clearInterval(st.timer);
    st.timer = null;
    if (!v) return;
    const mine = ctx.mySeat();
    const myVote = mine !== null && mine !== undefined ? v.votes[String(mine)] : undefined;
    const rows = Object.entries(v.votes).map(([seat, x]) =>
      h(
        "li",
        { dataset: { vote: x === true ? "accept" : x === false ? "refuse" : "pending", from: seat } },
        h("span", {}, seatName(ctx, seat)),
        h("b", {}, x === true ? t("lobby.vote_accept") : x === false ? t("lobby.vote_refuse") : t("lobby.vote_pending")),
      ),
    );
    const result = v.result
      ? h("p", { class: `lb-vote-result ${v.result}`, dataset: { role: "dissolve-result", result: v.result } }, t(`lobby.dissolve_${v.result}`))
      : null;
    const buttons = [];
    if (!v.result && myVote === null && seated()) {
      buttons.push(
        h("button", { class: "secondary", dataset: { action: "dissolve-refuse" }, onclick: () => ctx.send({ type: "dissolve", accept: false }) }, t("lobby.refuse")),
        h("button", { class: "primary", dataset: { action: "dissolve-accept" }, onclick: () => ctx.send({ type: "dissolve", accept: true }) }, t("lobby.accept")),
      );
    }
    if (v.result) buttons.push(h("button", { class: "secondary", dataset: { action: "dissolve-close" }, onclick: () => { st.vote = null; renderVote(); render(); } }, t("lobby.ok")));
    voteLayer.append(
      h(
        "div",
        { class: "lb-dialog lb-vote", role: "dialog", dataset: { role: "dissolve-vote" } },
        h("h3", {}, t("lobby.dissolve_title")),
        h("p", { class: "muted small" }, t("lobby.dissolve_explained")),
        h("ul", { class: "lb-votes" }, rows),
        v.result ? null : h("p", { class: "lb-countdown", dataset: { role: "dissolve-countdown" } }),
        result,
        h("div", { class: "row lb-buttons" }, buttons),
      ),
    );
    if (!v.result) {
      voteTick();
      st.timer = setInterval(voteTick, 250);
    }
  };

  // ---------------------------------------------------------------- the panel

  const render = () => {
    if (!alive) return;
    const info = tableInfo();
    const parts = [];
    // 练习 (docs/economy.md): the latest word of the server (each `state`), else the table's
    const practice = st.practice !== null ? st.practice : Boolean(info && info.practice);
    if (info && info.stakes) {
      const terms = practice ? t("lobby.practice_line") : t("lobby.table_terms", { stake: num(info.stakes.stake), fee: num(info.stakes.fee), penalty: num(info.escape_penalty) });
      parts.push(
        h(
          "div",
          { class: `lb-table-stakes muted small${practice ? " practice" : ""}`, title: terms, dataset: { role: "table-stakes", practice: practice ? "1" : undefined } },
          // each term a box (lobby.css: whole on a line where it fits)
          terms.split(" · ").flatMap((term, i) => [i ? " · " : null, h("span", { class: "term" }, term)]),
        ),
      );
    }
    const tools = h("div", { class: "row lb-social-tools" });
    if (seated() && !st.closed && st.phrases.length) {
      tools.append(h("button", { class: "secondary", "aria-expanded": st.open ? "true" : "false", dataset: { action: "chat" }, onclick: () => { st.open = !st.open; render(); } }, t("lobby.chat")));
    }
    if (seated() && !st.closed && info && info.private) {
      tools.append(h("button", { class: "secondary", dataset: { action: "dissolve" }, disabled: (st.vote && !st.vote.result) || undefined, onclick: () => ctx.send({ type: "dissolve", accept: true }) }, t("lobby.dissolve")));
    }
    parts.push(tools);
    if (st.open && seated()) {
      const kinds = [...new Set(st.phrases.map((p) => p.kind || "phrase"))];
      parts.push(
        h(
          "div",
          { class: "lb-phrases", dataset: { role: "phrase-list" } },
          kinds.map((k) =>
            h(
              "div",
              { class: `lb-phrase-group kind-${k}` },
              st.phrases
                .filter((p) => (p.kind || "phrase") === k)
                .map((p) => h("button", { class: `lb-phrase kind-${k}`, title: pick(p), "aria-label": pick(p), dataset: { action: "phrase", phrase: String(p.id) }, onclick: () => sendPhrase(p.id) }, p.emoji ? reactionGlyph(p, pick(p)) : pick(p))),
            ),
          ),
          mutePanel(),
        ),
      );
    }
    if (st.log.length) {
      parts.push(
        h(
          "ol",
          { class: "lb-chat-log", dataset: { role: "chat-log" } },
          st.log.map((x) => h("li", { dataset: { from: String(x.seat), player: x.player === null || x.player === undefined ? undefined : String(x.player), phrase: String(x.phrase) } }, h("b", {}, `${seatName(ctx, x.seat)}${colon()}`), phraseText(x.phrase, true))),
        ),
      );
    }
    panel.replaceChildren(...parts);
  };

  const mutePanel = () => {
    const seats = ((ctx.seats && ctx.seats()) || []).filter((s) => s && !s.bot && s.player_id !== null && s.player_id !== undefined && Number(s.seat) !== Number(ctx.mySeat()));
    if (!seats.length) return null;
    const muted = mutedSet();
    return h(
      "div",
      { class: "lb-mutes", dataset: { role: "mute-list" } },
      h("span", { class: "muted small" }, t("lobby.mute_title")),
      seats.map((s) => {
        const on = muted.has(String(s.player_id));
        return h(
          "button",
          { class: on ? "primary" : "secondary", "aria-pressed": on ? "true" : "false", dataset: { action: "mute-player", player: String(s.player_id), muted: on ? "1" : "0" }, onclick: () => mute(s.player_id, !on) },
          on ? t("lobby.unmute_name", { name: s.name }) : t("lobby.mute_name", { name: s.name }),
        );
      }),
    );
  };

  render();
  // the table's info (ctx.table(): stakes, private) comes by REST after the mount and with
  // no message of its own: draw again when it changes
  let lastInfo = ctx.table ? ctx.table() : null;
  const infoWatch = setInterval(() => {
    const now = ctx.table ? ctx.table() : null;
    if (now !== lastInfo) {
      lastInfo = now;
      render();
    }
  }, 300);

  return {
    /** Draw again in the UI language just chosen (the stakes note, 快捷语, 解散): the panel
     * is drawn only here, and a language switch sends no message. */
    relabel() {
      render();
    },
    onMessage(msg) {
      if (!alive || !msg || typeof msg !== "object") return;
      switch (msg.type) {
        case "chat":
          onChat(msg);
          return;
        case "dissolve":
          // the vote's dialog, and the 解散 button disabled while a vote is open (render
          // below): a vote that ends must enable it at once, not at the next unrelated message
          onDissolve(msg);
          break;
        case "seated":
          fetchInfo(msg.table);
          break;
        case "seats": {
          // who sits where (people and bots): the table's terms change only with it (a
          // second person makes a practice table one for silver). A seats message that only
          // says who is ready (after each hand) asks nothing: after the last hand the table
          // closes, and a request racing its close would answer 404
          const who = JSON.stringify((msg.seats || []).map((x) => [x.player_id ?? null, Boolean(x.bot)]));
          if (!st.playing && who !== st.seatedKey) {
            st.practice = null; // the table's answer says again
            fetchInfo(msg.table);
          }
          st.seatedKey = who;
          break;
        }
        case "hand_start":
          st.playing = true;
          break;
        case "state":
          if (msg.view) st.playing = msg.view.phase !== "over";
          if (msg.practice !== undefined) st.practice = Boolean(msg.practice);
          break;
        case "hand_end":
        case "hand_void":
        case "left":
          st.playing = false;
          break;
        case "table_closed":
          // nothing left to dissolve, nobody to chat with: the end screen's own buttons
          st.playing = false;
          st.closed = true;
          break;
        case "match_end":
          st.playing = false;
          if (msg.dissolved) endVote("dissolved");
          break;
        default:
          break;
      }
      render();
    },
    destroy() {
      alive = false;
      clearInterval(st.timer);
      clearInterval(infoWatch);
      for (const b of st.bubbles) b.remove();
      st.bubbles.clear();
      panel.remove();
      bubbleBox.remove();
      voteLayer.remove();
      STATE.delete(ctx);
    },
  };
}

/**
 * Before 离开: with a hand in progress, a dialog naming what leaving costs here (R11 逃跑:
 * the table's escape penalty, "离开将扣除 127 银子"); resolves true to leave, false to stay.
 * A spectator, or a seat between hands, leaves at once (true).
 */
export async function confirmLeave(ctx) {
  if (!ctx || ctx.spectator || ctx.mySeat() === null || ctx.mySeat() === undefined) return true;
  const st = STATE.get(ctx) || null;
  if (!hasHand(ctx, st)) return true;
  const info = (st && st.info) || (ctx.table && ctx.table()) || null;
  // 练习 (docs/economy.md): winning pays nothing there, so leaving costs nothing
  const practice = st && st.practice !== null ? st.practice : Boolean(info && info.practice);
  const penalty = info && !practice ? info.escape_penalty : null;
  const guest = Boolean(st && st.registered === false);
  const stake = info && info.stakes ? info.stakes.stake : 0;
  const warning = leaveWarning({ practice, penalty, guest, stake });
  const charged = warning.key === "lobby.leave_costs";
  const text = t(warning.key, { n: num(warning.n) });
  return modal({
    role: "leave-warning",
    title: t("lobby.leave_title"),
    body: h("p", { class: "lb-leave-text", dataset: { role: "leave-penalty", amount: charged ? String(penalty) : "0" } }, text),
    buttons: [
      { label: t("lobby.stay"), action: "stay", value: false, primary: true },
      { label: t("lobby.leave_anyway"), action: "leave-confirm", value: true },
    ],
  });
}
