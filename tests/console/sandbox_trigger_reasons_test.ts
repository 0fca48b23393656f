// The Sandbox page's Trigger says why each failed postback failed, in the words of the hook page's "Send test event"
// (a refused private address and the variable that allows it, a refused connection, the status the callback
// answered), naming the hook by its callback as the page shows it (no user info, no query values): it said only
// "1 postback sent, 1 failed", and a newcomer had nowhere to look. Two presses at once each send and each land on
// their own outcome, as before; a reload shows no notice.

import assert from "node:assert/strict";
import { parse, registerHook, withSignedIn } from "./_helpers.ts";

/** A callback server on 127.0.0.1 answering `status`; counts the postbacks it got. */
function callbackServer(status: number): { url: string; received: () => number; close: () => Promise<void> } {
  let received = 0;
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, async (request) => {
    await request.body?.cancel();
    received++;
    return new Response("no", { status });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/hook`,
    received: () => received,
    close: () => server.shutdown(),
  };
}

/** A port on 127.0.0.1 nobody listens on (one just closed). */
async function deadPort(): Promise<number> {
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, () => new Response());
  const port = server.addr.port;
  await server.shutdown();
  return port;
}

/** Presses a Trigger form of the Sandbox page as a browser: posts, then opens the redirect with the cookie it set. */
async function press(origin: string, fields: Record<string, string> = {}): Promise<Response> {
  const res = await fetch(`${origin}/sandbox/trigger`, {
    method: "POST",
    headers: { origin },
    body: new URLSearchParams(fields),
    redirect: "manual",
  });
  await res.body?.cancel();
  assert.equal(res.status, 303);
  return res;
}

/** The page a press lands on: its notice and the failures it lists, as text. */
async function landing(origin: string, res: Response): Promise<{ notice?: string; failures: string[]; html: string }> {
  const cookie = res.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  const html = await (await fetch(new URL(res.headers.get("location")!, origin), { headers: { cookie } })).text();
  const page = parse(html);
  try {
    const notice = page.document.querySelector("#triggered")?.textContent?.replace(/\s+/g, " ").trim();
    const failures = [...page.document.querySelectorAll("#triggered li")].map((li) =>
      li.textContent!.replace(/\s+/g, " ").trim()
    );
    return { notice, failures, html };
  } finally {
    page.close();
  }
}

Deno.test("Trigger names a loopback callback refused without ALLOW_PRIVATE_NETWORK, and the variable", async () => {
  const port = await deadPort();
  await withSignedIn({ allowPrivateNetwork: false }, async ({ t, client }) => {
    await registerHook(client, t.origin, { callback: `http://127.0.0.1:${port}/hook?key=s3cret` });
    const { notice, failures, html } = await landing(t.origin, await press(t.origin));
    assert.match(notice ?? "", /^Event triggered: 1 postback sent, 1 failed\./);
    assert.equal(failures.length, 1, html);
    assert.match(
      failures[0],
      new RegExp(
        `^http://127\\.0\\.0\\.1:${port}/hook\\?key=\\[hidden\\]: the platform could not reach the callback ` +
          `\\(Refused to call 127\\.0\\.0\\.1:${port}: .*loopback.*Set ALLOW_PRIVATE_NETWORK=1 to allow internal hosts\\.\\)\\.$`,
      ),
    );
    assert.doesNotMatch(html, /s3cret/);
  });
});

Deno.test("Trigger names each failure's reason (500, 401, connection refused) and counts the success", async () => {
  const failing = callbackServer(500);
  const refusing = callbackServer(401);
  const fine = callbackServer(200);
  const port = await deadPort();
  try {
    await withSignedIn({ allowPrivateNetwork: true }, async ({ t, client }) => {
      await registerHook(client, t.origin, { callback: `${failing.url}?token=s3cret` });
      await registerHook(client, t.origin, { callback: refusing.url });
      await registerHook(client, t.origin, { callback: fine.url });
      await registerHook(client, t.origin, { callback: `http://127.0.0.1:${port}/gone` });
      const { notice, failures, html } = await landing(t.origin, await press(t.origin));
      assert.match(notice ?? "", /^Event triggered: 4 postbacks sent, 3 failed\./);
      assert.equal(failures.length, 3, html);
      assert.ok(
        failures.includes(
          `${failing.url}?token=[hidden]: the platform posted it, and the callback refused it with 500.`,
        ),
        JSON.stringify(failures),
      );
      assert.ok(
        failures.includes(`${refusing.url}: the platform posted it, and the callback refused it with 401.`),
        JSON.stringify(failures),
      );
      const gone = failures.find((f) => f.startsWith(`http://127.0.0.1:${port}/gone: `));
      assert.match(
        gone ?? "",
        /: the platform could not reach the callback \(Cannot reach 127\.0\.0\.1:\d+ \(.*refused/i,
      );
      assert.ok(!failures.some((f) => f.startsWith(fine.url)), "the success is counted, not listed");
      assert.equal(fine.received(), 1);
      assert.doesNotMatch(html, /s3cret|JiveEXTN|signature=/);
      // A reload (no cookie) shows no notice.
      const again = await (await fetch(new URL(`/sandbox?triggered=4&failed=3`, t.origin))).text();
      assert.doesNotMatch(again, /id="triggered"/);
    });
  } finally {
    await failing.close();
    await refusing.close();
    await fine.close();
  }
});

Deno.test("two presses of the same Trigger at once each send, and each lands on its own outcome", async () => {
  const failing = callbackServer(500);
  try {
    await withSignedIn({ allowPrivateNetwork: true }, async ({ t, client }) => {
      const id = await registerHook(client, t.origin, { callback: failing.url });
      const fields = { webhookId: String((await t.app.webhooks.findByID(id))!.entity.id) };
      const [one, two] = await Promise.all([press(t.origin, fields), press(t.origin, fields)]);
      assert.equal(failing.received(), 2, "the page has no one-time token: each press sends, as before");
      for (const res of [one, two]) {
        const { notice, failures } = await landing(t.origin, res);
        assert.match(notice ?? "", /^Event triggered: 1 postback sent, 1 failed\./);
        assert.deepEqual(failures, [`${failing.url}: the platform posted it, and the callback refused it with 500.`]);
      }
    });
  } finally {
    await failing.close();
  }
});
