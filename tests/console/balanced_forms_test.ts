// One-time tokens, a destination's secret shown once and drafts behind one address in front of two console processes
// on one KV (tests/console/_balanced.ts): issued by one process, used on the other, and used again on the first.

import assert from "node:assert/strict";
import { startBalanced } from "./_balanced.ts";
import {
  connectSandbox,
  csrfOf,
  placeOf,
  registerFormFields,
  registerHook,
  signIn,
  testEventFields,
} from "./_helpers.ts";

Deno.test("Register, Send test event and Forward to's secret: issued on one console, used on the other, then again", async () => {
  await using lb = await startBalanced();
  const client = await signIn(lb.origin);
  await connectSandbox(client, lb.origin);

  lb.next("A");
  const fields = await registerFormFields(client);
  const form = {
    ...fields,
    tenantId: "sandbox-tenant",
    events: ["document"],
    object: placeOf(lb.origin),
    callback: "",
  };
  lb.next("B");
  const first = await client.post("/webhooks", form);
  await first.body?.cancel();
  const location = first.headers.get("location") ?? "";
  assert.match(location, /^\/webhooks\/[^/?]+\?notice=registered$/);
  lb.next("A");
  const second = await client.post("/webhooks", form);
  await second.body?.cancel();
  assert.equal(second.headers.get("location"), location.replace("registered", "already-registered"));
  const hookId = decodeURIComponent(/^\/webhooks\/([^/?]+)/.exec(location)![1]);

  lb.next("A");
  const test = await testEventFields(client, hookId);
  lb.next("B");
  const sent = await client.post(`/webhooks/${hookId}/test`, test);
  await sent.body?.cancel();
  assert.match(sent.headers.get("location") ?? "", /notice=triggered/);
  const deliveries = async () => (await (await client.fetch(`/deliveries.json?hook=${hookId}`)).json()).values.length;
  const count = await deliveries();
  assert.ok(count >= 1, "the test event was received");
  lb.next("A");
  const resent = await client.post(`/webhooks/${hookId}/test`, test);
  await resent.body?.cancel();
  assert.equal(resent.headers.get("location"), sent.headers.get("location"));
  assert.equal(await deliveries(), count, "the same test event form sent again sent another event");

  const path = `/webhooks/${hookId}/forward`;
  lb.next("A");
  const csrf = csrfOf(await client.text(path, 200));
  lb.next("B");
  const add = await client.post(path, { _csrf: csrf, url: "https://app.example/in" });
  await add.body?.cancel();
  const reveal = add.headers.get("location")!;
  lb.next("A");
  assert.match(await client.text(reveal, 200), /whsec_/);
  lb.next("B");
  assert.doesNotMatch(await client.text(reveal, 200), /whsec_/, "the secret shown a second time, on the other");
});

Deno.test("a form sent after its session ended on one console is filled back in on the other after sign-in", async () => {
  await using lb = await startBalanced();
  const client = await signIn(lb.origin);
  await connectSandbox(client, lb.origin);
  const hookId = await registerHook(client, lb.origin);
  lb.next("A");
  const csrf = csrfOf(await client.text(`/webhooks/${hookId}`, 200));
  client.cookies.delete("cw_session");
  lb.next("A");
  const sent = await client.post(`/webhooks/${hookId}/label`, { _csrf: csrf, name: "Kept across", description: "" });
  await sent.body?.cancel();
  const returnTo = new URL(sent.headers.get("location")!, lb.origin).searchParams.get("returnTo")!;
  assert.match(returnTo, /\?draft=/);
  await signIn(lb.origin, client);
  lb.next("B");
  const page = await client.text(returnTo, 200);
  assert.match(page, /Your session had ended/);
  assert.match(page, /value="Kept across"/);
  lb.next("A");
  assert.doesNotMatch(await client.text(returnTo, 200), /Kept across/, "the draft taken a second time");
});

Deno.test("reconcile's fixes applied on one console: the page they lead to on the other says what changed", async () => {
  await using lb = await startBalanced();
  const client = await signIn(lb.origin);
  await connectSandbox(client, lb.origin);
  const path = "/communities/sandbox-tenant/reconcile";
  lb.next("A");
  const csrf = csrfOf(await client.text(path, 200));
  lb.next("B");
  const fixed = await client.post(path, { _csrf: csrf });
  await fixed.body?.cancel();
  assert.equal(fixed.headers.get("location"), `${path}?notice=fixed`);
  lb.next("A");
  assert.match(await client.text(`${path}?notice=fixed`, 200), /The fixes are applied: 0 hooks adopted/);
});
