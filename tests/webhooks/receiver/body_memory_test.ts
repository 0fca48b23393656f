// The receiver's body reader holds memory in proportion to the bytes received:
// a receiver in a child process is sent three bodies one byte per millisecond
// (chunked, one chunk per byte; or of declared length, read natively), and
// its heap plus external memory is measured after a full GC while the three
// connections are still open.

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { closeAll, finish, startMemoryChild, trickle } from "../../_trickle.ts";

const CHILD = fileURLToPath(new URL("_body_memory_child.ts", import.meta.url));
const CONNECTIONS = 3;
const BYTES_EACH = 2_500;
const LIMIT = 64 * 1024 * 1024;

async function threeTrickled(declared?: number): Promise<void> {
  const child = await startMemoryChild(CHILD);
  const conns: Deno.TcpConn[] = [];
  try {
    // Warm up the server's paths once, so the baseline holds what a first request loads.
    await child.memory();
    const before = await child.memory();
    conns.push(
      ...await Promise.all(
        Array.from({ length: CONNECTIONS }, () => trickle(child.port, "/hooks", BYTES_EACH, declared)),
      ),
    );
    const after = await child.memory();
    const growth = after - before;
    console.log(
      `heap+external: before ${(before / 2 ** 20).toFixed(1)} MB, after ${(after / 2 ** 20).toFixed(1)} MB, growth ${
        (growth / 2 ** 20).toFixed(1)
      } MB`,
    );
    assert.ok(
      growth < LIMIT,
      `Three bodies of ${BYTES_EACH} bytes grew the heap by ${(growth / 2 ** 20).toFixed(1)} MB`,
    );
    // The bodies were being read: once ended, each is judged by its (missing) header, as API.md orders it.
    for (const conn of conns) {
      assert.equal(await finish(conn, declared && declared - BYTES_EACH), "HTTP/1.1 401 Unauthorized");
    }
  } finally {
    closeAll(conns);
    await child.close();
  }
}

Deno.test("readBody() holds memory in proportion to the bytes of three trickling bodies, not a buffer per chunk", async () => {
  await threeTrickled();
});

Deno.test("a served body of declared length, read natively, holds memory in proportion to its bytes too", async () => {
  // Each declares a megabyte less one byte (within maxBytes) and sends 2,500 of it before the measure.
  await threeTrickled(1024 * 1024 - 1);
});
