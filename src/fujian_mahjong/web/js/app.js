// Entry point: routes by query string.
//   /                         lobby
//   /?table=ID[&token=T]      that table as that player (invite links, tests: docs/web.md)
//   /?table=ID&as=spectator   watch a table
//   /?replay=HAND[&seat=S]    replay and review a finished hand
import { t } from "./i18n.js";
import { save, token } from "./net.js";
import { showLobby } from "./lobby.js";
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
  document.title = t("title");
  const root = document.getElementById("app");
  if (q.get("replay")) showReplay(root, q.get("replay"), q.get("seat"));
  else if (q.get("table") && !token()) {
    // an invite link opened by someone new: pick a name first, then the table
    save("next_table", q.get("table"));
    showLobby(root);
  } else if (q.get("table")) showTable(root, q.get("table"), q.get("as") === "spectator" ? "spectator" : "player");
  else showLobby(root);
}

main();
