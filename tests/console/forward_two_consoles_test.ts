// Two consoles on one KV file: a destination shared by two hooks, taken off one hook's page on the first console
// while the other hook's page takes it off on the second. Each console read the destination's hooks, then wrote
// that list less its own hook: the second's change came between the first's read and its commit, and the first,
// its commit refused, wrote its list again over it, putting back the hook the second had taken off.

import assert from "node:assert/strict";
import { Client, connectSandbox, csrfOf, registerHook, signIn, startConsole } from "./_helpers.ts";
import { createRelay } from "../../webhooks/mod.ts";
import { startConsoleProcess } from "./_main_process.ts";

/** `kv` whose next commit that writes a destination's record first runs `between` (once armed). */
function beforeDestinationWrite(kv: Deno.Kv): { arm(between: () => Promise<void>): void; met: () => boolean } {
  let pending: (() => Promise<void>) | undefined;
  let met = false;
  const atomic = kv.atomic.bind(kv);
  kv.atomic = () => {
    const op = atomic();
    const set = op.set.bind(op);
    const commit = op.commit.bind(op);
    let writes = false;
    op.set = (key, value, options) => {
      if (key[0] === "relay_destination") writes = true;
      return set(key, value, options);
    };
    op.commit = async () => {
      const between = writes ? pending : undefined;
      if (between) {
        pending = undefined;
        await between();
        met = true;
      }
      return await commit();
    };
    return op;
  };
  return { arm: (between) => void (pending = between), met: () => met };
}

Deno.test("Forward to: a shared destination taken off each hook's page on two consoles at once is removed", async () => {
  const dir = await Deno.makeTempDir();
  const kvPath = `${dir}/console.kv`;
  const kv = await Deno.openKv(kvPath);
  const hold = beforeDestinationWrite(kv);
  const first = await startConsole({ kv });
  // A process of its own: consoles in one process share what a module keeps in memory, processes do not.
  const second = await startConsoleProcess({ KV_PATH: kvPath, HOST: "127.0.0.1", SANDBOX: "on" });
  const relay = createRelay(kv);
  try {
    const client = await signIn(first.origin);
    await connectSandbox(client, first.origin);
    const other = new Client(second.origin); // the same user's session, in a tab of the second console
    for (const [name, value] of client.cookies) other.cookies.set(name, value);
    const one = await registerHook(client, first.origin);
    const two = await registerHook(client, first.origin, { events: ["discussion"] });
    const csrf = csrfOf(await client.text(`/webhooks/${one}/forward`, 200));
    const shared = await relay.destinations.add({ url: "https://app.example/both", hookIds: [one, two] });
    hold.arm(async () => {
      const res = await other.post(`/webhooks/${two}/forward/${shared.id}/remove`, { _csrf: csrf });
      await res.body?.cancel();
      assert.match(res.headers.get("location") ?? "", /notice=unlinked/, `the second console: ${res.status}`);
    });
    const res = await client.post(`/webhooks/${one}/forward/${shared.id}/remove`, { _csrf: csrf });
    await res.body?.cancel();
    assert.equal(res.status, 303);
    assert.ok(hold.met(), "the second console's Remove came between the first's read and its commit");
    // Each user asked that their hook's postbacks go there no more: neither removal is lost.
    const left = await relay.destinations.get(shared.id);
    assert.equal(left, null, `left forwarding ${JSON.stringify(left?.hookIds)}`);
    assert.match(res.headers.get("location") ?? "", /notice=removed/);
  } finally {
    await relay.close();
    await second.stop();
    await first.close();
    await Deno.remove(dir, { recursive: true });
  }
});
