// A time the server renders is localised in the browser by script (islands/_client.ts, LocalTime). With scripts off,
// what the server wrote is what the reader gets, and that was the raw ISO string ("2026-11-29T18:16:47.123Z"). Each
// <time> now reads "29 Nov 2026, 18:16:47 UTC", naming its zone, while its `datetime` stays ISO 8601 for the script
// (and machines) to read. Checked on the pages that show one: a delivery's page, the deliveries list (an island's
// LocalTime rendered on the server), the webhooks list (the hook's last delivery), and a community's tokens.

import assert from "node:assert/strict";
import { type Client, parse, trigger, withHook } from "./_helpers.ts";

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** The `datetime` and text of each `<time>` in the main part of the page at `path`. */
async function timesOf(client: Client, path: string): Promise<{ datetime: string; text: string }[]> {
  const page = parse(await client.text(path, 200));
  try {
    return [...page.document.querySelectorAll("main time")].map((el) => ({
      datetime: el.getAttribute("datetime") ?? "",
      text: (el.textContent ?? "").trim(),
    }));
  } finally {
    page.close();
  }
}

/** How a time reads without script: day, month, year, the time to the second, and the zone. */
function readable(iso: string): string {
  const d = new Date(iso);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}, ` +
    `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} UTC`;
}

Deno.test("a time the server renders reads '29 Nov 2026, 18:16:47 UTC' without script, its datetime ISO 8601", async () => {
  await withHook(async (t, hook, client) => {
    assert.deepEqual(await trigger(t.origin, { webhookId: hook.platformId }), [200]);
    const [delivery] = (await t.app.deliveries.page({ hookId: hook.id })).values;
    for (const path of [`/deliveries/${delivery.id}`, "/deliveries", "/webhooks", "/communities/sandbox-tenant"]) {
      const times = await timesOf(client, path);
      assert.ok(times.length > 0, `${path} shows no time`);
      for (const { datetime, text } of times) {
        assert.equal(new Date(datetime).toISOString(), datetime, `${path}: datetime is ISO 8601`);
        assert.equal(text, readable(datetime), `${path}: <time datetime="${datetime}">`);
      }
    }
  });
});
