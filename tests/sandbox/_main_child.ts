// The sandbox command (`sandbox/main.ts`) as its process tests run it: a child with the environment given, and its
// start-up text read up to the line that names its tenant.

const ROOT = new URL("../../", import.meta.url).pathname;

/** The sandbox command with `env` beside `NO_COLOR`, its output piped. */
export function sandboxCommand(env: Record<string, string>): Deno.Command {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--config", `${ROOT}deno.json`, "sandbox/main.ts"],
    cwd: ROOT,
    env: { NO_COLOR: "1", ...env },
    stdout: "piped",
    stderr: "piped",
  });
}

/** What `reader` (a started sandbox's stdout) printed up to its `Tenant ...` line, or to its end. */
export async function startedText(reader: ReadableStreamDefaultReader<string>): Promise<string> {
  let text = "";
  while (!/Tenant [^\n]*\n/.test(text)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  return text;
}
