// Two console processes on one KV file: a community's client secret rotated
// (then the previous one refused) on one while both receive postbacks signed
// with the old and the new secret. Every postback within the rules is taken
// exactly once by either console, none signed with a secret outside its
// validity is taken, and none is answered 500.

import assert from "node:assert/strict";
import { countDeliveries, seedConsoleKv, startProcess } from "../../scripts/load_processes.ts";
import { loadFixture, postbackBody, Signer } from "../../scripts/load_postbacks.ts";
import { csrfOf, signIn } from "./_helpers.ts";

const NEW_SECRET = btoa("the load community's rotated client secret, 32 bytes+");

Deno.test("a secret rotated on one console while the other receives: each postback within the rules taken once, none outside them", async () => {
  const dir = await Deno.makeTempDir();
  const kvPath = `${dir}/console.kv`;
  const fixture = loadFixture();
  await seedConsoleKv(kvPath, fixture);
  const env = { PORT: "0", HOST: "127.0.0.1", KV_PATH: kvPath, SANDBOX: "on", RATE_LIMIT_RECEIVER: "0" };
  const a = await startProcess(["console/main.ts"], env);
  const b = await startProcess(["console/main.ts"], env);
  try {
    const oldSigner = new Signer(fixture.community);
    const newSigner = new Signer({ ...fixture.community, clientSecret: NEW_SECRET });
    let seq = 0;
    const send = async (origin: string, authorization: string, n: number) => {
      const res = await fetch(`${origin}/hooks/${fixture.hook.id}`, {
        method: "POST",
        headers: { authorization, "content-type": "application/json" },
        body: postbackBody(fixture.ref, `k${n}`),
      });
      return [res.status, await res.json()] as const;
    };
    // Each header goes to both consoles (the platform sends it again when it gets no answer): one takes it.
    const both = async (authorization: string) => {
      const n = seq++;
      const answers = await Promise.all([send(a.url, authorization, n), send(b.url, authorization, n)]);
      for (const [status, body] of answers) assert.equal(status, 200, JSON.stringify(body));
      const taken = answers.filter(([, body]) => body.received === 1).length;
      assert.equal(taken, 1, `k${n}: ${JSON.stringify(answers)}`);
    };
    // Both caches warm with the community as it was.
    for (let i = 0; i < 4; i++) await both(oldSigner.next());

    const client = await signIn(a.url);
    const path = `/communities/${fixture.community.tenantId}`;
    const form = {
      _csrf: csrfOf(await client.text(path, 200)),
      name: fixture.community.name,
      baseUrl: String(fixture.community.baseUrl),
      clientId: String(fixture.community.clientId),
    };
    const signedBefore = Array.from({ length: 8 }, () => oldSigner.next());
    const rotating = client.post(path, { ...form, clientSecret: NEW_SECRET });
    // Postbacks signed with either secret while the rotation is saved and after.
    await Promise.all([
      ...signedBefore.map((h) => both(h)),
      (async () => {
        const saved = await rotating;
        await saved.body?.cancel();
        assert.equal(saved.status, 303);
        for (let i = 0; i < 8; i++) await both(i % 2 ? newSigner.next() : oldSigner.next());
      })(),
    ]);

    // The previous secret refused on the console that rotated: the other refuses it at once.
    const page = await client.text(path, 200);
    const revoked = await client.post(`${path}/revoke-previous-secret`, { _csrf: csrfOf(page) });
    await revoked.body?.cancel();
    assert.equal(revoked.status, 303);
    for (const origin of [b.url, a.url]) {
      const [status] = await send(origin, oldSigner.next(), seq++);
      assert.equal(status, 401, `${origin} took the previous secret after it was refused`);
    }
    await both(newSigner.next());

    const { total, titles } = await countDeliveries(kvPath, fixture.hook.id);
    assert.equal(total, titles.size, "no postback stored twice");
    assert.equal(total, 4 + 8 + 8 + 1, "every postback within the rules stored");
  } finally {
    await a.stop();
    await b.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
