// The sandbox on a KV file that several console processes share (docs/scale-out.md): another process's commit
// meets this one's with "database is locked" (SQLite's busy snapshot, answered at once), as the console's and the
// relay's own commits do. The sandbox stands in for the platform, so such a moment must not fail a register,
// an update, an unregister or a sign-in that the platform would have done: a console on the same KV file then
// answered 502 to an Unregister sent while the other console wrote.

import assert from "node:assert/strict";
import { bearer, contentHook, jive, register, signIn, withSandbox } from "./_mounted.ts";

/** From `arm()` on, every KV write of `kv` fails its first attempt as a shared KV file's busy snapshot does. */
function lockedOnce(kv: Deno.Kv): { arm(): void; met: () => number } {
  let armed = false;
  let met = 0;
  const locked = () => {
    met++;
    return Promise.reject(new TypeError("database is locked"));
  };
  const atomic = kv.atomic.bind(kv);
  kv.atomic = () => {
    const op = atomic();
    const commit = op.commit.bind(op);
    let tried = false;
    op.commit = () => {
      if (!armed || tried) return commit();
      tried = true;
      return locked();
    };
    return op;
  };
  for (const name of ["set", "delete"] as const) {
    const write = (kv[name] as (...args: unknown[]) => Promise<unknown>).bind(kv);
    let tried = false;
    (kv as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
      if (!armed) return write(...args);
      tried = !tried;
      return tried ? locked() : write(...args);
    };
  }
  return { arm: () => void (armed = true), met: () => met };
}

Deno.test("the sandbox's register, update, unregister and sign-in ride out a locked KV file", async () => {
  await withSandbox(async (env) => {
    const lock = lockedOnce(env.kv);
    lock.arm();
    const tokens = await signIn(env);
    const created = await register(env, tokens.access_token, contentHook(env, "http://127.0.0.1:9/hooks/1"));
    assert.equal(created.status, 200, await created.clone().text());
    const entity = await jive(created);
    const put = await fetch(entity.resources.self.ref, {
      method: "PUT",
      headers: { Authorization: `Bearer ${tokens.access_token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ ...contentHook(env, "http://127.0.0.1:9/hooks/1"), events: ["document"] }),
    });
    assert.equal(put.status, 200, await put.text());
    const del = await fetch(entity.resources.self.ref, { method: "DELETE", ...bearer(tokens.access_token) });
    assert.equal(del.status, 204, await del.text());
    assert.ok(lock.met() >= 4, `the test's lock was met ${lock.met()} times`);
    // The platform's state agrees with the answers: the hook is gone.
    const gone = await fetch(entity.resources.self.ref, bearer(tokens.access_token));
    await gone.body?.cancel();
    assert.equal(gone.status, 404);
  });
});
