// A delivery's page shows what was answered (issue 44), as GitHub's Response
// tab does: our receiver's status, headers and body for accepted and refused
// postbacks, and a callback's answer (or why there was none) for a
// platform-side failure; never a secret of the answer.

import assert from "node:assert/strict";
import { parse, trigger, withHook, withSignedInHook } from "./_helpers.ts";

async function responseOf(client: { text(path: string, status?: number): Promise<string> }, id: string) {
  const page = parse(await client.text(`/deliveries/${id}`, 200));
  try {
    const d = page.document;
    const headers = Object.fromEntries(
      [...d.querySelectorAll("#response-headers tbody tr")].map((tr) => {
        const [name, value] = [...tr.querySelectorAll("td")].map((td) => td.textContent ?? "");
        return [name, value];
      }),
    );
    return {
      status: d.querySelector("#response-status")?.textContent?.replace(/\s+/g, " ").trim(),
      headers,
      body: d.querySelector("#response-body")?.textContent,
    };
  } finally {
    page.close();
  }
}

Deno.test("a delivery's page shows our receiver's answer: status, headers and body, accepted or refused", async () => {
  await withHook(async (t, { id, platformId, callback }, client) => {
    assert.deepEqual(await trigger(t.origin, { webhookId: platformId }), [200]);
    const [accepted] = (await t.app.deliveries.page({ status: "accepted", hookId: id })).values;
    const shown = await responseOf(client, accepted.id);
    assert.equal(shown.status, "This console's receiver answered 200 OK.");
    assert.match(shown.headers["content-type"], /^application\/json/);
    assert.deepEqual(JSON.parse(shown.body ?? ""), { received: 1 });
    // Kept once written too, not only in this process's memory.
    await t.app.deliveries.flush();
    assert.deepEqual((await t.app.deliveries.attemptOf(accepted))?.response?.body, '{"received":1}');

    const forged = await fetch(callback, {
      method: "POST",
      headers: { authorization: "JiveEXTN algorithm=HmacSHA256&signature=c2ln", "content-type": "application/json" },
      body: "[]",
    });
    const answered = await forged.text();
    assert.equal(forged.status, 401);
    const [rejected] = (await t.app.deliveries.page({ status: "rejected" })).values;
    const refusal = await responseOf(client, rejected.id);
    assert.equal(refusal.status, "This console's receiver answered 401 Unauthorized.");
    assert.equal(refusal.body, answered, "the body as the platform got it");
    assert.match(refusal.headers["content-type"], /^application\/json/);
  });
});

Deno.test("a platform-side failure shows the callback's answer, its secrets removed, or why there was none", async () => {
  const callback = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen() {} },
    () =>
      new Response("down for maintenance, back at 10:00", {
        status: 503,
        headers: { "set-cookie": "sid=secret-value", "x-upstream": "blue", "retry-after": "120" },
      }),
  );
  try {
    const hook = { callback: `http://127.0.0.1:${callback.addr.port}/in` };
    await withSignedInHook({ hook }, async ({ t, client, hookId: id, platformId: readPlatformId }) => {
      const platformId = await readPlatformId();
      assert.deepEqual(await trigger(t.origin, { webhookId: platformId }), [503]);
      const [failure] = (await t.app.deliveries.page({ hookId: id })).values;
      assert.equal(failure.status, 503);
      const shown = await responseOf(client, failure.id);
      assert.equal(shown.status, "The callback answered 503 Service Unavailable.");
      assert.equal(shown.body, "down for maintenance, back at 10:00");
      assert.equal(shown.headers["x-upstream"], "blue");
      assert.equal(shown.headers["retry-after"], "120");
      assert.equal(shown.headers["set-cookie"], "[removed]");
      assert.doesNotMatch(await client.text(`/deliveries/${failure.id}`, 200), /secret-value/);

      // A callback that cannot be reached gave no answer: the page says why.
      await callback.shutdown();
      assert.deepEqual(await trigger(t.origin, { webhookId: platformId }), [0]);
      const [unreached] = (await t.app.deliveries.page({ hookId: id })).values;
      const none = await responseOf(client, unreached.id);
      assert.match(none.status ?? "", /^No response: the platform could not reach the callback \(.+\)\.$/);
      assert.equal(none.body, undefined);
    });
  } finally {
    await callback.shutdown().catch(() => {});
  }
});
