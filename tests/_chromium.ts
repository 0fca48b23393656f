/**
 * Shared helper for tests that need a real browser: launches the Debian
 * Chromium at `/usr/bin/chromium` through `puppeteer-core` with the team's
 * flags and a fresh temporary `--user-data-dir`, and cleans up afterwards.
 *
 * Usage (one browser per test file, reused across steps):
 *
 * ```ts ignore
 * import { browserTestOptions, withBrowser } from "../_chromium.ts";
 *
 * Deno.test({
 *   name: "getOffset() reads layout in Chromium",
 *   ...browserTestOptions,
 *   fn: (t) =>
 *     withBrowser(async (browser) => {
 *       await t.step("first case", async () => {
 *         const page = await browser.newPage();
 *         try {
 *           await page.setContent("<p>hi</p>");
 *         } finally {
 *           await page.close();
 *         }
 *       });
 *     }),
 * });
 * ```
 *
 * - `BROWSER_TESTS=skip` in the environment makes `browserTestOptions.ignore`
 *   true, so `deno test` reports those tests as ignored.
 * - Otherwise, without `/usr/bin/chromium`, `launchChromium()` throws an
 *   `Error` saying how to install it (`apt-get install -y chromium`).
 *
 * @module
 */

import puppeteer, { type Browser, type Page } from "puppeteer-core";

export type { Browser, Page };

/** Where the Debian `chromium` package installs the browser. */
export const CHROMIUM_PATH = "/usr/bin/chromium";

/** Launch flags from the team brief (TOOLCHAIN.md); a fresh `--user-data-dir` is added per launch. */
export const CHROMIUM_FLAGS: readonly string[] = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

function readSkip(): boolean {
  try {
    return Deno.env.get("BROWSER_TESTS") === "skip";
  } catch {
    return false; // no --allow-env: run the tests
  }
}

/** True when `BROWSER_TESTS=skip` is set: browser tests are reported as ignored. */
export const browserTestsSkipped: boolean = readSkip();

/**
 * Spread into a `Deno.test({...})` definition of a browser test:
 * `ignore` follows `BROWSER_TESTS=skip`. The sanitizers stay on; puppeteer
 * closes what it opens once `withBrowser` returns.
 */
export const browserTestOptions: { ignore: boolean } = {
  ignore: browserTestsSkipped,
};

/** The message thrown when Chromium is missing. */
export const CHROMIUM_MISSING_MESSAGE =
  `Chromium not found at ${CHROMIUM_PATH}: install it with \`apt-get install -y chromium\`, or set BROWSER_TESTS=skip`;

/** Options for {@linkcode launchChromium}. */
export interface LaunchOptions {
  /** Extra command-line flags appended to {@linkcode CHROMIUM_FLAGS}. */
  args?: string[];
  /** Browser executable; default {@linkcode CHROMIUM_PATH}. */
  executablePath?: string;
}

/** A launched browser and the function that shuts it down and removes its profile. */
export interface LaunchedChromium {
  /** The puppeteer `Browser`. */
  browser: Browser;
  /** Closes the browser and removes its temporary `--user-data-dir`. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * Throws the install hint when Chromium is missing.
 *
 * @throws {Error} when the executable does not exist
 */
export async function assertChromiumInstalled(
  path: string = CHROMIUM_PATH,
): Promise<void> {
  try {
    const info = await Deno.stat(path);
    if (!info.isFile) throw new Deno.errors.NotFound(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      throw new Error(
        path === CHROMIUM_PATH ? CHROMIUM_MISSING_MESSAGE : CHROMIUM_MISSING_MESSAGE.replace(CHROMIUM_PATH, path),
      );
    }
    throw err;
  }
}

async function removeDir(dir: string): Promise<void> {
  // Chromium's helpers may still be flushing the profile for a moment.
  for (let i = 0; i < 10; i++) {
    try {
      await Deno.remove(dir, { recursive: true });
      return;
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/**
 * Launches headless Chromium with the team's flags and a fresh temporary
 * profile. Call `close()` when done (or use {@linkcode withBrowser}).
 *
 * @param options extra flags or another executable
 * @returns the browser and its `close` function
 * @throws {Error} when Chromium is not installed (with the install hint)
 */
export async function launchChromium(
  options: LaunchOptions = {},
): Promise<LaunchedChromium> {
  const executablePath = options.executablePath ?? CHROMIUM_PATH;
  await assertChromiumInstalled(executablePath);
  const userDataDir = await Deno.makeTempDir({ prefix: "chromium_profile_" });
  let browser: Browser;
  try {
    browser = await puppeteer.launch({
      executablePath,
      headless: true,
      pipe: true,
      args: [
        ...CHROMIUM_FLAGS,
        `--user-data-dir=${userDataDir}`,
        ...(options.args ?? []),
      ],
    });
  } catch (err) {
    await removeDir(userDataDir);
    throw err;
  }
  let closed = false;
  return {
    browser,
    async close() {
      if (closed) return;
      closed = true;
      try {
        await browser.close();
      } finally {
        await removeDir(userDataDir);
      }
    },
  };
}

/**
 * Runs `fn` with a freshly launched Chromium, then closes it and removes its
 * profile, also when `fn` throws. When `BROWSER_TESTS=skip` is set, `fn` is
 * not run (pair it with {@linkcode browserTestOptions} so the test shows as
 * ignored rather than passed).
 *
 * @param fn receives the puppeteer `Browser`
 * @param options extra flags or another executable
 * @returns what `fn` returns, or `undefined` when skipped
 * @throws {Error} when Chromium is not installed (with the install hint)
 */
export async function withBrowser<T>(
  fn: (browser: Browser) => Promise<T>,
  options: LaunchOptions = {},
): Promise<T | undefined> {
  if (browserTestsSkipped) return undefined;
  const launched = await launchChromium(options);
  try {
    return await fn(launched.browser);
  } finally {
    await launched.close();
  }
}

/**
 * Opens a new page, runs `fn`, and closes the page afterwards.
 *
 * @param browser a browser from {@linkcode withBrowser} or {@linkcode launchChromium}
 * @param fn receives the page
 * @returns what `fn` returns
 */
export async function withPage<T>(
  browser: Browser,
  fn: (page: Page) => Promise<T>,
): Promise<T> {
  const page = await browser.newPage();
  try {
    return await fn(page);
  } finally {
    await page.close();
  }
}
