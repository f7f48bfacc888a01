import { dirname } from "node:path";
import type { RequestHandler } from "express";

// The pages we serve (the GraphQL explorer, the REST reference) load everything from this server:
// no inline script, only same-origin scripts, styles and fetches. Their libraries inline styles
// and data: images and fonts, which the policy allows.
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

export const pageSecurityHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
  res.setHeader("X-Content-Type-Options", "nosniff");
  next();
};

/** An installed package's folder. `require.resolve("pkg/some/file")` is refused by packages' exports maps; their package.json is not. */
export const installedPackageDir = (name: string): string => dirname(require.resolve(`${name}/package.json`));
