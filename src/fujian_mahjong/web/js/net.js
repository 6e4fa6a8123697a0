// REST and WebSocket plumbing. All URLs are relative to the page, so the client works
// wherever the server mounts it.

const STORE = "fjmj.";

export function load(key) {
  try {
    return localStorage.getItem(STORE + key);
  } catch (_e) {
    return null;
  }
}

export function save(key, value) {
  try {
    if (value === null || value === undefined) localStorage.removeItem(STORE + key);
    else localStorage.setItem(STORE + key, String(value));
  } catch (_e) {
    /* storage unavailable: the session still works */
  }
}

export function token() {
  return load("token");
}

export class ApiError extends Error {
  /** `code`: the server's error code (docs/protocol.md), translated by i18n.errorText. */
  constructor(status, message, code = null) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

function detailText(body, status) {
  if (!body) return `HTTP ${status}`;
  const d = body.detail ?? body.message ?? body.error;
  if (typeof d === "string") return d;
  if (Array.isArray(d)) return d.map((x) => x.msg || JSON.stringify(x)).join("; ");
  return JSON.stringify(d ?? body);
}

/** JSON request with the bearer token; throws ApiError with the server's one-line message. */
export async function api(method, path, body) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const tok = token();
  if (tok) headers.Authorization = `Bearer ${tok}`;
  const url = path.replace(/^\//, "");
  const res = await fetch(url, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch (_e) {
      data = text;
    }
  }
  if (!res.ok) throw new ApiError(res.status, detailText(data, res.status), data && typeof data === "object" ? data.code || null : null);
  return data;
}

let openapi = null;

/** The server's OpenAPI paths (to find optional features such as accounts without
 * probing endpoints, which would log failed requests in the console). */
export async function serverPaths() {
  if (!openapi) {
    try {
      const doc = await api("GET", "openapi.json");
      openapi = doc && doc.paths ? doc.paths : {};
    } catch (_e) {
      openapi = {};
    }
  }
  return openapi;
}

export function hasPath(paths, path, method) {
  const p = paths[path];
  return Boolean(p && (!method || p[method.toLowerCase()]));
}

/**
 * One table connection: hello → welcome → join → seated, then messages. Reconnects with
 * backoff after any drop and rejoins the same table (docs/protocol.md: the seat resumes and
 * a fresh state arrives); onStatus reports "online" / "reconnecting". A join answered
 * `unavailable` (a cluster whose bus is down, docs/deploy.md) is made again the same way:
 * the first such error reaches onMessage, the repeats while it lasts do not.
 */
export class TableConn {
  constructor({ table, as, onMessage, onStatus }) {
    this.table = table;
    this.as = as;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.ws = null;
    this.closed = false;
    this.retry = 0;
    this.timer = null;
  }

  start() {
    this.closed = false;
    this.open();
  }

  open() {
    const url = new URL("ws", window.location.href);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    url.search = "";
    url.hash = "";
    const ws = new WebSocket(url.href);
    this.ws = ws;
    let seated = false;
    ws.onopen = () => {
      ws.send(JSON.stringify({ type: "hello", token: token() }));
    };
    ws.onmessage = (ev) => {
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch (_e) {
        return;
      }
      if (msg.type === "welcome") {
        ws.send(JSON.stringify({ type: "join", table: this.table, as: this.as }));
        this.onMessage(msg);
        return;
      }
      if (msg.type === "seated") {
        seated = true;
        this.retry = 0;
        this.onStatus("online");
      }
      if (msg.type === "error" && msg.code === "replaced") {
        // the seat was opened on another window or device: this one steps back and does
        // not reconnect (two windows coming back in turn took the seat from each other
        // every few hundred ms); the player may take it back here (start())
        this.closed = true;
        this.onMessage(msg);
        this.onStatus("replaced");
        return;
      }
      if (msg.type === "error" && msg.code === "not_joined" && seated) {
        // the server no longer has this socket at its table (the table's process lost its
        // link to the others and let its sockets go, or the table moved): join again, on a
        // new socket, as after any lost connection; the refusal itself is not shown
        seated = false;
        ws.close();
        return;
      }
      if (msg.type === "error" && msg.code === "unavailable" && !seated) {
        // the table's server cannot be reached now: join again after the backoff
        if (this.retry === 0) this.onMessage(msg);
        ws.close();
        return;
      }
      this.onMessage(msg);
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.closed) return;
      this.onStatus("reconnecting");
      // half the back-off fixed, half at random: the sockets a server closes together (1012
      // when its link to the others is back, a restart) do not all come back in one tick
      const cap = Math.min(4000, 300 * 2 ** this.retry);
      const delay = Math.round(cap / 2 + Math.random() * (cap / 2));
      this.retry += 1;
      this.timer = setTimeout(() => this.open(), delay);
    };
    ws.onerror = () => {
      /* onclose follows and schedules the reconnect */
    };
  }

  send(obj) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(obj));
      return true;
    }
    return false;
  }

  /** Drop the socket as a network failure would (the client reconnects by itself). */
  drop() {
    if (this.ws) this.ws.close();
  }

  stop() {
    this.closed = true;
    clearTimeout(this.timer);
    if (this.ws) this.ws.close();
  }
}
