// Issue 25 item 1, measured where it was found: the console's receiver
// endpoint (`/hooks/{id}`, no signature needed to be read) in a child process
// is sent three bodies one byte per millisecond (chunked, or of declared
// length, which the console's Deno.serve info lets the receiver read
// natively); while they are still open, after a full GC, its heap plus
// external memory has grown by less than 64 MB (it grew by ~470 MB when each
// kept chunk pinned a 64 KiB read buffer).

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { closeAll, finish, startMemoryChild, trickle } from "../_trickle.ts";

const CHILD = fileURLToPath(new URL("_body_memory_child.ts", import.meta.url));
const BYTES_EACH = 2_500;
const LIMIT = 64 * 1024 * 1024;

async function threeTrickled(declared?: number): Promise<void> {
  const child = await startMemoryChild(CHILD);
  const conns: Deno.TcpConn[] = [];
  try {
    await child.memory();
    const before = await child.memory();
    conns.push(...await Promise.all([0, 1, 2].map(() => trickle(child.port, "/hooks/any-hook", BYTES_EACH, declared))));
    const growth = await child.memory() - before;
    assert.ok(
      growth < LIMIT,
      `Three bodies of ${BYTES_EACH} bytes grew the heap by ${(growth / 2 ** 20).toFixed(1)} MB`,
    );
    // They were read whole before the header was judged: unsigned, each is then refused 401.
    for (const conn of conns) {
      assert.equal(await finish(conn, declared && declared - BYTES_EACH), "HTTP/1.1 401 Unauthorized");
    }
  } finally {
    closeAll(conns);
    await child.close();
  }
}

Deno.test("three bodies trickled to /hooks/{id} hold memory in proportion to their bytes", async () => {
  await threeTrickled();
});

Deno.test("three bodies of declared length trickled to /hooks/{id}, read natively, hold memory in proportion too", async () => {
  await threeTrickled(1024 * 1024 - 1);
});
