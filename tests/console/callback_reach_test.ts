// What the console says of a callback it may not reach agrees with what its
// sandbox then does (issue 44, defects 6 and 7): the warning after
// registering a loopback callback said the sandbox could post to it, and
// the sandbox then refused to; and a public name that has no DNS answer
// suggested ALLOW_PRIVATE_NETWORK=1, which is for private addresses only.

import assert from "node:assert/strict";
import { OutboundError, outboundFetch } from "../../console/lib/outbound.ts";
import { connectSandbox, parse, registerHook, signIn, startConsole, testEventFields } from "./_helpers.ts";

/** Registers a hook whose callback is a real server on 127.0.0.1; resolves with the warning and what the server got. */
async function loopbackCallback(allowPrivateNetwork: boolean): Promise<{ warning: string; received: number }> {
  let received = 0;
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, async (request) => {
    await request.body?.cancel();
    received++;
    return new Response("ok");
  });
  const t = await startConsole({ allowPrivateNetwork });
  try {
    const client = await signIn(t.origin);
    await connectSandbox(client, t.origin);
    const callback = `http://127.0.0.1:${server.addr.port}/hook`;
    const id = await registerHook(client, t.origin, { callback });
    const page = parse(await client.text(`/webhooks/${id}?notice=registered`, 200));
    const warning = page.document.querySelector("#callback-warning")?.textContent ?? "";
    page.close();
    await (await client.post(`/webhooks/${id}/test`, await testEventFields(client, id))).body?.cancel();
    return { warning, received };
  } finally {
    await t.close();
    await server.shutdown();
  }
}

Deno.test("a loopback callback's warning says the sandbox will not post to it, and it does not", async () => {
  const { warning, received } = await loopbackCallback(false);
  assert.equal(received, 0, "the sandbox refused to post");
  assert.match(warning, /a platform on the internet cannot reach \(127\.0\.0\.1:\d+ is a loopback/);
  assert.doesNotMatch(warning, /can post to it/);
  assert.match(warning, /This console's sandbox will not post to it either .* ALLOW_PRIVATE_NETWORK=1/);
});

Deno.test("with ALLOW_PRIVATE_NETWORK, a loopback callback's warning says the sandbox can post to it, and it does", async () => {
  const { warning, received } = await loopbackCallback(true);
  assert.equal(received, 1, "the sandbox posted the test event");
  assert.match(warning, /a platform on the internet cannot reach/);
  assert.match(warning, /Only a platform on this network, such as this console's sandbox, can post to it/);
});

Deno.test("a public name without a DNS answer is blamed on DNS, without suggesting ALLOW_PRIVATE_NETWORK", async () => {
  let sent = 0;
  const counting: typeof fetch = () => {
    sent++;
    return Promise.resolve(new Response("ok"));
  };
  const options = { timeoutMs: 1000, allowPrivateNetwork: false, allowOrigins: [] };
  const noDns = outboundFetch(counting, { ...options, resolve: () => Promise.resolve([]) });
  await assert.rejects(noDns("https://example.com:81/hook"), (err: Error) => {
    assert.ok(err instanceof OutboundError);
    assert.equal(
      err.message,
      "Refused to call example.com:81: example.com has no DNS address (A or AAAA) that the console can check. Check the name, and that this machine can resolve names (DNS).",
    );
    return true;
  });
  // A private address, or a name only a local network knows, is where the setting helps: suggested there.
  const privateHost = outboundFetch(counting, { ...options, resolve: () => Promise.resolve(["10.1.2.3"]) });
  for (
    const [fetchFn, url] of [[privateHost, "https://intranet.example/"], [noDns, "http://printer.local:631/"]] as const
  ) {
    await assert.rejects(fetchFn(url), (err: Error) => {
      assert.match(err.message, /Set ALLOW_PRIVATE_NETWORK=1 to allow internal hosts\.$/, url);
      return true;
    });
  }
  assert.equal(sent, 0);
});
