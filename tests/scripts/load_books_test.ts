// The load test's books: every postback answered 200 counted once, and those
// missing from the stored deliveries found, whatever their numbers.

import assert from "node:assert/strict";
import { Answered, balance } from "../../scripts/load_books.ts";

Deno.test("the load test's books count each answered postback once and find those not stored", () => {
  const answered = new Answered();
  for (const n of [1, 2, 3, 2, 70_000, 200_001, 3]) answered.add(n); // past the first buffer, and repeated
  assert.equal(answered.size, 5);
  const stored = new Set(["Load load-1", "Load load-3", "Load load-200001", "Load load-4"]);
  assert.equal(answered.missingFrom(stored), 2, "2 and 70000 were answered but not stored");
  assert.equal(new Answered().missingFrom(stored), 0);
});

Deno.test("balance(): postbacks answered by two processes on one KV are counted against what the KV stores of both", () => {
  const answered = new Answered();
  // Process one answered 1-3, process two 4-6: the books share one count of numbers.
  for (const n of [1, 2, 3, 4, 5, 6]) answered.add(n);
  // The shared KV: 5 stored by both processes, 6 by neither, 7 answered after its run ended.
  const titles = ["Load load-1", "Load load-2", "Load load-3", "Load load-4", "Load load-5", "Load load-7"];
  const books = balance(answered, { total: titles.length + 1, titles: new Set(titles) });
  assert.deepEqual(books, { answered: 6, stored: 6, lost: 1, duplicated: 1 });
  assert.deepEqual(balance(new Answered(), { total: 0, titles: new Set() }), {
    answered: 0,
    stored: 0,
    lost: 0,
    duplicated: 0,
  });
});
