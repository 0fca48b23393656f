// The topology past one machine, for tests/console/remote_consoles_test.ts
// and tests/console/log/live_completeness_test.ts: two console processes on
// one KV served over KV Connect (the test server of kvconnect/, denokv's
// limits), seeded with the load fixture's community and hook; a follower of
// a console's live stream; and a signed postback of the fixture.

import { type KvConnectServer, startKvConnectServer } from "../../kvconnect/mod.ts";
import { type LoadFixture, loadFixture, postbackBody, type Signer } from "../../scripts/load_postbacks.ts";
import { seedConsoleKv, type Started, startProcess } from "../../scripts/load_processes.ts";
import type { Client } from "./_helpers.ts";
import { readEvents } from "./_live_stream.ts";
import { TEST_TOKEN } from "../kvconnect/token.ts";

/** Two consoles on one remote KV. */
export interface RemoteConsoles {
  /** The KV Connect server both use. */
  server: KvConnectServer;
  /** The community and hook the KV was seeded with. */
  fixture: LoadFixture;
  /** The two console processes. */
  consoles: Started[];
  /** Stops the consoles and the server, and removes the KV file. */
  close(): Promise<void>;
}

function remoteConsole(url: string): Promise<Started> {
  return startProcess(["console/main.ts"], {
    PORT: "0",
    HOST: "127.0.0.1",
    KV_PATH: url,
    DENO_KV_ACCESS_TOKEN: TEST_TOKEN,
    SANDBOX: "on",
    DELIVERIES_RETAIN: "100000",
    RATE_LIMIT_RECEIVER: "0",
  });
}

/**
 * Starts a KV Connect server on a KV file in a new folder (named with
 * `prefix`), seeds it with the load fixture and starts two consoles on it
 * (sandbox on, nothing trimmed, no receiver limit).
 */
export async function startRemoteConsoles(prefix: string): Promise<RemoteConsoles> {
  const dir = await Deno.makeTempDir({ prefix });
  const server = await startKvConnectServer({ path: `${dir}/remote.kv`, token: TEST_TOKEN });
  Deno.env.set("DENO_KV_ACCESS_TOKEN", TEST_TOKEN);
  const fixture = loadFixture();
  const consoles: Started[] = [];
  const close = async () => {
    for (const c of consoles) await c.stop().catch(() => {});
    await server.close();
    await Deno.remove(dir, { recursive: true });
  };
  try {
    await seedConsoleKv(server.url, fixture);
    consoles.push(await remoteConsole(server.url), await remoteConsole(server.url));
  } catch (error) {
    await close();
    throw error;
  }
  return { server, fixture, consoles, close };
}

/**
 * Follows a console's live stream (`/deliveries/events`, signed in as
 * `client`): `onDelivery` is given the data of each delivery event, every
 * one (repeats too), until `stop()`. `ready` resolves once the console said
 * where the stream starts (its `ready` event): every delivery stored after
 * that comes through.
 */
export function followDeliveries(
  origin: string,
  client: Client,
  onDelivery: (data: { id: string; seq: number }) => void,
): { ready: Promise<void>; stop(): void } {
  const done = new AbortController();
  const ready = Promise.withResolvers<void>();
  ready.promise.catch(() => {}); // awaited by the caller when it needs it
  readEvents(origin, client, ({ event, data }) => {
    if (event === "ready") ready.resolve();
    if (event === "delivery" && data) onDelivery(JSON.parse(data));
  }, { signal: done.signal }).catch((error) => ready.reject(error));
  return { ready: ready.promise, stop: () => done.abort() };
}

/** Posts the fixture's postback `id` (one item), signed, to a console's receiver; resolves with the status. */
export async function postFixture(origin: string, fixture: LoadFixture, signer: Signer, id: string): Promise<number> {
  const res = await fetch(`${origin}/hooks/${fixture.hook.id}`, {
    method: "POST",
    headers: { authorization: signer.next(), "content-type": "application/json" },
    body: postbackBody(fixture.ref, id),
  });
  await res.body?.cancel();
  return res.status;
}
