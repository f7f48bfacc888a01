import { LessThan, type EntityManager } from "typeorm";
import { IdempotencyKey } from "../entities";
import { isUniqueViolation } from "../db/unique-violation";
import { selectRows } from "./sql-rows";

// Idempotency-Key records (src/http/idempotency.ts). The unique index on (api_account_id,
// key_hash) is the lock shared by every instance: the one whose INSERT succeeds runs the
// request; the others read the row until it holds an answer.

export interface IdempotencyOwner {
  apiAccountId: number;
  /** SHA-256 (hex) of the Idempotency-Key. */
  keyHash: string;
}

export interface StoredAnswer {
  status: number;
  contentType: string | null;
  body: string;
}

export interface IdempotencyRecord {
  id: number;
  requestHash: string;
  /** Null while the first request is still running. */
  answer: StoredAnswer | null;
  createdAt: Date;
  expiresAt: Date;
}

/** Inserts the claim and returns its row id; null when the account already has a row for this key. */
export async function claimIdempotencyKey(
  em: EntityManager,
  claim: IdempotencyOwner & { requestHash: string; createdAt: Date; expiresAt: Date },
): Promise<number | null> {
  try {
    const result = await em.insert(IdempotencyKey, {
      ...claim,
      responseStatus: null,
      responseContentType: null,
      responseBody: null,
    });
    return Number((result.identifiers[0] as { id: number }).id);
  } catch (error) {
    if (isUniqueViolation(error)) return null;
    throw error;
  }
}

const RECORD_ROW = {
  id: "int",
  request_hash: "text",
  response_status: "intOrNull",
  response_content_type: "textOrNull",
  response_body: "textOrNull",
  created_at: "date",
  expires_at: "date",
} as const;

export async function findIdempotencyRecord(
  em: EntityManager,
  owner: IdempotencyOwner,
): Promise<IdempotencyRecord | null> {
  const rows = await selectRows(
    em,
    RECORD_ROW,
    `SELECT id, request_hash, response_status, response_content_type, response_body, created_at, expires_at
       FROM idempotency_key
      WHERE api_account_id = ? AND key_hash = ?`,
    [owner.apiAccountId, owner.keyHash],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    id: row.id,
    requestHash: row.request_hash,
    answer:
      row.response_status === null
        ? null
        : { status: row.response_status, contentType: row.response_content_type, body: row.response_body ?? "" },
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  };
}

/** Records the first request's answer on its claim. */
export async function storeIdempotentAnswer(em: EntityManager, id: number, answer: StoredAnswer): Promise<void> {
  await em.update(
    IdempotencyKey,
    { id },
    { responseStatus: answer.status, responseContentType: answer.contentType, responseBody: answer.body },
  );
}

/** Drops one row (a claim whose answer is not kept, or an expired or abandoned one); true if this call removed it. */
export async function deleteIdempotencyRecord(em: EntityManager, id: number): Promise<boolean> {
  const result = await em.delete(IdempotencyKey, { id });
  return (result.affected ?? 0) > 0;
}

/** Removes every row past its expiry (lazily, from time to time, by whichever instance claims a key). */
export async function purgeExpiredIdempotencyKeys(em: EntityManager, now: Date): Promise<number> {
  const result = await em.delete(IdempotencyKey, { expiresAt: LessThan(now) });
  return result.affected ?? 0;
}
