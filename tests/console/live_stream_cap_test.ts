// Live views as a way to exhaust the console: each open `GET /deliveries/events` holds a KV watch, a heartbeat timer
// and a read of the log every second for as long as its client keeps it. One session (or a few) opening hundreds of
// them must be refused beyond a cap, with a reason, and a stream its client closes gives its place back.

import assert from "node:assert/strict";
import { type Client, signIn, startConsole, type TestConsole } from "./_helpers.ts";

/** Counts the live streams' open watches of the log (each stream holds one while it is open). */
function countWatches(t: TestConsole): { open: () => number } {
  let open = 0;
  const watch = t.app.deliveries.watch.bind(t.app.deliveries);
  t.app.deliveries.watch = async (signal, onChange) => {
    open++;
    try {
      return await watch(signal, onChange);
    } finally {
      open--;
    }
  };
  return { open: () => open };
}

async function waitUntil(check: () => boolean, message: string, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    assert.ok(Date.now() < deadline, message);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** An opened stream: its answer, read up to `ready` when it is one. */
interface Opened {
  status: number;
  text: string;
  retryAfter: string | null;
  close: () => void;
}

/**
 * Opens `GET /deliveries/events` on a socket of its own, as a browser's EventSource does, and reads its answer up to
 * `ready` (a refusal whole); `close` closes the socket, as a browser closing the tab does.
 */
async function openStream(origin: string, client: Client): Promise<Opened> {
  const url = new URL(origin);
  const conn = await Deno.connect({ hostname: url.hostname, port: Number(url.port) });
  const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  await conn.write(
    new TextEncoder().encode(`GET /deliveries/events HTTP/1.1\r\nHost: ${url.host}\r\nCookie: ${cookie}\r\n\r\n`),
  );
  const buf = new Uint8Array(4096);
  let text = "";
  const complete = () => {
    const head = text.indexOf("\r\n\r\n");
    if (head < 0) return false;
    if (text.startsWith("HTTP/1.1 200")) return text.includes("event: ready");
    const length = Number(/content-length: (\d+)/i.exec(text.slice(0, head))?.[1] ?? 0);
    return text.length - head - 4 >= length;
  };
  while (!complete()) {
    const n = await conn.read(buf);
    if (n === null) break;
    text += new TextDecoder().decode(buf.subarray(0, n));
  }
  const [head, body = ""] = text.split("\r\n\r\n");
  let closed = false;
  return {
    status: Number(head.split(" ")[1]),
    text: body,
    retryAfter: /^retry-after: (.*)$/im.exec(head)?.[1]?.trim() ?? null,
    close: () => {
      if (!closed) conn.close();
      closed = true;
    },
  };
}

/**
 * Runs `fn` on a console started with `options`, counting its KV watches; afterwards the streams `fn` put in
 * `opened` are closed, their watches must all end, and the console is closed.
 */
async function withStreams(
  options: Parameters<typeof startConsole>[0],
  fn: (t: TestConsole, watches: { open: () => number }, opened: Opened[]) => Promise<void>,
): Promise<void> {
  const t = await startConsole(options);
  const watches = countWatches(t);
  const opened: Opened[] = [];
  try {
    await fn(t, watches, opened);
  } finally {
    for (const o of opened) o.close();
    await waitUntil(() => watches.open() === 0, "streams closed by their clients kept their watches");
    await t.close();
  }
}

Deno.test("one session opening 40 live streams gets 10, the rest 429 with a reason; a closed one frees its place", async () => {
  await withStreams({}, async (t, watches, opened) => {
    const client = await signIn(t.origin);
    for (let i = 0; i < 40; i++) opened.push(await openStream(t.origin, client));
    const ok = opened.filter((o) => o.status === 200);
    const refused = opened.filter((o) => o.status !== 200);
    assert.equal(ok.length, 10, `${ok.length} of 40 streams of one session opened`);
    assert.equal(watches.open(), 10);
    assert.ok(refused.every((o) => o.status === 429), `refused with ${refused.map((o) => o.status)}`);
    assert.match(refused[0].text, /live views.*at most 10/i);
    assert.ok(Number(refused[0].retryAfter) >= 1);
    // Another session (another browser) is not held back by this one's streams.
    const other = await signIn(t.origin);
    const theirs = await openStream(t.origin, other);
    opened.push(theirs);
    assert.equal(theirs.status, 200);
    // Closing streams gives their places back, and their watches end.
    for (const o of ok.slice(0, 3)) o.close();
    await waitUntil(() => watches.open() === 8, `closed streams kept their watches: ${watches.open()} open`);
    const again = await openStream(t.origin, client);
    opened.push(again);
    assert.equal(again.status, 200);
  });
});

Deno.test("live streams past the console's total are answered 503 with a reason, and a closed one frees its place", async () => {
  await withStreams({ liveStreams: { perSession: 2, total: 3 } }, async (t, watches, opened) => {
    const clients = [await signIn(t.origin), await signIn(t.origin), await signIn(t.origin)];
    for (const client of clients) for (let i = 0; i < 2; i++) opened.push(await openStream(t.origin, client));
    assert.deepEqual(opened.map((o) => o.status), [200, 200, 200, 503, 503, 503]);
    assert.equal(watches.open(), 3);
    assert.match(opened[3].text, /live views/i);
    assert.ok(Number(opened[3].retryAfter) >= 1);
    opened[0].close();
    await waitUntil(() => watches.open() === 2, "a closed stream kept its watch");
    const again = await openStream(t.origin, clients[2]);
    opened.push(again);
    assert.equal(again.status, 200);
  });
});
