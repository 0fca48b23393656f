// Each state-changing request of the sandbox sent twice at the same moment
// (a double click, a client retrying before the first answer came), answered
// as one OAuth server or the platform would: an authorization code grants
// once and its replay revokes what it gave, a refresh token renews once,
// consent gives two codes, a registration makes two hooks, a PUT applies
// whole, a redelivery sends twice under two signatures.

import assert from "node:assert/strict";
import { ANTI_HIJACKING_PREFIX } from "../../sandbox/mod.ts";
import { approvalForm, approve, COMMUNITY, pkcePair, type Served, withServed } from "./_served.ts";

const ROUNDS = 15;
const basic = { Authorization: `Basic ${btoa(`${COMMUNITY.clientId}:${COMMUNITY.clientSecret}`)}` };
const token = (served: Served, fields: Record<string, string>) =>
  fetch(`${served.base}/oauth2/token`, { method: "POST", headers: basic, body: new URLSearchParams(fields) });
const twice = <T>(send: () => Promise<T>): Promise<T[]> => Promise.all([send(), send()]);
const jive = async (res: Response) => JSON.parse((await res.text()).slice(ANTI_HIJACKING_PREFIX.length));

/** The statuses, sorted, and the JSON bodies of the answers. */
async function read(answers: Response[]): Promise<{ statuses: number[]; bodies: Record<string, string>[] }> {
  const bodies = await Promise.all(answers.map((res) => res.json()));
  return { statuses: answers.map((res) => res.status).sort(), bodies };
}

/** Whether an access token still opens userinfo, and a refresh token still renews. */
async function stillGood(served: Served, tokens: Record<string, string>): Promise<[number, number]> {
  const userinfo = await fetch(`${served.base}/oauth2/userinfo`, {
    headers: { Authorization: `Bearer ${tokens.access_token}` },
  });
  await userinfo.body?.cancel();
  const renewed = await token(served, { grant_type: "refresh_token", refresh_token: tokens.refresh_token });
  await renewed.body?.cancel();
  return [userinfo.status, renewed.status];
}

// RFC 6749 4.1.2: a code used more than once MUST be refused, and the server SHOULD revoke the tokens it gave,
// as OAuth servers do: whoever used it first may be the one who stole it.
Deno.test("sandbox: one authorization code exchanged twice, at once or one after the other, grants once, and the second use revokes what it gave", async () => {
  await withServed(async (served) => {
    for (let round = 0; round < ROUNDS; round++) {
      const { code, verifier } = await approve(served);
      const exchange = () =>
        token(served, {
          grant_type: "authorization_code",
          code,
          code_verifier: verifier,
          redirect_uri: served.communityRedirect,
        });
      const atOnce = round % 2 === 0;
      const { statuses, bodies } = await read(atOnce ? await twice(exchange) : [await exchange(), await exchange()]);
      assert.deepEqual(statuses, [200, 400], `round ${round}`);
      const refused = bodies.find((body) => body.error)!;
      assert.equal(refused.error, "invalid_grant");
      assert.match(refused.error_description, /already used/);
      const granted = bodies.find((body) => body.access_token)!;
      assert.deepEqual(
        await stillGood(served, granted),
        [401, 400],
        `round ${round}: the replay left its tokens working`,
      );
    }
    // A code used once keeps its tokens, and the refresh tokens that follow them.
    const { code, verifier } = await approve(served);
    const once = await token(served, {
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      redirect_uri: served.communityRedirect,
    });
    assert.deepEqual(await stillGood(served, await once.json()), [200, 200]);
  });
});

Deno.test("sandbox: one refresh token used twice at once renews once; the new one works, the used one does not", async () => {
  await withServed(async (served) => {
    let { refreshToken } = await served.sandbox.issueTokens();
    for (let round = 0; round < ROUNDS; round++) {
      const { statuses, bodies } = await read(
        await twice(() => token(served, { grant_type: "refresh_token", refresh_token: refreshToken })),
      );
      assert.deepEqual(statuses, [200, 400], `round ${round}`);
      assert.equal(bodies.find((body) => body.error)!.error, "invalid_grant");
      const used = refreshToken;
      refreshToken = bodies.find((body) => body.refresh_token)!.refresh_token;
      const again = await token(served, { grant_type: "refresh_token", refresh_token: used });
      assert.equal(again.status, 400);
      await again.body?.cancel();
    }
    const renewed = await token(served, { grant_type: "refresh_token", refresh_token: refreshToken });
    assert.equal(renewed.status, 200);
    await renewed.body?.cancel();
  });
});

Deno.test("sandbox: one consent approved twice at once gives two codes, each good once", async () => {
  await withServed(async (served) => {
    const { verifier, challenge } = await pkcePair();
    const form = approvalForm(served, challenge);
    const answers = await twice(() =>
      fetch(`${served.base}/oauth2/authorize`, {
        method: "POST",
        headers: { Origin: served.origin },
        body: form,
        redirect: "manual",
      })
    );
    const codes = answers.map((res) => new URL(res.headers.get("location")!).searchParams.get("code")!);
    assert.equal(new Set(codes).size, 2);
    for (const code of codes) {
      const fields = {
        grant_type: "authorization_code",
        code,
        code_verifier: verifier,
        redirect_uri: served.communityRedirect,
      };
      assert.deepEqual([(await token(served, fields)).status, (await token(served, fields)).status], [200, 400]);
    }
  });
});

Deno.test("sandbox: a registration sent twice at once makes two hooks; a PUT sent twice at once applies whole", async () => {
  await withServed(async (served) => {
    const { accessToken } = await served.sandbox.issueTokens();
    const api = (path: string, method: string, body?: unknown) =>
      fetch(`${served.base}/api/core/v3/webhooks${path}`, {
        method,
        headers: { Authorization: `Bearer ${accessToken}`, "Content-Type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const hook = { events: ["user_account"], callback: served.callback };
    const made = await twice(() => api("", "POST", hook));
    assert.deepEqual(made.map((res) => res.status), [200, 200]);
    const ids = await Promise.all(made.map(async (res) => (await jive(res)).id));
    assert.equal(new Set(ids).size, 2);

    const [a, b] = [{ ...hook, events: ["webhook"], enabled: true }, {
      ...hook,
      events: ["social_group"],
      enabled: false,
    }];
    const put = await Promise.all([api(`/${ids[0]}`, "PUT", a), api(`/${ids[0]}`, "PUT", b)]);
    assert.deepEqual(put.map((res) => res.status), [200, 200]);
    await Promise.all(put.map((res) => res.body?.cancel()));
    const stored = await jive(await api(`/${ids[0]}`, "GET"));
    assert.ok(
      (stored.events[0] === "webhook" && stored.enabled === true) ||
        (stored.events[0] === "social_group" && stored.enabled === false),
      `a mix of both PUTs: ${JSON.stringify(stored)}`,
    );
  });
});

Deno.test("sandbox: a redelivery sent twice at once posts twice, under two signatures, both kept", async () => {
  await withServed(async (served) => {
    const { id } = await served.sandbox.createHook(served.origin, {
      events: ["user_account"],
      callback: served.callback,
    });
    const { delivered } = await served.sandbox.trigger({ webhookId: String(id) });
    const send = (timestamp: number) =>
      fetch(`${served.base}/redeliver`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ webhookId: String(id), timestamp }),
      });
    const { statuses, bodies } = await read(await twice(() => send(delivered[0].timestamp!)));
    assert.deepEqual(statuses, [200, 200]);
    const stamps = bodies.map((body) => (body.delivered as unknown as { timestamp: number }[])[0].timestamp);
    assert.equal(new Set(stamps).size, 2);
    for (const stamp of stamps) {
      const again = await send(stamp);
      assert.equal(again.status, 200, "each redelivery is kept, to be sent again");
      await again.body?.cancel();
    }
  });
});
