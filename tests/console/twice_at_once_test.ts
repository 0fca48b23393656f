// The same console form sent twice at once (a double click, two tabs, a retried POST) or sent again after the
// first one finished (a POST replayed from history): the end state is what one submission gives, and the second
// answer says what happened, never something false.

import assert from "node:assert/strict";
import type { Community } from "../../webhooks/mod.ts";
import {
  type Client,
  parse,
  placeOf,
  registerFormFields,
  signIn,
  startConsole,
  trigger,
  withHook,
  withSignedIn,
} from "./_helpers.ts";

/** Each response's status and redirect, and the text of its page's error or notice (bodies read). */
async function outcomes(responses: Response[]): Promise<{ status: number; location: string; message: string }[]> {
  const out = [];
  for (const res of responses) {
    const page = parse(await res.text());
    try {
      const message = page.document.querySelector(".error, .notice")?.textContent?.trim() ?? "";
      out.push({ status: res.status, location: res.headers.get("location") ?? "", message });
    } finally {
      page.close();
    }
  }
  return out;
}

/** The same form posted twice at once. */
async function twice(client: Client, path: string, fields: Record<string, string | string[]>) {
  return await outcomes(await Promise.all([client.post(path, fields), client.post(path, fields)]));
}

/** The fields of a form of a page (hidden ones included, checkboxes left out). */
function formFields(html: string, selector: string): Record<string, string> {
  const page = parse(html);
  try {
    const fields: Record<string, string> = {};
    for (const input of page.document.querySelectorAll(`${selector} input`)) {
      const name = input.getAttribute("name");
      if (name && input.getAttribute("type") !== "checkbox") fields[name] = input.getAttribute("value") ?? "";
    }
    return fields;
  } finally {
    page.close();
  }
}

const ACME: Community = {
  name: "Acme",
  tenantId: "t-acme",
  baseUrl: "https://acme.example",
  clientId: "cid",
  clientSecret: btoa("the original client secret"),
};

Deno.test("a new client secret sent twice at once is saved once: both answers say saved, the original stays the previous secret", async () => {
  const t = await startConsole();
  try {
    await t.app.webhooks.communities.save(ACME);
    const client = await signIn(t.origin);
    const secret = btoa("the new client secret");
    const form = { ...formFields(await client.text("/communities/t-acme", 200), "form#edit"), clientSecret: secret };
    const saved = { status: 303, location: "/communities/t-acme?notice=saved", message: "" };
    assert.deepEqual(await twice(client, "/communities/t-acme", form), [saved, saved]);
    const previous = async () => (await t.kv.get<{ secret: string }>(["community_secret_previous", "t-acme"])).value;
    assert.equal((await t.app.webhooks.communities.findByTenantID("t-acme"))?.clientSecret, secret);
    assert.equal((await previous())?.secret, ACME.clientSecret, "postbacks signed with the original still verify");

    // Sent again from history once both are done: still saved, and no second rotation.
    assert.deepEqual(await outcomes([await client.post("/communities/t-acme", form)]), [saved]);
    assert.equal((await previous())?.secret, ACME.clientSecret);

    // Another secret from that same stale form is still refused.
    const other = await client.post("/communities/t-acme", { ...form, clientSecret: btoa("another secret") });
    assert.equal(other.status, 400);
    assert.match(await other.text(), /the secret changed meanwhile/);
    assert.equal((await t.app.webhooks.communities.findByTenantID("t-acme"))?.clientSecret, secret);
  } finally {
    await t.close();
  }
});

Deno.test("Send test event clicked twice at once sends one test event; both answers, and the POST sent again, land on its outcome", async () => {
  await withHook(async (t, hook, client) => {
    const form = formFields(await client.text(`/webhooks/${hook.id}`, 200), "form#send-test");
    assert.ok(form.formToken, "the button carries a one-time token");
    const logged = async () => (await t.app.deliveries.page({ hookId: hook.id })).values.length;
    const sent = { status: 303, location: `/webhooks/${hook.id}?notice=triggered&answer=200`, message: "" };
    assert.deepEqual(await twice(client, `/webhooks/${hook.id}/test`, form), [sent, sent]);
    assert.equal(await logged(), 1, "the platform sent one test event");

    assert.deepEqual(await outcomes([await client.post(`/webhooks/${hook.id}/test`, form)]), [sent]);
    assert.equal(await logged(), 1, "sent again from history, nothing more is sent");

    // Without a token of this session and hook, nothing is sent, and the page says so.
    for (const formToken of ["", form.formToken.replace(/^./, (ch) => ch === "A" ? "B" : "A")]) {
      const [refused] = await outcomes([await client.post(`/webhooks/${hook.id}/test`, { ...form, formToken })]);
      assert.equal(refused.status, 400);
      assert.match(refused.message, /No test event was sent: this button has expired/);
    }
    assert.equal(await logged(), 1);

    // The page shown after it has a fresh button: a second test event is sent knowingly.
    const fresh = formFields(await client.text(sent.location, 200), "form#send-test");
    assert.deepEqual(await outcomes([await client.post(`/webhooks/${hook.id}/test`, fresh)]), [sent]);
    assert.equal(await logged(), 2);
  });
});

Deno.test("Replay to receiver clicked twice at once replays once; both answers, and the POST sent again, land on its outcome", async () => {
  await withHook(async (t, { id, platformId }, client) => {
    assert.deepEqual(await trigger(t.origin, { webhookId: platformId }), [200]);
    const [original] = (await t.app.deliveries.page({ hookId: id })).values;
    const form = formFields(await client.text(`/deliveries/${original.id}`, 200), "form#replay");
    assert.ok(form.formToken, "the button carries a one-time token");
    const replays = async () => (await t.app.deliveries.page({ hookId: id })).values.filter((d) => d.replay).length;
    const replayed = { status: 303, location: `/deliveries?hook=${id}&notice=replayed`, message: "" };
    assert.deepEqual(await twice(client, `/deliveries/${original.id}/replay`, form), [replayed, replayed]);
    assert.equal(await replays(), 1, "the receiver got one replay");

    assert.deepEqual(await outcomes([await client.post(`/deliveries/${original.id}/replay`, form)]), [replayed]);
    assert.equal(await replays(), 1, "sent again from history, nothing more is replayed");

    // Without a token of this session and delivery, nothing is replayed, and the page says so.
    const [other] = (await t.app.deliveries.page({ hookId: id })).values.filter((d) => d.replay);
    const elsewhere = formFields(await client.text(`/deliveries/${other.id}`, 200), "form#replay").formToken;
    for (const formToken of ["", elsewhere]) {
      const [refused] = await outcomes([
        await client.post(`/deliveries/${original.id}/replay`, { ...form, formToken }),
      ]);
      assert.equal(refused.status, 400);
      assert.match(refused.message, /Nothing was replayed: this button has expired/);
    }
    assert.equal(await replays(), 1);

    // The delivery's page shown again has a fresh button: a second replay is sent knowingly.
    const fresh = formFields(await client.text(`/deliveries/${original.id}`, 200), "form#replay");
    assert.deepEqual(await outcomes([await client.post(`/deliveries/${original.id}/replay`, fresh)]), [replayed]);
    assert.equal(await replays(), 2);
  });
});

Deno.test("Sign out clicked twice at once, or sent again afterwards, says signed out each time, not that a form was lost", async () => {
  await withSignedIn({ connect: false }, async ({ client }) => {
    const form = formFields(await client.text("/", 200), "form[action='/signout']");
    assert.ok(form._csrf);
    const signedOut = { status: 303, location: "/signin?notice=signedout", message: "" };
    const cookie = client.cookies.get("cw_session")!;
    assert.deepEqual(await twice(client, "/signout", form), [signedOut, signedOut]);

    // The same POST from history, with the cookie the browser still had: signed out, nothing kept for a sign-in.
    client.cookies.set("cw_session", cookie);
    assert.deepEqual(await outcomes([await client.post("/signout", form)]), [signedOut]);
    const signin = await client.text("/signin?notice=signedout", 200);
    assert.doesNotMatch(signin, /the form you sent was not saved/);
    const home = await client.fetch("/");
    await home.body?.cancel();
    assert.equal(home.status, 302, "the session stays ended");
  });
});

Deno.test("Register clicked twice at once registers one hook, and the second answer lands on it, not on a form to send again", async () => {
  await withHook(async (t, _hook, client) => {
    const records = async () => (await t.app.webhooks.findByTenantID("sandbox-tenant")).length;
    const before = await records();
    const form = {
      ...await registerFormFields(client),
      tenantId: "sandbox-tenant",
      events: ["document"],
      object: placeOf(t.origin),
      callback: "",
    };
    const answers = await twice(client, "/webhooks", form);
    assert.deepEqual(answers.map((a) => [a.status, a.message]), [[303, ""], [303, ""]], JSON.stringify(answers));
    const [id, ...others] = new Set(answers.map((a) => /^\/webhooks\/([^/?]+)\?/.exec(a.location)?.[1]));
    assert.ok(id && others.length === 0, "both land on the same hook");
    assert.deepEqual(
      answers.map((a) => a.location.replace(/^.*notice=/, "")).sort(),
      ["already-registered", "registered"],
    );
    assert.equal(await records(), before + 1, "one hook registered");

    // Sent again from history: the same hook, nothing registered.
    const [again] = await outcomes([await client.post("/webhooks", form)]);
    assert.equal(again.location, `/webhooks/${id}?notice=already-registered`);
    assert.equal(await records(), before + 1);
  });
});

Deno.test("Revoke the previous secret clicked twice at once: one revokes, the other's page says so truly", async () => {
  const t = await startConsole();
  try {
    await t.app.webhooks.communities.save(ACME);
    await t.app.webhooks.communities.save({ ...ACME, clientSecret: btoa("the new client secret") });
    assert.ok(await t.app.webhooks.communities.secretRotation("t-acme"), "a previous secret is kept");
    const client = await signIn(t.origin);
    const form = formFields(await client.text("/communities/t-acme", 200), "form[action$='/revoke-previous-secret']");
    const answers = await twice(client, "/communities/t-acme/revoke-previous-secret", form);
    assert.deepEqual(answers.map((a) => a.location).sort(), [
      "/communities/t-acme?notice=no-secret-to-revoke",
      "/communities/t-acme?notice=secret-revoked",
    ]);
    assert.equal(await t.app.webhooks.communities.secretRotation("t-acme"), null);
    // The page a browser shows after a double click is the second's: it must not say the overlap had simply ended.
    const page = parse(await client.text("/communities/t-acme?notice=no-secret-to-revoke", 200));
    try {
      const notice = page.document.querySelector(".notice")?.textContent ?? "";
      assert.match(notice, /only the current one verifies postbacks/);
      assert.match(notice, /or it was refused already/);
    } finally {
      page.close();
    }
  } finally {
    await t.close();
  }
});

Deno.test("Remove community clicked twice at once removes it, and the other answer says it is removed already", async () => {
  const t = await startConsole();
  try {
    await t.app.webhooks.communities.save(ACME);
    const client = await signIn(t.origin);
    const { _csrf } = formFields(await client.text("/communities/t-acme", 200), "form#remove");
    const form = { _csrf, confirm: "yes" };
    const answers = await twice(client, "/communities/t-acme/remove", form);
    const removed = { status: 303, location: "/communities?notice=removed", message: "" };
    const already = {
      status: 404,
      location: "",
      message: "Nothing was removed: no community has this tenant id now (removed already, by a second click or tab)",
    };
    assert.deepEqual([...answers].sort((a, b) => a.status - b.status), [removed, already]);
    assert.equal(await t.app.webhooks.communities.findByTenantID("t-acme"), null);
    assert.deepEqual(await outcomes([await client.post("/communities/t-acme/remove", form)]), [already]);
  } finally {
    await t.close();
  }
});

Deno.test("Add community clicked twice at once adds it once, and both answers, and the form sent again, say saved", async () => {
  await withSignedIn({ connect: false }, async ({ t, client }) => {
    const { _csrf } = formFields(await client.text("/communities/new", 200), "form[action='/communities']");
    const form = {
      _csrf,
      name: "Acme",
      tenantId: "t-acme",
      baseUrl: "https://acme.example",
      clientId: "cid",
      clientSecret: ACME.clientSecret!,
      accessToken: "access",
      refreshToken: "refresh",
    };
    const saved = { status: 303, location: "/communities/t-acme?notice=saved", message: "" };
    assert.deepEqual(await twice(client, "/communities", form), [saved, saved]);
    assert.deepEqual(await outcomes([await client.post("/communities", form)]), [saved]);
    const stored = await t.app.webhooks.communities.findByTenantID("t-acme");
    assert.deepEqual([stored?.name, stored?.clientSecret, stored?.oauth?.access_token], [
      "Acme",
      ACME.clientSecret,
      "access",
    ]);
    const listed = (await t.app.webhooks.communities.list()).values.map((c) => c.tenantId);
    assert.deepEqual(listed.filter((id) => id !== "sandbox-tenant"), ["t-acme"]);

    // Another community under that tenant id (another name, another secret) is refused, and nothing changes.
    for (
      const other of [{ name: "Other" }, { clientSecret: btoa("another secret") }, {
        accessToken: "",
        refreshToken: "",
      }]
    ) {
      const [refused] = await outcomes([await client.post("/communities", { ...form, ...other })]);
      assert.equal(refused.status, 400);
      assert.equal(refused.message, "A community with tenant id 't-acme' already exists");
    }
    assert.deepEqual(await t.app.webhooks.communities.findByTenantID("t-acme"), stored);
  });
});
