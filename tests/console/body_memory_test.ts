// Issue 25 item 1, measured where it was found: the console's receiver
// endpoint (`/hooks/{id}`, no signature needed to be read) in a child process
// is sent three bodies one byte per millisecond (chunked, or of declared
// length, which the console's Deno.serve info lets the receiver read
// natively); while they are still open, after a full GC, its heap plus
// external memory has grown by less than 64 MB (it grew by ~470 MB when each
// kept chunk pinned a 64 KiB read buffer).

import { fileURLToPath } from "node:url";
import { assertThreeTrickledBounded } from "../_trickle.ts";

const CHILD = fileURLToPath(new URL("_body_memory_child.ts", import.meta.url));

Deno.test("three bodies trickled to /hooks/{id} hold memory in proportion to their bytes", async () => {
  await assertThreeTrickledBounded(CHILD, "/hooks/any-hook");
});

Deno.test("three bodies of declared length trickled to /hooks/{id}, read natively, hold memory in proportion too", async () => {
  await assertThreeTrickledBounded(CHILD, "/hooks/any-hook", 1024 * 1024 - 1);
});
