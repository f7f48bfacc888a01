import type { EntityManager } from "typeorm";
import { readSummaries } from "../../data/user-summary.data";
import type { UserSummary } from "../../data/user-projection";

// The user summary (legacy `meta_info`) is declared once, in src/data/user-projection.ts: its
// type, its SQL and its decoder derive from that declaration.
export { displayName } from "../../data/summary-columns";
export { summaryOfNewRegistration } from "../../data/new-registration-summary";
export {
  summaryMembers,
  type SummaryMemberName,
  type SummaryMembers,
  type UserSummary,
} from "../../data/user-projection";

/**
 * Summaries of many registrations in one SQL statement per 500 users, however many forms, cart
 * lines, tags or children they have. Missing uids are absent from the map.
 */
export async function loadUserSummaries(em: EntityManager, uids: readonly number[]): Promise<Map<number, UserSummary>> {
  const summaries = await readSummaries(em, uids);
  return new Map(summaries.map((summary) => [summary.uid, summary]));
}
