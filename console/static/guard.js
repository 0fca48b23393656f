// A signed-in page that Back or Forward brought from the browser's HTTP cache
// (nothing transferred) stays hidden until islands.js knows its session is
// still alive, else it reloads into sign-in: the session may have ended since
// (expiry, a sign-out elsewhere). Render-blocking, so nothing shows first.
{
  const nav = performance.getEntriesByType("navigation")[0];
  if (nav && nav.type === "back_forward" && nav.transferSize === 0) document.documentElement.dataset.away = "";
}
