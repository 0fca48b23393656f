// What is wrong with a webhook record as the tables show it: a record edited by hand (or by a buggy older tool) whose
// entity is not an object, or whose fields a table shows hold an object, a list or null, named field by field without
// quoting a value, so a table says `damaged record: ...` where it would print `[object Object]` or blanks. A number
// or a boolean there is shown as its text, as before.

/** A value's kind, as a message says it: the value itself is never shown. */
function kind(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/** Whether a table can show `value` as text: a string, a number, a boolean or a BigInt. */
export function isCellText(value: unknown): boolean {
  return ["string", "number", "boolean", "bigint"].includes(typeof value);
}

function shownField(value: unknown, name: string): string[] {
  return value === undefined || isCellText(value) ? [] : [`'${name}' must be a string, got ${kind(value)}`];
}

/**
 * What is wrong with `hook` for a table, each fault named and joined by `; `; `null` when every field a table shows
 * can be shown as text: `entity` an object, `events` an array of such values, `id`, `tenantId`, `callback` and
 * `resources.self.ref` such values, when present.
 */
export function hookDamage(hook: unknown): string | null {
  if (typeof hook !== "object" || hook === null || Array.isArray(hook)) return `it is ${kind(hook)}`;
  const record = hook as Record<string, unknown>;
  const faults = [...shownField(record.id, "id"), ...shownField(record.tenantId, "tenantId")];
  const entity = record.entity;
  if (typeof entity !== "object" || entity === null || Array.isArray(entity)) {
    faults.push(`'entity' must be an object, got ${kind(entity)}`);
  } else {
    const { events, callback, resources } = entity as Record<string, unknown>;
    if (events !== undefined && !(Array.isArray(events) && events.every(isCellText))) {
      const got = Array.isArray(events) ? "one holding an object, a list or null" : kind(events);
      faults.push(`'entity.events' must be an array of strings, got ${got}`);
    }
    faults.push(...shownField(callback, "entity.callback"));
    const self = (resources as { self?: unknown } | null | undefined)?.self;
    faults.push(...shownField((self as { ref?: unknown } | null | undefined)?.ref, "entity.resources.self.ref"));
  }
  return faults.length === 0 ? null : faults.join("; ");
}
