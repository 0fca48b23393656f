// `relay disable` and `relay remove` of a pinned destination, a running
// `listen`'s: that listen stops (it forwards nothing once its destination is
// disabled or gone) and, disabled, removes the destination with what waits for
// it. So the CLI must not promise alone that what waits is sent once it is
// enabled again: it says the destination is pinned, and that a listen
// forwarding to it stops (a pinned one a service's worker delivers is kept).
// Run in process through `main` on a real KV file, a real listen and app on
// 127.0.0.1.

import assert from "node:assert/strict";
import type { Relay } from "../../../webhooks/mod.ts";
import { noSecret, type Ran, runMain } from "./_relay_setup.ts";
import { startListen } from "./_listen_setup.ts";

/** Runs `listen` on a fresh KV file, calls `act` with its destination's id, and waits for listen to end (status 1). */
async function withListen(
  act: (ctx: { run: (argv: string[]) => Promise<Ran>; relay: Relay; id: string }) => Promise<void>,
): Promise<string[]> {
  const listen = await startListen();
  try {
    const { relay, id, path, err } = listen;
    await act({ run: (argv) => runMain([...argv, "--kv", path]), relay, id });
    assert.equal(await listen.running, 1, err.join("\n"));
    assert.deepEqual(await relay.destinations.list(), [], "gone, disabled or removed: nothing left to enable");
    return err;
  } finally {
    await listen.close();
  }
}

Deno.test("cli relay disable of a listen's destination: says a listen forwarding to it stops and removes it", async () => {
  let id = "";
  let disabled: Ran | null = null;
  const err = await withListen(async ({ run, id: pinned }) => {
    id = pinned;
    disabled = await run(["relay", "disable", id]);
  });
  const ran = disabled! as Ran;
  assert.equal(ran.code, 0, ran.err);
  assert.match(
    ran.out,
    new RegExp(`^Disabled destination ${id}: it is pinned: a listen forwarding to it stops and removes it`),
  );
  // Before, it said only that what waits is "sent once it is enabled again (relay enable ID)": the listen removed it.
  noSecret(ran, "whsec_");
  assert.match(err.at(-1)!, /^Error: This listener's destination was disabled elsewhere/);
});

Deno.test("cli relay remove of a listen's destination: says a listen forwarding to it stops", async () => {
  let id = "";
  let removed: Ran | null = null;
  const err = await withListen(async ({ run, relay, id: pinned }) => {
    id = pinned;
    removed = await run(["relay", "remove", id]);
    assert.equal(await relay.destinations.get(id), null);
  });
  const ran = removed! as Ran;
  assert.equal(ran.code, 0, ran.err);
  assert.match(ran.out, new RegExp(`^Removed destination ${id}, with .*dead letters`));
  assert.match(ran.out, /it was pinned: a listen forwarding to it stops/);
  assert.match(err.at(-1)!, /^Error: This listener's destination was removed elsewhere/);
});
