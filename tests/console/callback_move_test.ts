// A console that moved (a tunnel's new URL at each restart, a new domain): its hooks still post to the old address,
// so nothing arrives. A hook whose callback is one of this console's receivers at another address offers, on its
// page, to point it at this console's address (the platform's PUT, then the record); after that the platform's
// postbacks arrive here again. A callback that is no receiver of this console (an app elsewhere, another console's
// receiver) offers nothing, and a hand-made request to move it changes nothing.

import assert from "node:assert/strict";
import { csrfOf, parse, trigger, withHook } from "./_helpers.ts";

/** The offer on a hook's page: its text, or `null` when there is none. */
function offer(html: string): string | null {
  const page = parse(html);
  try {
    return page.document.querySelector("#offer-move")?.textContent?.replace(/\s+/g, " ").trim() ?? null;
  } finally {
    page.close();
  }
}

Deno.test("a hook of this console at an old address is pointed here from its page, and its postbacks arrive again", async () => {
  await withHook(async (t, hook, client) => {
    const path = new URL(hook.callback).pathname; // /hooks/<receiver id>
    const old = `https://old-tunnel.example${path}`;
    await t.app.webhooks.update(hook.id, { callback: old });
    const page = await client.text(`/webhooks/${hook.id}`, 200);
    const text = offer(page);
    assert.ok(text, "no offer to point the hook here");
    assert.match(text, /https:\/\/old-tunnel\.example/);
    assert.ok(text.includes(`${t.origin}${path}`), text);

    const res = await client.post(`/webhooks/${hook.id}/callback`, { _csrf: csrfOf(page) });
    assert.equal(res.status, 303);
    const shown = await client.text(
      new URL(res.headers.get("location")!, t.origin).pathname + "?notice=callback-moved",
    );
    assert.match(shown, /The callback now points at this console/);
    assert.equal(offer(shown), null, "the offer stays after the move");
    const record = await t.app.webhooks.findByID(hook.id);
    assert.equal(record?.entity.callback, `${t.origin}${path}`);
    // The platform posts here again: the sandbox's postback to the hook is taken by this console's receiver.
    assert.deepEqual(await trigger(t.origin, { webhookId: hook.platformId }), [200]);
  });
});

Deno.test("a callback that is no receiver of this console offers no move, and a move asked by hand changes nothing", async () => {
  await withHook(async (t, hook, client) => {
    const others = [
      "https://app.example/in", // an app elsewhere
      "https://other-console.example/hooks/01J0000000000000000000000Z", // another console's receiver
    ];
    for (const callback of others) {
      await t.app.webhooks.update(hook.id, { callback });
      const page = await client.text(`/webhooks/${hook.id}`, 200);
      assert.equal(offer(page), null, callback);
      const res = await client.post(`/webhooks/${hook.id}/callback`, { _csrf: csrfOf(page) });
      assert.equal(res.status, 400, callback);
      assert.match(await res.text(), /Nothing was changed: the callback is not one of this console.s receivers/);
      assert.equal((await t.app.webhooks.findByID(hook.id))?.entity.callback, callback);
    }
    // At this console's address already: nothing to move, nothing offered.
    await t.app.webhooks.update(hook.id, { callback: hook.callback });
    assert.equal(offer(await client.text(`/webhooks/${hook.id}`, 200)), null);
  });
});

Deno.test("the webhooks list says which of its hooks post to an old address of this console, each linked to its page", async () => {
  await withHook(async (t, hook, client) => {
    const path = new URL(hook.callback).pathname;
    const banner = async () => {
      const page = parse(await client.text("/webhooks", 200));
      try {
        const el = page.document.querySelector("#moved-hooks");
        return el && {
          text: el.textContent!.replace(/\s+/g, " ").trim(),
          links: [...el.querySelectorAll("a")].map((a) => a.getAttribute("href")),
        };
      } finally {
        page.close();
      }
    };
    assert.equal(await banner(), null, "a banner while every hook posts here");
    await t.app.webhooks.update(hook.id, { callback: `https://old-tunnel.example${path}` });
    const shown = await banner();
    assert.ok(shown, "no banner for a hook at an old address");
    assert.match(shown.text, /1 of the webhooks listed posts to another address of this console/);
    assert.deepEqual(shown.links, [`/webhooks/${hook.id}`]);
    // Pointed here from its page, it is no longer named.
    const page = await client.text(`/webhooks/${hook.id}`, 200);
    assert.equal((await client.post(`/webhooks/${hook.id}/callback`, { _csrf: csrfOf(page) })).status, 303);
    assert.equal(await banner(), null);
  });
});
