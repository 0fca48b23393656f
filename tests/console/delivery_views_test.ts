// The deliveries pages (issue 24): a filter that matches nothing says so
// and offers to clear the filters, bad filter values are named and the
// others kept, the verb filter matches a prefix and offers the known verbs,
// the status filter goes by answer (defect 7); paging goes both ways
// (defect 8); text cut to fit never shows U+FFFD (defect 6); and each
// hook's summary has a success rate and our handling time (portal gap).

import assert from "node:assert/strict";
import { type Client, csrfOf, parse, trigger, withHook } from "./_helpers.ts";
import { FORGED_AUTHORIZATION } from "./_forged.ts";

/** The ids of the rows of the deliveries table on `path`, and the page's links by id. */
async function rowsOf(
  client: Client,
  path: string,
): Promise<{ ids: string[]; links: Map<string, string>; html: string }> {
  const html = await client.text(path, 200);
  const page = parse(html);
  try {
    const ids = [...page.document.querySelectorAll("#deliveries-table tr.delivery")].map((r) =>
      r.id.replace(/^delivery-/, "")
    );
    const links = new Map<string, string>();
    for (const a of page.document.querySelectorAll("nav.pager a, #clear-filters")) {
      links.set(a.id, a.getAttribute("href")!);
    }
    return { ids, links, html };
  } finally {
    page.close();
  }
}

function item(verb: string, title: string): unknown {
  return { webhook: "https://c.example/api/core/v3/webhooks/1", activity: { verb, title } };
}

/** A postback the receiver refuses with 401 (a forged signature). */
async function refused(callback: string): Promise<void> {
  const res = await fetch(callback, {
    method: "POST",
    headers: {
      authorization: FORGED_AUTHORIZATION,
      "content-type": "application/json",
    },
    body: "[]",
  });
  await res.body?.cancel();
  assert.equal(res.status, 401);
}

Deno.test("a filter that matches nothing says so and links to the page without filters", async () => {
  await withHook(async (t, { id }, client) => {
    await t.app.deliveries.add(id, [item("jive:created", "One")]);
    const { ids, links, html } = await rowsOf(client, "/deliveries?verb=jive:nothing");
    assert.deepEqual(ids, []);
    assert.match(html, /No delivery matches these filters\./);
    assert.doesNotMatch(html, /No deliveries yet/);
    assert.equal(links.get("clear-filters"), "/deliveries");
    const ofHook = await rowsOf(client, `/deliveries?hook=${id}&verb=jive:nothing`);
    assert.equal(ofHook.links.get("clear-filters"), `/deliveries?hook=${id}`, "clearing keeps the hook");
  });
});

Deno.test("bad filter values are named in an error and the other filters still apply", async () => {
  await withHook(async (t, { id, callback }, client) => {
    await t.app.deliveries.add(id, [item("jive:created", "Accepted one")]);
    await refused(callback);
    const html = await client.text("/deliveries?from=garbage&to=2020-13-45T99:99&status=rejected", 200);
    const page = parse(html);
    try {
      const error = page.document.querySelector(".error")?.textContent ?? "";
      assert.match(error, /From: "garbage" is not a date and time/);
      assert.match(error, /To: "2020-13-45T99:99" is not a date and time/);
      const rows = [...page.document.querySelectorAll("#deliveries-table tr.delivery .status")].map((e) =>
        e.textContent
      );
      assert.equal(rows.length, 1, "the status filter still applies");
      assert.match(rows[0]!, /^401 /);
      assert.equal(page.document.querySelector("#filter-status option[selected]")?.getAttribute("value"), "rejected");
      assert.equal((page.document.querySelector("#filter-from") as HTMLInputElement).value, "");
    } finally {
      page.close();
    }
    const good = await client.text("/deliveries?from=2020-01-01T00:00&status=accepted", 200);
    assert.doesNotMatch(good, /class="error"/, "a good date is no error");
    const rolled = await client.text("/deliveries?from=2020-02-31T10:00", 200);
    assert.match(rolled, /From: &quot;2020-02-31T10:00&quot; is not a date and time|From: "2020-02-31T10:00" is not/);
  });
});

Deno.test("the verb filter matches the start of a verb and offers the known verbs", async () => {
  await withHook(async (t, { id }, client) => {
    const [created] = await t.app.deliveries.add(id, [item("jive:created", "Created")]);
    const [commented] = await t.app.deliveries.add(id, [item("jive:commented", "Commented")]);
    await t.app.deliveries.add(id, [item("jive:liked", "Liked")]);
    assert.deepEqual((await rowsOf(client, "/deliveries?verb=jive:c")).ids, [commented.id, created.id]);
    assert.deepEqual((await rowsOf(client, "/deliveries?verb=JIVE:CR")).ids, [created.id]);
    assert.deepEqual((await rowsOf(client, "/deliveries?verb=jive:created")).ids, [created.id]);
    const page = parse(await client.text("/deliveries", 200));
    try {
      assert.equal(page.document.querySelector("#filter-verb")?.getAttribute("list"), "known-verbs");
      const verbs = [...page.document.querySelectorAll("#known-verbs option")].map((o) => o.getAttribute("value"));
      for (const verb of ["jive:created", "jive:commented", "jive:liked", "jive:modified"]) {
        assert.ok(verbs.includes(verb), `${verb} is offered`);
      }
    } finally {
      page.close();
    }
  });
});

Deno.test("the status filter picks deliveries by our answer, and the hook filter is a list of the hooks", async () => {
  await withHook(async (t, { id, callback }, client) => {
    await t.app.deliveries.add(id, [item("jive:created", "Accepted one")]);
    await refused(callback);
    await t.app.deliveries.addRejected({
      status: 413,
      reason: "the body is larger than 1048576 bytes",
      durationMs: 1,
      receivedAt: Date.now(),
      bodyExcerpt: "",
      headers: {},
    });
    const statuses = async (path: string) => {
      const page = parse(await client.text(path, 200));
      try {
        return [...page.document.querySelectorAll("#deliveries-table tr.delivery .status")].map((e) =>
          e.textContent!.slice(0, 3)
        );
      } finally {
        page.close();
      }
    };
    assert.deepEqual(await statuses("/deliveries?status=401"), ["401"]);
    await t.app.deliveries.addRejected({
      status: 0,
      reason: "Platform-side failure: connection refused",
      durationMs: 1,
      receivedAt: Date.now(),
      bodyExcerpt: "",
      headers: {},
    });
    assert.deepEqual(await statuses("/deliveries?status=413"), ["413"]);
    assert.deepEqual(await statuses("/deliveries?status=0"), ["0 P"], "a platform-side failure");
    assert.deepEqual(await statuses("/deliveries?status=rejected"), ["0 P", "413", "401"]);
    assert.deepEqual(await statuses("/deliveries?status=accepted"), ["acc"]);
    const page = parse(await client.text("/deliveries", 200));
    try {
      const answers = [...page.document.querySelectorAll("#filter-status option")].map((o) => o.getAttribute("value"));
      for (const code of ["0", "401", "404", "409", "413"]) assert.ok(answers.includes(code), `${code} is offered`);
      const hooks = [...page.document.querySelectorAll("#filter-hook option")].map((o) => o.getAttribute("value"));
      assert.deepEqual(hooks, ["", id]);
    } finally {
      page.close();
    }
  });
});

Deno.test("paging goes older and back newer, with a link to the newest, through every delivery once", async () => {
  await withHook(async (t, { id }, client) => {
    for (let p = 0; p < 3; p++) {
      await t.app.deliveries.add(id, Array.from({ length: 40 }, (_, i) => item("jive:created", `Item-${p * 40 + i}`)));
    }
    const all = (await t.app.deliveries.list({ limit: 200 })).map((d) => d.id); // newest first
    assert.equal(all.length, 120);
    const first = await rowsOf(client, "/deliveries");
    assert.deepEqual(first.ids, all.slice(0, 50));
    assert.equal(first.links.has("newer"), false);
    assert.equal(first.links.has("first-page"), false);
    const second = await rowsOf(client, first.links.get("older")!);
    assert.deepEqual(second.ids, all.slice(50, 100));
    assert.equal(second.links.get("first-page"), "/deliveries#deliveries-table", "Newest, at its table");
    const third = await rowsOf(client, second.links.get("older")!);
    assert.deepEqual(third.ids, all.slice(100));
    assert.equal(third.links.has("older"), false, "the oldest page has no older one");
    const back = await rowsOf(client, third.links.get("newer")!);
    assert.deepEqual(back.ids, all.slice(50, 100), "Newer goes back to the page before");
    const top = await rowsOf(client, back.links.get("newer")!);
    assert.deepEqual(top.ids, all.slice(0, 50), "and on to the newest");
    assert.equal(top.links.has("newer"), false);
    // Filtered, too: Item-1, Item-10 to 19 and Item-100 to 119.
    const filtered = await rowsOf(client, "/deliveries?q=item-1&verb=jive:created");
    assert.equal(filtered.ids.length, 31);
  });
});

Deno.test("titles and payloads cut to fit are cut between characters: no U+FFFD on the pages", async () => {
  await withHook(async (t, { id }, client) => {
    // "a" first: the store's 300-unit cut of the title falls inside an emoji's surrogate pair.
    const title = `a${"😀".repeat(20_000)}`;
    const [listed] = await t.app.deliveries.add(id, [item("jive:created", title)]);
    // A payload whose 30,000-unit cut falls inside a surrogate pair.
    const padded = { webhook: "w", activity: { verb: "jive:created", title: "t", content: `${"😀".repeat(16_000)}` } };
    const json = JSON.stringify(padded);
    assert.ok(/[\uD800-\uDBFF]$/.test(json.slice(0, 30_000)) || /[\uD800-\uDBFF]$/.test(json.slice(0, 30_001)));
    const shift = /[\uD800-\uDBFF]$/.test(json.slice(0, 30_000)) ? "" : "x";
    const [big] = await t.app.deliveries.add(id, [{ ...padded, webhook: `w${shift}` }]);
    const list = await client.text("/deliveries", 200);
    assert.ok(!list.includes("\uFFFD"), "the list shows no U+FFFD");
    const page = parse(list);
    try {
      const shown = page.document.querySelector(`[id="delivery-${listed.id}"] .title a`)?.textContent ?? "";
      assert.ok(shown.endsWith("…"), shown.slice(-10));
      assert.equal([...new Intl.Segmenter().segment(shown)].length, 120);
    } finally {
      page.close();
    }
    const detail = await client.text(`/deliveries/${big.id}`, 200);
    assert.match(detail, /The payload was cut to fit the store/);
    assert.ok(!detail.includes("\uFFFD"), "the payload shows no U+FFFD");
  });
});

Deno.test("a hook's summary gives its success rate and our handling time over the last 24 hours", async () => {
  await withHook(async (t, { id, platformId, callback }, client) => {
    assert.deepEqual(await trigger(t.origin, { webhookId: platformId }), [200]);
    assert.deepEqual(await trigger(t.origin, { webhookId: platformId }), [200]);
    await refused(callback);
    await t.app.deliveries.flush();
    const stats = await (await client.fetch(`/deliveries/stats.json?hook=${id}`)).json();
    assert.equal(stats.hookId, id);
    assert.equal(stats.accepted, 2);
    assert.equal(stats.handling.count, 2);
    assert.ok(stats.handling.p50 > 0 && stats.handling.p99 >= stats.handling.p50);
    const page = parse(await client.text(`/webhooks/${id}`, 200));
    try {
      const health = page.document.querySelector("#delivery-health")?.textContent ?? "";
      assert.match(health, /Success rate: 66\.6% accepted\./);
      assert.match(health, /Our handling time: p50 [\d.]+ ms, p99 [\d.]+ ms \(of 2 postbacks\)\./);
    } finally {
      page.close();
    }
  });
});

Deno.test("the webhooks list shows each hook's health: its last delivery and the share rejected", async () => {
  await withHook(async (t, { id, callback }, client) => {
    const quiet = parse(await client.text("/webhooks", 200));
    try {
      assert.equal(
        quiet.document.querySelector(`tr[data-webhook="${id}"] .health-cell`)?.textContent,
        "no deliveries yet",
      );
    } finally {
      quiet.close();
    }
    const [first] = await t.app.deliveries.add(id, [item("jive:created", "One")]);
    await t.app.deliveries.add(id, [item("jive:created", "Two"), item("jive:created", "Three")]);
    await refused(callback);
    const [last] = await t.app.deliveries.list({ hookId: id, limit: 1 });
    assert.notEqual(last.id, first.id);
    const page = parse(await client.text("/webhooks", 200));
    try {
      const cell = page.document.querySelector(`tr[data-webhook="${id}"] .health-cell`);
      assert.equal(page.document.querySelector("#webhooks thead th:last-child")?.textContent, "Health");
      assert.equal(cell?.querySelector("time")?.getAttribute("datetime"), last.receivedAt);
      assert.match(cell?.textContent ?? "", /25% rejected of 4 in 24 h$/);
    } finally {
      page.close();
    }
  });
});

Deno.test("the deliveries list names a hook by its name, with its id as a second line, not by the bare id", async () => {
  await withHook(async (t, { id }, client) => {
    const [delivery] = await t.app.deliveries.add(id, [item("jive:created", "One")]);
    const cell = async (of = delivery.id) => {
      const page = parse(await client.text("/deliveries", 200));
      try {
        const td = page.document.querySelector(`[id="delivery-${of}"] td[data-label=Webhook]`);
        return [td?.querySelector("a")?.textContent, td?.querySelector("small")?.textContent];
      } finally {
        page.close();
      }
    };
    // Not named yet: its events and community, the id under it.
    assert.deepEqual(await cell(), ["document · Sandbox", id]);
    const csrf = csrfOf(await client.text(`/webhooks/${id}`, 200));
    const saved = await client.post(`/webhooks/${id}/label`, { _csrf: csrf, name: "Release notes", description: "" });
    await saved.body?.cancel();
    assert.equal(saved.status, 303);
    assert.deepEqual(await cell(), ["Release notes", id]);
    // A hook this console has no record or name of: its id stands alone, with no second line.
    const [stray] = await t.app.deliveries.add("01GONE0000000000000000000", [item("jive:created", "Two")]);
    assert.deepEqual(await cell(stray.id), ["01GONE0000000000000000000", undefined]);
  });
});
