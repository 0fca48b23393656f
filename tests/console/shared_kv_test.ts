// Consoles sharing one KV file: each one's sandbox keeps working whatever
// starts or stops beside it (issue 15 item 8), and a console that moved to
// another address takes the sandbox community with it.

import assert from "node:assert/strict";
import { connectSandbox, csrfOf, registerHook, signIn, startConsole } from "./_helpers.ts";
import { createRelay } from "../../webhooks/mod.ts";

async function sandboxBase(
  t: { app: { webhooks: { communities: { findByTenantID(id: string): Promise<unknown> } } } },
) {
  const c = await t.app.webhooks.communities.findByTenantID("sandbox-tenant") as { baseUrl?: string } | null;
  return c?.baseUrl;
}

Deno.test("a second console on the same KV leaves the first's sandbox community alone", async () => {
  const dir = await Deno.makeTempDir();
  const kvPath = `${dir}/console.kv`;
  const first = await startConsole({ kvPath });
  try {
    const second = await startConsole({ kvPath });
    assert.equal(await sandboxBase(second), `${first.origin}/sandbox`);
    await second.close();
    // The first console registers through its sandbox after the second stopped.
    const client = await signIn(first.origin);
    await connectSandbox(client, first.origin);
    const id = await registerHook(client, first.origin);
    assert.ok(await first.app.webhooks.findByID(id));
  } finally {
    await first.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a second console keeps working through the sandbox after the first stopped", async () => {
  const dir = await Deno.makeTempDir();
  const kvPath = `${dir}/console.kv`;
  const first = await startConsole({ kvPath });
  const firstOrigin = first.origin;
  let second: Awaited<ReturnType<typeof startConsole>> | undefined;
  try {
    second = await startConsole({ kvPath });
    await first.close();
    const client = await signIn(second.origin);
    await connectSandbox(client, second.origin);
    const id = await registerHook(client, second.origin);
    const record = await second.app.webhooks.findByID(id);
    assert.ok(record?.entity.resources?.self?.ref?.startsWith(`${firstOrigin}/sandbox/`));
  } finally {
    await second?.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a console started again at another address moves the sandbox community with it", async () => {
  const dir = await Deno.makeTempDir();
  const kvPath = `${dir}/console.kv`;
  try {
    const before = await startConsole({ kvPath });
    await before.close();
    const after = await startConsole({ kvPath });
    try {
      assert.equal(await sandboxBase(after), `${after.origin}/sandbox`);
    } finally {
      await after.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("two consoles on one KV file adding one URL to a hook at once add one destination; the other answers 409", async () => {
  const dir = await Deno.makeTempDir();
  const kvPath = `${dir}/console.kv`;
  const first = await startConsole({ kvPath });
  const second = await startConsole({ kvPath });
  try {
    const client = await signIn(first.origin);
    await connectSandbox(client, first.origin);
    const id = await registerHook(client, first.origin);
    const other = await signIn(second.origin);
    const path = `/webhooks/${id}/forward`;
    for (const [round, url] of ["https://app.example/hooks", "https://app.example/again"].entries()) {
      const csrfs = [csrfOf(await client.text(path, 200)), csrfOf(await other.text(path, 200))];
      const answers = await Promise.all([
        client.post(path, { _csrf: csrfs[0], url }),
        other.post(path, { _csrf: csrfs[1], url }),
      ]);
      const bodies = await Promise.all(answers.map((a) => a.text()));
      assert.deepEqual(answers.map((a) => a.status).sort(), [303, 409], bodies.join("\n").slice(0, 2000));
      const refused = bodies[answers.findIndex((a) => a.status === 409)];
      assert.match(refused, /No destination was added: https:\/\/app.example\/\w+ already receives this hook/);
      assert.doesNotMatch(refused, /whsec_/);
      const listed = (await createRelay(first.kv).destinations.list()).filter((d) => d.url === url);
      assert.equal(listed.length, 1, `round ${round}`);
    }
  } finally {
    await second.close();
    await first.close();
    await Deno.remove(dir, { recursive: true });
  }
});
