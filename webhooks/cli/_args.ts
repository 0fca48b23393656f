// The command line's grammar: its commands, their flags and usage texts,
// parsed with node:util's parseArgs (strict). Global flags may stand before
// or after the command words.

import { parseArgs } from "node:util";
import { COMMANDS, type CommandSpec, FLAGS, GLOBAL } from "./_grammar.ts";
import { printable, quoted } from "./_format.ts";
import { describe } from "../_util.ts";

/** A usage error: exit status 2, with the usage of the command it concerns. */
export class UsageError extends Error {
  /** The usage text to print after the message. */
  usage: string;
  /** @param message what is wrong; @param usage the usage text */
  constructor(message: string, usage: string) {
    super(message);
    this.name = "UsageError";
    this.usage = usage;
  }
}

const GLOBAL_USAGE = "[--kv PATH_OR_URL] [--json] [--help]";

/** The top-level usage: every command. */
export function topUsage(): string {
  return [
    `Usage: deno task cli <command> ${GLOBAL_USAGE}`,
    "",
    "Commands:",
    ...COMMANDS.map((c) => `  ${c.usage}`),
    "",
    "Global flags:",
    "  --kv PATH_OR_URL  the Deno KV to use (default $KV_PATH, else ./webhooks.kv)",
    "  --json            print one JSON document on stdout instead of a table",
    "  --help, -h        this help, or a command's (deno task cli hooks list --help)",
    "",
    "Secrets come from flags or, better (deno task echoes its arguments), from the environment:",
    "CLIENT_SECRET, ACCESS_TOKEN, REFRESH_TOKEN. They are never printed.",
    "With --kv a KV Connect URL (its token in DENO_KV_ACCESS_TOKEN), each KV operation that has not answered within",
    "KV_TIMEOUT_SECONDS (default 30) fails the command (status 1); a write so cut short may have been stored.",
    "Exit status: 0 success, 1 the operation failed, 2 usage error.",
  ].join("\n");
}

/** The usage of one command, with its examples. */
export function commandUsage(spec: CommandSpec): string {
  return [
    `Usage: deno task cli ${spec.usage} ${GLOBAL_USAGE}`,
    "",
    "Examples:",
    ...spec.examples.map((e) => `  ${e}`),
  ].join("\n");
}

/** The usage of a group of commands (`hooks`, `communities`): its commands. */
function groupUsage(word: string, commands: CommandSpec[]): string {
  return [
    `Usage: deno task cli ${word} <command> ${GLOBAL_USAGE}`,
    "",
    "Commands:",
    ...commands.map((c) => `  ${c.usage}`),
    "",
    `One command's help and examples: deno task cli ${commands[0].words.join(" ")} --help`,
  ].join("\n");
}

/** A parsed command line. */
export interface Parsed {
  /** The command, or `null` for a help page (`help`). */
  command: CommandSpec | null;
  /** With no command: the help to print (the top-level usage, or a group's). */
  help?: string;
  /** Positional arguments after the command words. */
  args: string[];
  /** Flag values by name. */
  flags: Record<string, string | boolean | undefined>;
}

/** Flags that take a list (`--hook a,b`): given more than once, their values are joined. */
const LISTS = new Set(["hook", "events"]);
/** Every string flag taken as often as given, so that a repeat is joined or refused rather than silently dropped. */
const REPEATABLE = Object.fromEntries(
  Object.entries(FLAGS).map(([name, spec]) => [name, spec.type === "string" ? { ...spec, multiple: true } : spec]),
);

function singleValues(
  parsed: Record<string, string | boolean | (string | boolean)[] | undefined>,
): { values: Record<string, string | boolean | undefined>; repeated: string[] } {
  const values: Record<string, string | boolean | undefined> = {};
  const repeated: string[] = [];
  for (const [name, value] of Object.entries(parsed)) {
    if (!Array.isArray(value)) values[name] = value;
    // A list with an empty piece (`--hook a --hook=`) is kept empty: refused as `--hook=` alone is.
    else if (LISTS.has(name)) values[name] = value.includes("") ? "" : value.join(",");
    else {
      if (value.length > 1) repeated.push(name);
      values[name] = value[value.length - 1];
    }
  }
  return { values, repeated };
}

/** Parses `argv`; throws a {@linkcode UsageError} when it does not fit a command. */
export function parse(argv: string[]): Parsed {
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  let repeated: string[];
  try {
    const parsed = parseArgs({ args: argv, options: REPEATABLE, strict: true, allowPositionals: true });
    ({ values, repeated } = singleValues(parsed.values));
    positionals = parsed.positionals;
  } catch (error) {
    // The first sentence only ("Unknown option '--x'"), with the usage of the command it was given to.
    // The option's name is the user's text: a line break in it must not start a line of its own (nor any control
    // character reach the terminal), so the message is made printable whole.
    const message = printable((error as Error).message.split(/\. (?=[A-Z])/)[0].replace(/\.$/, ""));
    const words = parseArgs({ args: argv, options: FLAGS, strict: false, allowPositionals: true }).positionals;
    const command = COMMANDS.find((c) => c.words.every((w, i) => words[i] === w));
    throw new UsageError(message, command ? commandUsage(command) : topUsage());
  }
  if (positionals.length === 0) {
    if (values.help) return { command: null, help: topUsage(), args: [], flags: values };
    throw new UsageError("No command given", topUsage());
  }
  const command = COMMANDS.find((c) => c.words.every((w, i) => positionals[i] === w));
  if (!command) {
    // A group's word alone (`hooks`): its commands, as help or as the usage of a missing command.
    const group = COMMANDS.filter((c) => c.words.length > 1 && c.words[0] === positionals[0]);
    if (group.length > 0 && positionals.length === 1) {
      const usage = groupUsage(positionals[0], group);
      if (values.help) return { command: null, help: usage, args: [], flags: values };
      throw new UsageError(
        `${quoted(positionals[0])} needs a command: ${group.map((c) => c.words[1]).join(", ")}`,
        usage,
      );
    }
    throw new UsageError(
      `Unknown command ${quoted(positionals.slice(0, 2).join(" "))}`,
      group.length > 0 ? groupUsage(positionals[0], group) : topUsage(),
    );
  }
  const usage = commandUsage(command);
  if (values.help) return { command, args: [], flags: values };
  const args = positionals.slice(command.words.length);
  if (command.more ? args.length < command.args.length : args.length !== command.args.length) {
    const more = command.more ? ` [${command.args.at(-1)}...]` : "";
    throw new UsageError(
      `'${command.words.join(" ")}' takes ${
        command.args.length ? command.args.join(" ") + more : "no arguments"
      }, got ${args.length ? args.map(quoted).join(" ") : "none"}`,
      usage,
    );
  }
  // An empty argument (`communities show ""`) is a mistake in the command line, as an empty flag value is below.
  const empty = args.indexOf("");
  if (empty >= 0) {
    const name = command.args[Math.min(empty, command.args.length - 1)];
    throw new UsageError(`'${command.words.join(" ")}' takes ${name}, got an empty one`, usage);
  }
  for (const name of Object.keys(values)) {
    if (!(name in GLOBAL) && !command.flags.includes(name)) {
      throw new UsageError(`'${command.words.join(" ")}' has no option '--${name}'`, usage);
    }
  }
  if (repeated.length > 0) {
    throw new UsageError(`--${repeated[0]} is given more than once; give it once`, usage);
  }
  for (const name of command.required ?? []) {
    if (typeof values[name] !== "string" || values[name] === "") {
      throw new UsageError(`'${command.words.join(" ")}' needs --${name}`, usage);
    }
  }
  // A flag given with no value (`--tenant=`, `--kv ""`) is a mistake in the command line, not a value to try.
  if (values.kv === "") throw new UsageError("--kv needs a path or a URL, got an empty one", usage);
  for (const [name, value] of Object.entries(values)) {
    if (value === "") throw new UsageError(`--${name} needs a value, got an empty one`, usage);
  }
  return { command, args, flags: values };
}

/** Throws a `TypeError` naming `argv` or `io` when it is not what `main` takes; `io` absent is the process's. */
export function checkMainArguments(argv: unknown, io: unknown): void {
  // A null argv was taken as no arguments (the usage is shown), as before.
  if (argv !== null && argv !== undefined) {
    const bad = firstBad(argv);
    if (bad !== -1) {
      const got = bad === -2 ? describe(argv) : `${describe((argv as unknown[])[bad])} at index ${bad}`;
      throw new TypeError(`Cannot run the CLI: 'argv' must be an array of strings, got ${got}`);
    }
  }
  if (io === undefined) return;
  const fields = ["stdout", "stderr", "env"] as const;
  if (typeof io !== "object" || io === null || fields.some((field) => !isFunction(() => (io as never)[field]))) {
    throw new TypeError(
      `Cannot run the CLI: 'io' must be an object with the functions stdout, stderr and env, got ${describe(io)}`,
    );
  }
}

/**
 * The index of `argv`'s first item that is not a string, -1 when none, -2 when `argv` is no array; -2 too when it
 * cannot be looked into (a revoked Proxy, an item's getter that throws): JavaScript's own error named no argument.
 */
function firstBad(argv: unknown): number {
  try {
    return Array.isArray(argv) ? argv.findIndex((arg) => typeof arg !== "string") : -2;
  } catch {
    return -2;
  }
}

/** Whether `read()` gives a function; `false` when reading throws (a revoked Proxy, a getter that fails). */
function isFunction(read: () => unknown): boolean {
  try {
    return typeof read() === "function";
  } catch {
    return false;
  }
}
