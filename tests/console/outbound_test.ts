// Outbound calls of the console: internal hosts refused (SSRF) unless
// allowed, a time limit on every call, and errors that name the host
// (issue 13 items 2 and 4).

import assert from "node:assert/strict";
import { isPrivateAddress, OutboundError, outboundFetch } from "../../console/lib/outbound.ts";
import { startConsole } from "./_helpers.ts";

Deno.test("isPrivateAddress() knows loopback, private, link-local, metadata and mapped addresses", () => {
  const internal = [
    "127.0.0.1",
    "127.255.0.9",
    "10.1.2.3",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "224.0.0.1",
    "::1",
    "::",
    "fe80::1",
    "fd00:ec2::254",
    "fc00::1",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::ffff:10.0.0.1",
    "64:ff9b::a9fe:a9fe",
    "[::1]",
    "ff02::1",
    "not an address",
  ];
  const external = ["8.8.8.8", "1.1.1.1", "172.32.0.1", "192.169.0.1", "2606:4700::1111", "::ffff:8.8.8.8"];
  for (const ip of internal) assert.equal(isPrivateAddress(ip), true, ip);
  for (const ip of external) assert.equal(isPrivateAddress(ip), false, ip);
});

const options = { timeoutMs: 5000, allowPrivateNetwork: false, allowOrigins: ["http://127.0.0.1:1"] };

Deno.test("outboundFetch() refuses internal hosts by address and by name, sending nothing", async () => {
  let sent = 0;
  const counting: typeof fetch = () => {
    sent++;
    return Promise.resolve(new Response("ok"));
  };
  const resolve = (host: string) => Promise.resolve(host === "metadata.internal.example" ? ["169.254.169.254"] : []);
  const guarded = outboundFetch(counting, { ...options, resolve });
  for (
    const url of [
      "http://127.0.0.1:9/x",
      "http://[::1]/x",
      "http://localhost:8080/",
      "http://metadata.internal.example/",
    ]
  ) {
    await assert.rejects(
      guarded(url),
      (err: Error) =>
        err instanceof OutboundError && err.message.startsWith(`Refused to call ${new URL(url).host}:`) &&
        err.message.includes("ALLOW_PRIVATE_NETWORK"),
      url,
    );
  }
  assert.equal(sent, 0);
  // The console's own origin, and any host once allowed.
  assert.equal((await guarded("http://127.0.0.1:1/sandbox/api")).status, 200);
  const open = outboundFetch(counting, { ...options, allowPrivateNetwork: true });
  assert.equal((await open("http://10.0.0.1/")).status, 200);
  assert.equal(sent, 2);
});

Deno.test("outboundFetch() refuses a host name with no DNS answer, which it cannot check, unless the private network is allowed", async () => {
  let sent = 0;
  const counting: typeof fetch = () => {
    sent++;
    return Promise.resolve(new Response("ok"));
  };
  // The real resolver (Deno.resolveDns): `.invalid` never has an address (RFC 6761).
  const guarded = outboundFetch(counting, options);
  await assert.rejects(
    guarded("https://no-such-host.invalid/api/core/v3/webhooks?token=s3cret"),
    (err: Error) =>
      err instanceof OutboundError &&
      err.message ===
        "Refused to call no-such-host.invalid: no-such-host.invalid has no DNS address (A or AAAA) that the console can check. Check the name, and that this machine can resolve names (DNS).",
  );
  // A resolver that finds nothing (a name known only to search domains or mDNS) is refused the same way.
  const nothing = outboundFetch(counting, { ...options, resolve: () => Promise.resolve([]) });
  await assert.rejects(
    nothing("http://printer.local:631/"),
    (err: Error) =>
      err instanceof OutboundError &&
      err.message.startsWith("Refused to call printer.local:631: printer.local has no DNS address"),
  );
  assert.equal(sent, 0);
  // A public address is called; with the private network allowed nothing is checked.
  const publicHost = outboundFetch(counting, { ...options, resolve: () => Promise.resolve(["93.184.215.14"]) });
  assert.equal((await publicHost("https://c.example/")).status, 200);
  const open = outboundFetch(counting, { ...options, allowPrivateNetwork: true });
  assert.equal((await open("https://no-such-host.invalid/")).status, 200);
  assert.equal(sent, 2);
});

Deno.test("outboundFetch() ends a call that hangs, naming the host", async () => {
  const hang = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (req) =>
      new Promise<Response>((resolve) => {
        const done = () => resolve(new Response(null, { status: 504 }));
        req.signal.addEventListener("abort", done);
        hang.signal.addEventListener("abort", done);
      }),
  );
  try {
    const guarded = outboundFetch(fetch, { ...options, timeoutMs: 200, allowPrivateNetwork: true });
    const started = Date.now();
    await assert.rejects(
      guarded(`http://127.0.0.1:${server.addr.port}/api/core/v3/webhooks`),
      (err: Error) =>
        err instanceof OutboundError &&
        err.message ===
          `No answer from 127.0.0.1:${server.addr.port} within 0.2 s: check that it is up and reachable from the console`,
    );
    assert.ok(Date.now() - started < 3000);
  } finally {
    hang.abort();
    await server.shutdown();
  }
});

Deno.test("outboundFetch() names the host it cannot reach, without the URL's query", async () => {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => new Response());
  const port = server.addr.port;
  await server.shutdown();
  const guarded = outboundFetch(fetch, { ...options, allowPrivateNetwork: true });
  await assert.rejects(
    guarded(`http://127.0.0.1:${port}/oauth2/token?code=s3cret`),
    (err: Error) =>
      err instanceof OutboundError && err.message.startsWith(`Cannot reach 127.0.0.1:${port}`) &&
      err.message.endsWith("check the URL and that the host is up") && !err.message.includes("s3cret"),
  );
});

Deno.test("a console that does not allow the private network refuses a community on an internal host", async () => {
  const platform = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => Response.json({ list: [] }));
  const t = await startConsole({ allowPrivateNetwork: false });
  try {
    const base = `http://127.0.0.1:${platform.addr.port}`;
    await t.app.webhooks.communities.save({
      name: "Internal",
      tenantId: "internal-tenant",
      baseUrl: base,
      oauth: { access_token: "a", refresh_token: "r" },
    });
    await assert.rejects(
      t.app.webhooks.reconcile({ tenantId: "internal-tenant" }),
      (err: Error) => err.message.startsWith(`Refused to call 127.0.0.1:${platform.addr.port}:`),
    );
    // Its own sandbox still works.
    const report = await t.app.webhooks.reconcile({ tenantId: "sandbox-tenant" });
    assert.ok(Array.isArray(report.matched));
  } finally {
    await t.close();
    await platform.shutdown();
  }
});

Deno.test("an OAuth step that fails outbound says which host and what to check", async () => {
  const { describeOAuthError } = await import("../../console/lib/oauth.ts");
  const err = new OutboundError(
    "No answer from idp.example within 10 s: check that it is up and reachable from the console",
  );
  assert.equal(describeOAuthError(err), err.message);
});

Deno.test("isPrivateAddress() property: every spelling of an internal IPv4 address is refused", async () => {
  const fc = (await import("fast-check")).default;
  const octet = fc.integer({ min: 0, max: 255 });
  const internal = fc.oneof(
    fc.tuple(fc.constant(10), octet, octet, octet),
    fc.tuple(fc.constant(127), octet, octet, octet),
    fc.tuple(fc.constant(172), fc.integer({ min: 16, max: 31 }), octet, octet),
    fc.tuple(fc.constant(192), fc.constant(168), octet, octet),
    fc.tuple(fc.constant(169), fc.constant(254), octet, octet),
    fc.tuple(fc.constant(100), fc.integer({ min: 64, max: 127 }), octet, octet),
  );
  fc.assert(
    fc.property(internal, ([a, b, c, d]) => {
      const v4 = `${a}.${b}.${c}.${d}`;
      const hex = (x: number, y: number) => ((x << 8) | y).toString(16);
      for (const spelling of [v4, `::ffff:${v4}`, `::ffff:${hex(a, b)}:${hex(c, d)}`, `64:ff9b::${v4}`]) {
        if (!isPrivateAddress(spelling)) throw new Error(`${spelling} passed`);
      }
      // What the URL parser makes of other spellings (decimal, hex) is a dotted address too.
      const host = new URL(`http://${(a * 2 ** 24 + b * 2 ** 16 + c * 2 ** 8 + d)}/`).hostname;
      return isPrivateAddress(host);
    }),
    { numRuns: 500 },
  );
});
