/**
 * `main(argv, io)`: parses the command line, runs one command and returns its
 * exit status. The entry point that runs it is `webhooks/cli.ts`.
 *
 * @module
 */

import { checkMainArguments, commandUsage, parse, topUsage, UsageError } from "./_args.ts";
import { type CommandContext, runCommand, UsageHint } from "./_commands.ts";
import { createWebhooks } from "../webhooks.ts";
import { NO_TOKEN_REASON } from "../platform/mod.ts";
import { blotSecrets } from "../_util.ts";
import { printable } from "./_format.ts";
import { shownUrl } from "./_shown.ts";
import { handleInterrupts } from "./_interrupt.ts";
import { isKvConnect, kvTimeoutSeconds, limitedKv, withinLimit, withoutUserInfo } from "./_kv_limit.ts";

/**
 * Where the command line reads and writes. {@linkcode main} uses the
 * process's own when none is given.
 *
 * @example Usage
 * ```ts
 * import type { CliIO } from "@community-webhooks/sdk/cli";
 * import assert from "node:assert/strict";
 *
 * const out: string[] = [];
 * const io: CliIO = { stdout: (t) => out.push(t), stderr: () => {}, env: () => undefined };
 * io.stdout("hello");
 * assert.deepEqual(out, ["hello"]);
 * ```
 */
export interface CliIO {
  /** Writes one line (or block) of output. */
  stdout(text: string): void;
  /** Writes one line of diagnostics: errors, progress, the listening address. */
  stderr(text: string): void;
  /** Reads an environment variable. */
  env(name: string): string | undefined;
  /** Whether stderr is a terminal: the paging progress of `hooks list` and the like is shown only then (that of `reconcile` and `migrate` always). Default `false`. */
  stderrIsTerminal?: boolean;
  /** Ends a running `receive` (the process's Ctrl-C does it when `io` is the process's). */
  signal?: AbortSignal;
  /** The fetch for platform calls; default the global one. */
  fetch?: typeof fetch;
}

const encoder = new TextEncoder();

function processIO(signal: AbortSignal): CliIO {
  return {
    stdout: (text) => void Deno.stdout.writeSync(encoder.encode(text + "\n")),
    stderr: (text) => void Deno.stderr.writeSync(encoder.encode(text + "\n")),
    env: (name) => Deno.env.get(name),
    stderrIsTerminal: Deno.stderr.isTerminal(),
    signal,
  };
}

/**
 * `io` writing every line through `printable`: stored data and the
 * platform's answers reach a terminal with their control characters as
 * escapes (JSON output stays JSON: an escape is valid in its strings, and
 * outside them it has none). Once a write to stdout found its reader gone (a
 * closed pipe: `| head -1`, a pager quit), every later one throws without
 * writing, so that a command stops there (a list reads no further page).
 * `readerGone(error)` tells `main` that `error` is such a throw, to end
 * quietly: only then, never for another failure thrown after (a destination
 * not removed, a 410 that disabled it), which exit 0 would hide.
 */
function printing(io: CliIO): { cli: CliIO; readerGone: (error: unknown) => boolean } {
  const lines = (text: string) => text.split("\n").map(printable).join("\n");
  let gone = false;
  const thrown = new WeakSet<object>(); // what stdout threw for its reader gone
  const stdout = (text: string) => {
    try {
      if (gone) throw new Deno.errors.BrokenPipe("stdout's reader is gone");
      io.stdout(lines(text));
    } catch (error) {
      if (error instanceof Deno.errors.BrokenPipe) {
        gone = true;
        thrown.add(error);
      }
      throw error;
    }
  };
  const stderr = (text: string) => {
    try {
      io.stderr(lines(text));
    } catch {
      // Its reader is gone (a closed pipe): there is nowhere left to say anything, and the status still tells.
    }
  };
  return { cli: { ...io, stdout, stderr }, readerGone: (error) => error instanceof Object && thrown.has(error) };
}

/** Says a usage error on stderr, the usage after it, and gives its exit status (2, API.md). */
function usageFailure(cli: CliIO, message: string, usage: string): 2 {
  cli.stderr(`Error: ${message}`);
  cli.stderr("");
  cli.stderr(usage);
  return 2;
}

/** The message of anything thrown, with every known secret value blotted out. */
function messageOf(error: unknown, secrets: string[]): string {
  const raw = error instanceof Error
    ? error.message + causeOf(error)
    : typeof (error as { error?: unknown } | null)?.error === "string"
    ? (error as { error: string }).error
    : String(error);
  // Blotted before the first line is kept: a secret with a line break in it would otherwise be cut in two.
  return blotSecrets(raw, secrets, "[secret]").split("\n")[0];
}

/** What to do next, where the library's message (worded by SPEC.md) does not say it. */
function hintOf(error: unknown): string {
  return error instanceof Error && error.message.includes(NO_TOKEN_REASON)
    ? ": store one with ACCESS_TOKEN=... REFRESH_TOKEN=... deno task cli communities add --name NAME --tenant ID " +
      "--base-url URL (the fields not given are kept)"
    : "";
}

/**
 * What a failed `fetch` hides in its cause: Deno's TypeError says only "fetch failed", its cause the URL and why (a
 * refused connection, a name that does not resolve). A URL's user info in it is shown as `***`.
 */
function causeOf(error: Error): string {
  if (!(error instanceof TypeError) || !(error.cause instanceof Error)) return "";
  return `: ${error.cause.message.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@]*@/gi, "$1***@")}`;
}

/**
 * Runs the command line with `argv` (the arguments after the program) and
 * resolves with its exit status: 0 success, 1 failed operation, 2 usage
 * error. Nothing is thrown.
 *
 * @param argv the arguments, e.g. `["hooks", "list", "--json"]`
 * @param io where to read and write; default the process's stdout, stderr and environment
 * @returns the exit status
 *
 * @example Usage
 * ```ts
 * import { main } from "@community-webhooks/sdk/cli";
 * import assert from "node:assert/strict";
 *
 * const err: string[] = [];
 * const io = { stdout: () => {}, stderr: (t: string) => err.push(t), env: () => undefined };
 * assert.equal(await main(["hooks", "explode"], io), 2);
 * assert.match(err[0], /Unknown command 'hooks explode'/);
 * ```
 */
export async function main(argv: string[], io?: CliIO): Promise<number> {
  checkMainArguments(argv, io);
  const interrupt = new AbortController();
  const own = io === undefined;
  const { cli, readerGone } = printing(io ?? processIO(interrupt.signal));
  let parsed;
  try {
    parsed = parse(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return usageFailure(cli, error.message, error.usage);
  }
  const { command, args, flags } = parsed;
  if (command === null || flags.help) {
    try {
      cli.stdout(command === null ? parsed.help ?? topUsage() : commandUsage(command));
    } catch (error) {
      if (readerGone(error)) return 0; // the reader chose to stop (`| head -1`): nothing to say
      cli.stderr(`Error: ${messageOf(error, [])}`);
      return 1;
    }
    return 0;
  }
  const secretOf = (flag: string, variable: string): string | undefined => {
    const value = typeof flags[flag] === "string" ? flags[flag] as string : cli.env(variable);
    return value === undefined || value === "" ? undefined : value;
  };
  const secrets = [
    secretOf("client-secret", "CLIENT_SECRET"),
    secretOf("access-token", "ACCESS_TOKEN"),
    secretOf("refresh-token", "REFRESH_TOKEN"),
    secretOf("secret", "WEBHOOK_SECRET"),
    // Deno sends it to a KV Connect server, whose error (or a proxy's) may quote the request's Authorization header.
    cli.env("DENO_KV_ACCESS_TOKEN") || undefined,
  ].filter((s): s is string => s !== undefined);
  const path = typeof flags.kv === "string" ? flags.kv : cli.env("KV_PATH") || "./webhooks.kv";
  if (path.trim() === "") {
    // Spaces alone are a slip (`--kv " $UNSET"`), not a file name: Deno would make a KV file named so, here.
    return usageFailure(cli, "--kv (or KV_PATH) needs a path or a URL, got only spaces", commandUsage(command));
  }
  // KV Connect's client waits for good on a server lost: each operation there is held to a limit (_kv_limit.ts).
  const limit = isKvConnect(path) ? kvTimeoutSeconds(cli.env("KV_TIMEOUT_SECONDS")) : null;
  if (typeof limit === "string") return usageFailure(cli, limit, commandUsage(command));
  if (typeof Deno.openKv !== "function") {
    // A JSR package's deno.json does not apply to `deno run jsr:...`: KV is off there unless the run turns it on.
    cli.stderr(
      "Error: Deno KV is not enabled in this run: add --unstable-kv " +
        "(deno run -A --unstable-kv jsr:@community-webhooks/sdk/cli ...; deno task cli turns it on itself)",
    );
    return 1;
  }
  let kv: Deno.Kv;
  try {
    // A URL's scheme has no case, but Deno.openKv takes HTTPS://... for a file path: written in lower case here.
    const url = () => withoutUserInfo(path).trim().replace(/^https?/i, (scheme) => scheme.toLowerCase());
    const opening = Deno.openKv(limit === null ? path : url());
    if (limit === null) kv = await opening;
    else {
      const late = `it did not answer within ${limit} s (KV_TIMEOUT_SECONDS)`;
      kv = await withinLimit(opening, limit * 1000, late).catch((error) => {
        opening.then((opened) => opened.close(), () => {}); // should it open after all
        throw error;
      });
      kv = limitedKv(kv, { seconds: limit, origin: URL.parse(path.trim())?.origin ?? shownUrl(path) });
    }
  } catch (error) {
    // A KV path's user info is a secret as any URL's: neither the path nor Deno's message (which may quote it) shows it.
    const shown = shownUrl(path);
    const url = URL.parse(path);
    const userInfo = [url?.password, url?.username].filter((s): s is string => !!s);
    const hidden = shown === path ? secrets : [...secrets, path, ...userInfo];
    cli.stderr(`Error: Cannot open the KV at '${shown}': ${messageOf(error, hidden)}`);
    return 1;
  }
  const interrupts = own
    ? handleInterrupts({
      ownEnd: command.words[0] === "receive" || command.words[0] === "listen",
      interrupt,
      close: () => kv.close(),
      err: cli.stderr,
      messageOf: (error) => messageOf(error, secrets),
    })
    : null;
  const baseFetch = cli.fetch ?? globalThis.fetch;
  const ctx: CommandContext = {
    kv,
    kvName: isKvConnect(path) ? "the KV Connect database" : path,
    hooks: createWebhooks(kv, {
      fetch: async (input, init) => {
        const response = await baseFetch(input, init);
        const request = new Request(input, init);
        if (request.method === "GET" && /\/api\/core\/v3\/webhooks(\?|$)/.test(request.url)) ctx.onPlatformPage?.();
        return response;
      },
    }),
    args,
    flags,
    json: flags.json === true,
    out: cli.stdout,
    err: cli.stderr,
    progress: (text, always) => always || cli.stderrIsTerminal ? cli.stderr(text) : undefined,
    secret(flag, variable) {
      const value = secretOf(flag, variable);
      // deno-lint-ignore no-control-regex
      if (value !== undefined && /[\x00-\x1f\x7f]/.test(value)) {
        throw new UsageHint(
          `--${flag} (or ${variable}) holds a control character (a line break, say); no secret has one`,
        );
      }
      return value;
    },
    signal: cli.signal ?? interrupt.signal,
    lastly: (task) => interrupts?.lastly(task),
    onPlatformPage: null,
  };
  try {
    await runCommand(command.words, ctx);
    return 0;
  } catch (error) {
    // Stdout's reader is gone (`| head -1`, a pager quit): the reader chose to stop, as with ripgrep; said nowhere.
    if (readerGone(error)) return 0;
    if (error instanceof UsageHint) {
      // Blotted too: a usage error may quote a flag's value, a secret pasted in the wrong flag among them.
      return usageFailure(cli, messageOf(error, secrets), commandUsage(command));
    }
    cli.stderr(`Error: ${messageOf(error, secrets)}${hintOf(error)}`);
    return 1;
  } finally {
    interrupts?.dispose();
    try {
      kv.close();
    } catch {
      // closed on Ctrl-C
    }
  }
}
