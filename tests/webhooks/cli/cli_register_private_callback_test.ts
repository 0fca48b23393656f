// `hooks register` with a callback on a loopback, private, link-local or unspecified address (or a `localhost` name)
// registers it, as API.md fixes, and then says ONE warning line on stderr: a platform on the internet cannot post
// there, and what to do instead. The console's register form warns so; the command line said nothing, and the
// operator learnt of it only when no postback ever came. Its stdout (and `--json`'s document) and status are those of
// any register; a public name or address gets no warning; no DNS lookup is made for it (a name is not resolved).

import assert from "node:assert/strict";
import fc from "fast-check";
import { endedCleanly, runMain } from "./_relay_setup.ts";
import { ACCESS, addAcme, REFRESH, SECRET } from "./_cli_setup.ts";
import { type Platform, startPlatform } from "../platform.ts";

const env = { ACCESS_TOKEN: ACCESS, REFRESH_TOKEN: REFRESH };
const REGISTER = ["hooks", "register", "--community", "Acme", "--events", "user_account", "--callback"];

const PRIVATE = [
  "http://127.0.0.1:8080/hooks",
  "http://[::1]:8080/hooks",
  "http://[::ffff:127.0.0.1]/hooks",
  "https://10.1.2.3/h",
  "https://192.168.1.20/h",
  "http://169.254.169.254/h",
  "http://[fc00::1]/h",
  "http://[fe80::1]/h",
  "http://localhost:8080/hooks",
  "http://a.localhost/h",
  "http://LOCALHOST./h",
  "http://0.0.0.0:8080/h",
  "http://[::]/h",
  "http://172.16.0.9/h",
  "http://2130706433/h", // 127.0.0.1, as the URL reads it
];
const PUBLIC = [
  "https://me.example/h",
  "http://93.184.216.34/h",
  "https://[2606:4700::1111]/h",
  "https://localhost.me/h",
];

async function withAcme(fn: (path: string, platform: Platform) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "cli_register_private_" });
  const path = `${dir}/webhooks.kv`;
  const platform = await startPlatform({ clientSecret: SECRET });
  try {
    const added = await runMain(addAcme(path, platform.url, false), env);
    assert.equal(added.code, 0, added.err);
    await fn(path, platform);
  } finally {
    await platform.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("cli hooks register of a private callback registers it and warns on one stderr line what to do", async () => {
  await withAcme(async (path, platform) => {
    for (const callback of PRIVATE) {
      const ran = await runMain([...REGISTER, callback, "--kv", path], env);
      assert.equal(ran.code, 0, `${callback}: ${ran.err}`);
      assert.match(ran.out, /^Registered webhook \S+ \(.+\) as record \S+$/, callback);
      const lines = ran.err.split("\n");
      assert.equal(lines.length, 1, `${callback}: one line, not ${ran.err}`);
      assert.match(lines[0], /^Warning: .*platform on the internet cannot post/, callback);
      assert.match(lines[0], /public URL/, callback);
      assert.match(lines[0], /tunnel/, callback);
      assert.match(lines[0], /deno task cli (receive|listen)/, callback);
      assert.ok(lines[0].includes(new URL(callback).host), `${callback}: the host is named: ${lines[0]}`);
    }
    const hooks = await platform.listHooks();
    assert.equal(hooks.length, PRIVATE.length, "each was registered");
  });
});

Deno.test("cli hooks register --json of a private callback keeps stdout one JSON document, the warning on stderr", async () => {
  await withAcme(async (path) => {
    const ran = await runMain([...REGISTER, "http://127.0.0.1:8080/hooks", "--json", "--kv", path], env);
    assert.equal(ran.code, 0, ran.err);
    const doc = JSON.parse(ran.out);
    assert.deepEqual(Object.keys(doc), ["status", "entity", "record"]);
    assert.equal(doc.entity.callback, "http://127.0.0.1:8080/hooks");
    assert.match(ran.err, /^Warning: [^\n]*cannot post[^\n]*$/);
  });
});

Deno.test("cli hooks register's warning names the host only, never the callback's user info", async () => {
  await withAcme(async (path) => {
    const ran = await runMain(
      [...REGISTER, "http://tok-user:cb-pa55@192.168.0.4:9000/h?sig=q-s3cret", "--kv", path],
      env,
    );
    assert.equal(ran.code, 0, ran.err);
    assert.match(ran.err, /^Warning: .*192\.168\.0\.4:9000/);
    for (const secret of ["tok-user", "cb-pa55", "q-s3cret"]) assert.ok(!ran.err.includes(secret), ran.err);
  });
});

Deno.test("cli hooks register of a public callback warns of nothing, and looks up no name", async () => {
  await withAcme(async (path) => {
    const resolveDns = Deno.resolveDns;
    const looked: string[] = [];
    Deno.resolveDns = ((name: string) => {
      looked.push(name);
      return Promise.reject(new Error("no DNS here"));
    }) as typeof Deno.resolveDns;
    try {
      for (const callback of PUBLIC) {
        for (const json of [[], ["--json"]]) {
          const ran = await runMain([...REGISTER, callback, ...json, "--kv", path], env);
          assert.equal(ran.code, 0, `${callback}: ${ran.err}`);
          assert.equal(ran.err, "", callback);
        }
      }
    } finally {
      Deno.resolveDns = resolveDns;
    }
    assert.deepEqual(looked, []);
  });
});

Deno.test("cli hooks register's callback warning never throws nor prints a stack, whatever the host", async () => {
  await withAcme(async (path) => {
    const host = fc.oneof(
      fc.domain(),
      fc.ipV4().map(String),
      fc.ipV4Extended(),
      fc.ipV6().map((ip) => `[${ip}]`),
      fc.string({ unit: "binary", maxLength: 20 }),
      fc.constantFrom("localhost", "x.localhost.", "[::ffff:10.0.0.1]", "0x7f.1", "[fe80::1%25eth0]", "", "[", "%00"),
    );
    const callback = fc.tuple(fc.constantFrom("http", "https"), host, fc.option(fc.integer({ min: 0, max: 70000 })))
      .map(([scheme, h, port]) => `${scheme}://${h}${port === null ? "" : `:${port}`}/h`);
    await fc.assert(
      fc.asyncProperty(callback, fc.boolean(), async (url, json) => {
        const argv = [...REGISTER, url, ...(json ? ["--json"] : []), "--kv", path];
        const ran = await runMain(argv, env);
        const what = endedCleanly(argv, ran);
        if (ran.code !== 0) return;
        assert.ok(ran.err === "" || /^Warning: [^\n]+$/.test(ran.err), `${what}: ${ran.err}`);
        if (json) JSON.parse(ran.out);
      }),
      { numRuns: 120 },
    );
  });
});
