// A form sent after its session ended (signed out in another tab) is not
// lost: sign-in leads back to the page the form was on, which says the change
// was not saved and holds what was typed, never a secret (issue 24, defect 4).

import assert from "node:assert/strict";
import {
  approveConsent,
  Client,
  connectSandbox,
  csrfOf,
  parse,
  placeOf,
  signIn,
  signInAtForm,
  startConsole,
  type TestConsole,
  withHook,
} from "./_helpers.ts";

/** Signs out as another tab of the same browser would. */
async function signOutElsewhere(client: Client, csrf: string): Promise<void> {
  const res = await client.post("/signout", { _csrf: csrf });
  await res.body?.cancel();
  assert.equal(res.headers.get("location"), "/signin?notice=signedout");
}

/**
 * Follows the redirect of a form sent without a session through sign-in;
 * resolves with the sign-in page's notice and where sign-in leads.
 */
async function signInAgain(client: Client, res: Response): Promise<{ notice: string; returnTo: string }> {
  await res.body?.cancel();
  assert.equal(res.status, 303);
  const signin = parse(await client.text(res.headers.get("location")!, 200));
  let link = "";
  let notice = "";
  try {
    link = signin.document.querySelector("#signin-link")?.getAttribute("href") ?? "";
    notice = signin.document.querySelector(".notice")?.textContent ?? "";
  } finally {
    signin.close();
  }
  const back = await approveConsent(client, await client.fetch(link));
  const done = await client.fetch(back.headers.get("location")!);
  await back.body?.cancel();
  await done.body?.cancel();
  assert.equal(done.status, 302);
  return { notice, returnTo: done.headers.get("location")! };
}

Deno.test("a name saved after the session ended returns, after sign-in, to the hook's page with what was typed", async () => {
  await withHook(async (t, { id }, client) => {
    const csrf = csrfOf(await client.text(`/webhooks/${id}`, 200));
    await signOutElsewhere(client, csrf);
    const res = await client.post(`/webhooks/${id}/label`, {
      _csrf: csrf,
      name: "Orders feed",
      description: "Typed before the session ended",
    });
    const { notice, returnTo } = await signInAgain(client, res);
    assert.match(notice, /Your session has ended, so the form you sent was not saved/);
    assert.match(returnTo, new RegExp(`^/webhooks/${id}\\?draft=[A-Za-z0-9_-]+$`));
    assert.equal((await t.kv.get(["console_hook_label", id])).value, null, "nothing was saved");
    const page = parse(await client.text(returnTo, 200));
    try {
      assert.match(page.document.querySelector(".notice")?.textContent ?? "", /form you sent was not saved/);
      assert.equal((page.document.querySelector("#label-name") as HTMLInputElement).value, "Orders feed");
      assert.equal(page.document.querySelector("#label-description")?.textContent, "Typed before the session ended");
    } finally {
      page.close();
    }
    // The draft is taken once: the page loaded again shows what is stored.
    const again = parse(await client.text(returnTo, 200));
    try {
      assert.equal(again.document.querySelector(".notice") === null, true, "a notice shown again");
      assert.equal((again.document.querySelector("#label-name") as HTMLInputElement).value, "");
    } finally {
      again.close();
    }
    // The form, sent again from the page, saves.
    const saved = await client.post(`/webhooks/${id}/label`, {
      _csrf: csrfOf(await client.text(`/webhooks/${id}`, 200)),
      name: "Orders feed",
      description: "",
    });
    await saved.body?.cancel();
    assert.equal(saved.status, 303);
  });
});

Deno.test("an action sent after the session ended returns to its page and says it was not done", async () => {
  await withHook(async (t, { id }, client) => {
    const csrf = csrfOf(await client.text(`/webhooks/${id}`, 200));
    await signOutElsewhere(client, csrf);
    const res = await client.post(`/webhooks/${id}/enabled`, { _csrf: csrf, enabled: "0" });
    const { returnTo } = await signInAgain(client, res);
    assert.match(returnTo, new RegExp(`^/webhooks/${id}\\?draft=`));
    assert.match(await client.text(returnTo, 200), /form you sent was not saved/);
    assert.notEqual((await t.app.webhooks.findByID(id))!.entity.enabled, false);
  });
});

/** Runs `fn` with the register form's CSRF token of a session that another tab has just ended. */
async function withRegisterFormSignedOut(
  fn: (t: TestConsole, client: Client, csrf: string) => Promise<void>,
): Promise<void> {
  const t = await startConsole();
  try {
    const client = await signIn(t.origin);
    await connectSandbox(client, t.origin);
    const csrf = csrfOf(await client.text("/webhooks/new", 200));
    await signOutElsewhere(client, csrf);
    await fn(t, client, csrf);
  } finally {
    await t.close();
  }
}

Deno.test("a register form sent after the session ended comes back filled in", async () => {
  await withRegisterFormSignedOut(async (t, client, csrf) => {
    const res = await client.post("/webhooks", {
      _csrf: csrf,
      tenantId: "sandbox-tenant",
      events: ["document", "discussion"],
      object: placeOf(t.origin),
      callback: "https://receiver.example/hooks/1",
    });
    const { returnTo } = await signInAgain(client, res);
    assert.match(returnTo, /^\/webhooks\/new\?draft=/);
    const page = parse(await client.text(returnTo, 200));
    try {
      const d = page.document;
      const checked = [...d.querySelectorAll("input[name=events]")]
        .filter((e) => (e as HTMLInputElement).checked).map((e) => (e as HTMLInputElement).value);
      assert.deepEqual(checked.sort(), ["discussion", "document"]);
      assert.equal((d.querySelector("#callback") as HTMLInputElement).value, "https://receiver.example/hooks/1");
      assert.equal((d.querySelector("#community option[selected]") as HTMLOptionElement).value, "sandbox-tenant");
    } finally {
      page.close();
    }
    assert.equal((await t.app.webhooks.list()).values.length, 0, "nothing was registered");
  });
});

Deno.test("a form sent after the session ended whose fields are past one KV value comes back empty, not as an error", async () => {
  await withRegisterFormSignedOut(async (t, client, csrf) => {
    // Under the 256 KB body limit, but more than a KV value (64 KiB) holds once kept.
    const res = await client.post("/webhooks", {
      _csrf: csrf,
      tenantId: "sandbox-tenant",
      events: Array.from({ length: 64 }, (_, i) => `${i}${"e".repeat(1_999)}`),
      callback: "c".repeat(2_000),
    });
    assert.equal(res.status, 303, "not a 500");
    const { returnTo } = await signInAgain(client, res);
    assert.match(returnTo, /^\/webhooks\/new\?draft=/);
    const page = parse(await client.text(returnTo, 200));
    try {
      assert.equal((page.document.querySelector("#callback") as HTMLInputElement).value, "");
    } finally {
      page.close();
    }
    assert.equal((await t.app.webhooks.list()).values.length, 0, "nothing was registered");
  });
});

Deno.test("a community form sent after the session ended keeps its fields but never its secrets", async () => {
  const t = await startConsole();
  try {
    const { client, csrf } = await signInAtForm(t.origin, "/communities/new");
    await signOutElsewhere(client, csrf);
    const SECRET = "client-secret-do-not-keep";
    const TOKEN = "access-token-do-not-keep";
    const res = await client.post("/communities", {
      _csrf: csrf,
      name: "Acme",
      tenantId: "acme",
      baseUrl: "https://acme.example",
      clientId: "acme-client",
      clientSecret: SECRET,
      accessToken: TOKEN,
      refreshToken: TOKEN,
    });
    const location = res.headers.get("location")!;
    // The kept draft holds no secret.
    for await (const entry of t.kv.list({ prefix: [] })) {
      const text = JSON.stringify(entry.value) ?? "";
      assert.ok(!text.includes(SECRET) && !text.includes(TOKEN), `no secret under ${JSON.stringify(entry.key)}`);
    }
    const { returnTo } = await signInAgain(client, new Response(null, { status: 303, headers: { location } }));
    assert.match(returnTo, /^\/communities\/new\?draft=/);
    const html = await client.text(returnTo, 200);
    assert.ok(!html.includes(SECRET) && !html.includes(TOKEN));
    const page = parse(html);
    try {
      const value = (name: string) => (page.document.querySelector(`input[name=${name}]`) as HTMLInputElement).value;
      assert.deepEqual(
        ["name", "tenantId", "baseUrl", "clientId", "clientSecret"].map(value),
        ["Acme", "acme", "https://acme.example", "acme-client", ""],
      );
    } finally {
      page.close();
    }
  } finally {
    await t.close();
  }
});

Deno.test("a form another site sends without a session keeps nothing", async () => {
  const t = await startConsole();
  try {
    const client = new Client(t.origin);
    const res = await client.post("/webhooks/some-id/label", { name: "planted" }, { origin: "https://evil.example" });
    await res.body?.cancel();
    assert.equal(res.status, 303);
    const location = new URL(res.headers.get("location")!, t.origin);
    assert.equal(location.pathname, "/signin");
    assert.equal(location.searchParams.get("returnTo"), "/webhooks/some-id");
    const keys = [];
    for await (const entry of t.kv.list({ prefix: ["console_draft"] })) keys.push(entry.key);
    assert.deepEqual(keys, []);
  } finally {
    await t.close();
  }
});
