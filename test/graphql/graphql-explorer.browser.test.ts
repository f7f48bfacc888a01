import { MAPLE } from "../fixtures/test-fixture";
import {
  BROWSER_TEST_TIMEOUT_MS,
  describeWithBrowser,
  openIsolatedPage,
  startBrowserHarness,
  type BrowserHarness,
} from "../support/browser";

// The explorer works in a real headless Chromium with no network beyond this server.

// The callbacks passed to page.evaluate/waitForFunction run in the page, where `document` exists;
// the tests' TypeScript setup has no DOM library, so declare the little that is used.
declare const document: { querySelector(selector: string): { textContent: string | null } | null };

jest.setTimeout(BROWSER_TEST_TIMEOUT_MS);

describeWithBrowser("GraphQL explorer in headless Chromium", () => {
  let harness: BrowserHarness;
  beforeAll(async () => {
    harness = await startBrowserHarness();
  });
  afterAll(() => harness?.close());

  it("runs a projects query with the demo credentials, and no request leaves the server", async () => {
    const { page, requested, pageErrors } = await openIsolatedPage(harness);
    const { origin } = harness;

    // A browser asking /graphql for HTML lands on the explorer.
    await page.goto(`${origin}/graphql`);
    expect(new URL(page.url()).pathname).toBe("/explorer");
    await page.waitForSelector(".graphiql-container .graphiql-query-editor .CodeMirror");

    const run = async () => {
      await page.evaluate(() => {
        const editor = document.querySelector(".graphiql-query-editor .CodeMirror") as unknown as {
          CodeMirror: { setValue(text: string): void };
        };
        editor.CodeMirror.setValue("{ projects { groupId name } }");
      });
      await page.click(".graphiql-execute-button");
    };
    const responseText = () => page.locator(".graphiql-response").innerText();

    // Without credentials the server refuses the query.
    await run();
    await page.waitForFunction(() =>
      document.querySelector(".graphiql-response")?.textContent?.includes("UNAUTHENTICATED"),
    );

    await page.fill("#api-id", MAPLE.apiId);
    await page.fill("#api-user", MAPLE.apiUser);
    await page.fill("#api-token", MAPLE.apiToken);
    await page.click("#save-credentials");
    await run();
    await page.waitForFunction(() =>
      document.querySelector(".graphiql-response")?.textContent?.includes("Summer Camp 2027"),
    );
    const text = await responseText();
    expect(text).toContain(String(MAPLE.groupId));
    expect(text).toContain("Jazz Workshop 2027");

    expect(requested.length).toBeGreaterThan(5);
    expect(requested.filter((url) => !url.startsWith(`${origin}/`))).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it("has this server's icon (issue 20), loaded from the page like its other files", async () => {
    const { page, failed } = await openIsolatedPage(harness);
    await page.goto(`${harness.origin}/explorer`);
    const icon = await page.evaluate(async () => {
      const link = document.querySelector('link[rel="icon"]') as unknown as { href: string };
      const response = await fetch(link.href);
      return { href: link.href, status: response.status, type: response.headers.get("content-type") };
    });
    expect(icon).toEqual({
      href: `${harness.origin}/favicon.svg`,
      status: 200,
      type: expect.stringMatching(/^image\/svg\+xml/),
    });
    expect(failed).toEqual([]);
    await page.close();
  });
});
