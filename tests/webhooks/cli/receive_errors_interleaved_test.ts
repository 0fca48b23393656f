// With its KV lost, `cli receive` answers a forged postback 500 (before any signature is checked) and one without an
// Authorization header 401 (no KV needed). If any answer under 500 ended a run of 5xx lines, anyone could send one
// unsigned postback after each forged one and have every 5xx line printed in full: the coalescing would be undone
// by the sender. Only an accepted postback (a 2xx, which takes a community's secret) or the stop ends a run.

import assert from "node:assert/strict";
import { withReceiveOutage } from "./_receive_outage.ts";

const PAIRS = 60;

Deno.test("cli receive: unsigned postbacks (401) between forged ones (500) do not end the run of 5xx lines", async () => {
  await withReceiveOutage(async ({ forged, unsigned, stop }) => {
    for (let i = 1; i <= PAIRS; i++) {
      await forged(i);
      assert.equal(await unsigned(), 401);
    }
    const lines = await stop();
    const expected = [
      /^\S+Z 5\d\d tenant "forged-1": /,
      /^\S+Z 5\d\d tenant "forged-2": /,
      /^\S+Z 5\d\d tenant "forged-3": /,
      new RegExp(
        `^… ${PAIRS - 3} more answers of 500 or more, ${PAIRS - 3} of the run of ${PAIRS} not shown in full; ` +
          `the last: \\S+Z 5\\d\\d tenant "forged-${PAIRS}": .*; ended by the stop$`,
      ),
    ];
    assert.equal(lines.length, expected.length, `stderr:\n${lines.join("\n").slice(0, 3000)}`);
    expected.forEach((pattern, i) => assert.match(lines[i], pattern));
  });
});
