// The lobby: guest name (and login/register when the server has accounts), silver and
// level with 救济金 relief, the rooms by stake with quick match, create a table (with its
// stake), join by code, the open tables, spectate, my finished hands; links to the profile
// and the leaderboards (js/profile.js). Before sitting at any table the player sees its
// stake, fee and escape penalty (docs/economy.md). Strings: locale/<lang>/lobby.json.
import { colon, getLang, has, setLang, t } from "./i18n.js";
import { api, hasPath, load, save, serverPaths, token } from "./net.js";
import { allowedStakes, defaultStake, levelNames, replayHref, tableState } from "./lobbyhelpers.js";
import { num } from "./helpers.js";
import { go, h, toast } from "./ui.js";

export const PROFILES = ["fuzhou-tcy", "fuzhou-bianfeng", "fuzhou-doudou", "sanming"];

// ------------------------------------------------------------------ shared helpers

/** JSON request with the bearer token (net.js's `api`): a refusal throws ApiError with the
 * HTTP status, the server's one-line detail and its machine `code` (docs/protocol.md). */
export const call = api;

/** An error in the UI language: lobby.error.<code>, else the catalogue's error.<code>,
 * else the server's own line. */
export function errText(e) {
  const code = e && e.code;
  if (code && has(`lobby.error.${code}`)) return t(`lobby.error.${code}`, { detail: e.message });
  if (code && has(`error.${code}`)) return t(`error.${code}`);
  return t("lobby.error", { msg: (e && e.message) || String(e) });
}

// silver as digits with thousands separators (helpers.js), for the pages that import it here
export { num };

/** The page header: title, lobby / leaderboard / my profile links, language. */
export function header(rerender, title) {
  const pid = token() ? load("player_id") : null;
  return h(
    "header",
    { class: "bar" },
    h("h1", {}, title || t("lobby.title")),
    h("a", { href: "./", class: "home", dataset: { action: "lobby" } }, t("lobby.lobby")),
    h("a", { href: `./?leaderboard=fuzhou-tcy&by=skill`, class: "home", dataset: { action: "leaderboard" } }, t("lobby.leaderboard")),
    pid ? h("a", { href: `./?player=${encodeURIComponent(pid)}`, class: "home", dataset: { action: "my-profile" } }, t("lobby.my_profile")) : null,
    h("span", { class: "grow" }),
    h(
      "button",
      {
        class: "lang",
        dataset: { role: "lang" },
        title: getLang() === "zh" ? "Switch to English" : "切换到中文",
        onclick: () => {
          setLang(getLang() === "zh" ? "en" : "zh");
          rerender();
        },
      },
      t("lobby.lang_switch"),
    ),
  );
}

/**
 * A modal dialog: resolves with the `value` of the button pressed (Esc or the backdrop:
 * `dismiss`). `role` is the dialog's data-role; each button has its data-action.
 */
export function modal({ role, title, body, buttons, dismiss = false }) {
  return new Promise((resolve) => {
    let done = false;
    const close = (v) => {
      if (done) return;
      done = true;
      overlay.remove();
      document.removeEventListener("keydown", onKey, true);
      resolve(v);
    };
    const onKey = (e) => {
      if (e.key === "Escape") {
        e.stopPropagation();
        e.preventDefault();
        close(dismiss);
      }
    };
    const dialog = h(
      "div",
      { class: "lb-dialog", role: "dialog", "aria-modal": "true", dataset: { role } },
      title ? h("h3", {}, title) : null,
      body,
      h(
        "div",
        { class: "row lb-buttons" },
        buttons.map((b) => h("button", { class: b.primary ? "primary" : "secondary", dataset: { action: b.action }, onclick: () => close(b.value) }, b.label)),
      ),
    );
    const overlay = h("div", { class: "lb-overlay", onclick: (e) => e.target === overlay && close(dismiss) }, dialog);
    document.body.appendChild(overlay);
    document.addEventListener("keydown", onKey, true);
    const first = dialog.querySelector("button.primary") || dialog.querySelector("button");
    if (first) first.focus();
  });
}

/** The figures a player sees before sitting down: stake, base, fee, cap, minimum balance
 * and the escape penalty (R11; null stakes: points only). A practice table (docs/economy.md:
 * one account with bots not of the house, or guests) shows no stake: 练习. */
export function stakesFacts(stakes, penalty, practice = false) {
  if (practice) return h("p", { class: "lb-facts lb-practice", dataset: { role: "stakes", practice: "1" } }, t("lobby.practice_facts"));
  if (!stakes) return h("p", { class: "lb-facts", dataset: { role: "stakes" } }, t("lobby.points_only"));
  return h(
    "dl",
    { class: "lb-facts", dataset: { role: "stakes" } },
    h("dt", {}, t("lobby.stake")),
    h("dd", { dataset: { role: "stake" } }, t("lobby.stake_value", { n: num(stakes.stake) })),
    h("dt", {}, t("lobby.base")),
    h("dd", {}, num(stakes.base)),
    h("dt", {}, t("lobby.fee")),
    h("dd", { dataset: { role: "fee" } }, t("lobby.silver_n", { n: num(stakes.fee) })),
    stakes.cap ? h("dt", {}, t("lobby.cap")) : null,
    stakes.cap ? h("dd", {}, t("lobby.cap_value", { n: num(stakes.cap) })) : null,
    h("dt", {}, t("lobby.min_balance")),
    h("dd", {}, t("lobby.silver_n", { n: num(stakes.min_balance) })),
    h("dt", {}, t("lobby.escape_penalty")),
    h("dd", { dataset: { role: "escape-penalty" } }, t("lobby.silver_n", { n: num(penalty) })),
  );
}

/** Ask before sitting at a table: its stakes and escape penalty, and `notes` (each a
 * sentence of its own, on its own line); true to sit. */
export function confirmSit(title, stakes, penalty, notes = [], practice = false) {
  return modal({
    role: "sit-confirm",
    title,
    body: h("div", {}, stakesFacts(stakes, penalty, practice), notes.length ? h("div", { class: "muted small lb-sit-notes", dataset: { role: "sit-notes" } }, notes.map((n) => h("p", {}, n))) : null),
    buttons: [
      { label: t("lobby.cancel"), action: "cancel", value: false },
      { label: t("lobby.sit_down"), action: "sit", value: true, primary: true },
    ],
  });
}

/** Open a table as a player after showing its stakes (GET /api/tables/{ref}); a table that
 * already plays offers 观战 instead. */
export async function sitAt(ref) {
  let info = null;
  try {
    info = await call("GET", `api/tables/${encodeURIComponent(ref)}`);
  } catch (e) {
    toast(errText(e), "error");
    return;
  }
  const state = tableState(info, load("player_id"));
  if (state !== "open") {
    if (state === "closed") {
      toast(t("lobby.table_closed"), "error");
      return;
    }
    const watch = await modal({
      role: "sit-confirm",
      title: t("lobby.table_n", { id: info.id }),
      // a full table that has not dealt yet is not "already playing"
      body: h("p", { dataset: { role: "cannot-sit", state } }, t(state === "full" ? "lobby.table_full" : "lobby.already_playing")),
      buttons: [
        { label: t("lobby.cancel"), action: "cancel", value: false },
        { label: t("lobby.spectate"), action: "spectate", value: true, primary: true },
      ],
    });
    if (watch) go({ table: ref, as: "spectator" });
    return;
  }
  // sitting down makes a second human: a practice table (alone with bots) plays for silver
  // between the humans from then on, so the table's own stakes are what is shown
  const ok = await confirmSit(t("lobby.table_n", { id: info.id }), info.stakes, info.escape_penalty);
  if (ok) go({ table: ref });
}

// ------------------------------------------------------------------ small builders

function tablesOf(data) {
  if (Array.isArray(data)) return data;
  if (data && Array.isArray(data.tables)) return data.tables;
  return [];
}

function field(label, input) {
  return h("label", { class: "field" }, h("span", {}, label), input);
}

// a field whose options are long ("1 silver per point"): two columns of the form
function wide(el) {
  el.classList.add("wide");
  return el;
}

function select(name, options, value) {
  const s = h("select", { name });
  for (const [v, label] of options) {
    const o = h("option", { value: String(v) }, label);
    if (String(v) === String(value)) o.selected = true;
    s.appendChild(o);
  }
  return s;
}

/** "12级 小老板·县城三段" — the seed's level (R11). */
export { levelNames };

export function levelText(level) {
  if (!level) return "";
  const { title, rank } = levelNames(level);
  return t("lobby.level", { n: level.n, title, rank });
}


/** "1,234 ± 2.1" — the skill rating and its uncertainty (docs/economy.md). */
export function skillText(skill) {
  if (!skill) return t("lobby.unrated");
  return t("lobby.skill_value", { rating: num(skill.rating), sigma: Number(skill.uncertainty).toFixed(1) });
}

// ------------------------------------------------------------------ identity and relief

function nextTarget() {
  const table = load("next_table");
  if (!table) return null;
  return { table, as: load("next_as") === "spectator" ? "spectator" : "player" };
}

function clearNext() {
  save("next_table", null);
  save("next_as", null);
}

/** After the name: exactly the table of the invite or spectator link (a table that plays
 * already offers 观战). */
async function followInvite(root) {
  const next = nextTarget();
  if (!next) return false;
  clearNext();
  if (next.as === "spectator") {
    go({ table: next.table, as: "spectator" });
    return true;
  }
  let info = null;
  try {
    info = await call("GET", `api/tables/${encodeURIComponent(next.table)}`);
  } catch (_e) {
    info = null; // a private table by id answers only its players: let the table say
  }
  const state = info ? tableState(info, load("player_id")) : "open";
  if (state === "playing" || state === "full") {
    const watch = await modal({
      role: "sit-confirm",
      title: t("lobby.table_n", { id: info.id }),
      body: h("p", { dataset: { role: "cannot-sit", state } }, t(state === "full" ? "lobby.table_full" : "lobby.already_playing")),
      buttons: [
        { label: t("lobby.back_to_lobby"), action: "cancel", value: false },
        { label: t("lobby.spectate"), action: "spectate", value: true, primary: true },
      ],
    });
    if (watch) go({ table: next.table, as: "spectator" });
    else showLobby(root);
    return true;
  }
  go({ table: next.table });
  return true;
}

/** The invite or spectator link being followed, with the table's stakes (shown before the
 * name is typed, so nothing stands between the name and the table). */
function inviteCard(next) {
  const card = h("section", { class: "card invite", dataset: { role: "invite" } });
  const title = next.as === "spectator" ? t("lobby.invite_watch", { id: next.table }) : t("lobby.invite_play", { id: next.table });
  card.append(h("h2", {}, title), h("p", { class: "muted" }, t("lobby.invite_hint")));
  call("GET", `api/tables/${encodeURIComponent(next.table)}`)
    .then((info) => {
      if (next.as !== "spectator") {
        const state = tableState(info, load("player_id"));
        if (state === "playing" || state === "full") card.append(h("p", { dataset: { role: "already-playing", state } }, t(state === "full" ? "lobby.table_full" : "lobby.already_playing")));
        card.append(stakesFacts(info.stakes, info.escape_penalty));
      }
    })
    .catch(() => {
      /* a private table by id: shown once seated */
    });
  return card;
}

function reliefRow(root, paths, me) {
  if (!me || !me.registered || !hasPath(paths, "/api/relief", "post")) return null;
  const row = h("div", { class: "row relief", dataset: { role: "relief" } });
  call("GET", "api/relief")
    .then((r) => {
      if (!r || !r.eligible) return;
      const claim = async () => {
        try {
          const got = await call("POST", "api/relief");
          toast(t("lobby.relief_granted", { n: num(got.granted), balance: num(got.balance) }));
          showLobby(root);
        } catch (e) {
          toast(errText(e), "error");
        }
      };
      row.append(
        h("button", { class: "primary", dataset: { action: "relief" }, onclick: claim }, t("lobby.relief_claim", { n: num(r.amount) })),
        h("span", { class: "muted small" }, t("lobby.relief_left", { n: r.left_today, threshold: num(r.threshold) })),
      );
    })
    .catch(() => {
      /* no relief shown */
    });
  return row;
}

function identityCard(root, paths, me) {
  const card = h("section", { class: "card identity", dataset: { role: "identity" } });
  const name = load("name");
  if (token() && name) {
    const info = [];
    if (me) {
      if (me.silver !== null && me.silver !== undefined) info.push(h("span", { class: "badge-l", dataset: { role: "silver" } }, t("lobby.silver", { n: num(me.silver) })));
      if (me.level) info.push(h("span", { class: "badge-l", dataset: { role: "level" } }, levelText(me.level), ` · ${t("lobby.rating", { n: num(me.rating ?? 0) })}`));
    }
    const logout = async () => {
      if (hasPath(paths, "/api/logout", "post")) {
        try {
          await api("POST", "api/logout");
        } catch (_e) {
          /* the token is dropped here anyway */
        }
      }
      save("token", null);
      save("name", null);
      save("player_id", null);
      showLobby(root);
    };
    const pid = me ? me.player_id : load("player_id");
    card.append(
      h(
        "div",
        { class: "row" },
        h("b", {}, t("lobby.signed_in_as", { name })),
        me && me.registered ? null : h("span", { class: "muted" }, `(${t("lobby.guest")})`),
        info,
      ),
      h(
        "div",
        { class: "row" },
        pid ? h("a", { class: "button secondary", href: `./?player=${encodeURIComponent(pid)}`, dataset: { action: "profile" } }, t("lobby.my_profile")) : null,
        h("button", { class: "secondary", dataset: { action: "change-name" }, onclick: logout, text: me && me.registered ? t("lobby.logout") : t("lobby.change_name") }),
      ),
    );
    const relief = reliefRow(root, paths, me);
    if (relief) card.append(relief);
    // a guest may keep its name and history by registering (the economy's accounts)
    if (me && !me.registered && hasPath(paths, "/api/accounts", "post")) card.append(accountForms(root, paths, true));
    return card;
  }
  const input = h("input", {
    name: "guest-name",
    maxlength: "20",
    placeholder: t("lobby.your_name"),
    value: name || "",
    autocomplete: "nickname",
  });
  const enter = async () => {
    const n = input.value.trim();
    if (!n) {
      input.focus();
      return;
    }
    try {
      const r = await call("POST", "api/guests", { name: n });
      save("token", r.token);
      save("name", r.name || n);
      save("player_id", r.player_id);
      if (await followInvite(root)) return;
      showLobby(root);
    } catch (e) {
      toast(errText(e), "error");
    }
  };
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter") enter();
  });
  card.append(
    h("h2", {}, t("lobby.play_as_guest")),
    h("div", { class: "row" }, input, h("button", { dataset: { action: "guest" }, onclick: enter }, t("lobby.play_as_guest"))),
  );
  // Accounts come from the economy work: the forms appear only when the server has them.
  if (hasPath(paths, "/api/accounts", "post")) card.append(accountForms(root, paths, false));
  return card;
}

function accountForms(root, paths, upgrade) {
  const user = h("input", { name: "account-name", placeholder: t("lobby.account"), autocomplete: "username" });
  const pass = h("input", { name: "account-password", type: "password", placeholder: t("lobby.password"), autocomplete: "current-password" });
  const done = async (r) => {
    save("token", r.token);
    save("name", r.name || user.value.trim());
    save("player_id", r.player_id);
    if (await followInvite(root)) return;
    showLobby(root);
  };
  const send = async (path) => {
    try {
      await done(await call("POST", path, { name: user.value.trim(), password: pass.value }));
    } catch (e) {
      toast(errText(e), "error");
    }
  };
  const loginPath = ["/api/login", "/api/sessions", "/api/accounts/login"].find((p) => hasPath(paths, p, "post"));
  return h(
    "div",
    { class: "accounts" },
    h("p", { class: "muted" }, t("lobby.accounts_hint")),
    // the fields and their buttons on one line (a narrow screen wraps it)
    h(
      "div",
      { class: "row" },
      user,
      pass,
      loginPath && !upgrade ? h("button", { class: "secondary", dataset: { action: "login" }, onclick: () => send(loginPath.slice(1)) }, t("lobby.login")) : null,
      h("button", { class: "secondary", dataset: { action: "register" }, onclick: () => send("api/accounts") }, t("lobby.register")),
    ),
  );
}

// ------------------------------------------------------------------ rooms and quick match

function roomName(r) {
  return getLang() === "zh" ? r.name_zh : r.name_en;
}

// docs/economy.md: in a room the bots play for the house (silver moves as shown), unless
// the operator turned that off (then a table alone with bots is practice)
function houseNote(room) {
  return room.house_bots === false ? t("lobby.house_practice") : t("lobby.house_bots");
}

async function quickMatch(room, me) {
  // guests play for points: their share is neither paid nor received (docs/economy.md)
  const notes = [t("lobby.quickmatch_note"), houseNote(room)];
  if (!(me && me.registered)) notes.push(t("lobby.guest_points"));
  const ok = await confirmSit(`${roomName(room)} · ${t(`lobby.profile.${room.profile}`)}`, room, room.escape_penalty, notes);
  if (!ok) return;
  try {
    const r = await call("POST", "api/quickmatch", { room: room.id });
    go({ table: r.table });
  } catch (e) {
    toast(errText(e), "error");
  }
}

/** A room's or a listed table's terms, each whole on its line: a narrow card breaks at the
 * " · " only (封顶 100 分 once left its 分 alone on the next line). A translation without the
 * separator stays one text that wraps as any other. */
function termsText(text) {
  const parts = text.split(" · ");
  if (parts.length < 2) return text;
  return parts.flatMap((part, i) => (i ? [" · ", h("span", {}, part)] : [h("span", {}, part)]));
}

function roomsCard(me) {
  const list = h("div", { class: "lb-rooms", dataset: { role: "rooms" } });
  const houseAll = h("span", { class: "muted small lb-house-all", dataset: { role: "house-note-all" } });
  const saved = load("room_profile");
  const profile = select("room-profile", PROFILES.map((p) => [p, t(`lobby.profile.${p}`)]), PROFILES.includes(saved) ? saved : "fuzhou-tcy");
  let rooms = [];
  const draw = () => {
    list.replaceChildren();
    const mine = rooms.filter((r) => r.profile === profile.value);
    if (!mine.length) list.append(h("p", { class: "muted" }, t("lobby.no_rooms")));
    // the same house note in every room: a phone held sideways shows it once, beside the
    // heading, instead of four times (css/lobby.css)
    const notes = new Set(mine.map(houseNote));
    list.classList.toggle("shared-house", notes.size === 1);
    houseAll.textContent = notes.size === 1 ? [...notes][0] : "";
    const balance = me && me.registered ? me.silver : null;
    for (const r of mine) {
      const low = balance !== null && balance !== undefined && balance < r.min_balance;
      const high = balance !== null && balance !== undefined && r.max_balance !== null && r.max_balance !== undefined && balance > r.max_balance;
      list.append(
        h(
          "div",
          { class: `lb-room tier-${r.tier}`, dataset: { role: "room", room: r.id } },
          h("div", { class: "lb-room-head" }, h("b", { class: "lb-room-name" }, roomName(r)), h("span", { class: "lb-playing", dataset: { role: "playing" } }, t("lobby.playing", { n: r.playing }))),
          h("div", { class: "lb-room-stake" }, t("lobby.stake_value", { n: num(r.stake) })),
          h(
            "div",
            { class: "muted small lb-terms" },
            termsText(t("lobby.room_terms", { base: num(r.base), fee: num(r.fee), cap: r.cap ? num(r.cap) : "—" })),
          ),
          h(
            "div",
            { class: "muted small" },
            r.max_balance === null || r.max_balance === undefined
              ? t("lobby.balance_from", { min: num(r.min_balance) })
              : t("lobby.balance_range", { min: num(r.min_balance), max: num(r.max_balance) }),
          ),
          h("div", { class: "muted small" }, t("lobby.escape_short", { n: num(r.escape_penalty) })),
          h("div", { class: "muted small lb-house", dataset: { role: "house-note", house: r.house_bots === false ? "0" : "1" } }, houseNote(r)),
          low || high ? h("div", { class: "lb-room-refusal small", dataset: { role: "room-refusal" } }, t(low ? "lobby.room_too_poor" : "lobby.room_too_rich")) : null,
          h(
            "button",
            { class: "primary", disabled: low || high || undefined, dataset: { action: "quickmatch", room: r.id }, onclick: () => quickMatch(r, me) },
            t("lobby.quickmatch"),
          ),
        ),
      );
    }
  };
  profile.addEventListener("change", () => {
    save("room_profile", profile.value);
    draw();
  });
  call("GET", "api/rooms")
    .then((rs) => {
      rooms = Array.isArray(rs) ? rs : [];
      draw();
    })
    .catch((e) => toast(errText(e), "error"));
  return h(
    "section",
    { class: "card rooms" },
    h("div", { class: "row" }, h("h2", {}, t("lobby.rooms")), houseAll, h("span", { class: "grow" }), profile),
    list,
  );
}

// ------------------------------------------------------------------ create, join, tables

// The difficulty ladder (docs/bots.md): the kind of the table's bots.
const BOT_KINDS = ["random", "greedy", "heuristic", "neural", "strong"];
// the private table's stake (silver per point; 0: points only): only those within the
// operator's bounds (GET /api/stakes: [tables] stake_min–stake_max of fjmj serve --config);
// the server refuses any other with stake_out_of_bounds
function createCard(bounds) {
  const profile = select("profile", PROFILES.map((p) => [p, t(`lobby.profile.${p}`)]), "fuzhou-tcy");
  const players = select("players", [[4, "4"], [3, "3"], [2, "2"]], 4);
  const bots = select("bots", [[3, "3"], [2, "2"], [1, "1"], [0, "0"]], 3);
  const botKind = select("bot_kind", BOT_KINDS.map((k) => [k, t(`lobby.bot_kind.${k}`)]), "heuristic");
  const secs = select("turn_seconds", [[10, "10"], [15, "15"], [20, "20"], [30, "30"], [60, "60"]], 15);
  const hands = select("hands", [[1, "1"], [4, "4"], [8, "8"], [16, "16"]], 8);
  const stakes = allowedStakes(bounds);
  const stake = select("stake", stakes.map((s) => [s, s ? t("lobby.stake_value", { n: s }) : t("lobby.points_only_short")]), defaultStake(stakes));
  const priv = h("input", { type: "checkbox", name: "private" });
  // what the table will be (docs/economy.md): each bot's level, and 练习 without stakes when
  // one human plays only bots (a private table's bots never play for the house)
  const summary = h("div", { class: "lb-create-summary", dataset: { role: "create-summary" } });
  const drawSummary = () => {
    const n = Number(players.value);
    const b = Number(bots.value);
    const practice = b >= 1 && n - b <= 1;
    const levels = Array.from({ length: b }, (_x, i) => h("span", { class: "badge-l lb-bot-level", dataset: { role: "bot-level", level: botKind.value, seat: String(n - b + i) } }, t(`lobby.bot_kind.${botKind.value}`)));
    const st = Number(stake.value);
    let terms;
    if (practice) terms = h("span", { class: "lb-practice", dataset: { role: "summary-practice" } }, t("lobby.practice_facts"));
    else if (!st) terms = h("span", {}, t("lobby.points_only"));
    else terms = h("span", { dataset: { role: "summary-stakes" } }, t("lobby.list_terms", { stake: num(st), fee: num(0), penalty: num(8 * st) }), b ? ` · ${t("lobby.summary_humans_only")}` : "");
    summary.replaceChildren(
      h("div", { class: "row lb-summary-bots" }, h("b", {}, `${t("lobby.summary")}${colon()}`), b ? [h("span", {}, `${t("lobby.summary_bots")} `), ...levels] : h("span", { class: "muted" }, t("lobby.summary_no_bots"))),
      h("div", { class: "muted small" }, terms),
    );
  };
  const syncPlayers = () => {
    // R2: only sanming allows 2–3 players
    const sm = profile.value === "sanming";
    players.disabled = !sm;
    if (!sm) players.value = "4";
    const max = Number(players.value) - 1;
    for (const o of bots.options) o.disabled = Number(o.value) > max;
    if (Number(bots.value) > max) bots.value = String(max);
    botKind.disabled = Number(bots.value) === 0;
    drawSummary();
  };
  profile.addEventListener("change", syncPlayers);
  players.addEventListener("change", syncPlayers);
  bots.addEventListener("change", syncPlayers);
  botKind.addEventListener("change", drawSummary);
  stake.addEventListener("change", drawSummary);
  syncPlayers();
  const create = async () => {
    try {
      const r = await call("POST", "api/tables", {
        profile: profile.value,
        players: Number(players.value),
        bots: Number(bots.value),
        bot_kind: botKind.value,
        turn_seconds: Number(secs.value),
        hands: Number(hands.value),
        private: priv.checked,
        stake: Number(stake.value),
      });
      go({ table: r.id });
    } catch (e) {
      toast(errText(e), "error");
    }
  };
  return h(
    "section",
    { class: "card create", dataset: { role: "create-table" } },
    h("h2", {}, t("lobby.create_table")),
    h(
      "div",
      { class: "grid-form" },
      field(t("lobby.rules"), profile),
      field(t("lobby.players"), players),
      field(t("lobby.bots"), bots),
      field(t("lobby.bot_level"), botKind),
      field(t("lobby.turn_seconds"), secs),
      field(t("lobby.hands"), hands),
      wide(field(t("lobby.stake"), stake)),
      h("label", { class: "field check" }, priv, h("span", {}, t("lobby.private"))),
    ),
    summary,
    h("button", { class: "primary", dataset: { action: "create" }, onclick: create }, t("lobby.create")),
  );
}

function joinCard() {
  const code = h("input", { name: "code", maxlength: "12", placeholder: t("lobby.code"), autocapitalize: "characters" });
  const join = () => {
    const c = code.value.trim().toUpperCase();
    if (c) sitAt(c);
  };
  code.addEventListener("keydown", (e) => {
    if (e.key === "Enter") join();
  });
  return h(
    "section",
    { class: "card join" },
    h("h2", {}, t("lobby.join_by_code")),
    h("div", { class: "row" }, code, h("button", { dataset: { action: "join-code" }, onclick: join }, t("lobby.join"))),
  );
}

function tablesCard() {
  const list = h("div", { class: "table-list", dataset: { role: "tables" } });
  const refresh = async () => {
    let rows = [];
    try {
      rows = tablesOf(await call("GET", "api/tables"));
    } catch (e) {
      toast(errText(e), "error");
    }
    list.replaceChildren();
    if (!rows.length) list.append(h("p", { class: "muted" }, t("lobby.no_tables")));
    for (const r of rows) {
      const n = r.players ?? 4;
      const taken = r.seats_taken ?? r.taken ?? (Array.isArray(r.seats) ? r.seats.filter((s) => s && (s.name || s.bot)).length : "?");
      const state = tableState(r, load("player_id"));
      const open = state === "open";
      list.append(
        h(
          "div",
          { class: "table-row", dataset: { table: String(r.id) } },
          // what the table is wraps in its own box; the buttons keep the row's right end
          h(
            "div",
            { class: "t-info" },
            h("span", { class: "tname" }, `#${r.id}${r.code ? ` · ${r.code}` : ""}`),
            h("span", {}, t(`lobby.profile.${r.profile}`)),
            h("span", { class: "muted" }, t("lobby.seats_taken", { n: taken, m: n }), r.bots ? ` · ${t("lobby.bots")} ${r.bots}` : ""),
            // 练习 only where nobody can sit down any more: a joiner would be a second
            // human, for whom the table's stakes apply (docs/economy.md)
            h("span", { class: "muted small lb-terms", dataset: { role: "stakes", practice: r.practice && taken >= n ? "1" : undefined } }, r.practice && taken >= n ? t("lobby.practice") : r.stakes ? termsText(t("lobby.list_terms", { stake: num(r.stakes.stake), fee: num(r.stakes.fee), penalty: num(r.escape_penalty) })) : t("lobby.points_only_short")),
            open ? null : h("span", { class: "badge-l", dataset: { role: "table-state", state } }, t(state === "full" ? "lobby.full_badge" : "lobby.in_play")),
          ),
          open ? h("button", { dataset: { action: "join-table" }, onclick: () => sitAt(String(r.id)) }, t("lobby.join")) : null,
          h("button", { class: "secondary", dataset: { action: "spectate" }, onclick: () => go({ table: r.id, as: "spectator" }) }, t("lobby.spectate")),
        ),
      );
    }
  };
  refresh();
  return h(
    "section",
    { class: "card tables" },
    h("div", { class: "row" }, h("h2", {}, t("lobby.tables")), h("span", { class: "grow" }), h("button", { class: "secondary", dataset: { action: "refresh" }, onclick: refresh }, t("lobby.refresh"))),
    list,
  );
}

function historyCard(serverHands) {
  let hands = [];
  try {
    hands = JSON.parse(load("hands") || "[]");
  } catch (_e) {
    hands = [];
  }
  const rows = serverHands
    ? serverHands.map((x) => ({ id: String(x.hand), seat: x.seat, label: `#${x.hand} · ${t(`lobby.profile.${x.profile}`)} · ${x.points > 0 ? "+" : ""}${x.points ?? ""}` }))
    : hands.slice(-12).reverse().map((id) => ({ id, seat: handSeats()[id], label: `#${id}` }));
  if (!rows.length) return null;
  return h(
    "section",
    { class: "card history" },
    h("h2", {}, t("lobby.history")),
    h(
      "div",
      { class: "row wrap" },
      rows.map((r) => h("a", { href: replayHref(r.id, r.seat), class: "chip", dataset: { role: "history-hand" } }, `${t("lobby.replay")} ${r.label}`)),
    ),
  );
}

// the seat this browser played in each remembered hand ({hand: seat}), for its replay link
function handSeats() {
  try {
    const m = JSON.parse(load("hand_seats") || "{}");
    return m && typeof m === "object" ? m : {};
  } catch (_e) {
    return {};
  }
}

/** Remember a finished hand for the lobby's history (and the seat played in it, if any). */
export function rememberHand(id, seat = null) {
  let hands = [];
  try {
    hands = JSON.parse(load("hands") || "[]");
  } catch (_e) {
    hands = [];
  }
  if (!hands.includes(id)) hands.push(id);
  const kept = hands.slice(-50);
  save("hands", JSON.stringify(kept));
  if (Number.isInteger(seat)) {
    const seats = handSeats();
    seats[id] = seat;
    save("hand_seats", JSON.stringify(Object.fromEntries(kept.filter((x) => x in seats).map((x) => [x, seats[x]]))));
  }
}

/** Follow an invite or spectator link once a name is known (app.js remembers the link). */
export function rememberInvite(table, as) {
  save("next_table", table);
  save("next_as", as === "spectator" ? "spectator" : null);
}

export async function showLobby(root) {
  document.title = t("lobby.title");
  const paths = await serverPaths();
  let me = null;
  let serverHands = null;
  // a token alone (a link with ?token=) is enough: the name comes from the server
  if (token() && hasPath(paths, "/api/me", "get")) {
    try {
      me = await call("GET", "api/me");
      if (me && me.name) save("name", me.name);
      if (me && me.player_id !== undefined) save("player_id", me.player_id);
    } catch (e) {
      if (e.status === 401) {
        // an expired or revoked token: start again as a newcomer
        save("token", null);
        save("name", null);
        save("player_id", null);
      }
    }
    if (me && hasPath(paths, "/api/players/{player_id}/hands", "get")) {
      try {
        serverHands = (await call("GET", `api/players/${me.player_id}/hands?limit=12`)).hands;
      } catch (_e) {
        serverHands = null;
      }
    }
  }
  const signedIn = Boolean(token() && load("name"));
  let bounds = null;
  if (signedIn && hasPath(paths, "/api/stakes", "get")) {
    try {
      bounds = await call("GET", "api/stakes");
    } catch (_e) {
      bounds = null; // the usual stakes; the server still checks its bounds
    }
  }
  const next = signedIn ? null : nextTarget();
  const body = h("main", { class: "lobby", dataset: { role: "lobby" } }, next ? inviteCard(next) : null, identityCard(root, paths, me));
  if (signedIn) {
    // two columns on a desktop (lobby.css): the rooms and the create form, and beside them
    // the tables to join and your hands; one column (the wrappers drawn away) elsewhere
    const side = [joinCard(), tablesCard(), historyCard(serverHands)].filter(Boolean);
    body.classList.add("signed-in");
    body.append(h("div", { class: "lobby-col lobby-main" }, roomsCard(me), createCard(bounds)), h("div", { class: "lobby-col lobby-side" }, ...side));
  }
  root.classList.remove("table-page");
  root.replaceChildren(header(() => showLobby(root)), body);
}
