// Every path that README.md and docs/ name is a file or folder that exists, so
// a reader who follows one (after a move, say) lands somewhere. `deno test
// --doc README.md docs/` runs their examples; this checks the paths around
// them: repository paths in backticks and relative Markdown links, and each
// bare file name in backticks (`_steps.ts`) names a file somewhere in the tree.

import assert from "node:assert/strict";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { existsSync } from "node:fs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
/** Built when the console starts (and ignored by git), so absent from a fresh clone. */
const GENERATED = ["console/static/_build/"];
/** Names the docs use for a kind of file, not for one file. */
const PLACEHOLDERS = new Set(["_x.ts"]);
const TOP = new Set([...Deno.readDirSync(ROOT)].map((entry) => entry.name).filter((name) => name !== "node_modules"));

function docs(): string[] {
  const out = ["README.md"];
  for (const entry of Deno.readDirSync(join(ROOT, "docs"))) {
    if (entry.name.endsWith(".md")) out.push(`docs/${entry.name}`);
  }
  return out.sort();
}

/** Every file's base name in the tree (sources, tests, docs), for bare names. */
function baseNames(): Set<string> {
  const names = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of Deno.readDirSync(join(ROOT, dir))) {
      if (entry.isDirectory) {
        if (!["node_modules", ".git", ".data", "_build"].includes(entry.name)) walk(join(dir, entry.name));
      } else names.add(entry.name);
    }
  };
  walk(".");
  return names;
}

/** Whether a glob path (`*` within one segment) matches at least one file. */
function globMatches(path: string): boolean {
  const folder = dirname(path);
  const pattern = new RegExp(`^${path.slice(folder.length + 1).replaceAll(".", "\\.").replaceAll("*", "[^/]*")}$`);
  if (!existsSync(join(ROOT, folder))) return false;
  return [...Deno.readDirSync(join(ROOT, folder))].some((entry) => pattern.test(entry.name));
}

/** The paths a Markdown text names, with the line each is on. */
export function namedPaths(text: string): { path: string; line: number; kind: "repo" | "link" | "bare" }[] {
  const out: { path: string; line: number; kind: "repo" | "link" | "bare" }[] = [];
  const lines = text.split("\n");
  let fenced = false;
  lines.forEach((line, index) => {
    if (line.trimStart().startsWith("```")) fenced = !fenced;
    if (fenced) return;
    for (const [, token] of line.matchAll(/`([^`\s]+)`/g)) {
      const path = token.replace(/[:#].*$/, "");
      if (/^[\w.-]+(\/[\w.*-]+)+\/?$/.test(path) && TOP.has(path.split("/")[0])) {
        out.push({ path, line: index + 1, kind: "repo" });
      } else if (/^_?[\w-]+\.(ts|tsx)$/.test(path)) out.push({ path, line: index + 1, kind: "bare" });
    }
    for (const [, target] of line.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target) || target.startsWith("#")) continue;
      out.push({ path: target.replace(/#.*$/, ""), line: index + 1, kind: "link" });
    }
  });
  return out;
}

Deno.test("namedPaths() finds repository paths, relative links and bare file names, not routes or URLs", () => {
  const found = namedPaths(
    "See `webhooks/receiver/receiver.ts:12`, `_steps.ts`, [the CLI](cli.md#flags), `/hooks/{id}`, " +
      "[Deno](https://deno.com) and `jsr:@std/ulid`.\n```sh\ndeno task `nope/file.ts`\n```",
  );
  assert.deepEqual(found.map((f) => `${f.kind} ${f.path}`), [
    "repo webhooks/receiver/receiver.ts",
    "bare _steps.ts",
    "link cli.md",
  ]);
});

Deno.test("every path that README.md and docs/ name exists", () => {
  const names = baseNames();
  const missing: string[] = [];
  let checked = 0;
  for (const doc of docs()) {
    for (const { path, line, kind } of namedPaths(Deno.readTextFileSync(join(ROOT, doc)))) {
      checked++;
      if (PLACEHOLDERS.has(path) || GENERATED.some((prefix) => path.startsWith(prefix))) continue;
      const ok = kind === "bare"
        ? names.has(path)
        : kind === "link"
        ? existsSync(resolve(ROOT, dirname(doc), path))
        : path.includes("*")
        ? globMatches(path)
        : existsSync(join(ROOT, path));
      if (!ok) missing.push(`${doc}:${line}: ${path}`);
    }
  }
  assert.ok(checked > 50, `only ${checked} paths found: the scan is broken`);
  assert.deepEqual(missing, []);
});

Deno.test("README.md, the front door, stays under 12 KB: reference goes to docs/", () => {
  const size = Deno.statSync(join(ROOT, "README.md")).size;
  assert.ok(size < 12 * 1024, `README.md is ${size} bytes; move reference to docs/`);
});
