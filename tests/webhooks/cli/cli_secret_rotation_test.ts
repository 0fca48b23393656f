// The command line rotates a client secret as communities.save does:
// `communities add` with another --client-secret for a stored tenant says
// until when the previous secret is accepted (text and JSON), `communities
// show` says so too, no secret is printed, and a receiver over that KV still
// verifies a postback signed with the previous secret, until
// `communities revoke-previous-secret` ends that at once.

import assert from "node:assert/strict";
import { main } from "../../../webhooks/cli/mod.ts";
import { createReceiver, createWebhooks } from "../../../webhooks/mod.ts";
import { item, post, REF_A, SECRET_A, SIGN_A, signA } from "../_receiver.ts";

const SECOND = btoa("community A's second secret, 32b");
const THIRD = btoa("community A's third secret, 32 b");

Deno.test("cli communities add with another --client-secret rotates it and says until when the previous one is accepted", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cli_rotation_" });
  try {
    const path = `${dir}/webhooks.kv`;
    const out: string[] = [];
    const err: string[] = [];
    const io = (secret: string) => ({
      stdout: (t: string) => out.push(t),
      stderr: (t: string) => err.push(t),
      env: (name: string) => name === "CLIENT_SECRET" ? secret : undefined,
    });
    const add = ["communities", "add", "--kv", path, "--name", "A", "--tenant", "tenant-a"];
    add.push("--base-url", "https://a.example", "--client-id", "client-a");
    const run = async (argv: string[], secret: string): Promise<string> => {
      out.length = 0;
      assert.equal(await main(argv, io(secret)), 0, err.join("\n"));
      return out.join("\n");
    };

    assert.equal(await run(add, SECRET_A), "Added community 'A' (tenant tenant-a)");
    // The same secret again is no rotation.
    assert.equal(await run(add, SECRET_A), "Updated community 'A' (tenant tenant-a)");
    const json = JSON.parse(await run([...add, "--json"], SECOND));
    assert.equal(json.hasClientSecret, true);
    assert.equal(Date.parse(json.secretRotation.validUntil) - Date.parse(json.secretRotation.rotatedAt), 390_000);
    assert.match(
      await run(add, THIRD),
      /^Updated community 'A' \(tenant tenant-a\)\nClient secret rotated: the previous one is still accepted until \d{4}-\d\d-\d\dT[\d:.]+Z$/,
    );
    assert.match(
      await run(["communities", "show", "A", "--kv", path], THIRD),
      /\nsecret rotated\s+\d{4}-.*accepted until/,
    );
    for (const secret of [SECRET_A, SECOND, THIRD]) {
      assert.ok(!out.join("").includes(secret) && !err.join("").includes(secret), "a secret was printed");
    }

    // A receiver over that KV: the previous secret (SECOND) verifies, the one before it no longer does.
    const kv = await Deno.openKv(path);
    try {
      const hooks = createWebhooks(kv);
      await hooks.save({ id: "hook-a", tenantId: "tenant-a", entity: { resources: { self: { ref: REF_A } } } });
      const receiver = createReceiver(hooks, { onPostback: () => {} });
      const send = async (secret: string, at: number) =>
        (await receiver.handle(post({ authorization: await signA(at, SIGN_A, secret) }, JSON.stringify([item()]))))
          .status;
      assert.equal(await send(SECOND, Date.now()), 200);
      assert.equal(await send(THIRD, Date.now() + 1), 200);
      assert.equal(await send(SECRET_A, Date.now() + 2), 401);
    } finally {
      kv.close();
    }

    // A leaked secret: `communities revoke-previous-secret` ends its overlap at once.
    const revoke = ["communities", "revoke-previous-secret", "A", "--kv", path];
    assert.equal(
      await run(revoke, THIRD),
      "Revoked the previous client secret of 'A': only the current one verifies now",
    );
    assert.deepEqual(JSON.parse(await run([...revoke, "--json"], THIRD)), { revoked: false, community: "A" });
    assert.doesNotMatch(await run(["communities", "show", "A", "--kv", path], THIRD), /secret rotated/);
    const again = await Deno.openKv(path);
    try {
      const receiver = createReceiver(createWebhooks(again), { onPostback: () => {} });
      const status = async (secret: string, at: number) =>
        (await receiver.handle(post({ authorization: await signA(at, SIGN_A, secret) }, JSON.stringify([item()]))))
          .status;
      assert.equal(await status(SECOND, Date.now() + 3), 401);
      assert.equal(await status(THIRD, Date.now() + 4), 200);
    } finally {
      again.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cli communities add: of two rotations at once over one KV file, one fails with 'the secret changed meanwhile' and the original stays previous", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cli_rotation_race_" });
  try {
    const path = `${dir}/webhooks.kv`;
    const add = ["communities", "add", "--kv", path, "--name", "A", "--tenant", "tenant-a"];
    add.push("--base-url", "https://a.example", "--client-id", "client-a");
    /** Runs one `communities add` with `secret`: its exit code, stdout and stderr. */
    const run = async (secret: string) => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await main(add, {
        stdout: (t) => out.push(t),
        stderr: (t) => err.push(t),
        env: (name) => name === "CLIENT_SECRET" ? secret : undefined,
      });
      return { code, out: out.join("\n"), err: err.join("\n") };
    };
    assert.equal((await run(SECRET_A)).code, 0);
    let conflicts = 0;
    for (let round = 0; round < 10; round++) {
      const kv = await Deno.openKv(path);
      const original = (await createWebhooks(kv).communities.findByTenantID("tenant-a"))!.clientSecret;
      const secrets = [btoa(`round ${round}: secret one, 32 b.`), btoa(`round ${round}: secret two, 32 b.`)];
      // Two commands started together: each opens the KV, reads the community, and commits its save.
      const [one, two] = await Promise.all(secrets.map(run));
      const stored = (await createWebhooks(kv).communities.findByTenantID("tenant-a"))!.clientSecret;
      const previous = (await kv.get<{ secret: string }>(["community_secret_previous", "tenant-a"])).value?.secret;
      kv.close();
      for (const r of [one, two]) {
        for (const secret of [original!, ...secrets]) {
          assert.ok(!`${r.out}${r.err}`.includes(secret), "a secret was printed");
        }
      }
      if (one.code === 0 && two.code === 0) continue; // one after the other (the second read the first's secret)
      conflicts++;
      const [won, lost] = one.code === 0 ? [0, two] : [1, one];
      assert.equal(lost.code, 1);
      assert.match(lost.err, /^Error: Cannot (save|update) community "tenant-a": the secret changed meanwhile/);
      assert.equal(stored, secrets[won], "the winner's secret is current");
      assert.equal(previous, original, "the previous secret is the one both replaced");
    }
    // Side by side, their saves overlap (each reads before the other commits) in most rounds: without the
    // check-and-set both said "Saved" every time, the second turning the first's new secret into the previous one.
    assert.ok(conflicts > 0, "in no round was a command refused: two rotations at once both said saved");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cli communities add over a tenant's community updates it, says when it renames it, and keeps its secret", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cli_replace_" });
  try {
    const path = `${dir}/webhooks.kv`;
    const out: string[] = [];
    const io = (secret?: string) => ({
      stdout: (t: string) => out.push(t),
      stderr: () => {},
      env: (name: string) => name === "CLIENT_SECRET" ? secret : undefined,
    });
    const add = (name: string) => ["communities", "add", "--kv", path, "--name", name, "--tenant", "tenant-a"];
    const run = async (argv: string[], secret?: string): Promise<string> => {
      out.length = 0;
      assert.equal(await main([...argv, "--base-url", "https://a.example"], io(secret)), 0);
      return out.join("\n");
    };
    assert.equal(await run(add("A"), SECRET_A), "Added community 'A' (tenant tenant-a)");
    // Another name for the same tenant renames the community (before: replaced it, its secret removed).
    assert.equal(await run(add("B")), "Updated community 'B' (tenant tenant-a), renamed from 'A'");
    assert.ok(!out.join("").includes(SECRET_A), "a secret was printed");
    assert.match(await run(add("B"), SECOND), /^Updated community 'B' \(tenant tenant-a\)\nClient secret rotated: /);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
