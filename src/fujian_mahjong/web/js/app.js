// Entry point: routes by query string.
//   /                                        lobby
//   /?table=ID[&token=T]                     that table as that player (invite links, tests: docs/web.md)
//   /?table=ID&as=spectator                  watch a table
//   /?replay=HAND[&seat=S][&step=N][&code=CODE]  replay and review a finished hand at step N
//                                            (a private table's: by its code for one not at it)
//   /?player=ID                              a player's profile (js/profile.js)
//   /?leaderboard=PROFILE[&by=skill|level][&page=N]   a leaderboard ("all": every profile, by level)
// An invite or spectator link opened without a token asks for a name first, then opens
// exactly that table, as a player or as a spectator (lobby.js followInvite).
import { t } from "./i18n.js";
import { save, token } from "./net.js";
import { rememberInvite, showLobby } from "./lobby.js";
import { showLeaderboard, showProfile } from "./profile.js";
import { showTable } from "./table.js";
import { showReplay } from "./replay.js";

function main() {
  const q = new URLSearchParams(window.location.search);
  const tok = q.get("token");
  if (tok) {
    save("token", tok);
    // keep the token out of the address bar once stored (it is a credential)
    q.delete("token");
    const rest = q.toString();
    window.history.replaceState(null, "", rest ? `?${rest}` : "./");
  }
  document.title = t("lobby.title");
  const root = document.getElementById("app");
  const as = q.get("as") === "spectator" ? "spectator" : "player";
  if (q.get("replay")) showReplay(root, q.get("replay"), q.get("seat"), q.get("code"), q.get("step"));
  else if (q.get("player")) showProfile(root, q.get("player"));
  else if (q.has("leaderboard")) showLeaderboard(root, q.get("leaderboard") || "all", q.get("by") || "skill", Number(q.get("page") || 1));
  else if (q.get("table") && !token()) {
    // a link opened by someone new: pick a name first, then exactly that table
    rememberInvite(q.get("table"), as);
    showLobby(root);
  } else if (q.get("table")) showTable(root, q.get("table"), as);
  else {
    rememberInvite(null, null); // the plain lobby: a link not followed is forgotten
    showLobby(root);
  }
}

main();

// the static files from the service worker's cache (sw.js: a reload or a flaky connection
// does not fetch them again; the API and the socket always use the network)
if ("serviceWorker" in navigator && window.isSecureContext) {
  navigator.serviceWorker.register("sw.js").catch(() => {
    /* no offline cache: the page works as before */
  });
}
