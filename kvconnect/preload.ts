/**
 * Test preload: with `KV_CONNECT=1`, every `Deno.openKv(path)` of the test
 * process goes through KV Connect. One KV Connect server runs in the process;
 * `":memory:"` (or no path) gets a fresh database, and a file path gets the
 * database of that file, shared by every open of the same path, as tests of
 * two "processes" on one file expect. The test receives Deno's own remote
 * client (`Deno.openKv("http://127.0.0.1:PORT/...")`), so every read, write
 * and watch crosses the protocol and denokv's limits. Closing that client
 * closes the local KV behind it once no other client of the same database
 * is open.
 *
 * Used by `deno task test:kvconnect` as `deno test --preload kvconnect/preload.ts`.
 * Without `KV_CONNECT=1` it changes nothing.
 *
 * @module
 */
import { resolve } from "node:path";
import type { Database } from "./_http.ts";
import { databaseId, newToken, openLocalKv, type RunningServer, serveKvConnect } from "./_serve.ts";

interface Served extends Database {
  clients: number;
}

async function install(): Promise<void> {
  // Deno.env is shared by every test module of the process (`--parallel` runs them side by side), and
  // Deno.openKv reads DENO_KV_ACCESS_TOKEN from it: every module's server takes the one token of the run.
  const token = Deno.env.get("KV_CONNECT_TOKEN") ?? newToken();
  const byName = new Map<string, Served>();
  const byId = new Map<string, Served>();
  const server: RunningServer = await serveKvConnect({
    token,
    open: (pathname) => Promise.resolve(byName.get(decodeURIComponent(pathname.slice(1))) ?? null),
    byId: (id) => byId.get(id),
  });
  // A listening server would keep the test runner waiting for the event loop after the preload.
  server.unref();
  const base = `http://127.0.0.1:${server.port}`;
  Deno.env.set("DENO_KV_ACCESS_TOKEN", token);

  async function acquire(name: string, path: string): Promise<Served> {
    let served = byName.get(name);
    if (!served) {
      served = { id: databaseId(), kv: await openLocalKv(path), clients: 0 };
      byName.set(name, served);
      byId.set(served.id, served);
    }
    served.clients++;
    return served;
  }

  function release(name: string, served: Served): void {
    if (--served.clients > 0) return;
    byName.delete(name);
    byId.delete(served.id);
    served.kv.close();
  }

  const remote = globalThis.Deno.openKv;
  async function openKvOverKvConnect(path?: string): Promise<Deno.Kv> {
    if (path !== undefined && /^https?:\/\//.test(path)) return await remote.call(Deno, path);
    const memory = path === undefined || path === "" || path === ":memory:";
    const name = memory ? `memory/${databaseId()}` : `file/${resolve(path)}`;
    const served = await acquire(name, memory ? ":memory:" : path);
    let client: Deno.Kv;
    try {
      client = await remote.call(Deno, `${base}/${encodeURIComponent(name)}`);
    } catch (error) {
      release(name, served);
      throw error;
    }
    const close = client.close.bind(client);
    let closed = false;
    client.close = () => {
      close();
      if (closed) return;
      closed = true;
      release(name, served);
    };
    return client;
  }
  // Deno.openKv is an accessor on the Deno namespace: it is redefined, not assigned.
  Object.defineProperty(Deno, "openKv", { value: openKvOverKvConnect, configurable: true, writable: true });
}

if (Deno.env.get("KV_CONNECT") === "1") await install();
