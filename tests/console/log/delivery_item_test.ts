// The delivery log's own cutting of text to fit (titles, payloads, reasons):
// between graphemes, never inside a surrogate pair or an emoji sequence,
// so nothing stored ends in U+FFFD (issue 24 defect 6).

import assert from "node:assert/strict";
import { cutAt } from "../../../console/lib/text_fit.ts";
import { DeliveryStore } from "../../../console/log/mod.ts";

const FAMILY = "\u{1F468}\u200D\u{1F469}\u200D\u{1F467}"; // one grapheme of five code points, eight UTF-16 units

Deno.test("cutAt() cuts between graphemes, never inside a surrogate pair or a joined emoji", () => {
  assert.equal(cutAt("abc", 10), "abc");
  assert.equal(cutAt("😀😀😀", 3), "😀"); // 3 units would split the second pair
  assert.equal(cutAt(`a${FAMILY}b`, 5), "a"); // the family is kept whole or not at all
  assert.equal(cutAt("e\u0301e\u0301", 3), "e\u0301"); // a combining accent stays with its letter
  for (let max = 0; max < 40; max++) {
    const cut = cutAt("😀".repeat(20), max);
    assert.ok(cut.isWellFormed(), `cut at ${max}`);
    assert.ok(cut.length <= max);
  }
});

Deno.test("a title of 20,000 emoji and a 30,000-character payload are stored cut, with no U+FFFD", async () => {
  const item = { webhook: "https://c.example/api/core/v3/webhooks/1", activity: { title: "x" + "😀".repeat(20_000) } };
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new DeliveryStore(kv);
    const [view] = await store.add("h1", [item]);
    assert.ok(!view.title.includes("\uFFFD") && view.title.isWellFormed());
    const wide = { ...item, activity: { content: "x" + "😀".repeat(30_000) } };
    for (const pad of ["", "y"]) {
      const [row] = await store.add("h1", [{ ...wide, pad }]);
      const stored = await store.get(row.id);
      assert.ok(stored?.truncated && stored.payload.isWellFormed(), `padded with '${pad}'`);
    }
  } finally {
    kv.close();
  }
});
