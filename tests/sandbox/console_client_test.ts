// The sandbox's OAuth sends the console's sign-in client back only to a
// registered redirect URI (issue 43 item 7): `oauthClientFor(origin)`
// registers `{origin}{consoleRedirectPath}`, and neither the Host header of
// the request nor another path of the same origin gets a code.

import assert from "node:assert/strict";
import { Hono } from "hono";
import * as oauth from "oauth4webapi";
import { createSandbox, type SandboxOptions } from "../../sandbox/mod.ts";

interface Env {
  origin: string;
  port: number;
  clientId: string;
  redirectUris: string[];
}

async function withSandbox(fn: (env: Env) => Promise<void>, options: Partial<SandboxOptions> = {}): Promise<void> {
  const kv = await Deno.openKv(":memory:");
  const sandbox = createSandbox({ kv, ...options });
  const app = new Hono();
  app.route("/sandbox", sandbox.app);
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, app.fetch);
  const origin = `http://127.0.0.1:${server.addr.port}`;
  try {
    const client = await sandbox.oauthClientFor(origin);
    await fn({ origin, port: server.addr.port, clientId: client.clientId, redirectUris: client.redirectUris });
  } finally {
    await server.shutdown();
    kv.close();
  }
}

/** Sends one HTTP/1.1 request as written (its own Host header) and reads the answer's status and Location. */
async function raw(port: number, head: string[], body = ""): Promise<{ status: number; location: string | null }> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    const lines = [...head, "Connection: close", `Content-Length: ${new TextEncoder().encode(body).length}`];
    await conn.write(new TextEncoder().encode(`${lines.join("\r\n")}\r\n\r\n${body}`));
    const chunks: Uint8Array[] = [];
    const buf = new Uint8Array(16 * 1024);
    for (;;) {
      const n = await conn.read(buf);
      if (n === null) break;
      chunks.push(buf.slice(0, n));
    }
    const text = new TextDecoder().decode(new Uint8Array(chunks.flatMap((c) => [...c])));
    const [headers] = text.split("\r\n\r\n");
    return {
      status: Number(/^HTTP\/1\.1 (\d{3})/.exec(headers)?.[1]),
      location: /^location: (.*)$/im.exec(headers)?.[1] ?? null,
    };
  } finally {
    conn.close();
  }
}

async function fields(env: Env, redirectUri: string): Promise<Record<string, string>> {
  return {
    response_type: "code",
    client_id: env.clientId,
    redirect_uri: redirectUri,
    code_challenge: await oauth.calculatePKCECodeChallenge("v".repeat(50)),
    code_challenge_method: "S256",
    state: "st",
  };
}

Deno.test("the console's client gets no code for the host a Host header names", async () => {
  await withSandbox(async (env) => {
    const query = new URLSearchParams(await fields(env, "http://evil.example/auth/callback"));
    const page = await raw(env.port, [`GET /sandbox/oauth2/authorize?${query} HTTP/1.1`, "Host: evil.example"]);
    assert.equal(page.status, 400, "the consent page is not shown");
    const form = new URLSearchParams({
      ...await fields(env, "http://evil.example/auth/callback"),
      decision: "approve",
    });
    const approved = await raw(env.port, [
      "POST /sandbox/oauth2/authorize HTTP/1.1",
      "Host: evil.example",
      "Origin: http://evil.example",
      "Content-Type: application/x-www-form-urlencoded",
    ], form.toString());
    assert.equal(approved.status, 400);
    assert.equal(approved.location, null, "no code sent anywhere");
  });
});

Deno.test("the console's client is sent back only to its registered redirect URI", async () => {
  await withSandbox(async (env) => {
    assert.deepEqual(env.redirectUris, [`${env.origin}/auth/callback`]);
    const authorize = async (redirectUri: string) => {
      const res = await fetch(
        `${env.origin}/sandbox/oauth2/authorize?${new URLSearchParams(await fields(env, redirectUri))}`,
      );
      return [res.status, await res.text()] as const;
    };
    for (const elsewhere of [`${env.origin}/elsewhere`, `${env.origin}/auth/callback?next=/x`, `${env.origin}/`]) {
      const [status, html] = await authorize(elsewhere);
      assert.equal(status, 400, elsewhere);
      assert.match(html, /is not registered for the console&#39;s client/, elsewhere);
    }
    assert.equal((await authorize(`${env.origin}/auth/callback`))[0], 200);
    // Approve sends the code there, and only there.
    const approved = await fetch(`${env.origin}/sandbox/oauth2/authorize`, {
      method: "POST",
      headers: { origin: env.origin },
      body: new URLSearchParams({ ...await fields(env, `${env.origin}/auth/callback`), decision: "approve" }),
      redirect: "manual",
    });
    await approved.body?.cancel();
    assert.equal(approved.status, 303);
    const back = new URL(approved.headers.get("location")!);
    assert.equal(back.origin + back.pathname, `${env.origin}/auth/callback`);
    assert.ok(back.searchParams.get("code"));
  });
});

Deno.test("consoleRedirectPath sets the console client's redirect URI, and a bad one is refused by name", async () => {
  await withSandbox(async (env) => {
    assert.deepEqual(env.redirectUris, [`${env.origin}/signin/done`]);
    const status = async (path: string) => {
      const query = new URLSearchParams(await fields(env, `${env.origin}${path}`));
      const res = await fetch(`${env.origin}/sandbox/oauth2/authorize?${query}`);
      await res.body?.cancel();
      return res.status;
    };
    assert.equal(await status("/signin/done"), 200);
    assert.equal(await status("/auth/callback"), 400);
  }, { consoleRedirectPath: "/signin/done" });
  const kv = await Deno.openKv(":memory:");
  try {
    assert.throws(
      () => createSandbox({ kv, consoleRedirectPath: "signin" }),
      (err) =>
        err instanceof TypeError &&
        err.message ===
          `Cannot create sandbox: 'consoleRedirectPath' must be a path such as "/auth/callback", got "signin"`,
    );
  } finally {
    kv.close();
  }
});
