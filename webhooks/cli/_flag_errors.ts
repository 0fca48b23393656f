// The library's refusals of values that came from flags, as usage errors (exit status 2, API.md) said in the
// flag's name: shared by the commands that pass flags on to the store, the platform calls and the relay.

/**
 * `error` as a usage error (made by `usage`) when it is the library refusing one of the fields `fields` maps to a
 * flag: a `TypeError` or `RangeError` worded `Cannot <action>: '<field>' <why>`, said as `--<flag> <why>`. Anything
 * else (a KV or platform failure, a field that came from no flag) is returned as it is: a failed operation.
 *
 * @param error what the library threw
 * @param action the action its message names, e.g. `save community`
 * @param fields the library's field names of the values given by flags, to the flags' names (without `--`)
 * @param usage makes a usage error of a message
 */
export function flagError(
  error: unknown,
  action: string,
  fields: Record<string, string>,
  usage: (message: string) => Error,
): unknown {
  if (!(error instanceof TypeError || error instanceof RangeError)) return error;
  const prefix = `Cannot ${action}: '`;
  if (!error.message.startsWith(prefix)) return error;
  const rest = error.message.slice(prefix.length);
  const end = rest.indexOf("' ");
  const field = end < 0 ? "" : rest.slice(0, end);
  return Object.hasOwn(fields, field) ? usage(`--${fields[field]} ${rest.slice(end + 2)}`) : error;
}
