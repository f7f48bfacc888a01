import { createHash } from "node:crypto";
import type { Request, RequestHandler, Response } from "express";
import {
  claimIdempotencyKey,
  deleteIdempotencyRecord,
  findIdempotencyRecord,
  purgeExpiredIdempotencyKeys,
  storeIdempotentAnswer,
  type IdempotencyOwner,
  type StoredAnswer,
} from "../data/idempotency.data";
import { DEFAULT_IDEMPOTENCY_WAIT_MS } from "../config/config";
import type { ProcessState } from "../domain/process-state";
import type { Logger } from "./logger";
import { authenticateRequest } from "./request-authentication";
import { TransportError } from "./transport-errors";

// Idempotency-Key on REST writes and GraphQL mutations (docs/rest-openapi.md). The first request
// with a key claims it by inserting a row (unique per API account and key); its answer is stored
// on that row before it is sent, and replayed byte for byte to repeats with the same body. Several
// instances sharing one database agree through that unique index alone.

export const IDEMPOTENCY_KEY_HEADER = "Idempotency-Key";
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
export const IDEMPOTENCY_TTL_HOURS = 24;
/** Set on a replayed answer. */
export const IDEMPOTENT_REPLAYED_HEADER = "Idempotent-Replayed";

const KEY_PATTERN = new RegExp(`^[\\x21-\\x7E]{1,${IDEMPOTENCY_KEY_MAX_LENGTH}}$`);
/** MySQL/MariaDB TEXT holds 65 535 bytes; a larger answer is sent but not kept. */
const MAX_STORED_BODY_BYTES = 65_535;

/**
 * What a request does with a key it sent: a write takes it ("applies"), a read ignores it, and a
 * write whose answer holds a credential it cannot take refuses it with this explanation (the answer
 * may not be stored, and ignoring the key would let a retry silently repeat the write).
 */
export type IdempotencyKeyPolicy = "applies" | "ignored" | { refused: string };

export interface IdempotencyOptions {
  state: ProcessState;
  logger: Logger;
  /** How this request treats the key. Called once, only when a key was sent. */
  keyPolicy(req: Request): IdempotencyKeyPolicy;
  /** Answers a refusal in the transport's own error shape. */
  sendError(req: Request, res: Response, error: TransportError): void;
  /** How long a repeat waits for the first request's answer before 409 IDEMPOTENCY_KEY_IN_PROGRESS. */
  waitTimeoutMs?: number;
  pollIntervalMs?: number;
  /** A claim without an answer older than this is abandoned (its instance died) and may be taken over. */
  abandonedAfterMs?: number;
  now?: () => Date;
}

export const IDEMPOTENCY_DEFAULTS = {
  waitTimeoutMs: DEFAULT_IDEMPOTENCY_WAIT_MS,
  pollIntervalMs: 50,
  abandonedAfterMs: 120_000,
} as const;
const PURGE_EVERY_MS = 60_000;

/** JSON with object members sorted by name at every depth: the same value always gives the same text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .sort()
      .filter((key) => record[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
    return `{${members.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** What "the same request" means: method, path and the canonical JSON of the parsed body. */
export function requestFingerprint(req: Request): string {
  const path = `${req.baseUrl}${req.path}`.replace(/\/+$/, "");
  return createHash("sha256")
    .update(`${req.method} ${path}\n${canonicalJson(req.body)}`)
    .digest("hex");
}

/** Failures worth retrying are not kept: the repeat runs again. */
const isKept = (status: number) => status < 500 && status !== 401 && status !== 429;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The middleware both transports mount in front of their handler. */
export function idempotentWrites(options: IdempotencyOptions): RequestHandler {
  const settings = {
    waitTimeoutMs: options.waitTimeoutMs ?? IDEMPOTENCY_DEFAULTS.waitTimeoutMs,
    pollIntervalMs: options.pollIntervalMs ?? IDEMPOTENCY_DEFAULTS.pollIntervalMs,
    abandonedAfterMs: options.abandonedAfterMs ?? IDEMPOTENCY_DEFAULTS.abandonedAfterMs,
  };
  const now = options.now ?? (() => new Date());
  const { dataSource, sqliteTurns } = options.state;
  const em = dataSource.manager;
  // Writes outside the domain's transactions: on SQLite each waits for its turn (src/db/sqlite-turns.ts).
  const write = <T>(work: () => Promise<T>) => sqliteTurns.run(work);
  let lastPurge = 0;

  const purgeNowAndThen = async () => {
    const at = now();
    if (at.getTime() - lastPurge < PURGE_EVERY_MS) return;
    lastPurge = at.getTime();
    try {
      await write(() => purgeExpiredIdempotencyKeys(em, at));
    } catch (error) {
      options.logger.warn({ err: error }, "purging expired idempotency keys failed");
    }
  };

  const replay = (res: Response, answer: StoredAnswer) => {
    res.status(answer.status);
    if (answer.contentType) res.setHeader("Content-Type", answer.contentType);
    res.setHeader(IDEMPOTENT_REPLAYED_HEADER, "true");
    res.send(Buffer.from(answer.body, "utf8"));
  };

  /** Sends the answer through `res` once it is stored, so a repeat after the client saw it finds it. */
  const recordAnswerOf = (req: Request, res: Response, id: number) => {
    const send = res.send.bind(res);
    let captured = false;
    res.send = (body?: unknown) => {
      if (captured || (typeof body !== "string" && !Buffer.isBuffer(body))) return send(body);
      captured = true;
      const text = typeof body === "string" ? body : body.toString("utf8");
      const status = res.statusCode;
      const contentType = res.getHeader("Content-Type");
      const keep = isKept(status) && Buffer.byteLength(text, "utf8") <= MAX_STORED_BODY_BYTES;
      const settle = write<unknown>(() =>
        keep
          ? storeIdempotentAnswer(em, id, {
              status,
              contentType: typeof contentType === "string" ? contentType : null,
              body: text,
            })
          : deleteIdempotencyRecord(em, id),
      );
      settle
        .catch((error: unknown) => {
          (req.log ?? options.logger).error({ err: error, requestId: req.requestId }, "idempotency record failed");
          return write(() => deleteIdempotencyRecord(em, id)).catch(() => undefined);
        })
        .finally(() => send(body));
      return res;
    };
  };

  const refuse = (req: Request, res: Response, code: TransportError["code"], message: string) =>
    options.sendError(req, res, new TransportError(code, message));

  return async (req, res, next) => {
    const key = req.get(IDEMPOTENCY_KEY_HEADER);
    if (key === undefined) return next();
    const policy = options.keyPolicy(req);
    if (policy === "ignored") return next();
    try {
      // Unauthenticated requests go on to be refused by the handler; nothing is stored for them.
      const { principal } = await authenticateRequest(req, options.state);
      if (!principal) return next();
      if (!KEY_PATTERN.test(key)) {
        return refuse(
          req,
          res,
          "IDEMPOTENCY_KEY_INVALID",
          `${IDEMPOTENCY_KEY_HEADER} must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters without spaces.`,
        );
      }
      if (policy !== "applies") return refuse(req, res, "IDEMPOTENCY_KEY_INVALID", policy.refused);
      const owner: IdempotencyOwner = {
        apiAccountId: principal.apiAccountId,
        keyHash: createHash("sha256").update(key).digest("hex"),
      };
      const requestHash = requestFingerprint(req);
      const deadline = Date.now() + settings.waitTimeoutMs;
      await purgeNowAndThen();
      let claimFirst = true;
      for (;;) {
        const at = now();
        if (claimFirst) {
          const id = await write(() =>
            claimIdempotencyKey(em, {
              ...owner,
              requestHash,
              createdAt: at,
              expiresAt: new Date(at.getTime() + IDEMPOTENCY_TTL_HOURS * 3_600_000),
            }),
          );
          if (id !== null) {
            recordAnswerOf(req, res, id);
            return next();
          }
        }
        const record = await findIdempotencyRecord(em, owner);
        // Gone (the first answer was not kept), expired or abandoned: claim the key again.
        claimFirst = true;
        if (!record) continue;
        const expired = record.expiresAt.getTime() <= at.getTime();
        const abandoned = !record.answer && at.getTime() - record.createdAt.getTime() > settings.abandonedAfterMs;
        if (expired || abandoned) {
          await write(() => deleteIdempotencyRecord(em, record.id));
          continue;
        }
        if (record.requestHash !== requestHash) {
          return refuse(
            req,
            res,
            "IDEMPOTENCY_KEY_REUSED",
            `${IDEMPOTENCY_KEY_HEADER} ${key} was already used with a different request; send a new key for a new request.`,
          );
        }
        if (record.answer) return replay(res, record.answer);
        if (Date.now() >= deadline) {
          res.setHeader("Retry-After", "1");
          return refuse(
            req,
            res,
            "IDEMPOTENCY_KEY_IN_PROGRESS",
            `A request with ${IDEMPOTENCY_KEY_HEADER} ${key} is still being processed; retry shortly.`,
          );
        }
        claimFirst = false;
        await sleep(settings.pollIntervalMs);
      }
    } catch (error) {
      next(error);
    }
  };
}
