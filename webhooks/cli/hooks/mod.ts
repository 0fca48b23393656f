/**
 * The `hooks` commands' parts of their own: `hooks update`, and `hooks register` with its claim of its request and its refusal of a request whose registration did
 * not finish and its warning of a callback the internet cannot reach, and the error of an id that names no record.
 *
 * @module
 */

export { registerCommand, type RegisterContext } from "./_register.ts";
export { noHook } from "./_no_hook.ts";
export { updateCommand } from "./_update.ts";
