/**
 * The console's stylesheet: the files under `console/static/css/` (each one concern, at most 300 lines), joined in
 * their names' order, which is the cascade's. The pages link the result as the one `/static/style.css`.
 *
 * @module
 */

import { fileURLToPath } from "node:url";

const CSS_DIR = new URL("../static/css/", import.meta.url);
/** The folder as a path, for messages (a URL's pathname writes a space as %20). */
const CSS_PATH = fileURLToPath(CSS_DIR);
const RESTORE = "restore console/static/css/ from the source";

let joined: string | undefined;

/** The folder's file `name`, as named: escaped, so that a '#', '?' or '%' in it is no URL's fragment, query or escape. */
function inFolder(name: string): URL {
  return new URL(encodeURIComponent(name), CSS_DIR);
}

/**
 * The stylesheet's files joined in their names' order; read once per process, at the first call (the start). A `.css`
 * entry that is a link to a file counts as that file (some deployments build the folder as links). A hidden entry
 * (its name starts with '.': an editor's lock link, a copy's metadata file) is no stylesheet and is skipped. A folder
 * missing, a file in its place, holding no `.css` file (deleted, or mis-copied), or a `.css` link to nothing (or in a
 * loop) throws an `Error` naming it: the console does not start, rather than serve an unstyled page and say nothing.
 */
export function stylesheet(): string {
  if (joined !== undefined) return joined;
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(CSS_DIR)];
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new Error(`the stylesheet folder ${CSS_PATH} is missing: ${RESTORE}`);
    }
    if (error instanceof Deno.errors.NotADirectory) {
      throw new Error(`the stylesheet folder ${CSS_PATH.slice(0, -1)} is not a folder: ${RESTORE}`);
    }
    throw error;
  }
  const names = entries.filter((e) => !e.name.startsWith(".") && e.name.endsWith(".css") && isFile(e))
    .map((e) => e.name).sort();
  if (names.length === 0) {
    throw new Error(`the stylesheet folder ${CSS_PATH} holds no .css file: ${RESTORE}`);
  }
  joined = names.map((name) => Deno.readTextFileSync(inFolder(name))).join("");
  return joined;
}

/** Whether `entry` of the folder is a file, or a link to one; a link to nothing, or in a loop, throws, naming it. */
function isFile(entry: Deno.DirEntry): boolean {
  if (!entry.isSymlink) return entry.isFile;
  try {
    return Deno.statSync(inFolder(entry.name)).isFile;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new Error(`the stylesheet file ${CSS_PATH}${entry.name} is a link to nothing: ${RESTORE}`);
    }
    if (error instanceof Deno.errors.FilesystemLoop) {
      throw new Error(`the stylesheet file ${CSS_PATH}${entry.name} is a link in a loop: ${RESTORE}`);
    }
    throw error;
  }
}
