// `relay add` and `hooks update`, the CLI's newest commands, given any flag value from outside: control characters,
// binary and grapheme strings, lone surrogates, 10,000 characters, URLs with IPv6, IDN, ports out of range, a
// fragment, user info; hook ids repeated or empty; WEBHOOK_SECRET junk; events junk. Every run ends 0, 1 or 2 with
// no stack; a failure says `Error: ...`; no output holds a secret (the client secret, the tokens, WEBHOOK_SECRET, a
// callback's password, a generated secret unless --print-secret asked for it); a refusal changes nothing stored,
// and a usage error (2) sends no request to the platform. In process through `main`, on a real KV file and the
// sandbox platform on 127.0.0.1.

import assert from "node:assert/strict";
import fc from "fast-check";
import { endedCleanly, runMain, snapshot } from "./_relay_setup.ts";
import { ACCESS, addAcme, REFRESH, registerAcmeHook, SECRET } from "./_cli_setup.ts";
import { startPlatform } from "../platform.ts";

const WEBHOOK_SECRET = "whsec_" + btoa("an app's secret of 32 bytes here");
const PASSWORD = "pa55-in-the-url";

const value = fc.oneof(
  fc.string({ unit: "binary", maxLength: 30 }),
  fc.string({ unit: "grapheme", maxLength: 30 }),
  fc.constantFrom(
    "x".repeat(10_000),
    "\ud800",
    "a\u0000b",
    " ",
    ",",
    "h1,h1",
    "h1,,h2, ",
    "user_account",
    "document,user_account",
    "user_account,\u0007",
  ),
  fc.constantFrom(
    "https://[::1]:3000/h",
    "https://[2001:db8::7]/h",
    "http://[fe80::1%25eth0]/h",
    "https://bücher.example/h",
    "https://xn--bcher-kva.example/h",
    "https://app.example:99999/h",
    "https://app.example:0/h",
    "https://app.example/h#frag",
    `https://user:${PASSWORD}@app.example/h`,
    `https://${PASSWORD}@app.example/h`,
    "https://app.example/\ud800",
    "https://app.example/h\r\nX: y",
    `https://app.example/${"a".repeat(10_000)}`,
    "//app.example/h",
    "ftp://app.example/h",
  ),
  fc.string({ maxLength: 12 }).map((s) => `--${s}`),
);
/** Values the commands take (so that runs get past the checks to the store and the platform), a password among them. */
const good = fc.oneof(
  { arbitrary: fc.nat(1000).map((n) => `https://app.example/${n}`), weight: 1 },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      "https://new.example/hooks/1",
      `https://receiver:${PASSWORD}@new.example/hooks/1`,
      "http://127.0.0.1:3000/h",
      "user_account",
      "user_membership,user_session",
    ),
  },
);
const either = fc.oneof({ arbitrary: value, weight: 1 }, { arbitrary: good, weight: 1 });

/** For a flag that takes no URL: a URL's password pasted there is echoed as what it was given as (an event, an id). */
const noPassword = (v: string) => !v.includes(PASSWORD);

const secretValue = fc.oneof(
  fc.constant(undefined),
  fc.constant(WEBHOOK_SECRET),
  fc.constantFrom(
    "whsec_",
    "whsec_short",
    "junk",
    "whsec_\ud800",
    `${WEBHOOK_SECRET}\n`,
    "whsec_" + "A".repeat(10_000),
  ),
  fc.string({ unit: "binary", maxLength: 20 }),
);

/** Fails when `text` holds a secret of the set-up or a callback's password. */
function noSecret(what: string, text: string): void {
  for (const secret of [SECRET, ACCESS, REFRESH, PASSWORD, WEBHOOK_SECRET]) {
    assert.ok(!text.includes(secret), `${what} printed ${secret.slice(0, 12)}...: ${text.slice(0, 300)}`);
  }
}

Deno.test("cli relay add and hooks update: any flag value ends 0, 1 or 2, says what is wrong, prints no secret, a refusal changes nothing", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cli_add_update_fuzz_" });
  const path = `${dir}/webhooks.kv`;
  const platform = await startPlatform({ clientSecret: SECRET });
  const kv = await Deno.openKv(path);
  const env = { ACCESS_TOKEN: ACCESS, REFRESH_TOKEN: REFRESH };
  try {
    assert.equal((await runMain(addAcme(path, platform.url), env)).code, 0);
    const reg = await runMain([...registerAcmeHook(path), "--callback", "https://me.example/h", "--json"], env);
    assert.equal(reg.code, 0, reg.err);
    const id: string = JSON.parse(reg.out).record.id;

    const addFlag = fc.oneof(
      value.map((v) => [`--url=${v}`]),
      value.filter(noPassword).map((v) => ["--hook", v]),
      fc.constantFrom(["--print-secret"], ["--allow-private-network"], ["--json"], ["--hook", id]),
      secretValue.map((s) => (s === undefined ? [] : ["--secret", s])),
    );
    const add = fc.tuple(either, fc.array(addFlag, { maxLength: 2 }), secretValue).map(([url, flags, secret]) => ({
      argv: ["relay", "add", "--url", url, ...flags.flat()],
      env: { ...env, ...(secret === undefined ? {} : { WEBHOOK_SECRET: secret }) },
    }));
    const updateFlag = fc.oneof(
      either.filter(noPassword).map((v) => ["--events", v]),
      value.map((v) => ["--object", v]),
      either.map((v) => ["--callback", v]),
      value.map((v) => [`--callback=${v}`]),
      fc.constantFrom(["--enable"], ["--disable"], ["--no-object"], ["--json"]),
    );
    const update = fc.tuple(
      fc.oneof(fc.constant(id), fc.constant(id), value.filter(noPassword)),
      fc.array(updateFlag, { maxLength: 2 }),
    )
      .map(([hook, flags]) => ({ argv: ["hooks", "update", hook, ...flags.flat()], env }));

    await fc.assert(
      fc.asyncProperty(fc.oneof(add, update), async ({ argv, env }) => {
        const before = await snapshot(kv);
        const puts = platform.requests("PUT").length;
        const ran = await runMain([...argv, "--kv", path], env);
        const what = endedCleanly(argv, ran);
        // A generated secret is shown only when asked for, on stderr; any other secret never.
        const asked = argv.includes("--print-secret") && ran.code === 0;
        noSecret(what, ran.out + (asked ? ran.err.replace(/^Signing secret: whsec_\S+$/m, "") : ran.err));
        if (!asked) assert.doesNotMatch(ran.out + ran.err, /whsec_[A-Za-z0-9+/]{8}/, `${what} printed a secret`);
        if (ran.code !== 0) assert.deepEqual(await snapshot(kv), before, `${what} changed what is stored`);
        if (ran.code === 2) assert.equal(platform.requests("PUT").length, puts, `${what} sent a PUT`);
      }),
      { numRuns: 400 },
    );
  } finally {
    kv.close();
    await platform.close();
    await Deno.remove(dir, { recursive: true });
  }
});
