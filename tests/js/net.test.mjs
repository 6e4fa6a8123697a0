// The table connection (net.js TableConn) over a recording stand-in for WebSocket and node's
// mock timers: a join answered `unavailable` (a cluster whose bus is down, docs/deploy.md)
// is made again after the backoff until the seat is taken; nothing waits on the clock.
import { test, mock } from "node:test";
import assert from "node:assert/strict";

const sockets = [];

class FakeSocket {
  static OPEN = 1;
  constructor(url) {
    this.url = url;
    this.readyState = 0;
    this.sent = [];
    this.closed = false;
    sockets.push(this);
  }
  send(text) {
    this.sent.push(JSON.parse(text));
  }
  close() {
    if (this.closed) return;
    this.closed = true;
    this.readyState = 3;
    // a browser calls onclose after close(), never inside it
    queueMicrotask(() => this.onclose && this.onclose());
  }
  // the server's side
  open() {
    this.readyState = FakeSocket.OPEN;
    this.onopen();
  }
  receive(msg) {
    this.onmessage({ data: JSON.stringify(msg) });
  }
}

globalThis.WebSocket = FakeSocket;
globalThis.window = { location: { href: "http://127.0.0.1:8000/table.html?t=7" } };
globalThis.localStorage = { getItem: () => null, setItem() {}, removeItem() {} };

const { TableConn } = await import("../../src/fujian_mahjong/web/js/net.js");

function connect() {
  sockets.length = 0;
  const got = [];
  const status = [];
  const conn = new TableConn({ table: 7, as: "player", onMessage: (m) => got.push(m), onStatus: (s) => status.push(s) });
  conn.start();
  return { conn, got, status };
}

function greet(ws) {
  ws.open();
  ws.receive({ type: "welcome", player_id: 3 });
  assert.deepEqual(ws.sent.at(-1), { type: "join", table: 7, as: "player" });
}

const UNAVAILABLE = { type: "error", code: "unavailable", message: "the table's server cannot be reached now; try again" };

/** Run `body` on node's mock clock, Math.random answering `random` (the back-off's random half). */
async function onMockClock(random, body) {
  mock.timers.enable({ apis: ["setTimeout"] });
  mock.method(Math, "random", () => random);
  try {
    await body();
  } finally {
    mock.timers.reset();
    mock.restoreAll();
  }
}

/** The next socket opens after exactly `ms` of the clock, not a millisecond before. */
function reconnectsAfter(ms, why) {
  const n = sockets.length;
  mock.timers.tick(ms - 1);
  assert.equal(sockets.length, n, `no new socket before ${ms} ms`);
  mock.timers.tick(1);
  assert.equal(sockets.length, n + 1, why);
}

test("a join answered unavailable is made again after the backoff, and the player is told once", () =>
  // the back-off's random half at its largest: 300 ms, then 600 ms
  onMockClock(1, async () => {
    const { conn, got, status } = connect();
    greet(sockets[0]);
    sockets[0].receive(UNAVAILABLE);
    await Promise.resolve();
    assert.equal(sockets[0].closed, true, "the socket that got no seat is closed");
    assert.deepEqual(status, ["reconnecting"]);
    assert.equal(got.filter((m) => m.type === "error").length, 1, "the first refusal is shown");
    reconnectsAfter(300, "joined again after 300 ms");
    greet(sockets[1]);
    sockets[1].receive(UNAVAILABLE);
    await Promise.resolve();
    assert.equal(got.filter((m) => m.type === "error").length, 1, "a repeat while it lasts is not shown again");
    reconnectsAfter(600, "the backoff doubles");
    greet(sockets[2]);
    sockets[2].receive({ type: "seated", seat: 0, table: 7 });
    assert.deepEqual(status.at(-1), "online");
    assert.equal(conn.retry, 0);
    assert.equal(sockets[2].closed, false);
    conn.stop();
  }));

test("the back-off is half fixed and half random, so sockets closed together come back spread out", () =>
  onMockClock(0, async () => {
    const { conn } = connect();
    sockets[0].open();
    sockets[0].close();
    await Promise.resolve();
    reconnectsAfter(150, "at the least, half of 300 ms");
    sockets[1].close();
    await Promise.resolve();
    reconnectsAfter(300, "then half of 600 ms");
    conn.stop();
  }));

test("an unavailable answer to an action at a seated socket is shown and keeps the socket", () =>
  onMockClock(0.5, async () => {
    const { conn, got } = connect();
    greet(sockets[0]);
    sockets[0].receive({ type: "seated", seat: 0, table: 7 });
    sockets[0].receive({ ...UNAVAILABLE, message: "the table's server cannot be reached now; please wait" });
    await Promise.resolve();
    assert.equal(sockets[0].closed, false, "the server resyncs a seated socket itself when its bus is back");
    assert.equal(got.at(-1).code, "unavailable");
    mock.timers.tick(5000);
    assert.equal(sockets.length, 1);
    conn.stop();
  }));

test("another error before the seat (no such table) is passed on and the socket kept", async () => {
  const { conn, got } = connect();
  greet(sockets[0]);
  sockets[0].receive({ type: "error", code: "no_table", message: "no open table 7" });
  await Promise.resolve();
  assert.equal(sockets[0].closed, false);
  assert.equal(got.at(-1).code, "no_table");
  conn.stop();
});

test("a seated socket the server no longer has at its table (not_joined) joins again on a new socket", () =>
  onMockClock(0, async () => {
    const { conn, got, status } = connect();
    greet(sockets[0]);
    sockets[0].receive({ type: "seated", seat: 0, table: 7 });
    sockets[0].receive({ type: "error", code: "not_joined", message: "join a table first" });
    await Promise.resolve();
    assert.equal(sockets[0].closed, true, "the socket the server let go is closed");
    assert.equal(got.filter((m) => m.type === "error").length, 0, "the refusal is not shown");
    assert.deepEqual(status.at(-1), "reconnecting");
    reconnectsAfter(150, "joined again after the back-off");
    greet(sockets[1]);
    sockets[1].receive({ type: "seated", seat: 0, table: 7 });
    assert.deepEqual(status.at(-1), "online");
    conn.stop();
  }));

test("not_joined before the seat is passed on and the socket kept", async () => {
  const { conn, got } = connect();
  greet(sockets[0]);
  sockets[0].receive({ type: "error", code: "not_joined", message: "join a table first" });
  await Promise.resolve();
  assert.equal(sockets[0].closed, false);
  assert.equal(got.at(-1).code, "not_joined");
  conn.stop();
});

test("a seat opened in another window: this one steps back and does not reconnect until started again", () =>
  onMockClock(0, async () => {
    const { conn, got, status } = connect();
    greet(sockets[0]);
    sockets[0].receive({ type: "seated", seat: 0, table: 7 });
    sockets[0].receive({ type: "error", code: "replaced", message: "this seat was opened on another connection" });
    sockets[0].close(); // the server closes the replaced socket
    await Promise.resolve();
    assert.deepEqual(status.at(-1), "replaced");
    assert.equal(got.at(-1).code, "replaced");
    mock.timers.tick(60_000);
    assert.equal(sockets.length, 1, "no socket opened again: two windows took the seat from each other in turn");
    conn.start(); // 在这里继续: the player takes the seat back here
    assert.equal(sockets.length, 2);
    greet(sockets[1]);
    conn.stop();
  }));
