import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { chromium, type Browser } from "playwright-core";
import { LEGACY_ENDPOINTS } from "../../src/rest/router";
import { startTestApp, type TestApp } from "../support/test-app";

// The REST reference at /docs works in a real (headless Debian) Chromium, from this server alone:
// every endpoint's operation lists each of its actions as a request example. Skipped locally
// when the browser is not installed; in CI (CI=true) it runs and fails without it.

// The callbacks passed to page.evaluate run in the page; the tests' TypeScript has no DOM library.
interface PageElement {
  textContent: string | null;
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): ArrayLike<PageElement>;
  value: string;
}
declare const document: { querySelectorAll(selector: string): ArrayLike<PageElement> };

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const runs = existsSync(CHROMIUM) || process.env.CI === "true";
const describeWithBrowser = runs ? describe : describe.skip;

describeWithBrowser("REST reference (/docs) in headless Chromium", () => {
  let t: TestApp;
  let server: Server;
  let origin: string;
  let browser: Browser;

  beforeAll(async () => {
    t = await startTestApp();
    server = createServer(t.app);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await t?.close();
  });

  it("shows every action of every endpoint as a request example, and no request leaves the server", async () => {
    const page = await browser.newPage();
    const requested: string[] = [];
    const failed: string[] = [];
    const pageErrors: string[] = [];
    page.on("request", (request) => requested.push(request.url()));
    page.on("response", (response) => {
      if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
    });
    page.on("pageerror", (error) => pageErrors.push(error.message));
    await page.route("**/*", (route) => (route.request().url().startsWith(origin) ? route.continue() : route.abort()));

    // GET / in a browser is a page that links to the reference.
    await page.goto(`${origin}/`);
    await page.click('a[href="/docs"]');
    expect(new URL(page.url()).pathname).toBe("/docs");
    const endpoints = Object.keys(LEGACY_ENDPOINTS);
    await page.waitForFunction(
      (count) => document.querySelectorAll(".opblock .opblock-section-request-body select").length >= count,
      endpoints.length,
    );

    const shown = await page.evaluate(() =>
      Object.fromEntries(
        Array.from(document.querySelectorAll(".opblock")).map((block) => [
          block.querySelector(".opblock-summary-path")?.textContent?.replace(/\u200b/g, "") ?? "",
          Array.from(block.querySelectorAll(".opblock-section-request-body select.examples-select-element option")).map(
            (option) => option.value,
          ),
        ]),
      ),
    );
    for (const endpoint of endpoints) {
      expect(shown[`/reg/api2/${endpoint}/`]?.sort()).toEqual(Object.keys(LEGACY_ENDPOINTS[endpoint]).sort());
    }
    expect(Object.keys(shown)).toContain("/reg/api2/session/");

    expect(requested.some((url) => url === `${origin}/openapi.json`)).toBe(true);
    expect(requested.filter((url) => !url.startsWith(`${origin}/`))).toEqual([]);
    expect(failed).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});
