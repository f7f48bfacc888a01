import type { EntityManager } from "typeorm";
import { Status } from "../../entities";
import { clientValue } from "../../shared/client-value";
import { isUniqueViolation } from "../../db/unique-violation";
import type { RequestContext } from "../context";
import { conflict, validationFailed, type MemberProblem } from "../errors";
import { resolveOwnedProject } from "../group-scope";
import { inTransaction } from "../transaction";

/** A status as typed callers (GraphQL, CLI) build it. */
export interface CreateStatusCommand {
  groupId: number;
  name: string;
  color: string;
  isExcluded: number | boolean;
}

/**
 * The same command with its members exactly as a client sent them. createStatus checks every
 * member itself, so an adapter may pass raw values and every caller gets the same rules and
 * messages. A CreateStatusCommand is one of these.
 */
export interface StatusDraft {
  groupId: number;
  name: unknown;
  color: unknown;
  isExcluded?: unknown;
}

export interface CreatedStatus {
  id: number;
  groupId: number;
  name: string;
  color: string;
  isExcluded: boolean;
}

export const STATUS_NAME_MAX_CHARACTERS = 100;
const COLOR = /^#[0-9A-Fa-f]{6}$/;

/** Problems are reported under the legacy wire names, the one vocabulary every client shares. */
const PATHS = { name: "doc.status_name", color: "doc.color", isExcluded: "doc.is_excluded" } as const;

interface CheckedStatus {
  name: string;
  nameKey: string;
  color: string;
  isExcluded: boolean;
}

/**
 * The rules of a new status (contract §7): `status_name` 1–100 characters after trimming
 * surrounding white space; `color` `#RRGGBB` (stored upper-case, as the fixture loader does);
 * `is_excluded` 0 or 1 (also true/false and "0"/"1"), default 0. Every broken rule is reported.
 */
export function checkStatusDraft(draft: Omit<StatusDraft, "groupId">): CheckedStatus {
  const problems: MemberProblem[] = [];

  let name = "";
  if (draft.name === undefined || draft.name === null) {
    problems.push({ path: PATHS.name, message: "is required" });
  } else if (typeof draft.name !== "string") {
    problems.push({ path: PATHS.name, message: `must be a string, got ${clientValue(draft.name)}` });
  } else {
    name = draft.name.trim();
    // Code points, not UTF-16 units: the column holds 100 characters, an emoji being one.
    const length = [...name].length;
    if (length === 0) problems.push({ path: PATHS.name, message: "must not be empty" });
    if (length > STATUS_NAME_MAX_CHARACTERS) {
      problems.push({
        path: PATHS.name,
        message: `must be at most ${STATUS_NAME_MAX_CHARACTERS} characters, got ${length}`,
      });
    }
  }

  let color = "";
  if (draft.color === undefined || draft.color === null) {
    problems.push({ path: PATHS.color, message: "is required" });
  } else if (typeof draft.color !== "string" || !COLOR.test(draft.color)) {
    problems.push({
      path: PATHS.color,
      message: `must be a colour of the form #RRGGBB, got ${clientValue(draft.color)}`,
    });
  } else {
    color = draft.color.toUpperCase();
  }

  const isExcluded = excludedFlag(draft.isExcluded);
  if (isExcluded === null) {
    problems.push({ path: PATHS.isExcluded, message: `must be 0 or 1, got ${clientValue(draft.isExcluded)}` });
  }

  if (problems.length > 0) {
    throw validationFailed(`Invalid status: ${problems.map((p) => `${p.path} ${p.message}`).join("; ")}.`, problems);
  }
  return { name, nameKey: name.toLowerCase(), color, isExcluded: isExcluded! };
}

function excludedFlag(value: unknown): boolean | null {
  if (value === undefined || value === null) return false;
  if (value === 0 || value === "0" || value === false) return false;
  if (value === 1 || value === "1" || value === true) return true;
  return null;
}

/**
 * Creates a status in a project of the caller's organization, in one transaction.
 *
 * Throws VALIDATION_FAILED (paths `doc.status_name`, `doc.color`, `doc.is_excluded`; checked
 * before the project, so the answer does not depend on it), FORBIDDEN when `groupId` is not a
 * project of the organization, and CONFLICT with `extra.status_id` when the project already has
 * a status of that name, compared case-insensitively.
 */
export async function createStatus(ctx: RequestContext, draft: StatusDraft): Promise<CreatedStatus> {
  const status = checkStatusDraft(draft);
  try {
    return await inTransaction(ctx, async (tx) => {
      await resolveOwnedProject(tx, draft.groupId);
      const existing = await findStatusByName(tx.em, draft.groupId, status.nameKey, false);
      if (existing) throw duplicateName(status.name, existing);
      const inserted = await tx.em.insert(Status, {
        projectId: draft.groupId,
        name: status.name,
        nameKey: status.nameKey,
        color: status.color,
        isExcluded: status.isExcluded,
      });
      return { id: Number(inserted.identifiers[0].id), groupId: draft.groupId, ...omitKey(status) };
    });
  } catch (error) {
    // A concurrent call inserted the same name between our check and our insert: the unique
    // index (project_id, name_key) refused ours. Report the winner, read outside our snapshot.
    if (!isUniqueViolation(error)) throw error;
    const winner = await findStatusByName(ctx.em, draft.groupId, status.nameKey, ctx.inTransaction);
    if (!winner) throw error;
    throw duplicateName(status.name, winner);
  }
}

const omitKey = ({ name, color, isExcluded }: CheckedStatus) => ({ name, color, isExcluded });

const duplicateName = (name: string, existing: { id: number; name: string }) =>
  conflict(
    `Status name "${name}" is taken in this project by status_id ${existing.id} ("${existing.name}"); names are compared case-insensitively.`,
    { status_id: existing.id },
  );

async function findStatusByName(
  em: EntityManager,
  projectId: number,
  nameKey: string,
  insideOuterTransaction: boolean,
): Promise<{ id: number; name: string } | null> {
  const query = em
    .createQueryBuilder(Status, "status")
    .select("status.id", "id")
    .addSelect("status.name", "name")
    .where("status.projectId = :projectId AND status.nameKey = :nameKey", { projectId, nameKey });
  // Outside a transaction a plain read sees the latest committed row. Inside a caller's MySQL or
  // MariaDB transaction it would see the snapshot, so read with a shared lock; SQLite has one
  // writer at a time and no such lock, and there a plain read is already current.
  if (insideOuterTransaction && em.dataSource.options.type !== "better-sqlite3") query.setLock("pessimistic_read");
  const row = await query.getRawOne<{ id: number | string; name: string }>();
  return row ? { id: Number(row.id), name: row.name } : null;
}
