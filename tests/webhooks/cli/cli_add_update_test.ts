// `communities add` on a tenant id already stored updates its community: the
// fields given replace, those not given (client id, client secret, tokens)
// are kept, and the line says "Updated". Before, it replaced the community:
// a script re-running `add` to fix a base URL lost the secret and tokens, and
// every later register failed. A name of another tenant is still refused,
// nothing stored changing; two adds at once of one tenant lose no field.

import assert from "node:assert/strict";
import { runAdd as run, SECOND, SECRET, storedCommunity as stored, withKvFile } from "./_add_setup.ts";

const withKv = (fn: (path: string) => Promise<void>) => withKvFile("cli_add_update_", fn);

const add = (name: string, tenant: string, baseUrl: string) => [
  "communities",
  "add",
  "--name",
  name,
  "--tenant",
  tenant,
  "--base-url",
  baseUrl,
];
const TOKENS = { CLIENT_SECRET: SECRET, ACCESS_TOKEN: "access-1", REFRESH_TOKEN: "refresh-1" };

Deno.test("cli communities add on a stored tenant keeps its client id, secret and tokens, and says Updated", async () => {
  await withKv(async (path) => {
    const first = await run(path, [...add("A", "t-a", "https://old.example"), "--client-id", "c1"], TOKENS);
    assert.equal(first.code, 0, first.err);
    assert.equal(first.out, "Added community 'A' (tenant t-a)");
    const again = await run(path, add("A", "t-a", "https://new.example"));
    assert.equal(again.code, 0, again.err);
    // Before: "Saved community 'A' (tenant t-a)", a client secret "removed (none given)", the tokens gone.
    assert.equal(again.out, "Updated community 'A' (tenant t-a)");
    const community = await stored(path, "t-a");
    assert.equal(community?.baseUrl, "https://new.example");
    assert.equal(community?.clientId, "c1");
    assert.equal(community?.clientSecret, SECRET);
    assert.deepEqual(community?.oauth, { access_token: "access-1", refresh_token: "refresh-1" });
    const json = await run(path, [...add("A", "t-a", "https://new.example"), "--json"]);
    assert.equal(json.code, 0, json.err);
    assert.deepEqual(JSON.parse(json.out), {
      name: "A",
      tenantId: "t-a",
      baseUrl: "https://new.example",
      clientId: "c1",
      hasClientSecret: true,
      hasAccessToken: true,
      hasRefreshToken: true,
      renewedAt: null,
    });
    assert.ok(!json.out.includes(SECRET) && !json.out.includes("access-1"), "a secret was printed");
  });
});

Deno.test("cli communities add refuses another tenant's name and changes nothing stored", async () => {
  await withKv(async (path) => {
    assert.equal((await run(path, add("A", "t-a", "https://a.example"), TOKENS)).code, 0);
    assert.equal((await run(path, add("B", "t-b", "https://b.example"), { CLIENT_SECRET: SECOND })).code, 0);
    const [a, b] = [await stored(path, "t-a"), await stored(path, "t-b")];
    const refused = await run(path, add("A", "t-b", "https://changed.example"));
    assert.equal(refused.code, 1);
    assert.match(refused.err, /^Error: .*the name "A" is already used by another tenant/);
    assert.equal(refused.out, "");
    assert.deepEqual(await stored(path, "t-a"), a);
    assert.deepEqual(await stored(path, "t-b"), b);
  });
});

Deno.test("cli communities add twice at once on one tenant loses no field of either", async () => {
  await withKv(async (path) => {
    assert.equal((await run(path, add("A", "t-a", "https://a.example"))).code, 0);
    const [one, two] = await Promise.all([
      run(path, add("A", "t-a", "https://a.example"), { CLIENT_SECRET: SECRET }),
      run(path, add("A", "t-a", "https://a.example"), { ACCESS_TOKEN: "access-2", REFRESH_TOKEN: "refresh-2" }),
    ]);
    assert.equal(one.code, 0, one.err);
    assert.equal(two.code, 0, two.err);
    const community = await stored(path, "t-a");
    assert.equal(community?.clientSecret, SECRET);
    assert.deepEqual(community?.oauth, { access_token: "access-2", refresh_token: "refresh-2" });
  });
});

Deno.test("cli communities add with another client id but no secret warns that the stored secret was kept", async () => {
  await withKv(async (path) => {
    assert.equal((await run(path, [...add("A", "t-a", "https://a.example"), "--client-id", "c1"], TOKENS)).code, 0);
    // The secret (and the tokens) were issued to client c1: kept beside c2, postbacks of c2 would fail to verify.
    const moved = await run(path, [...add("A", "t-a", "https://a.example"), "--client-id", "c2"]);
    assert.equal(moved.code, 0, moved.err);
    assert.match(moved.err, /Warning: the client id changed \(c1 to c2\) but the stored client secret was kept/);
    assert.match(moved.err, /--client-secret|CLIENT_SECRET/);
    for (const secret of [SECRET, "access-1", "refresh-1"]) assert.ok(!(moved.err + moved.out).includes(secret));
    assert.equal((await stored(path, "t-a"))?.clientSecret, SECRET);
    // Given with it, or the same client id again: nothing to warn of.
    const both = await run(path, [...add("A", "t-a", "https://a.example"), "--client-id", "c3"], {
      CLIENT_SECRET: SECOND,
    });
    assert.doesNotMatch(both.err, /Warning/);
    const same = await run(path, [...add("A", "t-a", "https://a.example/jive"), "--client-id", "c3"]);
    assert.doesNotMatch(same.err, /Warning/);
  });
});
