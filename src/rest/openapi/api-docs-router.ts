import { dirname, join } from "node:path";
import { Router, type RequestHandler } from "express";
import { packageRoot, packageVersion } from "../../common/package-root";
import type { ActionTable } from "../envelope/action-table";
import { buildOpenApiDocument } from "./openapi-document";

// GET /openapi.json (the document, built from the router's action tables), GET /docs (Swagger UI
// from node_modules, nothing fetched elsewhere) and GET / (where to go next).

const swaggerUiDir = () => dirname(require.resolve("swagger-ui-dist/package.json"));
const VENDOR_FILES = ["swagger-ui.css", "swagger-ui-bundle.js"];

// Only same-origin scripts, styles and fetches; Swagger UI inlines styles and data: images.
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const securityHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
  res.setHeader("X-Content-Type-Options", "nosniff");
  next();
};

export const API_LINKS = {
  docs: "/docs",
  openapi: "/openapi.json",
  graphql: "/graphql",
  explorer: "/explorer",
  health: "/healthz",
} as const;

const HOME_PAGE = `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8" /><title>regapi</title></head>
  <body>
    <h1>regapi</h1>
    <p>Registration-platform API.</p>
    <ul>
      <li><a href="${API_LINKS.docs}">REST API reference</a> (<a href="${API_LINKS.openapi}">OpenAPI 3.1 document</a>)</li>
      <li><a href="${API_LINKS.explorer}">GraphQL explorer</a> (endpoint: POST ${API_LINKS.graphql})</li>
    </ul>
  </body>
</html>
`;

export function apiDocsRouter(endpoints: Readonly<Record<string, ActionTable>>): Router {
  let document: string | null = null;
  const version = packageVersion();
  const router = Router();

  router.get("/", securityHeaders, (req, res) => {
    if (req.accepts(["application/json", "text/html"]) === "text/html") {
      res.type("html").send(HOME_PAGE);
      return;
    }
    res.json({
      name: "regapi",
      rest: { endpoints: [...Object.keys(endpoints), "session"].map((name) => `/reg/api2/${name}/`) },
      links: API_LINKS,
    });
  });
  router.get("/openapi.json", (_req, res) => {
    document ??= JSON.stringify(buildOpenApiDocument(endpoints, version));
    res.type("json").send(document);
  });
  const publicDir = join(packageRoot(), "public", "docs");
  router.get(["/docs", "/docs/"], securityHeaders, (_req, res) => res.sendFile(join(publicDir, "index.html")));
  router.get("/docs/init.js", securityHeaders, (_req, res) => res.sendFile(join(publicDir, "init.js")));
  for (const name of VENDOR_FILES) {
    const file = join(swaggerUiDir(), name);
    router.get(`/docs/vendor/${name}`, securityHeaders, (_req, res) => res.sendFile(file, { maxAge: "1d" }));
  }
  return router;
}
