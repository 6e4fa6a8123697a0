// The service worker (docs/web.md): the client's static files (css, js, assets, locale, the
// page itself) from a versioned cache, so a reload or a flaky connection does not fetch them
// again; the API and the socket always go to the network. Static files are served cache
// first and refreshed in the background (the next load gets the new copy); a new CACHE name
// drops every older cache when this worker activates.
const CACHE = "fjmj-static-v2";
const STATIC = /^\/(css|js|assets|locale)\//;

self.addEventListener("install", (e) => {
  self.skipWaiting();
  e.waitUntil(caches.open(CACHE).then((c) => c.addAll(["./", "css/style.css", "css/lobby.css", "js/app.js", "assets/mahjong-tiles.woff2"]).catch(() => undefined)));
});

self.addEventListener("activate", (e) => {
  e.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith("fjmj-") && k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (e) => {
  const req = e.request;
  if (req.method !== "GET") return;
  const url = new URL(req.url);
  if (url.origin !== self.location.origin) return;
  // the API, the socket and anything else dynamic: the network only
  if (url.pathname.startsWith("/api/") || url.pathname.startsWith("/ws")) return;
  const page = req.mode === "navigate";
  if (!page && !STATIC.test(url.pathname) && url.pathname !== "/manifest.webmanifest") return;
  e.respondWith(
    caches.open(CACHE).then(async (cache) => {
      // the page: the network first (it carries the route in its query), the cached shell
      // when offline; static files: the cache first, refreshed behind
      const key = page ? "./" : req;
      const cached = await cache.match(key, { ignoreSearch: page });
      const fresh = fetch(req)
        .then((res) => {
          if (res.ok && res.type === "basic") cache.put(key, res.clone());
          return res;
        })
        .catch(() => cached || Response.error());
      if (page) return fresh;
      return cached || fresh;
    }),
  );
});
