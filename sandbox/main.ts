/**
 * `deno task sandbox`: serves the sandbox community alone, a Jive-like
 * platform emulator (webhooks API, OAuth, event trigger), for trying Module
 * A or the command line against something that answers like the platform.
 * Prints its address, tenant, base URL and client id (never its secret).
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | `PORT` | `8090` | port to listen on (`0` picks a free one) |
 * | `HOST` | `127.0.0.1` | address to listen on |
 * | `SANDBOX_KV_PATH` | `:memory:` | where its state lives (a KV file keeps it across restarts) |
 *
 * @module
 */

import { Hono } from "hono";
import { createSandbox } from "./mod.ts";
import { keepServing } from "../webhooks/mod.ts";

const port = Number(Deno.env.get("PORT") ?? "8090");
const hostname = Deno.env.get("HOST") ?? "127.0.0.1";
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`PORT must be a whole number from 0 to 65535, got '${Deno.env.get("PORT")}'`);
  Deno.exit(2);
}
const kv = await Deno.openKv(Deno.env.get("SANDBOX_KV_PATH") ?? ":memory:");
const sandbox = createSandbox({ kv, basePath: "/sandbox" });
const app = new Hono();
app.route("/sandbox", sandbox.app);
app.get("/", (c) => c.redirect("/sandbox", 302));
// Held connections that use up the process's file descriptors end Deno.serve's server: keepServing listens again.
const server = keepServing({
  port,
  hostname,
  onDown: (message) => console.warn(`Warning: the sandbox ${message}`),
  onUp: (message) => console.warn(`The sandbox ${message}`),
  onListen: async ({ hostname, port }) => {
    const origin = `http://${hostname}:${port}`;
    const community = await sandbox.communityFor(origin);
    console.log(`Sandbox community on ${origin}/sandbox (Ctrl-C to stop)`);
    // Its client secret is never printed: code gets it from sandbox.communityFor().
    console.log(`Tenant ${community.tenantId}, base URL ${community.baseUrl}, client id ${community.clientId}`);
  },
}, app.fetch);
Deno.addSignalListener("SIGINT", () => server.shutdown());
await server.finished;
kv.close();
