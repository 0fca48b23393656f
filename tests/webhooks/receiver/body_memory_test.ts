// The receiver's body reader holds memory in proportion to the bytes received:
// a receiver in a child process is sent three bodies one byte per millisecond
// (chunked, one chunk per byte; or of declared length, read natively), and
// its heap plus external memory is measured after a full GC while the three
// connections are still open.

import { fileURLToPath } from "node:url";
import { assertThreeTrickledBounded } from "../../_trickle.ts";

const CHILD = fileURLToPath(new URL("_body_memory_child.ts", import.meta.url));

Deno.test("readBody() holds memory in proportion to the bytes of three trickling bodies, not a buffer per chunk", async () => {
  await assertThreeTrickledBounded(CHILD, "/hooks");
});

Deno.test("a served body of declared length, read natively, holds memory in proportion to its bytes too", async () => {
  // Each declares a megabyte less one byte (within maxBytes) and sends 2,500 of it before the measure.
  await assertThreeTrickledBounded(CHILD, "/hooks", 1024 * 1024 - 1);
});
