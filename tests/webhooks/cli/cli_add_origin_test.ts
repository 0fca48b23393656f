// `communities add` on a stored tenant keeps the client secret and tokens it
// is not given, on purpose: re-running it to fix a base URL must not lose
// them. Given a base URL of another origin, that sends them there: the token
// endpoint of the new origin gets the client secret, its API the access
// token. The command says so on stderr, naming the two origins and what was
// kept, never the secrets; a base URL moved within its origin, or with every
// secret given anew, or on a community holding none, is said nothing of.

import assert from "node:assert/strict";
import { runAdd, SECOND, SECRET, storedCommunity as stored, withKvFile } from "./_add_setup.ts";

const TOKENS = { CLIENT_SECRET: SECRET, ACCESS_TOKEN: "access-1", REFRESH_TOKEN: "refresh-1" };
const SECRETS = [SECRET, SECOND, "access-1", "refresh-1", "access-2", "refresh-2"];
const run = (path: string, argv: string[], env: Record<string, string> = {}) => runAdd(path, argv, env, SECRETS);
const withKv = (fn: (path: string) => Promise<void>) => withKvFile("cli_add_origin_", fn);

/** `communities add` of tenant `t-a` (named A) or another (named B) at `baseUrl`. */
const add = (baseUrl: string, tenant = "t-a") => [
  ...["communities", "add", "--name", tenant === "t-a" ? "A" : "B"],
  ...["--tenant", tenant, "--base-url", baseUrl],
];

Deno.test("cli communities add moving a base URL to another origin says the kept secret and tokens go there", async () => {
  await withKv(async (path) => {
    assert.equal((await run(path, [...add("https://old.example/jive"), "--client-id", "c1"], TOKENS)).code, 0);
    const moved = await run(path, add("https://new.example/jive"));
    assert.equal(moved.code, 0, moved.err);
    assert.equal(moved.out, "Updated community 'A' (tenant t-a)");
    assert.match(moved.err, /^Warning: the base URL moved from https:\/\/old\.example to https:\/\/new\.example/);
    assert.match(moved.err, /the stored client secret and tokens were kept/);
    assert.match(moved.err, /CLIENT_SECRET|--client-secret/);
    // Kept, as intended: fixing a base URL is what a re-run add is for.
    const community = await stored(path, "t-a");
    assert.equal(community?.baseUrl, "https://new.example/jive");
    assert.equal(community?.clientSecret, SECRET);
    assert.deepEqual(community?.oauth, { access_token: "access-1", refresh_token: "refresh-1" });
    // Another scheme or port is another origin too; --json prints the community on stdout, the warning on stderr.
    const scheme = await run(path, [...add("http://new.example/jive"), "--json"]);
    assert.match(scheme.err, /moved from https:\/\/new\.example to http:\/\/new\.example/);
    assert.equal(JSON.parse(scheme.out).baseUrl, "http://new.example/jive");
    const port = await run(path, add("http://new.example:8080/jive"));
    assert.match(port.err, /moved from http:\/\/new\.example to http:\/\/new\.example:8080/);
  });
});

Deno.test("cli communities add names only what it kept for the new origin", async () => {
  await withKv(async (path) => {
    assert.equal((await run(path, add("https://a.example"), TOKENS)).code, 0);
    const secretGiven = await run(path, add("https://b.example"), { CLIENT_SECRET: SECOND });
    assert.match(secretGiven.err, /Warning: the base URL moved .* the stored tokens were kept/);
    assert.doesNotMatch(secretGiven.err, /client secret/);
    const tokensGiven = await run(path, add("https://c.example"), {
      ACCESS_TOKEN: "access-2",
      REFRESH_TOKEN: "refresh-2",
    });
    assert.match(tokensGiven.err, /Warning: the base URL moved .* the stored client secret was kept/);
    assert.doesNotMatch(tokensGiven.err, /tokens/);
    const allGiven = await run(path, add("https://d.example"), {
      CLIENT_SECRET: SECRET,
      ACCESS_TOKEN: "access-1",
      REFRESH_TOKEN: "refresh-1",
    });
    assert.equal(allGiven.code, 0, allGiven.err);
    assert.doesNotMatch(allGiven.err, /base URL/);
  });
});

Deno.test("cli communities add says nothing of a base URL moved within its origin, or of a community without secrets", async () => {
  await withKv(async (path) => {
    assert.equal((await run(path, add("https://a.example"), TOKENS)).code, 0);
    for (const url of ["https://a.example/jive", "https://A.EXAMPLE:443/other/", "https://a.example"]) {
      const within = await run(path, add(url));
      assert.equal(within.code, 0, within.err);
      assert.equal(within.err, "", url);
    }
    // A new tenant, then one with nothing secret stored, moved: nothing is sent anywhere it was not.
    const fresh = await run(path, add("https://b.example", "t-b"));
    assert.equal(fresh.err, "");
    const bare = await run(path, add("https://c.example", "t-b"));
    assert.equal(bare.code, 0, bare.err);
    assert.equal(bare.err, "");
  });
});
