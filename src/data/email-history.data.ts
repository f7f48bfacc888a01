import type { EntityManager } from "typeorm";
import { EmailRecord } from "../entities";
import { insertRows } from "../db/insert-rows";
import { chunked, groupBy } from "./batch";
import { selectRows, sqlPlaceholders, type RowOf } from "./sql-rows";

/** An entry of a registration's email history. */
export interface EmailHistoryEntry {
  id: number;
  uid: number;
  from: string;
  to: string;
  cc: string | null;
  bcc: string | null;
  subject: string;
  body: string;
  adminId: number | null;
  recordedAt: Date;
  origin: "api" | "trigger";
  /** Trigger emails: the Message-ID of their outbox row. */
  messageId?: string | null;
  /** Trigger emails: where their delivery stands (null for recorded ones, which the API never sends). */
  deliveryStatus?: "queued" | "sent" | "failed" | null;
  deliveryAttempts?: number | null;
}

/** A history entry to record (its id is generated). */
export type NewEmailHistoryEntry = Omit<EmailHistoryEntry, "id">;

export const EMAIL_SHAPE = {
  id: "int",
  registration_id: "int",
  from_address: "text",
  to_addresses: "text",
  cc_addresses: "textOrNull",
  bcc_addresses: "textOrNull",
  subject: "text",
  body: "text",
  admin_id: "intOrNull",
  recorded_at: "date",
  origin: "text",
  message_id: "textOrNull",
  delivery_status: "textOrNull",
  delivery_attempts: "intOrNull",
} as const;

/** Each registration's email history, oldest first, by uid. */
export async function readEmailHistory(
  em: EntityManager,
  uids: readonly number[],
): Promise<Map<number, EmailHistoryEntry[]>> {
  const all: EmailHistoryEntry[] = [];
  await chunked(uids, async (chunk) => {
    const rows = await selectRows(
      em,
      EMAIL_SHAPE,
      `SELECT e.id, e.registration_id, e.from_address, e.to_addresses, e.cc_addresses, e.bcc_addresses,
              e.subject, e.body, e.admin_id, e.recorded_at, e.origin, e.message_id,
              o.state AS delivery_status, o.attempt_count AS delivery_attempts
         FROM email_record e
         LEFT JOIN outbox_email o ON o.message_id = e.message_id AND e.message_id IS NOT NULL
        WHERE e.registration_id IN (${sqlPlaceholders(chunk.length)})
        ORDER BY e.recorded_at, e.id`,
      chunk,
    );
    for (const row of rows) all.push(toEmailEntry(row));
  });
  return groupBy(all, (row) => row.uid);
}

/** A history entry from its row (EMAIL_SHAPE). */
export function toEmailEntry(row: RowOf<typeof EMAIL_SHAPE>): EmailHistoryEntry {
  return {
    id: row.id,
    uid: row.registration_id,
    from: row.from_address,
    to: row.to_addresses,
    cc: row.cc_addresses,
    bcc: row.bcc_addresses,
    subject: row.subject,
    body: row.body,
    adminId: row.admin_id,
    recordedAt: row.recorded_at,
    origin: row.origin === "trigger" ? "trigger" : "api",
    messageId: row.message_id,
    deliveryStatus: row.delivery_status as EmailHistoryEntry["deliveryStatus"],
    deliveryAttempts: row.delivery_attempts,
  };
}

/** Records history entries in one statement. */
export async function insertEmailHistory(em: EntityManager, entries: readonly NewEmailHistoryEntry[]): Promise<void> {
  await insertRows(
    em,
    EmailRecord,
    entries.map((entry) => ({
      registrationId: entry.uid,
      fromAddress: entry.from,
      toAddresses: entry.to,
      ccAddresses: entry.cc,
      bccAddresses: entry.bcc,
      subject: entry.subject,
      body: entry.body,
      adminId: entry.adminId,
      recordedAt: entry.recordedAt,
      origin: entry.origin,
      messageId: entry.messageId ?? null,
    })),
  );
}
