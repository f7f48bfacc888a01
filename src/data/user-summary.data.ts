import type { EntityManager } from "typeorm";
import { chunked } from "./batch";
import {
  decodeRegistrationLists,
  registrationListArms,
  type ListOwners,
  type RegistrationLists,
  type RegistrationListsWanted,
} from "./registration-lists.data";
import { projectAndColumnClause, type ProjectPersonKey, type RegistrationRef } from "./registrations.data";
import { selectRawRows, splitListArms, sqlPlaceholders, withListArms, type ListSql } from "./sql-rows";
import {
  decodeSummaries,
  summaryColumnCount,
  summaryJoinsSql,
  summaryListParts,
  summaryPartsKey,
  summarySelectSql,
  type SummaryMembers,
  type UserSummary,
} from "./user-projection";

// Reads of user summaries (user-projection.ts) by uid, by person and family, by a picked list
// and by parent: each one statement (per READ_CHUNK uids), however many forms, cart lines, tags
// or children the users have.

const SUMMARY_JOINS = summaryJoinsSql(null);

async function selectSummaries(em: EntityManager, sql: string, parameters: readonly unknown[]) {
  return decodeSummaries(await selectRawRows(em, sql, parameters), sql, null);
}

/** Who a summary's registration is. */
export const refOfSummary = (summary: UserSummary): RegistrationRef => ({
  uid: summary.uid,
  groupId: summary.groupId,
  cloginId: summary.cloginId,
  parentCloginId: summary.parentCloginId,
});

/** Summaries of many registrations; missing uids are absent. */
export async function readSummaries(em: EntityManager, uids: readonly number[]): Promise<UserSummary[]> {
  const summaries: UserSummary[] = [];
  await chunked(uids, async (chunk) => {
    summaries.push(
      ...(await selectSummaries(
        em,
        `SELECT ${summarySelectSql(em)} FROM registration r ${SUMMARY_JOINS} WHERE r.uid IN (${sqlPlaceholders(chunk.length)})`,
        chunk,
      )),
    );
  });
  return summaries;
}

/** What readOwnedSummary's statement binds, in the order its text names them. */
type OwnedReadValue = "person" | "project" | "organization";

interface OwnedReadStatement {
  sql: string;
  parameters: OwnedReadValue[];
  listParts: { column: string; list: ListSql }[];
}

// readOwnedSummary's statement by its shape (dialect, the summary parts read, children, lists): the
// same text for every read of the same selection, built once rather than on every nested read.
const ownedReadStatements = new Map<string, OwnedReadStatement>();

function ownedReadStatement(
  em: EntityManager,
  members: SummaryMembers | null,
  withChildren: boolean,
  wanted: RegistrationListsWanted,
): OwnedReadStatement {
  const shape = [
    em.connection.options.type,
    summaryPartsKey(members),
    withChildren,
    wanted.formSet,
    wanted.formFields,
    wanted.answers,
    wanted.emails,
  ].join("|");
  let statement = ownedReadStatements.get(shape);
  if (!statement)
    ownedReadStatements.set(shape, (statement = buildOwnedReadStatement(em, members, withChildren, wanted)));
  return statement;
}

function buildOwnedReadStatement(
  em: EntityManager,
  members: SummaryMembers | null,
  withChildren: boolean,
  wanted: RegistrationListsWanted,
): OwnedReadStatement {
  // With children: the person's own row and their children's, in the same statement.
  const who = withChildren ? "(r.person_id = ? OR r.connected_to = ?)" : "r.person_id = ?";
  const whoParameters: OwnedReadValue[] = withChildren ? ["person", "person"] : ["person"];
  // Every arm reads the registrations of the project the head reads, those a list is read for: the
  // person's, the children's or the family's. Ownership is the head's: when the project is not the
  // organization's the head has no row and nothing the arms read leaves readOwnedSummary (joining
  // the project again in each arm cost MariaDB about a tenth of the read).
  const restrict = (owners: ListOwners) => {
    const [whose, parameters]: [string, OwnedReadValue[]] =
      owners === "person"
        ? ["r.person_id = ?", ["person"]]
        : owners === "children"
          ? ["r.connected_to = ?", ["person"]]
          : [who, whoParameters];
    return { where: `r.project_id = ? AND ${whose}`, parameters: ["project", ...parameters] };
  };
  const listParts = summaryListParts(members);
  const arms = [
    ...listParts.map(({ column, list }) => ({
      name: column,
      list,
      join: `JOIN registration r ON r.uid = ${list.owner}`,
      ...restrict("family"),
    })),
    ...registrationListArms(wanted, restrict),
  ];
  // Outer joins throughout: the project row comes back even without a registration.
  const { sql, parameters } = withListArms(
    em,
    {
      select: summarySelectSql(em, members, { listsApart: true }),
      rest: `FROM project pr
      LEFT JOIN registration r ON r.project_id = pr.id AND ${who}
      ${summaryJoinsSql(members, {}, "LEFT JOIN")}
     WHERE pr.id = ? AND pr.organization_id = ?`,
      columns: summaryColumnCount(members, { listsApart: true }),
      parameters: [...whoParameters, "project", "organization"],
    },
    arms,
  );
  return { sql, parameters: parameters as OwnedReadValue[], listParts };
}

/**
 * The summary of a person's registration in a project, read together with the project's
 * ownership in one statement: `owned` false when the project is not the organization's (or does
 * not exist), `summary` null when the person is not registered there. With `members`, only those
 * members are read and decoded (the others are absent); with `lists`, those lists too.
 */
export async function readOwnedSummary(
  em: EntityManager,
  organizationId: number,
  projectId: number,
  personId: number,
  options: { withChildren?: boolean; members?: SummaryMembers | null; lists?: RegistrationListsWanted } = {},
): Promise<{
  owned: boolean;
  summary: UserSummary | null;
  children: UserSummary[];
  /** The lists read along (options.lists), by uid. */
  lists: Map<number, RegistrationLists>;
}> {
  const members = options.members ?? null;
  const wanted = options.lists ?? {};
  const statement = ownedReadStatement(em, members, options.withChildren === true, wanted);
  const values: Record<OwnedReadValue, number> = { person: personId, project: projectId, organization: organizationId };
  const { sql, listParts } = statement;
  const parameters = statement.parameters.map((value) => values[value]);
  const { head, lists: armRows } = splitListArms(await selectRawRows(em, sql, parameters), sql);
  const listsByUid = new Map<number, RegistrationLists>();
  if (head.length === 0) return { owned: false, summary: null, children: [], lists: listsByUid };
  // A UNION has no order of its own: the family in uid order, as an ORDER BY put it.
  head.sort((a, b) => Number(a.uid) - Number(b.uid));
  if (head[0].uid != null) {
    for (const row of head) {
      for (const { column } of listParts) row[column] = armRows.get(column)?.get(Number(row.uid)) ?? null;
    }
  }
  const rows = head[0].uid == null ? [] : decodeSummaries(head, sql, members);
  const summary = rows.find((candidate) => candidate.cloginId === personId) ?? null;
  if (summary && Object.values(wanted).some(Boolean)) {
    for (const candidate of rows) {
      listsByUid.set(
        candidate.uid,
        decodeRegistrationLists(armRows, candidate.uid, wanted, candidate === summary, sql),
      );
    }
  }
  // Children of an unregistered person are not reported: the caller answers USER_NOT_FOUND.
  return {
    owned: true,
    summary,
    children: summary ? rows.filter((candidate) => candidate !== summary) : [],
    lists: listsByUid,
  };
}

/**
 * Summaries of the registrations a statement picks (`pickSql` selects a `uid` column, e.g. a
 * page read through an index), in uid order: the pick runs once, the summary columns only for
 * what it picked.
 */
export async function readSummariesPicked(
  em: EntityManager,
  pickSql: string,
  parameters: readonly unknown[],
): Promise<UserSummary[]> {
  return selectSummaries(
    em,
    `SELECT ${summarySelectSql(em)} FROM (${pickSql}) pick JOIN registration r ON r.uid = pick.uid ${SUMMARY_JOINS} ORDER BY r.uid`,
    parameters,
  );
}

/** Summaries of the children of the given parents (same project, connected_to the parent), by uid. */
export async function readChildSummaries(
  em: EntityManager,
  parents: readonly ProjectPersonKey[],
): Promise<UserSummary[]> {
  const { clause, parameters } = projectAndColumnClause("connected_to", parents);
  if (!clause) return [];
  return selectSummaries(
    em,
    `SELECT ${summarySelectSql(em)} FROM registration r ${SUMMARY_JOINS} WHERE ${clause} ORDER BY r.uid`,
    parameters,
  );
}
