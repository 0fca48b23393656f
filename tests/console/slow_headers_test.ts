// Slow headers: connections that send their request headers a byte at a time
// (a slowloris) are not closed by the console's server (Deno.serve has no
// header timeout; docs/console-config.md puts a proxy with one in front), but they
// must not stop it from serving everyone else meanwhile.

import assert from "node:assert/strict";
import { Client, signIn, startConsole } from "./_helpers.ts";

const CONNECTIONS = 200;
/** Header bytes each slow connection sends, one per tick of TICK_MS. */
const BYTES = 30;
const TICK_MS = 100;

Deno.test("the console serves other users while 200 connections trickle header bytes", async () => {
  const t = await startConsole();
  const conns: Deno.TcpConn[] = [];
  let stop = false;
  try {
    const port = Number(new URL(t.origin).port);
    const encoder = new TextEncoder();
    for (let i = 0; i < CONNECTIONS; i++) {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port });
      conn.setNoDelay(true);
      await conn.write(encoder.encode("GET /signin HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "));
      conns.push(conn);
    }
    // Every slow connection sends one more header byte a tick, never ending its headers.
    let sent = 0;
    const trickling = (async () => {
      for (let tick = 0; tick < BYTES && !stop; tick++) {
        await Promise.all(conns.map((conn) => conn.write(encoder.encode("a")).then(() => sent++, () => {})));
        await new Promise((resolve) => setTimeout(resolve, TICK_MS));
      }
    })();
    // Meanwhile other users are served: a health check, the sign-in page, a whole sign-in through the sandbox.
    while (sent < CONNECTIONS * 2) await new Promise((resolve) => setTimeout(resolve, 10));
    // Bounded: a console that stalled behind the slow connections fails here instead of hanging the run.
    const signal = AbortSignal.timeout(60_000);
    for (let i = 0; i < 3; i++) {
      const health = await fetch(`${t.origin}/healthz`, { signal });
      assert.equal(health.status, 200);
      await health.body?.cancel();
      const page = await fetch(`${t.origin}/signin`, { signal });
      assert.equal(page.status, 200);
      assert.match(await page.text(), /Sign in with the sandbox community/);
      const client = await signIn(t.origin, new Client(t.origin, (input, init) => fetch(input, { ...init, signal })));
      const home = await client.fetch("/");
      assert.equal(home.status, 200);
      await home.body?.cancel();
    }
    // The slow connections are still open and trickling once the others were served: every one of them takes
    // another byte (waited for, however fast the serving went; bounded so a closed connection fails here).
    // (All of their bytes sent, every write taken, proves as much when a slow machine served them past the end.)
    const served = sent;
    const until = Date.now() + 10_000;
    const all = CONNECTIONS * BYTES;
    while (sent < Math.min(served + CONNECTIONS, all) && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.ok(sent >= Math.min(served + CONNECTIONS, all), `header bytes sent: ${served} when served, ${sent} after`);
    stop = true;
    await trickling;
  } finally {
    stop = true;
    for (const conn of conns) {
      try {
        conn.close();
      } catch {
        // Closed already.
      }
    }
    await t.close();
  }
});
