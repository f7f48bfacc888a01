import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { chromium, type Browser, type Page } from "playwright-core";
import { startTestApp, type TestApp } from "./test-app";

// Pages we serve are tested in a real headless Chromium from Debian (never a downloaded browser).
// Locally a browser test is skipped when the browser is not installed; in CI (CI=true) it runs
// anyway and fails, because .ci/ensure-chromium.sh must have installed it.

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const describeWithBrowser = existsSync(CHROMIUM) || process.env.CI === "true" ? describe : describe.skip;

const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

/** The app on a loopback port and a browser to open it with. */
export interface BrowserHarness {
  origin: string;
  browser: Browser;
  close(): Promise<void>;
}

/** For the browser tests' hooks and tests: an app, a Chromium and a page as heavy as the REST
 * reference take seconds on a quiet machine, but took over a minute on a heavily loaded one. */
export const BROWSER_TEST_TIMEOUT_MS = 180_000;

export async function startBrowserHarness(): Promise<BrowserHarness> {
  const app: TestApp = await startTestApp();
  const server: Server = createServer(app.app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  return {
    origin,
    browser,
    async close() {
      await browser.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.close();
    },
  };
}

/** A page whose every request is recorded and which can reach nothing but the app's origin. */
export interface IsolatedPage {
  page: Page;
  /** Every URL the page asked for, including the ones refused because they leave the app. */
  requested: string[];
  /** "<status> <url>" of every response with a status of 400 or more. */
  failed: string[];
  /** Uncaught errors of the page's scripts. */
  pageErrors: string[];
}

export async function openIsolatedPage(harness: BrowserHarness): Promise<IsolatedPage> {
  const page = await harness.browser.newPage();
  // Playwright's 30 s default for each wait ran out while a heavily loaded machine rendered the
  // REST reference; the test's own timeout bounds the whole.
  page.setDefaultTimeout(BROWSER_TEST_TIMEOUT_MS / 2);
  const opened: IsolatedPage = { page, requested: [], failed: [], pageErrors: [] };
  page.on("request", (request) => opened.requested.push(request.url()));
  page.on("response", (response) => {
    if (response.status() >= 400) opened.failed.push(`${response.status()} ${response.url()}`);
  });
  page.on("pageerror", (error) => opened.pageErrors.push(error.message));
  // Anything bound elsewhere is recorded above and never reaches the network.
  await page.route("**/*", (route) =>
    route.request().url().startsWith(harness.origin) ? route.continue() : route.abort(),
  );
  return opened;
}
