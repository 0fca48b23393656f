/**
 * The console's stylesheet: the files under `console/static/css/` (each one concern, at most 300 lines), joined in
 * their names' order, which is the cascade's. The pages link the result as the one `/static/style.css`.
 *
 * @module
 */

const CSS_DIR = new URL("../static/css/", import.meta.url);

let joined: string | undefined;

/** The stylesheet's files joined in their names' order; read once per process, at the first call (the start). */
export function stylesheet(): string {
  joined ??= [...Deno.readDirSync(CSS_DIR)]
    .filter((entry) => entry.isFile && entry.name.endsWith(".css"))
    .map((entry) => entry.name)
    .sort()
    .map((name) => Deno.readTextFileSync(new URL(name, CSS_DIR)))
    .join("");
  return joined;
}
