// API.md's --kv: "default $KV_PATH, else ./webhooks.kv", and global flags
// "may stand before or after the command words". Run in a temporary working
// directory with KV_PATH unset, so the default file is seen where it lands.

import assert from "node:assert/strict";
import { ROOT } from "./_cli_setup.ts";

const CLI = `${ROOT}webhooks/cli.ts`;

async function run(cwd: string, args: string[], env: Record<string, string> = {}) {
  const keep: Record<string, string> = {};
  for (const name of ["PATH", "HOME", "DENO_DIR", "XDG_CACHE_HOME", "TMPDIR"]) {
    const value = Deno.env.get(name);
    if (value !== undefined) keep[name] = value;
  }
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--config", `${ROOT}deno.json`, CLI, ...args],
    cwd,
    clearEnv: true,
    env: { ...keep, NO_COLOR: "1", ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

const ADD = ["communities", "add", "--tenant", "t1", "--base-url", "https://acme.example"];

async function names(path: string): Promise<string[]> {
  const kv = await Deno.openKv(path);
  try {
    const out: string[] = [];
    for await (const e of kv.list<string>({ prefix: ["community_by_name"] })) out.push(String(e.key[1]));
    return out;
  } finally {
    kv.close();
  }
}

Deno.test("cli --kv defaults to ./webhooks.kv without KV_PATH; KV_PATH comes next; --kv wins over both", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cli_kv_default_" });
  try {
    const bare = await run(dir, [...ADD, "--name", "Default"]);
    assert.equal(bare.code, 0, bare.stderr);
    assert.deepEqual(await names(`${dir}/webhooks.kv`), ["Default"]);

    const fromEnv = await run(dir, [...ADD, "--name", "FromEnv"], { KV_PATH: `${dir}/env.kv` });
    assert.equal(fromEnv.code, 0, fromEnv.stderr);
    assert.deepEqual(await names(`${dir}/env.kv`), ["FromEnv"]);

    const flag = await run(dir, ["--kv", `${dir}/flag.kv`, ...ADD, "--name", "FromFlag"], { KV_PATH: `${dir}/env.kv` });
    assert.equal(flag.code, 0, flag.stderr);
    assert.deepEqual(await names(`${dir}/flag.kv`), ["FromFlag"]);
    assert.deepEqual(await names(`${dir}/env.kv`), ["FromEnv"]);
    assert.deepEqual(await names(`${dir}/webhooks.kv`), ["Default"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cli global flags stand before, between or after the command words alike", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cli_flag_place_" });
  try {
    const kv = `${dir}/w.kv`;
    assert.equal((await run(dir, [...ADD, "--name", "Acme", "--kv", kv])).code, 0);
    const outputs = [];
    for (
      const args of [
        ["--json", "--kv", kv, "communities", "show", "Acme"],
        ["communities", "--json", "show", "--kv", kv, "Acme"],
        ["communities", "show", "Acme", "--kv", kv, "--json"],
      ]
    ) {
      const out = await run(dir, args);
      assert.equal(out.code, 0, `${args.join(" ")}: ${out.stderr}`);
      outputs.push(JSON.parse(out.stdout));
    }
    assert.equal(outputs[0].name, "Acme");
    assert.deepEqual(outputs[1], outputs[0]);
    assert.deepEqual(outputs[2], outputs[0]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
