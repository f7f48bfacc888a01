import { join } from "node:path";
import { packageRoot } from "../../common/package-root";
import { Router, type Request } from "express";
import { installedPackageDir, pageSecurityHeaders } from "../../http/page-security";

/** The four UMD files GraphiQL 4 needs, served from node_modules: nothing is fetched from a CDN. */
const VENDOR_FILES: Record<string, () => string> = {
  "graphiql.min.js": () => join(installedPackageDir("graphiql"), "graphiql.min.js"),
  "graphiql.min.css": () => join(installedPackageDir("graphiql"), "graphiql.min.css"),
  "react.production.min.js": () => join(installedPackageDir("react"), "umd", "react.production.min.js"),
  "react-dom.production.min.js": () => join(installedPackageDir("react-dom"), "umd", "react-dom.production.min.js"),
};

const OWN_FILES = ["init.js", "explorer.css"];

/** GET /explorer: GraphiQL, working offline, with a form for the three API headers. */
export function explorerRouter(): Router {
  const publicDir = join(packageRoot(), "public", "explorer");
  const router = Router();
  router.use(pageSecurityHeaders);
  router.get("/", (_req, res) => res.sendFile(join(publicDir, "index.html")));
  for (const name of OWN_FILES) router.get(`/${name}`, (_req, res) => res.sendFile(join(publicDir, name)));
  for (const [name, path] of Object.entries(VENDOR_FILES)) {
    const file = path();
    router.get(`/vendor/${name}`, (_req, res) => res.sendFile(file, { maxAge: "1d" }));
  }
  return router;
}

/** A browser asking for GET /graphql (Accept: text/html first) is sent to the explorer. */
export const wantsExplorer = (req: Request) =>
  req.method === "GET" && req.accepts(["application/json", "text/html"]) === "text/html";
