/**
 * `deno task sandbox`: serves the sandbox community alone, a Jive-like
 * platform emulator (webhooks API, OAuth, event trigger), for trying Module
 * A or the command line against something that answers like the platform.
 * Prints its address, tenant, base URL and client id (never its secret).
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | `PORT` | `8090` | port to listen on (`0` picks a free one) |
 * | `HOST` | `127.0.0.1` | address to listen on (`0.0.0.0` or `::` for all interfaces: it then prints and stores `localhost`) |
 * | `SANDBOX_KV_PATH` | `:memory:` | where its state lives (a KV file keeps it across restarts) |
 *
 * @module
 */

import { Hono } from "hono";
import { createSandbox } from "./mod.ts";
import { keepServing } from "../webhooks/mod.ts";

/** A variable's value, trimmed; an empty one (or spaces only) counts as unset, as the console reads its own. */
function env(name: string): string | undefined {
  const v = Deno.env.get(name)?.trim();
  return v === undefined || v === "" ? undefined : v;
}

const rawPort = env("PORT") ?? "8090";
// Only a plain decimal: Number() reads "0x10" as 16 and "8e3" as 8000, ports no one meant.
const port = /^\d+$/.test(rawPort) ? Number(rawPort) : NaN;
const hostname = env("HOST") ?? "127.0.0.1";
/** `host` as a URL's host writes it: an IPv6 address in brackets, once (HOST may already have them). */
const urlHost = (host: string) => host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
/**
 * The host of the URL it prints and stores: `localhost` for an address that listens on every interface (`0.0.0.0`,
 * `::`), which is no address to browse or post to (the console shows `localhost` for one too); else `host` as a URL
 * writes it.
 */
const reachableHost = (host: string) => /^(0\.0\.0\.0|\[?(0*:){2,7}0*\]?)$/.test(host) ? "localhost" : urlHost(host);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`PORT must be a whole number from 0 to 65535, got '${rawPort}'`);
  Deno.exit(2);
}
const kvPath = env("SANDBOX_KV_PATH") ?? ":memory:";
// A missing folder or a file that is no database: said in one line naming the variable, the file untouched.
const kv = await Deno.openKv(kvPath).catch((err) => {
  const why = (err instanceof Error ? err.message : String(err)).replace(/\s+/g, " ").trim();
  console.error(`Cannot start the sandbox: cannot open SANDBOX_KV_PATH '${kvPath}': ${why}`);
  return Deno.exit(1);
});
const sandbox = createSandbox({ kv, basePath: "/sandbox" });
const app = new Hono();
app.route("/sandbox", sandbox.app);
app.get("/", (c) => c.redirect("/sandbox", 302));
// Held connections that use up the process's file descriptors end Deno.serve's server: keepServing listens again.
let server: Deno.HttpServer<Deno.NetAddr>;
try {
  server = keepServing({
    port,
    hostname,
    onDown: (message) => console.warn(`Warning: the sandbox ${message}`),
    onUp: (message) => console.warn(`The sandbox ${message}`),
    onListen: async ({ hostname, port }) => {
      const origin = `http://${reachableHost(hostname)}:${port}`;
      const community = await sandbox.communityFor(origin);
      console.log(`Sandbox community on ${origin}/sandbox (Ctrl-C to stop)`);
      // Its client secret is never printed: code gets it from sandbox.communityFor().
      console.log(`Tenant ${community.tenantId}, base URL ${community.baseUrl}, client id ${community.clientId}`);
    },
  }, app.fetch);
} catch (err) {
  kv.close();
  const at = `${urlHost(hostname)}:${port}`;
  console.error(
    err instanceof Deno.errors.AddrInUse
      ? `Cannot start the sandbox: ${at} is in use (another process listens there): set PORT to another port`
      : `Cannot start the sandbox: cannot listen on ${at} (check HOST and PORT): ${
        err instanceof Error ? err.message : String(err)
      }`,
  );
  Deno.exit(1);
}
Deno.addSignalListener("SIGINT", () => server.shutdown());
await server.finished;
kv.close();
