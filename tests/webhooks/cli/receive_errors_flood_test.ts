// `cli receive` printed one stderr line for each answer of 500 or more: with its KV lost under traffic (forged
// postbacks too are answered 500 then, before any signature is checked), stderr flooded, a line a request. A run
// of such answers now shows its first three lines in full, then one line per 100 more, naming the last; when a 2xx
// ends the run (or the command stops), one line says how many were not shown. By count, not time. A 4xx (here an
// unsigned postback's 401) neither ends the run nor is said (receive_errors_interleaved_test.ts).

import assert from "node:assert/strict";
import { withReceiveOutage } from "./_receive_outage.ts";

Deno.test("cli receive: a run of 5xx answers shows three lines in full, then one per 100, then how many were not shown", async () => {
  await withReceiveOutage(async ({ forged, unsigned, stop }) => {
    for (let i = 1; i <= 250; i++) await forged(i);
    assert.equal(await unsigned(), 401); // no Authorization header: not said, and the run goes on
    for (let i = 251; i <= 255; i++) await forged(i);
    const lines = await stop();
    const full = (n: number) => new RegExp(`^\\d{4}-.*Z 5\\d\\d tenant "forged-${n}": `);
    const last = (n: number) => `the last: \\d{4}-.*Z 5\\d\\d tenant "forged-${n}": `;
    const expected = [
      full(1),
      full(2),
      full(3),
      new RegExp(`^… 100 more answers of 500 or more; ${last(103)}`),
      new RegExp(`^… 100 more answers of 500 or more; ${last(203)}`),
      new RegExp(
        `^… 52 more answers of 500 or more, 252 of the run of 255 not shown in full; ${
          last(255)
        }.*; ended by the stop$`,
      ),
    ];
    assert.equal(lines.length, expected.length, `stderr:\n${lines.join("\n").slice(0, 3000)}`);
    expected.forEach((pattern, i) => assert.match(lines[i], pattern));
  });
});
