import { LEGACY_ENDPOINTS } from "../../src/rest/router";
import {
  BROWSER_TEST_TIMEOUT_MS,
  describeWithBrowser,
  openIsolatedPage,
  startBrowserHarness,
  type BrowserHarness,
} from "../support/browser";

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

jest.setTimeout(BROWSER_TEST_TIMEOUT_MS);

describeWithBrowser("REST reference (/docs) in headless Chromium", () => {
  let harness: BrowserHarness;
  beforeAll(async () => {
    harness = await startBrowserHarness();
  });
  afterAll(() => harness?.close());

  it("shows every action of every endpoint as a request example, and no request leaves the server", async () => {
    const { page, requested, failed, pageErrors } = await openIsolatedPage(harness);
    const { origin } = harness;

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
