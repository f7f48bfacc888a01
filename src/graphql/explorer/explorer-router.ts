import { dirname, join } from "node:path";
import { packageRoot } from "../../common/package-root";
import { Router, type Request, type RequestHandler } from "express";

// `require.resolve("react/umd/…")` is refused by the packages' exports maps; their package.json is not.
const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));

/** The four UMD files GraphiQL 4 needs, served from node_modules: nothing is fetched from a CDN. */
const VENDOR_FILES: Record<string, () => string> = {
  "graphiql.min.js": () => join(packageDir("graphiql"), "graphiql.min.js"),
  "graphiql.min.css": () => join(packageDir("graphiql"), "graphiql.min.css"),
  "react.production.min.js": () => join(packageDir("react"), "umd", "react.production.min.js"),
  "react-dom.production.min.js": () => join(packageDir("react-dom"), "umd", "react-dom.production.min.js"),
};

const OWN_FILES = ["init.js", "explorer.css"];

// No inline script anywhere on the page; only same-origin scripts, styles, fetches.
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

/** GET /explorer: GraphiQL, working offline, with a form for the three API headers. */
export function explorerRouter(): Router {
  const publicDir = join(packageRoot(), "public", "explorer");
  const router = Router();
  router.use(securityHeaders);
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
