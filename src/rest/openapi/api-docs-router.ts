import { join } from "node:path";
import { Router } from "express";
import { packageRoot, packageVersion } from "../../common/package-root";
import { installedPackageDir, pageSecurityHeaders } from "../../http/page-security";
import type { ActionTable } from "../envelope/action-table";
import { buildOpenApiDocument } from "./openapi-document";

// GET /openapi.json (the document, built from the router's action tables), GET /docs (Swagger UI
// from node_modules, nothing fetched elsewhere), GET / (where to go next) and the pages' icon.

const VENDOR_FILES = ["swagger-ui.css", "swagger-ui-bundle.js"];

export const API_LINKS = {
  docs: "/docs",
  openapi: "/openapi.json",
  graphql: "/graphql",
  explorer: "/explorer",
  health: "/healthz",
} as const;

/** The icon of every page we serve (public/icons), from this server like everything the pages load. */
const ICONS = { "favicon.svg": "image/svg+xml", "favicon.ico": "image/x-icon" } as const;

const HOME_PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>regapi</title>
    <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
  </head>
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

  router.get("/", pageSecurityHeaders, (req, res) => {
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
  const iconsDir = join(packageRoot(), "public", "icons");
  for (const [name, type] of Object.entries(ICONS)) {
    router.get(`/${name}`, (_req, res) => res.type(type).sendFile(join(iconsDir, name), { maxAge: "1d" }));
  }
  const publicDir = join(packageRoot(), "public", "docs");
  router.get(["/docs", "/docs/"], pageSecurityHeaders, (_req, res) => res.sendFile(join(publicDir, "index.html")));
  router.get("/docs/init.js", pageSecurityHeaders, (_req, res) => res.sendFile(join(publicDir, "init.js")));
  for (const name of VENDOR_FILES) {
    const file = join(installedPackageDir("swagger-ui-dist"), name);
    router.get(`/docs/vendor/${name}`, pageSecurityHeaders, (_req, res) => res.sendFile(file, { maxAge: "1d" }));
  }
  return router;
}
