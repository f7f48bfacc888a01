import {
  putSearchDocuments,
  searchValuesOf,
  writeSearchDocuments,
  type PersonSearchValues,
} from "./person-search.data";
import { sqlDate } from "./events.data";
import type { EntityManager } from "typeorm";
import { Registration } from "../entities";
import { executeWrite, insertRowReturningId } from "../db/insert-rows";
import { isUniqueViolation } from "../db/unique-violation";
import { selectRows, sqlPlaceholders, type RowOf } from "./sql-rows";

// Registrations (users of a project): who they are, their tags, their status and family.
// Their summaries are read in user-summary.data.ts, pages of them in user-page.data.ts.

/** Who a registration is: enough to place it, the rest is read on demand. */
export interface RegistrationRef {
  uid: number;
  groupId: number;
  cloginId: number;
  /** The parent's clogin_id for a child in a family project, else null. */
  parentCloginId: number | null;
}

/** A registration with the person data the users operations need. */
export interface RegisteredUser extends RegistrationRef {
  mainEmail: string | null;
  /** Its status excludes it (docs/counters.md): with `parentExcluded`, its counter bucket. */
  excluded: boolean;
  /** A child whose parent's status excludes the parent; false for a parent or individual. */
  parentExcluded: boolean;
  /** The parent's uid for a child, else null. */
  parentUid: number | null;
}

/** A registration in a project, addressed by the wire pair (group_id, clogin_id). */
export interface ProjectPersonKey {
  groupId: number;
  cloginId: number;
}

export const projectPersonKey = (key: ProjectPersonKey) => `${key.groupId}:${key.cloginId}`;

import type { TagRecord } from "./summary-columns";
export type { TagRecord };

const REF_COLUMNS = "r.uid, r.project_id, r.person_id, r.connected_to";
const REF_SHAPE = { uid: "int", project_id: "int", person_id: "int", connected_to: "intOrNull" } as const;

export const toRef = (row: RowOf<typeof REF_SHAPE>): RegistrationRef => ({
  uid: row.uid,
  groupId: row.project_id,
  cloginId: row.person_id,
  parentCloginId: row.connected_to,
});

export const onSqlite = (em: EntityManager) => em.connection.options.type === "better-sqlite3";

// Whether status `statusIdSql` excludes: a scalar subquery, so a locking read of the registration
// does not lock the status row that every registration with that status shares.
const excludedByStatusSql = (statusIdSql: string) =>
  `COALESCE((SELECT st.is_excluded FROM status st WHERE st.id = ${statusIdSql}), 0)`;

/**
 * The registration of a person in a project with the person's main email and the exclusions of
 * its counter bucket, or null. With `lock` (MySQL/MariaDB; SQLite's transactions already take
 * turns), the statement locks the family of the registration, in the one order every write takes
 * (docs/locking.md): the registration's row, then its person's, then, for a child, its
 * parent's registration. Writes to one family then run one after the other, and read each other's
 * results: a trigger cannot fire twice because two calls both saw it unfired, and the counter
 * bucket of a child cannot change under a write to it.
 */
export async function findRegisteredUser(
  em: EntityManager,
  projectId: number,
  personId: number,
  options: { lock?: boolean } = {},
): Promise<(RegisteredUser & { organizationId: number }) | null> {
  const forUpdate = options.lock && !onSqlite(em) ? " FOR UPDATE" : "";
  // The project's organization comes along (a scalar subquery, so the lock does not take the
  // project's row): the caller proves ownership with the same statement.
  const [row] = await selectRows(
    em,
    {
      ...REF_SHAPE,
      main_email: "textOrNull",
      excluded: "flag",
      parent_excluded: "flag",
      parent_uid: "intOrNull",
      organization_id: "int",
    },
    `SELECT ${REF_COLUMNS}, p.main_email, ${excludedByStatusSql("r.status_id")} AS excluded, pr.uid AS parent_uid,
            ${excludedByStatusSql("pr.status_id")} AS parent_excluded,
            (SELECT o.organization_id FROM project o WHERE o.id = r.project_id) AS organization_id
       FROM registration r JOIN person p ON p.id = r.person_id
       LEFT JOIN registration pr ON pr.project_id = r.project_id AND pr.person_id = r.connected_to
      WHERE r.project_id = ? AND r.person_id = ?${forUpdate}`,
    [projectId, personId],
  );
  return row
    ? {
        ...toRef(row),
        mainEmail: row.main_email,
        excluded: row.excluded,
        parentExcluded: row.parent_excluded,
        parentUid: row.parent_uid,
        organizationId: row.organization_id,
      }
    : null;
}

export async function isRegistered(em: EntityManager, projectId: number, personId: number): Promise<boolean> {
  const rows = await selectRows(
    em,
    { uid: "int" },
    `SELECT uid FROM registration WHERE project_id = ? AND person_id = ?`,
    [projectId, personId],
  );
  return rows.length > 0;
}

/**
 * Inserts a registration without status, star or assigned admin, with its search document;
 * returns its uid, or null when the person is registered in the project already (the unique index
 * on (project_id, person_id)). `person`: the person's values when the caller holds them all (a
 * person created in this call), so the document and sort name need not be read back.
 */
export async function insertRegistration(
  em: EntityManager,
  registration: {
    projectId: number;
    personId: number;
    connectedTo: number | null;
    applicationDate: Date;
    updatedAt: Date;
  },
  person?: PersonSearchValues,
): Promise<number | null> {
  const known = person ? searchValuesOf(person) : null;
  try {
    const uid = await insertRowReturningId(em, Registration, {
      ...registration,
      statusId: null,
      star: false,
      assignedAdminId: null,
      ...(known ? { sortName: known.sortName } : {}),
    });
    if (known) await putSearchDocuments(em, [{ uid, projectId: registration.projectId, text: known.text }], true);
    else await writeSearchDocuments(em, { uids: [uid], fresh: true });
    return uid;
  } catch (error) {
    if (isUniqueViolation(error)) return null;
    throw error;
  }
}

/** Registrations by (group_id, clogin_id), e.g. the parents of children. */
export async function readRegistrationsByPerson(
  em: EntityManager,
  keys: readonly ProjectPersonKey[],
): Promise<Map<string, RegistrationRef>> {
  const refs = await readByProjectAndColumn(em, "person_id", keys);
  return new Map(refs.map((ref) => [projectPersonKey(ref), ref]));
}

// `(project_id = ? AND column IN (…)) OR …`, one group per project: row-value IN lists are not portable.
export function projectAndColumnClause(
  column: "person_id" | "connected_to",
  keys: readonly ProjectPersonKey[],
): { clause: string; parameters: number[] } {
  const byProject = new Map<number, Set<number>>();
  for (const key of keys) {
    const set = byProject.get(key.groupId) ?? new Set<number>();
    set.add(key.cloginId);
    byProject.set(key.groupId, set);
  }
  const clauses: string[] = [];
  const parameters: number[] = [];
  for (const [groupId, ids] of byProject) {
    clauses.push(`(r.project_id = ? AND r.${column} IN (${sqlPlaceholders(ids.size)}))`);
    parameters.push(groupId, ...ids);
  }
  return { clause: clauses.join(" OR "), parameters };
}

async function readByProjectAndColumn(
  em: EntityManager,
  column: "person_id" | "connected_to",
  keys: readonly ProjectPersonKey[],
): Promise<RegistrationRef[]> {
  const { clause, parameters } = projectAndColumnClause(column, keys);
  if (!clause) return [];
  const rows = await selectRows(
    em,
    REF_SHAPE,
    `SELECT ${REF_COLUMNS} FROM registration r WHERE ${clause} ORDER BY r.uid`,
    parameters,
  );
  return rows.map(toRef);
}

/** A tag of the project, or null when the project has no tag of that id. */
export async function findTagOfProject(em: EntityManager, projectId: number, tagId: number): Promise<TagRecord | null> {
  const [row] = await selectRows(
    em,
    { id: "int", name: "text" },
    `SELECT id, name FROM tag WHERE project_id = ? AND id = ?`,
    [projectId, tagId],
  );
  return row ?? null;
}

// Statuses and families, for the write commands (set_status, create_child).

/**
 * Whether the organization owns the project and, when it does, the project's status `statusId`
 * (null when it has none of that id), in one statement.
 */
export async function findOwnedProjectStatus(
  em: EntityManager,
  organizationId: number,
  projectId: number,
  statusId: number,
): Promise<{ owned: boolean; status: { excluded: boolean } | null }> {
  const [row] = await selectRows(
    em,
    { status_id: "intOrNull", is_excluded: "flag" },
    `SELECT s.id AS status_id, s.is_excluded FROM project p LEFT JOIN status s ON s.project_id = p.id AND s.id = ?
      WHERE p.id = ? AND p.organization_id = ?`,
    [statusId, projectId, organizationId],
  );
  if (!row) return { owned: false, status: null };
  return { owned: true, status: row.status_id === null ? null : { excluded: row.is_excluded } };
}

/**
 * Sets (or, null, removes) the status and, with it, updated_at; true when it changed. An equal
 * status is not matched, so nothing is written.
 */
export async function setRegistrationStatus(
  em: EntityManager,
  uid: number,
  statusId: number | null,
  updatedAt: Date,
): Promise<boolean> {
  const differs = em.connection.options.type === "better-sqlite3" ? "status_id IS NOT ?" : "NOT (status_id <=> ?)";
  const result = await executeWrite(
    em,
    `UPDATE registration SET status_id = ?, updated_at = ? WHERE uid = ? AND ${differs}`,
    [statusId, sqlDate(em, updatedAt), uid, statusId],
  );
  return result.affected > 0;
}

/** Whether the project keeps families (parents with children). */
export async function isFamilyProject(em: EntityManager, projectId: number): Promise<boolean> {
  const rows = await selectRows(em, { family_system: "flag" }, `SELECT family_system FROM project WHERE id = ?`, [
    projectId,
  ]);
  return rows[0]?.family_system ?? false;
}

/**
 * The registration of `cloginId` in the project, locked (MySQL/MariaDB), for a write that adds a
 * child to its family (create_child): its connected_to tells a child from a parent, its exclusion
 * puts the new child in its counter bucket.
 */
export async function lockRegistration(
  em: EntityManager,
  projectId: number,
  cloginId: number,
): Promise<{ uid: number; connectedTo: number | null; excluded: boolean } | null> {
  const rows = await selectRows(
    em,
    { uid: "int", connected_to: "intOrNull", excluded: "flag" },
    `SELECT r.uid, r.connected_to, ${excludedByStatusSql("r.status_id")} AS excluded
       FROM registration r WHERE r.project_id = ? AND r.person_id = ?${onSqlite(em) ? "" : " FOR UPDATE"}`,
    [projectId, cloginId],
  );
  return rows[0] ? { uid: rows[0].uid, connectedTo: rows[0].connected_to, excluded: rows[0].excluded } : null;
}
