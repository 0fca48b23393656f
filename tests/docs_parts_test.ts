// The "may import" column of docs/architecture.md's table of parts names
// everything each part's source imports from outside itself: the packages
// (by the name in its specifier, `node:` modules as one) and the other parts'
// mod.ts. Read from the source, as tests/walls_test.ts reads the walls, so a
// part that takes a new dependency cannot leave the page saying otherwise.

import assert from "node:assert/strict";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The table's rows by the folder of each part (the root mod.ts, the package's face, is none of them). */
const PARTS: Record<string, { row: string; roots: string[] }> = {
  webhooks: { row: "Module A", roots: ["webhooks"] },
  browser: { row: "Library B", roots: ["browser"] },
  build: { row: "The build", roots: ["build"] },
  console: { row: "The console", roots: ["console"] },
  sandbox: { row: "The sandbox", roots: ["sandbox"] },
};

function sourceFiles(path: string): string[] {
  const stat = Deno.statSync(join(ROOT, path));
  if (stat.isFile) return /\.tsx?$/.test(path) ? [path] : [];
  const out: string[] = [];
  for (const entry of Deno.readDirSync(join(ROOT, path))) {
    if (["node_modules", "_build", ".data"].includes(entry.name)) continue;
    out.push(...sourceFiles(join(path, entry.name)));
  }
  return out;
}

/** What one part imports from outside itself, as the table would name it. */
function importsOf(part: string): Set<string> {
  const found = new Set<string>();
  for (const file of PARTS[part].roots.flatMap(sourceFiles)) {
    const text = Deno.readTextFileSync(join(ROOT, file));
    const specifiers = [
      // No string between the keyword and `from`: an `export const` whose value is a string is no import.
      ...text.matchAll(/^\s*(?:import|export)\b[^;"'`]*?\bfrom\s+["']([^"']+)["']/gm),
      ...text.matchAll(/^\s*import\s+["']([^"']+)["']/gm),
      ...text.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g),
    ].map((m) => m[1]);
    for (const s of specifiers) {
      if (s.startsWith(".")) {
        const target = relative(ROOT, resolve(ROOT, dirname(file), s));
        const top = target.split("/")[0];
        if (top !== part && target !== "mod.ts" && top in PARTS) found.add(target);
      } else if (s.startsWith("node:")) {
        found.add("node:");
      } else {
        const bare = s.replace(/^npm:/, "").replace(/@[^/@]*$/, "");
        found.add(bare.startsWith("@") ? bare.split("/").slice(0, 2).join("/") : bare.split("/")[0]);
      }
    }
  }
  return found;
}

/** The backticked names in the "may import" cell of each row of the table of parts. */
function documented(): Map<string, Set<string>> {
  const doc = Deno.readTextFileSync(join(ROOT, "docs/architecture.md"));
  const rows = new Map<string, Set<string>>();
  for (const line of doc.split("\n")) {
    const cells = line.split("|").map((c) => c.trim());
    if (cells.length < 5) continue;
    const names = [...cells[3].matchAll(/`([^`]+)`/g)].map((m) => m[1]);
    rows.set(cells[1], new Set(names));
  }
  return rows;
}

Deno.test("docs/architecture.md names everything each part imports from outside itself", () => {
  const rows = documented();
  const missing: Record<string, string[]> = {};
  for (const [part, { row }] of Object.entries(PARTS)) {
    const named = rows.get(row);
    assert.ok(named, `docs/architecture.md has a row for ${row}`);
    const left = [...importsOf(part)].filter((name) => !named.has(name)).sort();
    if (left.length > 0) missing[row] = left;
  }
  assert.deepEqual(missing, {}, "imports that a part's row does not name");
});

Deno.test("docs/architecture.md names no import a part does not make", () => {
  const rows = documented();
  const stale: Record<string, string[]> = {};
  for (const [part, { row }] of Object.entries(PARTS)) {
    const imported = importsOf(part);
    const left = [...rows.get(row) ?? []].filter((name) => !imported.has(name)).sort();
    if (left.length > 0) stale[row] = left;
  }
  assert.deepEqual(stale, {}, "names in a part's row that it does not import");
});
