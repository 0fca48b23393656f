// The sandbox's consent form as a way to fill the console's KV: each approved `POST /sandbox/oauth2/authorize` stores
// an authorization code (60 s), and the console's callback turns one into a token pair kept 30 days; anyone can post
// it (no sign-in is needed to approve the sandbox's one user). On a public console's defaults one client address
// must be answered 429 past a limit, while the token endpoint, which the console and the CLI call server to server
// (from the console's own address), is never limited by it.

import assert from "node:assert/strict";
import { startConsole } from "./_helpers.ts";

function encodeBase64Url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

async function pkce(): Promise<{ verifier: string; challenge: string }> {
  const verifier = encodeBase64Url(crypto.getRandomValues(new Uint8Array(32)));
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return { verifier, challenge: encodeBase64Url(new Uint8Array(digest)) };
}

Deno.test("approving the sandbox's consent form is limited per client address; its token endpoint is not", async () => {
  const t = await startConsole({ rateLimits: {} }); // the console's defaults
  try {
    const client = await t.app.sandboxApi!.oauthClientFor(t.origin);
    const redirectUri = `${t.origin}/auth/callback`;
    const { verifier, challenge } = await pkce();
    const approve = () =>
      fetch(`${t.origin}/sandbox/oauth2/authorize`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", origin: t.origin },
        body: new URLSearchParams({
          client_id: client.clientId,
          redirect_uri: redirectUri,
          response_type: "code",
          code_challenge: challenge,
          code_challenge_method: "S256",
          decision: "approve",
        }),
      });
    const statuses: number[] = [];
    const codes: string[] = [];
    let refused: Response | null = null;
    for (let i = 0; i < 200; i++) {
      const res = await approve();
      statuses.push(res.status);
      const code = URL.parse(res.headers.get("location") ?? "")?.searchParams.get("code");
      if (code) codes.push(code);
      if (res.status === 429 && !refused) refused = res;
      else await res.body?.cancel();
    }
    let stored = 0;
    for await (const _ of t.kv.list({ prefix: ["sandbox", "code"] })) stored++;
    assert.ok(refused, `200 consents from one address were all answered (${stored} codes stored)`);
    assert.ok(stored < 100, `200 consents from one address stored ${stored} codes`);
    assert.ok(Number(refused.headers.get("retry-after")) >= 1);
    assert.match(await refused.text(), /Too many requests/, "the sandbox's own 429 page for its form");
    assert.equal(statuses[0], 303);

    // The token endpoint, called from the same address (the console's), still answers.
    const token = await fetch(client.tokenEndpoint, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        authorization: `Basic ${btoa(`${client.clientId}:${client.clientSecret}`)}`,
      },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code: codes[0],
        redirect_uri: redirectUri,
        code_verifier: verifier,
      }),
    });
    assert.equal(token.status, 200, await token.clone().text());
    assert.ok((await token.json()).access_token);
  } finally {
    await t.close();
  }
});
