/**
 * The console signing in through the sandbox (no OAUTH_* variables) warns on stderr when it listens where others can
 * reach it, since the sandbox approves anyone; on an address that reaches this machine only, it says nothing. Every
 * spelling of a loopback address is loopback: `::ffff:127.0.0.1` (IPv4-mapped) and `0:0:0:0:0:0:0:1` (`::1` written
 * out) were warned about as if open to the network, and so were `LOCALHOST` and `127.1`, which listen on 127.0.0.1.
 */

import assert from "node:assert/strict";
import { endChild } from "../_child.ts";
import { consoleCommand, untilStartLine } from "./_main_process.ts";

/** What the console started on `host` said on stderr by the time it printed its start line. */
async function startedOn(host: string, more: Record<string, string> = {}): Promise<string> {
  const child = consoleCommand({ PORT: "0", KV_PATH: ":memory:", HOST: host, ...more }).spawn();
  const stderr = new Response(child.stderr).text();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const out = await untilStartLine(reader);
  await reader.cancel();
  await endChild(child, "SIGTERM");
  assert.match(out, /listening on/, `HOST=${host} started: ${await stderr}`);
  return await stderr;
}

const WARNING = /Warning: the console listens on [^\n]* which approves anyone/;

/** What each console started on `hosts` said on stderr ({@linkcode startedOn}), four starting at a time. */
async function startedOnEach(hosts: string[]): Promise<string[]> {
  const said: string[] = [];
  let next = 0;
  const starter = async () => {
    for (let i = next++; i < hosts.length; i = next++) said[i] = await startedOn(hosts[i]);
  };
  await Promise.all(Array.from({ length: 4 }, starter));
  return said;
}

Deno.test("the sandbox warning: none on a loopback address however written, one where others can reach", async () => {
  // Thirteen console processes, each waited for until its start line: started four at a time rather than one by one.
  const loopback = ["127.0.0.1", "127.3.2.1", "localhost", "::1", "[::1]", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1"];
  // Names and IPv4 shorthands that Deno.serve binds to 127.0.0.1: the address listened on is what counts.
  const bound = ["LOCALHOST", "127.1", "0x7f.1", "::ffff:7f00:1"];
  const open = ["0.0.0.0", "::"];
  const said = await startedOnEach([...loopback, ...bound, ...open]);
  for (const [i, host] of [...loopback, ...bound].entries()) {
    // Any wording of the warning: the one for a loopback address reached through PUBLIC_URL too.
    assert.doesNotMatch(said[i], /approves anyone/, `HOST=${host} reaches this machine only`);
  }
  for (const [i, host] of open.entries()) {
    assert.match(said[loopback.length + bound.length + i], WARNING, `HOST=${host} is reached from the network`);
  }
});

/** What the console bound to 127.0.0.1 behind `publicUrl` (a proxy's address) said on stderr by its start line. */
function behind(publicUrl: string): Promise<string> {
  return startedOn("127.0.0.1", { PUBLIC_URL: publicUrl });
}

// PUBLIC_URL is where browsers reach the console: a proxy there lets anyone reach the sandbox's sign-in, loopback or not.
Deno.test("the sandbox warning: one behind a proxy at a public URL, none when the URL is loopback too", async () => {
  const warned = await behind("https://console.example.com");
  assert.match(warned, /Warning: [^\n]*https:\/\/console\.example\.com[^\n]* which approves anyone/);
  assert.doesNotMatch(await behind("http://localhost:9999"), /approves anyone/, "PUBLIC_URL on loopback");
});
