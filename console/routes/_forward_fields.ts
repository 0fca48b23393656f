// The fields of a hook's "Forward to" forms (forwarding.tsx), each of which the page sends once.

import type { Context } from "hono";
import type { ConsoleEnv } from "../lib/context.ts";
import { shownId } from "./_forward_lookups.ts";

/**
 * The field `name` of the posted form: its value (`undefined` when absent, or a file rather than text), or what is
 * wrong when it was given more than once (a hand-made request): the page cannot tell which value the user meant, so
 * the action changes nothing rather than let the last one silently win.
 */
export async function formField(
  c: Context<ConsoleEnv>,
  name: string,
): Promise<{ value: string | undefined } | { repeated: string }> {
  const value = (await c.req.parseBody({ all: true }))[name];
  if (Array.isArray(value)) return { repeated: `'${name}' was given ${value.length} times` };
  return { value: typeof value === "string" ? value : undefined };
}

/** The `enabled` field of Enable and Disable: `true`, `false`, or what is wrong with it (missing, odd, repeated). */
export async function enabledField(c: Context<ConsoleEnv>): Promise<boolean | string> {
  const field = await formField(c, "enabled");
  if ("repeated" in field) return field.repeated;
  if (field.value === "1" || field.value === "0") return field.value === "1";
  return `'enabled' must be 1 (enable) or 0 (disable), got ${
    field.value === undefined ? "nothing" : shownId(field.value)
  }`;
}
