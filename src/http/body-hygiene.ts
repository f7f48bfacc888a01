import { isUtf8 } from "node:buffer";
import type { IncomingMessage } from "node:http";
import express, { type RequestHandler } from "express";

/**
 * How every JSON body is read (REST and GraphQL alike): UTF-8 only, no content encodings but
 * `identity`, and a nesting limit checked on the raw bytes before JSON.parse, which would
 * otherwise recurse into a body of 5,000 `[` and exhaust the stack.
 */
export interface JsonBodyOptions {
  /** Largest body, as body-parser reads it ("1mb" = 1,048,576 bytes). */
  limit: string;
  maxDepth: number;
  /** false: a JSON scalar is parsed too (the REST envelope check then refuses it with its own message). */
  strict: boolean;
  /** Which requests to parse; REST checks the content type itself and parses every body it is handed. */
  type?: string | ((req: IncomingMessage) => boolean);
}

/** Largest JSON body, the same on REST and GraphQL: 1 MiB (body-parser reads "1mb" as 1,048,576 bytes). */
export const BODY_LIMIT = "1mb";
/** How a refusal names the limit, in the same words on both transports. */
export const BODY_LIMIT_TEXT = "1 MiB (1048576 bytes)";

export const BODY_NOT_UTF8 = "The request body must be JSON in UTF-8 (Content-Type: application/json; charset=utf-8).";

/** Our refusals carry a body-parser style `type`, so `fromBodyParserError` (transport-errors.ts) maps them with its own. */
class BodyHygieneError extends Error {
  constructor(
    readonly type: "entity.too.deep" | "charset.unsupported" | "entity.not.utf8",
    message: string,
  ) {
    super(message);
  }
}

/** Deepest nesting of `[`/`{` in a JSON text, counted without parsing; stops as soon as `max` is passed. */
export function jsonNestingExceeds(body: Buffer, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const byte = body[i];
    if (inString) {
      if (byte === 0x5c)
        i++; // backslash: skip the escaped character
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) inString = true;
    else if (byte === 0x5b || byte === 0x7b) {
      if (++depth > max) return true;
    } else if (byte === 0x5d || byte === 0x7d) depth--;
  }
  return false;
}

const charsetOf = (req: express.Request): string | undefined =>
  /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(req.get("content-type") ?? "")?.[1]?.toLowerCase();

/**
 * Refuses a declared charset other than UTF-8 before the body is read (body-parser itself would
 * decode UTF-16 and UTF-32 too).
 */
const utf8Label: RequestHandler = (req, _res, next) => {
  const charset = charsetOf(req);
  if (charset === undefined || charset === "utf-8") return next();
  next(new BodyHygieneError("charset.unsupported", BODY_NOT_UTF8));
};

/** express.json with the hygiene rules; its failures are told apart by `fromBodyParserError`. */
export function jsonBody(options: JsonBodyOptions): RequestHandler[] {
  const parse = express.json({
    limit: options.limit,
    strict: options.strict,
    type: options.type ?? "application/json",
    // A compressed body is refused (415) rather than inflated: no decompression bombs, and a plain
    // body mislabelled gzip is a client error instead of a zlib failure.
    inflate: false,
    verify: (_req, _res, raw) => {
      if (!isUtf8(raw)) throw new BodyHygieneError("entity.not.utf8", BODY_NOT_UTF8);
      if (jsonNestingExceeds(raw, options.maxDepth)) {
        throw new BodyHygieneError(
          "entity.too.deep",
          `The request body nests arrays and objects more than ${options.maxDepth} levels deep.`,
        );
      }
    },
  });
  return [utf8Label, parse];
}
