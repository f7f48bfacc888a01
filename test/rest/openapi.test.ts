import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { compileErrors, validate } from "@readme/openapi-parser";
import request from "supertest";
import { DEMO_FIXTURE } from "../../src/fixtures/demo";
import { ENDPOINT_DOCS } from "../../src/rest/openapi/action-docs";
import { OPENAPI_FILE, openApiText } from "../../src/rest/openapi/emit-openapi";
import { requestSchemaName } from "../../src/rest/openapi/openapi-document";
import { LEGACY_ENDPOINTS } from "../../src/rest/router";
import { mapleHeaders } from "../fixtures/test-fixture";
import { postRest } from "../support/rest";
import { startTestApp, type TestApp } from "../support/test-app";

// openapi.json is generated from the router's action tables and the domain command schemas; it is
// committed (like schema.graphql) so a change of a schema shows in review. On a difference run
// `npm run openapi:emit` and commit the file.

type Operation = {
  requestBody: {
    content: {
      "application/json": {
        schema: { oneOf?: { $ref: string }[]; discriminator?: { mapping: Record<string, string> } };
        examples: Record<string, { value: Record<string, unknown> }>;
      };
    };
  };
  responses: Record<string, { content?: { "application/json": { examples?: Record<string, unknown> } } }>;
};
type Document = {
  paths: Record<string, { post: Operation }>;
  components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
};

const committedText = () => readFileSync(resolve(process.cwd(), OPENAPI_FILE), "utf8");
const committed = () => JSON.parse(committedText()) as Document;

describe("committed openapi.json", () => {
  it("is what the code generates (run npm run openapi:emit after a schema change)", () => {
    expect(JSON.parse(committedText())).toEqual(JSON.parse(openApiText()));
    expect(committedText()).toBe(openApiText());
  });

  it("is a valid OpenAPI 3.1 document", async () => {
    const document = JSON.parse(committedText()) as Parameters<typeof validate>[0];
    const result = await validate(document);
    if (!result.valid) throw new Error(compileErrors(result));
    expect(result.specification).toBe("OpenAPI");
    expect((document as { openapi: string }).openapi).toBe("3.1.0");
  });

  it("documents every action the router serves and nothing else, one operation per endpoint", () => {
    const document = committed();
    const served = Object.keys(LEGACY_ENDPOINTS).map((endpoint) => `/reg/api2/${endpoint}/`);
    expect(Object.keys(document.paths).sort()).toEqual([...served, "/reg/api2/session/"].sort());
    for (const [endpoint, actions] of Object.entries(LEGACY_ENDPOINTS)) {
      const body = document.paths[`/reg/api2/${endpoint}/`].post.requestBody.content["application/json"];
      const mapping = body.schema.discriminator!.mapping;
      expect(Object.keys(mapping).sort()).toEqual(Object.keys(actions).sort());
      expect(body.schema.oneOf!.map((variant) => variant.$ref).sort()).toEqual(Object.values(mapping).sort());
      expect(Object.keys(body.examples).sort()).toEqual(Object.keys(actions).sort());
      for (const action of Object.keys(actions)) {
        const variant = document.components.schemas[requestSchemaName(endpoint, action)];
        expect(variant.properties?.action).toEqual({ const: action });
      }
    }
    // The descriptions list the same actions (so a removed action leaves no stale description).
    for (const [endpoint, docs] of Object.entries(ENDPOINT_DOCS)) {
      expect(Object.keys(docs.actions).sort()).toEqual(Object.keys(LEGACY_ENDPOINTS[endpoint]).sort());
    }
  });

  it("gives an example body for every error code of every endpoint", () => {
    const codes = new Set<string>();
    for (const path of Object.values(committed().paths)) {
      for (const [status, response] of Object.entries(path.post.responses)) {
        if (status === "200") continue;
        for (const code of Object.keys(response.content?.["application/json"].examples ?? {})) codes.add(code);
      }
    }
    expect(codes).toEqual(
      new Set([
        "VALIDATION_FAILED",
        "UNAUTHENTICATED",
        "STALE_TIMESTAMP",
        "FORBIDDEN",
        "USER_NOT_FOUND",
        "NOT_FOUND",
        "CONFLICT",
        "CURSOR_EXPIRED",
        "INVALID_JSON",
        "METHOD_NOT_ALLOWED",
        "UNSUPPORTED_MEDIA_TYPE",
        "PAYLOAD_TOO_LARGE",
        "UNKNOWN_ACTION",
        "RATE_LIMITED",
        "INTERNAL",
        "SERVICE_UNAVAILABLE",
        "IDEMPOTENCY_KEY_INVALID",
        "IDEMPOTENCY_KEY_REUSED",
        "IDEMPOTENCY_KEY_IN_PROGRESS",
        "CONSISTENCY_INVALID",
      ]),
    );
  });
});

describe("the documented examples against the demo data", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ fixture: DEMO_FIXTURE });
  });
  afterAll(() => t.close());

  // Writes first would change what the reads see; each example stands alone, in document order.
  for (const [endpoint, docs] of Object.entries(ENDPOINT_DOCS)) {
    for (const [action, doc] of Object.entries(docs.actions)) {
      it(`${endpoint} ${action} succeeds as documented`, async () => {
        const res = await postRest(t.app, `/reg/api2/${endpoint}/`, doc.example, mapleHeaders);
        expect({ status: res.status, body: res.body as unknown }).toMatchObject({
          status: 200,
          body: { success: true },
        });
      });
    }
  }
});

describe("GET /, /openapi.json and /docs", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it("serves the committed document at /openapi.json", async () => {
    const res = await request(t.app).get("/openapi.json").expect(200);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expect(res.body).toEqual(JSON.parse(committedText()));
  });

  it("points at the docs, the document and GraphQL from / (JSON, or a page for browsers)", async () => {
    const json = await request(t.app).get("/").expect(200);
    expect(json.body).toMatchObject({
      links: { docs: "/docs", openapi: "/openapi.json", graphql: "/graphql", explorer: "/explorer" },
    });
    const page = await request(t.app).get("/").set("Accept", "text/html").expect(200);
    expect(page.headers["content-type"]).toMatch(/^text\/html/);
    for (const link of ['href="/docs"', 'href="/openapi.json"', 'href="/explorer"']) expect(page.text).toContain(link);
  });

  it("serves the reference page and Swagger UI's files from the server itself", async () => {
    const page = await request(t.app).get("/docs").expect(200);
    expect(page.headers["content-security-policy"]).toContain("default-src 'self'");
    const sources = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)]
      .map((match) => match[1])
      .filter((source) => !source.startsWith("data:"));
    expect(sources.length).toBeGreaterThan(1);
    for (const source of sources) {
      // Swagger UI's files, and the icon every page of this server shares.
      expect(source.startsWith("/docs/") || source === "/favicon.svg").toBe(true);
      await request(t.app).get(source).expect(200);
    }
  });
});
