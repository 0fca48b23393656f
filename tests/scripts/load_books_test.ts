// The load test's books: every postback answered 200 counted once, and those
// missing from the stored deliveries found, whatever their numbers.

import assert from "node:assert/strict";
import { Answered } from "../../scripts/load_books.ts";

Deno.test("the load test's books count each answered postback once and find those not stored", () => {
  const answered = new Answered();
  for (const n of [1, 2, 3, 2, 70_000, 200_001, 3]) answered.add(n); // past the first buffer, and repeated
  assert.equal(answered.size, 5);
  const stored = new Set(["Load load-1", "Load load-3", "Load load-200001", "Load load-4"]);
  assert.equal(answered.missingFrom(stored), 2, "2 and 70000 were answered but not stored");
  assert.equal(new Answered().missingFrom(stored), 0);
});
