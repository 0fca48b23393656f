/**
 * The console's stylesheet: the files under `console/static/css/` (each one concern, at most 300 lines), joined in
 * their names' order, which is the cascade's. The pages link the result as the one `/static/style.css`.
 *
 * @module
 */

const CSS_DIR = new URL("../static/css/", import.meta.url);

let joined: string | undefined;

/**
 * The stylesheet's files joined in their names' order; read once per process, at the first call (the start). A
 * folder missing, or holding no `.css` file (deleted, or mis-copied), throws an `Error` naming it: the console does
 * not start, rather than serve an unstyled page and say nothing.
 */
export function stylesheet(): string {
  if (joined !== undefined) return joined;
  let names: string[];
  try {
    names = [...Deno.readDirSync(CSS_DIR)]
      .filter((entry) => entry.isFile && entry.name.endsWith(".css"))
      .map((entry) => entry.name)
      .sort();
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    throw new Error(
      `the stylesheet folder ${CSS_DIR.pathname} is missing: restore console/static/css/ from the source`,
    );
  }
  if (names.length === 0) {
    throw new Error(
      `the stylesheet folder ${CSS_DIR.pathname} holds no .css file: restore console/static/css/ from the source`,
    );
  }
  joined = names.map((name) => Deno.readTextFileSync(new URL(name, CSS_DIR))).join("");
  return joined;
}
