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
    "::127.0.0.1", // IPv4-compatible
    "::ffff:0:7f00:1", // IPv4-translated (SIIT)
    "[::ffff:0:7f00:1]",
    "::ffff:0:10.0.0.1",
    "2002:7f00:1::", // 6to4 of 127.0.0.1
    "2002:a9fe:a9fe:1:2:3:4:5", // 6to4 of 169.254.169.254
    "2001::7f00:1", // Teredo, server 0.0.0.0
    "2001:0:a00:1:8000:63bf:f7f7:f7f7", // Teredo, server 10.0.0.1
    "2001:0:4136:e378:8000:63bf:80ff:fffe", // Teredo, client 127.0.0.1 (stored XOR 0xffffffff)
    "64:ff9b:1::a:b", // NAT64 for local use: the IPv4 address could be anywhere in it
    "2001:4860::5efe:a9fe:a9fe", // ISATAP interface id of 169.254.169.254
    "fec0::1", // site-local
    "[::1]",
    "ff02::1",
    "not an address",
  ];
  const external = [
    "8.8.8.8",
    "1.1.1.1",
    "172.32.0.1",
    "192.169.0.1",
    "2606:4700::1111",
    "::ffff:8.8.8.8",
    "::ffff:0:808:808",
    "2002:808:808::1",
    "2001:0:4136:e378:8000:63bf:f7f7:f7f7", // Teredo, server 65.54.227.120, client 8.8.8.8
    "64:ff9b::808:808",
  ];
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
      "http://[::ffff:0:7f00:1]/x",
      "http://[2002:7f00:1::]/x",
      "http://[2001::7f00:1]/x",
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

Deno.test("outboundFetch() sends a plain-HTTP call to the address it checked, the name in Host (no second lookup to rebind)", async () => {
  const calls: { url: string; host: string | null; body: string; method: string }[] = [];
  const recording: typeof fetch = async (input) => {
    const request = input as Request;
    calls.push({
      url: request.url,
      host: request.headers.get("host"),
      body: await request.text(),
      method: request.method,
    });
    return new Response("ok");
  };
  const resolve = (host: string) =>
    Promise.resolve(host.startsWith("six") ? ["2606:2800:220:1:248:1893:25c8:1946"] : ["93.184.215.14"]);
  const guarded = outboundFetch(recording, { ...options, resolve });
  await guarded("http://jive.example:8080/oauth2/token?x=1", { method: "POST", body: "grant_type=refresh_token" });
  await guarded("http://six.example/api");
  await guarded("https://jive.example/api");
  await guarded("http://93.184.215.14/api");
  assert.deepEqual(calls, [
    {
      url: "http://93.184.215.14:8080/oauth2/token?x=1",
      host: "jive.example:8080",
      body: "grant_type=refresh_token",
      method: "POST",
    },
    { url: "http://[2606:2800:220:1:248:1893:25c8:1946]/api", host: "six.example", body: "", method: "GET" },
    { url: "https://jive.example/api", host: null, body: "", method: "GET" },
    { url: "http://93.184.215.14/api", host: null, body: "", method: "GET" },
  ]);
});
