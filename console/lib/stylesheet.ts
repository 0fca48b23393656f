/**
 * The console's stylesheet: the files under `console/static/css/` (each one concern, at most 300 lines), joined in
 * their names' order, which is the cascade's. The pages link the result as the one `/static/style.css`.
 *
 * @module
 */

const CSS_DIR = new URL("../static/css/", import.meta.url);

let joined: Uint8Array<ArrayBuffer> | undefined;

/** The stylesheet's files joined in their names' order; read once per process, at the first call (the start). */
export function stylesheet(): Uint8Array<ArrayBuffer> {
  if (joined) return joined;
  const names = [...Deno.readDirSync(CSS_DIR)]
    .filter((entry) => entry.isFile && entry.name.endsWith(".css"))
    .map((entry) => entry.name)
    .sort();
  const files = names.map((name) => Deno.readFileSync(new URL(name, CSS_DIR)));
  const out = new Uint8Array(files.reduce((size, file) => size + file.byteLength, 0));
  let at = 0;
  for (const file of files) {
    out.set(file, at);
    at += file.byteLength;
  }
  joined = out;
  return out;
}
