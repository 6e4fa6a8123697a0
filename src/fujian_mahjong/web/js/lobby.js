// The lobby: guest name (and login/register when the server has
// accounts), the open tables, create a table, join by code, spectate, my finished hands.
import { t } from "./i18n.js";
import { api, hasPath, load, save, serverPaths, token } from "./net.js";
import { go, h, langButton, toast } from "./ui.js";

const PROFILES = ["fuzhou-tcy", "fuzhou-bianfeng", "fuzhou-doudou", "sanming"];

function tablesOf(data) {
  if (Array.isArray(data)) return data;
  if (data && Array.isArray(data.tables)) return data.tables;
  return [];
}

function field(label, input) {
  return h("label", { class: "field" }, h("span", {}, label), input);
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

function identityCard(root, paths, me) {
  const card = h("section", { class: "card identity", dataset: { role: "identity" } });
  const name = load("name");
  if (token() && name) {
    const info = [];
    if (me) {
      if (me.silver !== null && me.silver !== undefined) info.push(h("span", { class: "badge-l", dataset: { role: "silver" } }, t("silver", { n: me.silver })));
      if (me.level) info.push(h("span", { class: "badge-l" }, t("level", { n: me.level.n, title: me.level.title_zh, rank: me.level.rank_zh }), ` · ${t("rating", { n: me.rating ?? 0 })}`));
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
    card.append(
      h("div", { class: "row" }, h("b", {}, t("signed_in_as", { name })), me && me.registered ? null : h("span", { class: "muted" }, `(${t("guest")})`), info),
      h("div", { class: "row" }, h("button", { class: "secondary", dataset: { action: "change-name" }, onclick: logout, text: me && me.registered ? t("logout") : t("change_name") })),
    );
    // a guest may keep its name and history by registering (the economy's accounts)
    if (me && !me.registered && hasPath(paths, "/api/accounts", "post")) card.append(accountForms(root, paths, true));
    return card;
  }
  const input = h("input", {
    name: "guest-name",
    maxlength: "20",
    placeholder: t("your_name"),
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
      const r = await api("POST", "api/guests", { name: n });
      save("token", r.token);
      save("name", r.name || n);
      save("player_id", r.player_id);
      const next = load("next_table");
      if (next) {
        save("next_table", null);
        go({ table: next });
        return;
      }
      showLobby(root);
    } catch (e) {
      toast(t("error", { msg: e.message }), "error");
    }
  };
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter") enter();
  });
  card.append(
    h("h2", {}, t("play_as_guest")),
    h("div", { class: "row" }, input, h("button", { dataset: { action: "guest" }, onclick: enter }, t("play_as_guest"))),
  );
  // Accounts come from the economy work: the forms appear only when the server has them.
  if (hasPath(paths, "/api/accounts", "post")) card.append(accountForms(root, paths, false));
  return card;
}

function accountForms(root, paths, upgrade) {
  const user = h("input", { name: "account-name", placeholder: t("account"), autocomplete: "username" });
  const pass = h("input", { name: "account-password", type: "password", placeholder: t("password"), autocomplete: "current-password" });
  const done = (r) => {
    save("token", r.token);
    save("name", r.name || user.value.trim());
    save("player_id", r.player_id);
    showLobby(root);
  };
  const call = async (path) => {
    try {
      done(await api("POST", path, { name: user.value.trim(), password: pass.value }));
    } catch (e) {
      toast(t("error", { msg: e.message }), "error");
    }
  };
  const loginPath = ["/api/login", "/api/sessions", "/api/accounts/login"].find((p) => hasPath(paths, p, "post"));
  return h(
    "div",
    { class: "accounts" },
    h("p", { class: "muted" }, t("accounts_hint")),
    h("div", { class: "row" }, user, pass),
    h(
      "div",
      { class: "row" },
      loginPath && !upgrade ? h("button", { class: "secondary", dataset: { action: "login" }, onclick: () => call(loginPath.slice(1)) }, t("login")) : null,
      h("button", { class: "secondary", dataset: { action: "register" }, onclick: () => call("api/accounts") }, t("register")),
    ),
  );
}

function createCard() {
  const profile = select("profile", PROFILES.map((p) => [p, t(`profile.${p}`)]), "fuzhou-tcy");
  const players = select("players", [[4, "4"], [3, "3"], [2, "2"]], 4);
  const bots = select("bots", [[3, "3"], [2, "2"], [1, "1"], [0, "0"]], 3);
  const secs = select("turn_seconds", [[10, "10"], [15, "15"], [20, "20"], [30, "30"], [60, "60"]], 15);
  const hands = select("hands", [[1, "1"], [4, "4"], [8, "8"], [16, "16"]], 8);
  const priv = h("input", { type: "checkbox", name: "private" });
  const syncPlayers = () => {
    // R2: only sanming allows 2–3 players
    const sm = profile.value === "sanming";
    players.disabled = !sm;
    if (!sm) players.value = "4";
    const max = Number(players.value) - 1;
    for (const o of bots.options) o.disabled = Number(o.value) > max;
    if (Number(bots.value) > max) bots.value = String(max);
  };
  profile.addEventListener("change", syncPlayers);
  players.addEventListener("change", syncPlayers);
  syncPlayers();
  const create = async () => {
    try {
      const r = await api("POST", "api/tables", {
        profile: profile.value,
        players: Number(players.value),
        bots: Number(bots.value),
        turn_seconds: Number(secs.value),
        hands: Number(hands.value),
        private: priv.checked,
      });
      go({ table: r.id });
    } catch (e) {
      toast(t("error", { msg: e.message }), "error");
    }
  };
  return h(
    "section",
    { class: "card create", dataset: { role: "create-table" } },
    h("h2", {}, t("create_table")),
    h(
      "div",
      { class: "grid-form" },
      field(t("profile"), profile),
      field(t("players"), players),
      field(t("bots"), bots),
      field(t("turn_seconds"), secs),
      field(t("hands"), hands),
      h("label", { class: "field check" }, priv, h("span", {}, t("private"))),
    ),
    h("button", { class: "primary", dataset: { action: "create" }, onclick: create }, t("create")),
  );
}

function joinCard() {
  const code = h("input", { name: "code", maxlength: "12", placeholder: t("code"), autocapitalize: "characters" });
  const join = () => {
    const c = code.value.trim();
    if (c) go({ table: c });
  };
  code.addEventListener("keydown", (e) => {
    if (e.key === "Enter") join();
  });
  return h(
    "section",
    { class: "card join" },
    h("h2", {}, t("join_by_code")),
    h("div", { class: "row" }, code, h("button", { dataset: { action: "join-code" }, onclick: join }, t("join"))),
  );
}

function tablesCard(root) {
  const list = h("div", { class: "table-list", dataset: { role: "tables" } });
  const refresh = async () => {
    let rows = [];
    try {
      rows = tablesOf(await api("GET", "api/tables"));
    } catch (e) {
      toast(t("error", { msg: e.message }), "error");
    }
    list.replaceChildren();
    if (!rows.length) list.append(h("p", { class: "muted" }, t("no_tables")));
    for (const r of rows) {
      const n = r.players ?? 4;
      const taken = r.seats_taken ?? r.taken ?? (Array.isArray(r.seats) ? r.seats.filter((s) => s && (s.name || s.bot)).length : "?");
      list.append(
        h(
          "div",
          { class: "table-row", dataset: { table: String(r.id) } },
          h("span", { class: "tname" }, `#${r.id}${r.code ? ` · ${r.code}` : ""}`),
          h("span", {}, t(`profile.${r.profile}`)),
          h("span", { class: "muted" }, t("seats_taken", { n: taken, m: n }), r.bots ? ` · ${t("bots")} ${r.bots}` : ""),
          h("span", { class: "grow" }),
          h("button", { dataset: { action: "join-table" }, onclick: () => go({ table: r.id }) }, t("join")),
          h("button", { class: "secondary", dataset: { action: "spectate" }, onclick: () => go({ table: r.id, as: "spectator" }) }, t("spectate")),
        ),
      );
    }
  };
  refresh();
  return h(
    "section",
    { class: "card tables" },
    h("div", { class: "row" }, h("h2", {}, t("tables")), h("span", { class: "grow" }), h("button", { class: "secondary", onclick: refresh }, t("refresh"))),
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
    ? serverHands.map((x) => ({ id: String(x.hand), label: `#${x.hand} · ${t(`profile.${x.profile}`)} · ${x.points > 0 ? "+" : ""}${x.points ?? ""}` }))
    : hands.slice(-12).reverse().map((id) => ({ id, label: `#${id}` }));
  if (!rows.length) return null;
  return h(
    "section",
    { class: "card history" },
    h("h2", {}, t("history")),
    h(
      "div",
      { class: "row wrap" },
      rows.map((r) => h("a", { href: `./?replay=${encodeURIComponent(r.id)}`, class: "chip", dataset: { role: "history-hand" } }, `${t("replay")} ${r.label}`)),
    ),
  );
}

/** Remember a finished hand for the lobby's history. */
export function rememberHand(id) {
  let hands = [];
  try {
    hands = JSON.parse(load("hands") || "[]");
  } catch (_e) {
    hands = [];
  }
  if (!hands.includes(id)) hands.push(id);
  save("hands", JSON.stringify(hands.slice(-50)));
}

export async function showLobby(root) {
  document.title = t("title");
  const paths = await serverPaths();
  let me = null;
  let serverHands = null;
  if (token() && load("name") && hasPath(paths, "/api/me", "get")) {
    try {
      me = await api("GET", "api/me");
      if (me && me.name) save("name", me.name);
    } catch (e) {
      if (e.status === 401) {
        // an expired or revoked token: start again as a newcomer
        save("token", null);
        save("name", null);
      }
    }
    if (me && hasPath(paths, "/api/players/{player_id}/hands", "get")) {
      try {
        serverHands = (await api("GET", `api/players/${me.player_id}/hands?limit=12`)).hands;
      } catch (_e) {
        serverHands = null;
      }
    }
  }
  const header = h("header", { class: "bar" }, h("h1", {}, t("title")), h("span", { class: "grow" }), langButton(() => showLobby(root)));
  const body = h("main", { class: "lobby", dataset: { role: "lobby" } }, identityCard(root, paths, me));
  if (token() && load("name")) body.append(...[createCard(), joinCard(), tablesCard(root), historyCard(serverHands)].filter(Boolean));
  root.replaceChildren(header, body);
}
