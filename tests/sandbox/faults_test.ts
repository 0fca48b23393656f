// The sandbox's test-facing options (issue 14: one platform emulator): a
// fixed community client, tokens issued and revoked by hand, hooks made and
// deleted as another client would, and the fault hooks (before, after,
// afterCreate) that the Module A tests use for 500s, hangs and dropped lines;
// and what it refuses with a 400 rather than failing (too large, unreadable).

import assert from "node:assert/strict";
import fc from "fast-check";
import { Hono } from "hono";
import { ANTI_HIJACKING_PREFIX, createSandbox, type Sandbox, type SandboxOptions } from "../../sandbox/mod.ts";

async function withServed(
  fn: (sandbox: Sandbox, base: string, origin: string) => Promise<void>,
  options: Partial<SandboxOptions> = {},
): Promise<void> {
  const kv = await Deno.openKv(":memory:");
  const sandbox = createSandbox({ kv, ...options });
  const app = new Hono();
  app.route("/sandbox", sandbox.app);
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, app.fetch);
  const origin = `http://127.0.0.1:${server.addr.port}`;
  try {
    await fn(sandbox, `${origin}/sandbox`, origin);
  } finally {
    await server.shutdown();
    kv.close();
  }
}

const parse = async (res: Response) => JSON.parse((await res.text()).replace(ANTI_HIJACKING_PREFIX, ""));
const hooksOf = (base: string, token: string) =>
  fetch(`${base}/api/core/v3/webhooks`, { headers: { Authorization: `Bearer ${token}` } });

Deno.test("sandbox: tokens issued by hand open the API, and a revoked one is refused with 401", async () => {
  await withServed(async (sandbox, base) => {
    const given = await sandbox.issueTokens({ accessToken: "known-access", refreshToken: "known-refresh" });
    assert.deepEqual(given, { accessToken: "known-access", refreshToken: "known-refresh" });
    const random = await sandbox.issueTokens();
    assert.match(random.accessToken, /^[\w-]{20,}$/);
    assert.notEqual(random.accessToken, random.refreshToken);

    const open = await hooksOf(base, "known-access");
    assert.equal(open.status, 200);
    assert.deepEqual((await parse(open)).list, []);
    assert.equal(await sandbox.revokeToken("known-access"), true);
    assert.equal(await sandbox.revokeToken("known-access"), false);
    const refused = await hooksOf(base, "known-access");
    assert.equal(refused.status, 401);
    await refused.body?.cancel();
    const other = await hooksOf(base, random.accessToken);
    assert.equal(other.status, 200);
    await other.body?.cancel();
  });
});

Deno.test("sandbox: a fixed community client is the one the refresh grant checks", async () => {
  const client = { clientId: "client-1", clientSecret: "secret-1" };
  await withServed(async (sandbox, base) => {
    await sandbox.issueTokens({ refreshToken: "r-1" });
    const grant = (secret: string) =>
      fetch(`${base}/oauth2/token`, {
        method: "POST",
        headers: {
          "Content-Type": "application/x-www-form-urlencoded",
          Authorization: `Basic ${btoa(`client-1:${secret}`)}`,
        },
        body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: "r-1" }),
      });
    const wrong = await grant("nope");
    assert.ok(wrong.status === 400 || wrong.status === 401, `status ${wrong.status}`);
    await wrong.body?.cancel();
    const right = await grant("secret-1");
    assert.equal(right.status, 200);
    const tokens = await right.json();
    assert.equal(typeof tokens.access_token, "string");
    assert.equal((await hooksOf(base, tokens.access_token)).status, 200);
  }, { communityClient: client });
});

Deno.test("sandbox: hooks made and deleted by hand show in the API like any other", async () => {
  await withServed(async (sandbox, base, origin) => {
    await sandbox.issueTokens({ accessToken: "a" });
    const made = await sandbox.createHook(origin, { events: ["user_account"], callback: "https://example.com/cb" });
    assert.equal(made.id, "1001");
    assert.equal(made.callback, "https://example.com/cb");
    assert.equal((made.resources as { self: { ref: string } }).self.ref, `${base}/api/core/v3/webhooks/1001`);
    assert.deepEqual((await sandbox.listHooks()).map((hook) => hook.id), ["1001"]);
    assert.deepEqual((await parse(await hooksOf(base, "a"))).list.map((hook: { id: string }) => hook.id), ["1001"]);
    assert.equal(await sandbox.deleteHook("1001"), true);
    assert.equal(await sandbox.deleteHook("1001"), false);
    assert.deepEqual(await sandbox.listHooks(), []);
  });
});

Deno.test("sandbox faults: before answers instead, after rewrites every answer, afterCreate edits the created entity", async () => {
  const faults: NonNullable<SandboxOptions["faults"]> = {};
  await withServed(async (sandbox, base) => {
    await sandbox.issueTokens({ accessToken: "a" });
    faults.before = (req) =>
      new URL(req.url).pathname.endsWith("/webhooks") && req.method === "GET"
        ? new Response("down", { status: 503 })
        : undefined;
    const down = await hooksOf(base, "a");
    assert.equal(down.status, 503);
    assert.equal(await down.text(), "down");

    faults.before = undefined;
    faults.after = (_req, res) => new Response(res.body, { status: res.status, headers: { "X-Seen": "yes" } });
    faults.afterCreate = (entity) => {
      entity.description = "edited";
    };
    const created = await fetch(`${base}/api/core/v3/webhooks`, {
      method: "POST",
      headers: { Authorization: "Bearer a", "Content-Type": "application/json" },
      body: JSON.stringify({ events: ["user_account"], callback: "https://example.com/cb" }),
    });
    assert.equal(created.headers.get("x-seen"), "yes");
    assert.equal((await parse(created)).description, "edited");
    assert.equal((await sandbox.listHooks()).length, 1);
  }, { faults });
});

Deno.test("sandbox: faults that are not an object are refused by name", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    assert.throws(
      () => createSandbox({ kv, faults: 5 as unknown as SandboxOptions["faults"] }),
      new TypeError("Cannot create sandbox: 'faults' must be an object"),
    );
  } finally {
    kv.close();
  }
});

Deno.test("sandbox: a hook whose object or callback is too long is refused 400 by name, on POST and PUT", async () => {
  await withServed(async (sandbox, base, origin) => {
    await sandbox.issueTokens({ accessToken: "a" });
    const made = await sandbox.createHook(origin, { events: ["user_account"], callback: "https://example.com/cb" });
    const send = (method: string, path: string, body: unknown) =>
      fetch(`${base}/api/core/v3/webhooks${path}`, {
        method,
        headers: { Authorization: "Bearer a", "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
    const place = `${base}/api/core/v3/places/1000?${"a".repeat(60_000)}`;
    for (const [method, path] of [["POST", ""], ["PUT", `/${made.id}`]]) {
      const long = await send(method, path, {
        events: ["document"],
        object: place,
        callback: "https://example.com/cb",
      });
      assert.equal(long.status, 400, method);
      assert.match((await parse(long)).error.message, /^'object' must be at most 8192 characters, got 600\d\d$/);
    }
    assert.deepEqual((await sandbox.listHooks()).map((hook) => hook.events), [["user_account"]]);
  });
});

Deno.test("sandbox: oversized or unreadable requests are refused 400 by name, never 500", async () => {
  await withServed(async (sandbox, base, origin) => {
    await sandbox.issueTokens({ accessToken: "a" });
    const many = await fetch(`${base}/api/core/v3/webhooks`, {
      method: "POST",
      headers: { Authorization: "Bearer a", "Content-Type": "application/json" },
      body: JSON.stringify({ events: Array(21_000).fill("dm").join(","), callback: "http://x.example/" }),
    });
    assert.equal(many.status, 400);
    assert.equal((await parse(many)).error.message, "'events' must name at most 64, got 21000");

    const authorize = (body: BodyInit, type?: string) =>
      fetch(`${base}/oauth2/authorize`, {
        method: "POST",
        headers: { Origin: origin, ...(type ? { "Content-Type": type } : {}) },
        body,
      });
    const long = await authorize(
      new URLSearchParams({
        client_id: "client-1",
        redirect_uri: `http://x.example/${"a".repeat(33_000)}€`,
        response_type: "code",
        code_challenge: "a".repeat(43),
        code_challenge_method: "S256",
        decision: "approve",
      }),
    );
    assert.equal(long.status, 400);
    assert.match(await long.text(), /redirect_uri must be at most 4096 characters/);

    for (const path of ["/oauth2/authorize", "/trigger"]) {
      for (const type of ["multipart/form-data; boundary=zz", "multipart/form-data"]) {
        const broken = await fetch(`${base}${path}`, {
          method: "POST",
          headers: { Origin: origin, "Content-Type": type },
          body: "garbage",
        });
        assert.equal(broken.status, 400, `${path} ${type}`);
        assert.match(await broken.text(), /The form could not be read/);
      }
    }
  }, { communityClient: { clientId: "client-1", clientSecret: "secret-1" } });
});

Deno.test("sandbox: the open index page and a trigger's summary hide a callback's user, password and query values", async () => {
  const received: string[] = [];
  const receiver = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, (req) => {
    received.push(req.url);
    return new Response(null, { status: 204 });
  });
  const port = receiver.addr.port;
  try {
    await withServed(async (sandbox, base, origin) => {
      // The same URL spelled the ways a URL parser takes: plainly, with backslashes, with a leading space, with an
      // "@" in the password; and a bare token in the query.
      const callbacks = [
        `http://admin:s3cr3t@127.0.0.1:${port}/cb?token=abc123&token=def&plain=1`,
        `http:\\admin:s3cr3t@127.0.0.1:${port}/cb?token=abc123&token=def&plain=1`,
        ` http://admin:s3cr3t@127.0.0.1:${port}/cb?token=abc123&token=def&plain=1`,
        `http://admin:s3c@r3t@127.0.0.1:${port}/cb?token=abc123&token=def&plain=1`,
      ];
      for (const callback of callbacks) await sandbox.createHook(origin, { events: ["user_account"], callback });
      await sandbox.createHook(origin, {
        events: ["user_account"],
        callback: `http://127.0.0.1:${port}/cb?s3cr3tT0ken`,
      });
      const shown = `http://[hidden]@127.0.0.1:${port}/cb?token=[hidden]&token=[hidden]&plain=[hidden]`;
      const page = await (await fetch(`${base}/`)).text();
      assert.equal(page.split(shown.replaceAll("&", "&amp;")).length - 1, callbacks.length, page);
      assert.ok(page.includes(`http://127.0.0.1:${port}/cb?[hidden]`));
      const res = await fetch(`${base}/trigger`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ event: "user_account" }),
      });
      const summary = await res.text();
      assert.equal(res.status, 200, summary);
      const delivered = JSON.parse(summary).delivered.map((d: { callback: string }) => d.callback);
      assert.deepEqual(delivered.slice(0, callbacks.length), callbacks.map(() => shown));
      for (const text of [page, summary]) {
        for (const secret of ["s3cr3t", "r3t", "abc123", "def", "admin", "s3cr3tT0ken"]) {
          assert.ok(!text.includes(secret), secret);
        }
      }
      // The postbacks themselves still go to the callbacks as registered.
      // They go out at once, so they arrive in any order.
      assert.equal(received.length, callbacks.length + 1);
      const plain = received.filter((url) => /\/cb\?token=abc123&token=def&plain=1$/.test(url));
      assert.equal(plain.length, callbacks.length, received.join("\n"));
      assert.equal(received.filter((url) => url.endsWith("/cb?s3cr3tT0ken")).length, 1, received.join("\n"));
    });
  } finally {
    await receiver.shutdown();
  }
});

Deno.test("sandbox: a property: whatever a callback's password and query values, the open index page never shows them", async () => {
  await withServed(async (sandbox, base, origin) => {
    const secret = fc.stringMatching(/^[A-Za-z0-9]{12,20}$/);
    // Spellings a URL parser takes for the same address, and separators that look like the end of userinfo or query.
    const lead = fc.constantFrom("http://", "http:\\\\", " http://", "HTTP://", "http:/");
    await fc.assert(
      fc.asyncProperty(lead, secret, secret, secret, fc.boolean(), async (scheme, password, value, token, bare) => {
        const callback = `${scheme}user:${password}@127.0.0.1:1/cb?k=${value}${bare ? `&${token}` : `&t=${token}`}#f`;
        const made = await sandbox.createHook(origin, { events: ["user_account"], callback });
        const page = await (await fetch(`${base}/`)).text();
        await sandbox.deleteHook(String(made.id));
        for (const hidden of [password, value, token]) {
          assert.ok(!page.includes(hidden), `${callback} showed ${hidden}`);
        }
        assert.ok(page.includes("127.0.0.1:1/cb?k=[hidden]&amp;"), callback);
      }),
      { numRuns: 60 },
    );
  });
});
