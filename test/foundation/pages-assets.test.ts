import { readFileSync } from "node:fs";
import { request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import request from "supertest";
import { installedPackageDir } from "../../src/http/page-security";
import { mapleHeaders } from "../fixtures/test-fixture";
import { startTestApp, type TestApp } from "../support/test-app";

// Issue 20: the explorer's and the reference's bundles go compressed, and every page we serve has
// an icon, served by us.

let t: TestApp;
let server: Server;
let port: number;
beforeAll(async () => {
  t = await startTestApp();
  server = t.app.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await t.close();
});

/** The raw bytes of a GET as they crossed the wire (supertest would decode them). */
function rawGet(path: string, headers: Record<string, string>) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
    req.end();
  });
}

const BUNDLES = [
  ["/explorer/vendor/graphiql.min.js", join(installedPackageDir("graphiql"), "graphiql.min.js")],
  ["/explorer/vendor/graphiql.min.css", join(installedPackageDir("graphiql"), "graphiql.min.css")],
  ["/docs/vendor/swagger-ui-bundle.js", join(installedPackageDir("swagger-ui-dist"), "swagger-ui-bundle.js")],
  ["/docs/vendor/swagger-ui.css", join(installedPackageDir("swagger-ui-dist"), "swagger-ui.css")],
] as const;

describe("the pages' bundles are served compressed", () => {
  it.each(BUNDLES)("%s: gzip to a client that accepts it, the same bytes once decoded", async (path, file) => {
    const original = readFileSync(file);
    const gzip = await rawGet(path, { "Accept-Encoding": "gzip" });
    expect(gzip.status).toBe(200);
    expect(gzip.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(gzip.body).equals(original)).toBe(true);
    expect(gzip.body.length).toBeLessThan(original.length * 0.7);
  });

  it("brotli when the client prefers it; the whole document otherwise", async () => {
    const [path, file] = BUNDLES[2];
    const original = readFileSync(file);
    const br = await rawGet(path, { "Accept-Encoding": "br" });
    expect(br.headers["content-encoding"]).toBe("br");
    expect(brotliDecompressSync(br.body).equals(original)).toBe(true);
    const plain = await rawGet(path, {});
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.body.equals(original)).toBe(true);
  });

  it("the OpenAPI document too; API answers stay uncompressed", async () => {
    const document = await rawGet("/openapi.json", { "Accept-Encoding": "gzip" });
    expect(document.headers["content-encoding"]).toBe("gzip");
    expect(JSON.parse(gunzipSync(document.body).toString("utf8")).openapi).toBe("3.1.0");
    const api = await request(t.app)
      .post("/reg/api2/projects/")
      .set(mapleHeaders)
      .set("Accept-Encoding", "gzip")
      .send({ action: "get_project_list", group_id: 100909072, doc: { with_archived: true } });
    expect(api.status).toBe(200);
    expect(api.headers["content-encoding"]).toBeUndefined();
  });
});

describe("every page we serve has our icon", () => {
  it("GET /favicon.svg and /favicon.ico answer the icon files", async () => {
    const svg = await request(t.app).get("/favicon.svg");
    expect(svg.status).toBe(200);
    expect(svg.headers["content-type"]).toMatch(/^image\/svg\+xml/);
    expect(String(svg.body)).toContain("<svg");
    const ico = await request(t.app).get("/favicon.ico").buffer(true);
    expect(ico.status).toBe(200);
    expect(ico.headers["content-type"]).toBe("image/x-icon");
    // An ICO file: reserved 0, type 1 (icon), one image.
    expect([...ico.body.subarray(0, 6)]).toEqual([0, 0, 1, 0, 1, 0]);
  });

  it.each(["/explorer", "/docs", "/"])("%s links the icon from this server", async (path) => {
    const page = await request(t.app).get(path).set("Accept", "text/html");
    expect(page.status).toBe(200);
    expect(page.text).toContain('<link rel="icon" href="/favicon.svg" type="image/svg+xml" />');
  });
});
