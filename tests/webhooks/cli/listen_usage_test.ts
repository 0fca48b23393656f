// `listen` with a `--forward-to` it cannot use (not a URL, another scheme,
// credentials in it) is a usage error: exit status 2 with the command's
// usage (API.md, command line), no destination left, credentials not echoed.

import assert from "node:assert/strict";
import fc from "fast-check";
import { createRelay, createWebhooks } from "../../../webhooks/mod.ts";
import { main } from "../../../webhooks/cli/mod.ts";
import { cli } from "./_cli_setup.ts";

Deno.test("listen as a process: a --forward-to that is no URL, of another scheme or with credentials exits with status 2", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/webhooks.kv`;
  try {
    const bad = ["not a url", "ftp://localhost/hooks", "http://user:hunter2@localhost:3000/hooks", "localhost:3000"];
    // Two at once: each ends alike, neither leaves a destination behind.
    const runs = await Promise.all(
      bad.flatMap((url) => [url, url]).map((url) => cli(["listen", "--forward-to", url, "--kv", path])),
    );
    for (const [i, { code, stderr, stdout }] of runs.entries()) {
      const url = bad[Math.floor(i / 2)];
      assert.equal(code, 2, `${url}: ${stderr}`);
      assert.match(stderr, /^Error: --forward-to must /m, url);
      assert.match(stderr, /listen --forward-to URL/, "the command's usage follows");
      assert.doesNotMatch(stderr, /hunter2|\n\s+at /, "no password, no stack trace");
      assert.equal(stdout, "");
    }
    const kv = await Deno.openKv(path);
    const relay = createRelay(kv);
    assert.deepEqual(await relay.destinations.list(), []);
    await relay.close();
    kv.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("listen: any --forward-to that is not an http(s) URL is a usage error (status 2), never a failed operation", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/webhooks.kv`;
  try {
    const notHttp = fc.string({ unit: "binary", maxLength: 60 }).filter((s) => !/^https?:\/\/[^/]/i.test(s));
    await fc.assert(
      fc.asyncProperty(notHttp, async (url) => {
        const err: string[] = [];
        const stop = new AbortController();
        const io = { stdout: () => {}, stderr: (t: string) => err.push(t), env: () => undefined, signal: stop.signal };
        const code = await main(["listen", "--kv", path, `--forward-to=${url}`], io);
        stop.abort();
        assert.equal(code, 2, `${JSON.stringify(url)}: ${err.join("\n")}`);
      }),
      { numRuns: 150 },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("listen --hook given twice forwards the hooks of both, as --hook a,b does; another flag given twice is a usage error", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/webhooks.kv`;
  try {
    const kv = await Deno.openKv(path);
    const hooks = createWebhooks(kv);
    for (const id of ["h1", "h2", "h3"]) {
      await hooks.save({ id, tenantId: "t", entity: { resources: { self: { ref: `https://c.example/w/${id}` } } } });
    }
    const relay = createRelay(kv);
    const err: string[] = [];
    const stop = new AbortController();
    const io = { stdout: () => {}, stderr: (t: string) => err.push(t), env: () => undefined, signal: stop.signal };
    const args = [
      "listen",
      "--kv",
      path,
      "--forward-to",
      "http://127.0.0.1:9/hooks",
      "--hook",
      "h1",
      "--hook",
      "h2,h3",
    ];
    const running = main(args, io);
    let listed: string[] | undefined;
    for (let i = 0; i < 200 && listed === undefined; i++) {
      listed = (await relay.destinations.list())[0]?.hookIds;
      if (listed === undefined) await new Promise((r) => setTimeout(r, 25));
    }
    stop.abort();
    assert.equal(await running, 0, err.join("\n"));
    assert.deepEqual(listed, ["h1", "h2", "h3"]);
    assert.match(err.join("\n"), /hooks h1, h2, h3/);

    const twice: string[] = [];
    const code = await main(
      [
        "communities",
        "add",
        "--kv",
        path,
        "--name",
        "A",
        "--name",
        "B",
        "--tenant",
        "t",
        "--base-url",
        "https://c.example",
      ],
      { ...io, stderr: (t: string) => twice.push(t) },
    );
    assert.equal(code, 2);
    assert.match(twice.join("\n"), /--name is given more than once/);
    assert.deepEqual((await hooks.communities.list()).values, [], "nothing stored");
    await relay.close();
    kv.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a list flag repeated with an empty value (--hook a --hook=) is a usage error, as --hook= alone is", async () => {
  const cases: [string[], RegExp][] = [
    [["listen", "--forward-to", "http://127.0.0.1:9/h", "--hook", "h1", "--hook="], /--hook needs a value/],
    [["listen", "--forward-to", "http://127.0.0.1:9/h", "--hook=", "--hook", "h1"], /--hook needs a value/],
    [
      ["hooks", "register", "--community", "A", "--events", "a", "--events", "", "--callback", "https://x.example/h"],
      /'hooks register' needs --events/,
    ],
  ];
  for (const [args, message] of cases) {
    const err: string[] = [];
    const io = { stdout: () => {}, stderr: (t: string) => err.push(t), env: () => undefined };
    assert.equal(await main([...args, "--kv", ":memory:"], io), 2, args.join(" "));
    assert.match(err.join("\n"), message);
  }
});

Deno.test("listen --hook naming no stored webhook fails with status 1, naming --hook and the id, as other commands' unknown ids do", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/webhooks.kv`;
  try {
    const file = await Deno.openKv(path);
    await createWebhooks(file).save({ id: "h1", tenantId: "t", entity: {} });
    file.close();
    for (const hook of ["nope", "h1,nope", "h1,nope,h1"]) {
      const out: string[] = [];
      const err: string[] = [];
      const io = { stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t), env: () => undefined };
      const code = await main(["listen", "--kv", path, "--forward-to", "http://127.0.0.1:9/hooks", "--hook", hook], io);
      assert.equal(code, 1, err.join("\n"));
      // Before: "Error: Cannot add destination: unknown hook id 'nope'", the relay's words, not the flag's.
      assert.equal(err.join("\n"), "Error: No webhook has the id 'nope' (given with --hook)");
      assert.deepEqual(out, []);
    }
    const other: string[] = [];
    const io = { stdout: () => {}, stderr: (t: string) => other.push(t), env: () => undefined };
    assert.equal(await main(["hooks", "unregister", "nope", "--kv", path], io), 1);
    assert.equal(other.join("\n"), "Error: No webhook has the id 'nope'");
    const reopened = await Deno.openKv(path);
    const relay = createRelay(reopened);
    assert.deepEqual(await relay.destinations.list(), [], "no destination left");
    await relay.close();
    reopened.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("listen --hook naming more than 1,000 hooks is a usage error (2) naming --hook; the same id twice counts once", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/webhooks.kv`;
  try {
    const err: string[] = [];
    const io = { stdout: () => {}, stderr: (t: string) => err.push(t), env: () => undefined };
    const many = Array.from({ length: 1001 }, (_, i) => `h${i}`).join(",");
    const code = await main(["listen", "--kv", path, "--forward-to", "http://127.0.0.1:9/hooks", "--hook", many], io);
    // Before: status 1, "Cannot add destination: 'hookIds' must be a non-empty array of hook ids (at most 1000)".
    assert.equal(code, 2, err.join("\n"));
    assert.equal(err[0], "Error: --hook names at most 1,000 hook ids, got 1,001");
    err.length = 0;
    const twice = Array.from({ length: 1001 }, () => "h1").join(",");
    const again = await main(["listen", "--kv", path, "--forward-to", "http://127.0.0.1:9/hooks", "--hook", twice], io);
    assert.equal(again, 1, err.join("\n"));
    assert.equal(err[0], "Error: No webhook has the id 'h1' (given with --hook)");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
