import { getIntrospectionQuery } from "graphql";
import request from "supertest";
import { createApp, type RegapiApp } from "../../src/app";
import { GRAPHQL_LIMITS } from "../../src/graphql/limits";
import { createLogger } from "../../src/http/logger";
import { MAPLE, mapleHeaders } from "../fixtures/test-fixture";
import { startTestApp, type TestApp } from "../support/test-app";
import { graphql, postGraphql } from "../support/graphql";
import { watchTables } from "../support/tables";
import { testConfig } from "../support/test-config";

// Issue 4 §5 and contract §1 on /graphql: body limits, CSRF prevention, no batching, depth /
// alias / cost / token limits with a clear error, introspection from configuration, no stack
// traces or schema hints in any error.

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const post = () => postGraphql(t.app);
function expectNoInternals(body: { errors?: { extensions?: Record<string, unknown> }[] }) {
  for (const error of body.errors ?? []) {
    expect(Object.keys(error.extensions ?? {})).not.toContain("stacktrace");
    expect(JSON.stringify(error)).not.toMatch(/\bat .+\.(ts|js):\d+|SELECT |node_modules/);
  }
}

const limitError = (body: { errors?: { message: string; extensions?: Record<string, unknown> }[] }) => body.errors?.[0];

describe("HTTP transport of /graphql", () => {
  it("refuses a text/plain POST as a possible CSRF and runs nothing", async () => {
    const tables = await watchTables(t.dataSource);
    const mutation = `mutation { createStatus(input: {groupId: ${MAPLE.groupId}, name: "Csrf", color: "#123456"}) { status { id } } }`;
    const response = await post()
      .set("Content-Type", "text/plain")
      .send(JSON.stringify({ query: mutation }));
    expect(response.status).toBe(400);
    expect(response.body.errors[0].extensions.code).toBe("BAD_REQUEST");
    expect(response.body.errors[0].message).toMatch(/Cross-Site Request Forgery/);
    await tables.expectNothingWritten();
  });

  it("refuses a batched (array) body", async () => {
    const response = await post().send([{ query: "{ projects { name } }" }, { query: "{ projects { groupId } }" }]);
    expect(response.status).toBe(400);
    expect(response.body.errors[0]).toMatchObject({
      message: "Operation batching disabled.",
      extensions: { code: "BAD_REQUEST" },
    });
  });

  it("answers malformed JSON with 400 INVALID_JSON and a body over 1 MiB with 413 PAYLOAD_TOO_LARGE", async () => {
    const malformed = await post().set("Content-Type", "application/json").send('{"query": "{ projects { name } }"');
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors[0].extensions.code).toBe("INVALID_JSON");

    const huge = await post()
      .set("Content-Type", "application/json")
      .send(JSON.stringify({ query: "{ projects { name } }", variables: { pad: "x".repeat(1024 * 1024) } }));
    expect(huge.status).toBe(413);
    expect(huge.body.errors[0].extensions.code).toBe("PAYLOAD_TOO_LARGE");
    // Worded as REST words it (test/rest/transport.test.ts).
    expect(huge.body.errors[0].message).toBe("The request body is larger than 1 MiB (1048576 bytes).");
  });

  it("accepts a body just under 1 MiB", async () => {
    const response = await post()
      .set("Content-Type", "application/json")
      .send(JSON.stringify({ query: "{ projects { name } }", variables: { pad: "x".repeat(1000 * 1000) } }));
    expect(response.status).toBe(200);
    expect(response.body.data.projects.length).toBeGreaterThan(0);
  });

  it("sends a POST answer with its Content-Type and length, without an ETag (no POST can be revalidated)", async () => {
    const response = await post()
      .set("Content-Type", "application/json")
      .send(JSON.stringify({ query: "{ projects { name } }" }));
    expect(response.status).toBe(200);
    expect(response.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(Number(response.headers["content-length"])).toBe(Buffer.byteLength(response.text, "utf8"));
    expect(response.headers.etag).toBeUndefined();
    expect(response.body.data.projects.length).toBeGreaterThan(0);
  });

  it("answers a variable of the wrong type with 400 BAD_USER_INPUT", async () => {
    const response = await graphql(
      t.app,
      "query($first: Int!) { users(groupId: 100909072, first: $first) { totalCount } }",
      { first: "ten" },
    );
    expect(response.status).toBe(400);
    expect(response.errors?.[0].extensions?.code).toBe("BAD_USER_INPUT");
  });
});

describe("query limits (graphql-armor and the parser)", () => {
  // users → edges → node → children → parent → … : one level per field.
  const nestedTo = (depth: number) => {
    const inner = ["children", "parent"];
    let selection = "uid";
    for (let level = depth - 4; level >= 1; level -= 1) selection = `${inner[level % 2]} { ${selection} }`;
    return `{ users(groupId: ${MAPLE.groupId}, first: 5) { edges { node { ${selection} } } } }`;
  };

  it(`runs a query ${GRAPHQL_LIMITS.maxDepth} levels deep and refuses one level more`, async () => {
    const atLimit = await graphql(t.app, nestedTo(GRAPHQL_LIMITS.maxDepth));
    expect(atLimit.errors).toBeUndefined();

    const tooDeep = await graphql(t.app, nestedTo(GRAPHQL_LIMITS.maxDepth + 1));
    expect(tooDeep.status).toBe(400);
    expect(tooDeep.data).toBeUndefined();
    expect(limitError(tooDeep.body)).toMatchObject({
      message: `Query depth limit of ${GRAPHQL_LIMITS.maxDepth} exceeded, found ${GRAPHQL_LIMITS.maxDepth + 1}.`,
      extensions: { code: "QUERY_TOO_COMPLEX", limit: "depth" },
    });
  });

  it("refuses a query whose estimated cost is over the budget", async () => {
    const costly = `{ users(groupId: ${MAPLE.groupId}, first: 100) { edges { node {
        forms { form { fields { identifier label type options mandatory mappedName } } missingMandatoryFields { identifier label } }
        children { forms { form { fields { identifier label } } } } } } } }`;
    const response = await graphql(t.app, costly);
    expect(response.status).toBe(400);
    expect(limitError(response.body)?.extensions).toEqual({ code: "QUERY_TOO_COMPLEX", limit: "cost" });
    expect(limitError(response.body)?.message).toMatch(
      new RegExp(`^Query Cost limit of ${GRAPHQL_LIMITS.maxCost} exceeded, found [\\d.]+\\.$`),
    );
  });

  it("admits a full 50-user page with meta info and forms", async () => {
    const page = `{ users(groupId: ${MAPLE.groupId}, first: 50) { totalCount edges { cursor node {
        uid name metaInfo { totalForms completedForms totalOrder totalPaid totalBalance status { name color } }
        forms { completed form { formId name } } } } } }`;
    const response = await graphql(t.app, page);
    expect(response.errors).toBeUndefined();
  });

  it(`refuses more than ${GRAPHQL_LIMITS.maxAliases} aliases`, async () => {
    const aliases = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `p${i}: projects { name }`).join(" ")} }`;
    expect((await graphql(t.app, aliases(GRAPHQL_LIMITS.maxAliases))).errors).toBeUndefined();
    const response = await graphql(t.app, aliases(GRAPHQL_LIMITS.maxAliases + 1));
    expect(response.status).toBe(400);
    expect(limitError(response.body)?.extensions).toEqual({ code: "QUERY_TOO_COMPLEX", limit: "aliases" });
  });

  it(`refuses a document of more than ${GRAPHQL_LIMITS.maxTokens} tokens before parsing it all`, async () => {
    const response = await graphql(t.app, `{ projects { ${"name ".repeat(GRAPHQL_LIMITS.maxTokens)} } }`);
    expect(response.status).toBe(400);
    expect(limitError(response.body)?.extensions).toEqual({ code: "QUERY_TOO_COMPLEX", limit: "tokens" });
    expect(limitError(response.body)?.message).toMatch(/Document contains more tha[nt] 2000 tokens/);
  });

  it("does not suggest field names and never returns a stack trace", async () => {
    const typo = await graphql(t.app, "{ projects { nam } }");
    expect(typo.status).toBe(400);
    expect(typo.errors?.[0].extensions?.code).toBe("GRAPHQL_VALIDATION_FAILED");
    expect(typo.errors?.[0].message).not.toMatch(/Did you mean/i);
    expect(typo.errors?.[0].message).not.toMatch(/"name"/);
    for (const body of [
      typo.body,
      (await graphql(t.app, nestedTo(30))).body,
      (await graphql(t.app, "{ projects {")).body,
    ]) {
      expectNoInternals(body);
    }
  });
});

describe("introspection follows configuration", () => {
  async function appWith(graphqlIntrospection: boolean): Promise<RegapiApp> {
    return createApp({
      dataSource: t.dataSource,
      logger: createLogger("silent"),
      config: testConfig({ graphqlIntrospection }),
    });
  }

  it("answers __schema when enabled, even before credentials are entered (for the explorer)", async () => {
    const enabled = await appWith(true);
    try {
      const response = await graphql(enabled.app, "{ __schema { queryType { name } } }", {}, {});
      expect(response.status).toBe(200);
      expect(response.data).toEqual({ __schema: { queryType: { name: "Query" } } });
    } finally {
      await enabled.stop();
    }
  });

  it("answers the full introspection query an explorer sends, within the token and depth limits", async () => {
    const query = getIntrospectionQuery({
      descriptions: true,
      inputValueDeprecation: true,
      specifiedByUrl: true,
      directiveIsRepeatable: true,
      schemaDescription: true,
    });
    const response = await graphql(t.app, query, {}, {});
    expect(response.status).toBe(200);
    const types = (response.data as { __schema: { types: { name: string }[] } }).__schema.types.map(
      (type) => type.name,
    );
    expect(types).toEqual(
      expect.arrayContaining(["User", "MetaInfo", "UserConnection", "Money", "DateTime", "JSONObject"]),
    );
  });

  it("refuses __schema when disabled, with or without credentials", async () => {
    const disabled = await appWith(false);
    try {
      for (const headers of [{}, mapleHeaders]) {
        const response = await graphql(disabled.app, "{ __schema { queryType { name } } }", {}, headers);
        expect(response.status).toBe(400);
        expect(response.errors?.[0].extensions?.code).toBe("GRAPHQL_VALIDATION_FAILED");
        expect(response.errors?.[0].message).toMatch(/introspection/i);
      }
      expect((await graphql(disabled.app, "{ projects { name } }")).errors).toBeUndefined();
    } finally {
      await disabled.stop();
    }
  });
});

describe("explorer entry points", () => {
  it("sends a browser asking GET /graphql for HTML to /explorer", async () => {
    const response = await request(t.app).get("/graphql").set("Accept", "text/html,application/xhtml+xml,*/*;q=0.8");
    expect(response.status).toBe(302);
    expect(response.headers.location).toBe("/explorer");
  });

  it("serves the explorer page without inline scripts, under a same-origin Content-Security-Policy", async () => {
    const page = await request(t.app).get("/explorer");
    expect(page.status).toBe(200);
    expect(page.headers["content-type"]).toMatch(/^text\/html/);
    expect(page.headers["content-security-policy"]).toMatch(/script-src 'self'/);
    expect(page.headers["content-security-policy"]).toMatch(/connect-src 'self'/);
    const scripts = [...page.text.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, body] of scripts) {
      expect(attributes).toMatch(/src="\/explorer\//);
      expect(body.trim()).toBe("");
    }
    for (const [, src] of page.text.matchAll(/(?:src|href)="([^"]+)"/g)) {
      // The explorer's own files, and the icon every page of this server shares.
      expect(src.startsWith("/explorer/") || src === "/favicon.svg").toBe(true);
      const asset = await request(t.app).get(src);
      expect(asset.status).toBe(200);
    }
  });
});
