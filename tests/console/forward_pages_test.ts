// The Forward to page listed every destination of the hook on one page: at
// about 680 bytes each it passed 1 MB near 1,500 destinations. It now shows
// 50 to a page, with Newer and Older links on the hook's own path; Enable,
// Disable, Remove and Redeliver act on the destinations of the page shown and
// come back to it, and Add shows its secret once with the destination added.

import assert from "node:assert/strict";
import { createRelay } from "../../webhooks/mod.ts";
import { deadLetter, storeDead } from "./_dead_letters.ts";
import { type Client, parse, withSignedInHook } from "./_helpers.ts";

/** The rows, links and form actions of one Forward to page. */
interface Shown {
  ids: string[];
  newer?: string;
  older?: string;
  actions: Record<string, string>;
  redeliver: Record<string, string>;
  secret?: string;
  size: number;
}

/** What `text`, a Forward to page, shows. */
function shown(text: string): Shown {
  const page = parse(text);
  try {
    const doc = page.document;
    const rows = [...doc.querySelectorAll("#forward-destinations tr[data-destination]")];
    const actions: Record<string, string> = {};
    for (const row of rows) {
      actions[row.getAttribute("data-destination")!] = row.querySelector("form")!.getAttribute("action")!;
    }
    const redeliver: Record<string, string> = {};
    for (const row of doc.querySelectorAll("#forward-dead tr[data-entry]")) {
      redeliver[row.getAttribute("data-entry")!] = row.querySelector("form")!.getAttribute("action")!;
    }
    return {
      ids: rows.map((r) => r.getAttribute("data-destination")!),
      newer: doc.querySelector("#forward-newer")?.getAttribute("href") ?? undefined,
      older: doc.querySelector("#forward-older")?.getAttribute("href") ?? undefined,
      actions,
      redeliver,
      secret: doc.querySelector("#forward-secret")?.textContent ?? undefined,
      size: text.length,
    };
  } finally {
    page.close();
  }
}

/** The pages from the first, through each Newer link. */
async function allPages(client: Client, path: string): Promise<Shown[]> {
  const pages = [shown(await client.text(path, 200))];
  while (pages.at(-1)!.newer) pages.push(shown(await client.text(pages.at(-1)!.newer!, 200)));
  return pages;
}

/** A signed-in console with a hook and `count` destinations of it (`made`, oldest first); the relay closed after. */
async function withDestinations(
  count: number,
  fn: (at: {
    t: Parameters<Parameters<typeof withSignedInHook>[1]>[0]["t"];
    client: Client;
    hookId: string;
    relay: ReturnType<typeof createRelay>;
    path: string;
    made: string[];
  }) => Promise<void>,
): Promise<void> {
  await withSignedInHook({ allowPrivateNetwork: true }, async ({ t, client, hookId }) => {
    const relay = createRelay(t.kv, { allowPrivateNetwork: true });
    try {
      const made: string[] = [];
      for (let i = 0; i < count; i++) {
        made.push((await relay.destinations.add({ url: `http://127.0.0.1:9/d${i}`, hookIds: [hookId] })).id);
      }
      await fn({ t, client, hookId, relay, path: `/webhooks/${hookId}/forward`, made });
    } finally {
      await relay.close();
    }
  });
}

Deno.test("Forward to: 120 destinations show 50 to a page; actions and Add keep to the page shown", async () => {
  await withDestinations(120, async ({ t, client, hookId, relay, path, made }) => {
    const pages = await allPages(client, path);
    assert.deepEqual(pages.map((p) => p.ids.length), [50, 50, 20]);
    assert.deepEqual(pages.flatMap((p) => p.ids), made, "every destination once, in the order added");
    assert.ok(pages.every((p) => p.newer === undefined || p.newer.startsWith(`${path}?`)), "a link left the hook");
    assert.equal(pages[0].older, undefined);
    assert.deepEqual((shown(await client.text(pages[2].older!, 200))).ids, pages[1].ids);

    // Disable a destination of the second page: back on the second page, shown disabled.
    const second = pages[0].newer!;
    const target = pages[1].ids[7];
    const csrf = (await client.text(second, 200)).match(/name="_csrf" value="([^"]+)"/)![1];
    const disabled = await client.post(pages[1].actions[target], { _csrf: csrf, enabled: "0" });
    assert.equal(disabled.status, 303);
    const back = await client.follow(disabled);
    const after = await back.text();
    assert.deepEqual((shown(after)).ids, pages[1].ids, `not back on the page shown: ${back.url}`);
    assert.match(after, new RegExp(`data-destination="${target}"[^]*?<td>disabled</td>`));

    // A dead letter at a destination of the third page: its Redeliver comes back to the third page.
    await storeDead(t.kv, deadLetter(1, pages[2].ids[0], hookId));
    const third = shown(await client.text(pages[1].newer!, 200));
    const redeliver = third.redeliver[deadLetter(1, "", "").id];
    assert.ok(redeliver, "the third page does not show its destination's dead letter");
    const redelivered = await client.follow(await client.post(redeliver, { _csrf: csrf }));
    assert.deepEqual((shown(await redelivered.text())).ids, pages[2].ids);

    // Add: the page it leads to shows the secret once, with the destination added in the list shown.
    const added = await client.post(path, { _csrf: csrf, url: "http://127.0.0.1:9/new" });
    assert.equal(added.status, 303);
    const answer = shown(await (await client.follow(added)).text());
    assert.match(answer.secret ?? "", /^whsec_/);
    const all = await relay.destinations.list();
    const newest = all.find((d) => d.url === "http://127.0.0.1:9/new")!.id;
    assert.ok(answer.ids.includes(newest), "the destination added is not on the page shown");
    assert.ok(answer.ids.length <= 50);
    assert.ok(pages.every((p) => p.size < 100_000), "a page of 50 destinations is small");
  });
});

Deno.test("Forward to: a dead letter at a destination of the second page is not 'None' on the first", async () => {
  await withDestinations(60, async ({ t, client, hookId, path, made }) => {
    await storeDead(t.kv, deadLetter(1, made[55], hookId));
    const first = parse(await client.text(path, 200));
    try {
      const doc = first.document;
      assert.equal(
        doc.querySelector("#forward-dead") === null,
        true,
        "the first page lists a dead letter it does not show",
      );
      const said = doc.querySelector("#forward-no-dead")?.textContent;
      assert.equal(said, undefined, `the first page says there are none: ${said}`);
      assert.ok(doc.querySelector("#forward-no-dead-here"), "the first page does not say they are elsewhere");
    } finally {
      first.close();
    }
    const second = shown(await client.text(shown(await client.text(path, 200)).newer!, 200));
    assert.ok(second.redeliver[deadLetter(1, "", "").id], "the second page does not show its dead letter");
  });
});
