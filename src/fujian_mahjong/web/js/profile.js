// A player's profile (/?player=ID) and the leaderboards (/?leaderboard=PROFILE&by=skill|level
// &page=N), from GET /api/players/{id} and GET /api/leaderboard (docs/economy.md): the
// seed's level and rank (R11) with the way to the next level, silver (own profile only),
// hands, win rate and mean points per rules profile, the skill rating ± its uncertainty,
// recent hands with replay links. Strings: locale/<lang>/lobby.json.
import { t } from "./i18n.js";
import { load, token } from "./net.js";
import { PROFILES, call, errText, header, levelNames, levelText, num, skillText } from "./lobby.js";
import { go, h } from "./ui.js";
import { replayHref } from "./lobbyhelpers.js";

function pct(x) {
  return `${Math.round(Number(x || 0) * 1000) / 10}%`;
}

// a level's words may break after their "·" in a narrow column (a phone upright), never
// inside a word: "Level 1 Jobless·Rookie" ran the profile's table past the screen's edge
function levelCell(level) {
  const parts = levelText(level).split("·");
  return parts.flatMap((x, i) => (i < parts.length - 1 ? [`${x}·`, h("wbr")] : [x]));
}

// a table wider than a phone's card scrolls inside the card, never the page
function scroller(table) {
  return h("div", { class: "lb-scroll" }, table);
}

function signed(x) {
  const v = Math.round(Number(x || 0) * 10) / 10;
  return `${v > 0 ? "+" : ""}${v}`;
}

function failure(root, rerender, e) {
  root.replaceChildren(
    header(rerender),
    h("main", { class: "lobby" }, h("section", { class: "card", dataset: { role: "not-found" } }, h("p", {}, e && e.status === 404 ? t("lobby.no_player") : errText(e)), h("a", { href: "./", class: "chip" }, t("lobby.back_to_lobby")))),
  );
}

function progressBar(p) {
  const fraction = Math.max(0, Math.min(1, Number((p.progress && p.progress.fraction) || 0)));
  const next = p.progress ? p.progress.next : null;
  return h(
    "div",
    { class: "lb-progress", dataset: { role: "level-progress" } },
    h(
      "div",
      { class: "lb-bar", role: "progressbar", "aria-valuemin": "0", "aria-valuemax": "100", "aria-valuenow": String(Math.round(fraction * 100)) },
      h("div", { class: "lb-fill", style: `width: ${(fraction * 100).toFixed(1)}%` }),
    ),
    h(
      "div",
      { class: "muted small" },
      next === null || next === undefined ? t("lobby.top_level", { n: num(p.rating) }) : t("lobby.to_next_level", { n: num(p.rating), next: num(next), left: num(Math.max(0, next - (p.rating || 0))) }),
    ),
  );
}

function statsTable(p) {
  const rows = p.profiles || [];
  if (!rows.length) return h("p", { class: "muted", dataset: { role: "profile-stats" } }, t("lobby.no_hands_yet"));
  return scroller(h(
    "table",
    { class: "lb-table", dataset: { role: "profile-stats" } },
    h("thead", {}, h("tr", {}, [t("lobby.rules"), t("lobby.hands"), t("lobby.win_rate"), t("lobby.mean_points"), t("lobby.level_col"), t("lobby.skill")].map((x) => h("th", {}, x)))),
    h(
      "tbody",
      {},
      rows.map((r) =>
        h(
          "tr",
          { dataset: { profile: r.profile } },
          h("td", {}, h("a", { href: `./?leaderboard=${encodeURIComponent(r.profile)}&by=skill` }, t(`lobby.profile.${r.profile}`))),
          h("td", { class: "num" }, num(r.hands)),
          h("td", { class: "num" }, pct(r.win_rate)),
          h("td", { class: "num" }, signed(r.mean_points)),
          h("td", {}, levelCell(r.level)),
          h("td", { class: "num" }, skillText(r.skill)),
        ),
      ),
    ),
  ));
}

// a hand left mid-way (R11 逃跑: `escapes` of GET /api/players/{id}): its penalty and fee,
// listed among the hands so that every change of the balance is explained
function escapeRow(p, e) {
  return h(
    "tr",
    { class: "escape", dataset: { role: "escape-row", hand: String(e.hand) } },
    h("td", {}, `#${e.hand}`, h("span", { class: "badge-l lb-escape" }, t("lobby.escape_row"))),
    h("td", {}, t(`lobby.profile.${e.profile}`)),
    h("td", { class: "num muted small" }, t("lobby.escape_detail", { penalty: num(e.penalty), fee: num(e.fee) })),
    p.silver !== undefined ? h("td", { class: "num", dataset: { role: "escape-silver" } }, signed(e.silver)) : null,
    h("td", {}),
  );
}

function recentHands(p) {
  const hands = (p.recent || []).map((r) => ({ hand: r.hand, row: r, escape: false }));
  const escapes = (p.escapes || []).map((e) => ({ hand: e.hand, row: e, escape: true }));
  // newest first, as the server lists each; the last 10 of both together
  const rows = [...hands, ...escapes].sort((a, b) => b.hand - a.hand).slice(0, 10);
  if (!rows.length) return null;
  return h(
    "section",
    { class: "card" },
    h("h2", {}, t("lobby.recent_hands")),
    scroller(h(
      "table",
      { class: "lb-table", dataset: { role: "recent-hands" } },
      h("thead", {}, h("tr", {}, [t("lobby.hand"), t("lobby.rules"), t("lobby.points"), p.silver !== undefined ? t("lobby.silver_col") : null, ""].filter((x) => x !== null).map((x) => h("th", {}, x)))),
      h(
        "tbody",
        {},
        rows.map(({ row: r, escape }) =>
          escape ? escapeRow(p, r) : h(
            "tr",
            { class: r.won ? "won" : "" },
            h("td", {}, `#${r.hand}`, r.won ? h("span", { class: "badge-l lb-won" }, t("lobby.won")) : null),
            h("td", {}, t(`lobby.profile.${r.profile}`)),
            h("td", { class: "num" }, signed(r.points)),
            p.silver !== undefined ? h("td", { class: "num" }, r.silver === null || r.silver === undefined ? "—" : signed(r.silver)) : null,
            h("td", {}, h("a", { class: "chip", href: replayHref(r.hand, r.seat), dataset: { role: "replay-link", hand: String(r.hand) } }, t("lobby.replay"))),
          ),
        ),
      ),
    )),
  );
}

export async function showProfile(root, playerId) {
  const rerender = () => showProfile(root, playerId);
  document.title = `${t("lobby.title")} · ${t("lobby.profile_title")}`;
  root.classList.remove("table-page");
  let p;
  try {
    p = await call("GET", `api/players/${encodeURIComponent(playerId)}`);
  } catch (e) {
    failure(root, rerender, e);
    return;
  }
  document.title = `${p.name} · ${t("lobby.title")}`;
  const own = token() && String(load("player_id")) === String(p.player_id);
  const skillProfile = p.skill_profile ? t(`lobby.profile.${p.skill_profile}`) : null;
  const card = h(
    "section",
    { class: "card lb-profile", dataset: { role: "profile", player: String(p.player_id) } },
    h("div", { class: "row" }, h("h2", { dataset: { role: "player-name" } }, p.name), p.registered ? null : h("span", { class: "muted" }, `(${t("lobby.guest")})`), own ? h("span", { class: "badge-l" }, t("lobby.me")) : null),
    h("div", { class: "lb-level", dataset: { role: "level" } }, h("span", { class: "lb-level-n" }, t("lobby.level_n", { n: p.level ? p.level.n : 1 })), h("span", { class: "lb-level-title" }, p.level ? Object.values(levelNames(p.level)).join(" · ") : "")),
    progressBar(p),
    h(
      "dl",
      { class: "lb-facts lb-summary" },
      p.silver !== undefined && p.silver !== null ? [h("dt", {}, t("lobby.silver_col")), h("dd", { dataset: { role: "silver" } }, num(p.silver))] : null,
      h("dt", {}, t("lobby.skill")),
      h("dd", { dataset: { role: "skill" } }, skillText(p.skill), skillProfile ? h("span", { class: "muted small", dataset: { role: "skill-profile" } }, ` · ${skillProfile}`) : null),
      h("dt", {}, t("lobby.hands")),
      h("dd", { dataset: { role: "hands" } }, num(p.hands)),
      h("dt", {}, t("lobby.win_rate")),
      h("dd", { dataset: { role: "win-rate" } }, pct(p.win_rate)),
      h("dt", {}, t("lobby.mean_points")),
      h("dd", {}, signed(p.mean_points)),
    ),
    h("p", { class: "muted small" }, t("lobby.skill_explained")),
  );
  const per = h("section", { class: "card" }, h("h2", {}, t("lobby.per_profile")), statsTable(p));
  root.replaceChildren(header(rerender), h("main", { class: "lobby", dataset: { role: "profile-page" } }, card, per, recentHands(p)));
}

// ------------------------------------------------------------------ leaderboards

const PER_PAGE = 20;

export async function showLeaderboard(root, profile, by, page) {
  profile = PROFILES.includes(profile) ? profile : "all";
  by = by === "level" || profile === "all" ? "level" : "skill";
  page = Number.isInteger(page) && page > 0 ? page : 1;
  const rerender = () => showLeaderboard(root, profile, by, page);
  const to = (p, b, n) => go({ leaderboard: p, by: b, page: n });
  document.title = `${t("lobby.title")} · ${t("lobby.leaderboard")}`;
  root.classList.remove("table-page");
  const q = new URLSearchParams({ by, page: String(page), per_page: String(PER_PAGE) });
  if (profile !== "all") q.set("profile", profile);
  let board;
  try {
    board = await call("GET", `api/leaderboard?${q}`);
  } catch (e) {
    failure(root, rerender, e);
    return;
  }
  const me = token() ? String(load("player_id")) : null;
  const profileSel = h("select", { name: "board-profile", onchange: (e) => to(e.target.value, e.target.value === "all" ? "level" : by, 1) });
  for (const p of [...PROFILES, "all"]) {
    const o = h("option", { value: p }, p === "all" ? t("lobby.all_profiles") : t(`lobby.profile.${p}`));
    if (p === profile) o.selected = true;
    profileSel.append(o);
  }
  const tab = (b) =>
    h(
      "button",
      { class: b === by ? "primary" : "secondary", disabled: (b === "skill" && profile === "all") || undefined, dataset: { action: `by-${b}` }, onclick: () => to(profile, b, 1) },
      t(`lobby.by_${b}`),
    );
  const rows = board.players || [];
  const table = rows.length
    ? scroller(h(
        "table",
        { class: "lb-table lb-board", dataset: { role: "leaderboard", by } },
        // a phone upright has the level under the name (css/lobby.css): the level column
        // and its own heading fold away there, so that the skill and the hands fit 390 px
        h("thead", {}, h("tr", {}, [t("lobby.rank"), t("lobby.name"), t("lobby.level_col"), t("lobby.rating_col"), t("lobby.skill"), t("lobby.hands")].map((x, i) => h("th", i === 2 ? { class: "lb-level-col" } : {}, x)))),
        h(
          "tbody",
          {},
          rows.map((r) =>
            h(
              "tr",
              { class: String(r.player_id) === me ? "me" : "", dataset: { role: "leader", player: String(r.player_id) } },
              h("td", { class: "num lb-rank" }, String(r.rank)),
              h("td", { class: "lb-who" }, h("a", { href: `./?player=${encodeURIComponent(r.player_id)}` }, r.name), h("span", { class: "lb-sub", dataset: { role: "leader-level" } }, levelCell(r.level))),
              h("td", { class: "lb-level-col" }, levelCell(r.level)),
              h("td", { class: "num" }, num(r.rating)),
              h("td", { class: "num" }, r.skill ? skillText(r.skill) : "—"),
              h("td", { class: "num" }, num(r.hands)),
            ),
          ),
        ),
      ))
    : h("p", { class: "muted", dataset: { role: "leaderboard", by } }, t("lobby.board_empty"));
  const pages = Math.max(1, Number(board.pages || 1));
  const pager = h(
    "div",
    { class: "row lb-pager", dataset: { role: "pager" } },
    h("button", { class: "secondary", disabled: page <= 1 || undefined, dataset: { action: "page-prev" }, onclick: () => to(profile, by, page - 1) }, t("lobby.prev_page")),
    h("span", { dataset: { role: "page" } }, t("lobby.page_of", { n: page, m: pages, total: num(board.total ?? rows.length) })),
    h("button", { class: "secondary", disabled: page >= pages || undefined, dataset: { action: "page-next" }, onclick: () => to(profile, by, page + 1) }, t("lobby.next_page")),
  );
  root.replaceChildren(
    header(rerender),
    h(
      "main",
      { class: "lobby", dataset: { role: "leaderboard-page" } },
      h(
        "section",
        { class: "card" },
        h("div", { class: "row" }, h("h2", {}, t("lobby.leaderboard")), h("span", { class: "grow" }), profileSel, tab("skill"), tab("level")),
        h("p", { class: "muted small" }, by === "skill" ? t("lobby.board_skill_hint") : t("lobby.board_level_hint")),
        table,
        pages > 1 ? pager : h("div", { class: "muted small", dataset: { role: "pager" } }, t("lobby.page_of", { n: page, m: pages, total: num(board.total ?? rows.length) })),
      ),
    ),
  );
}
