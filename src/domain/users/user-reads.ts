import { sqlFlag, sqlNumber, sqlPlaceholders } from "../../db/raw-rows";
import { In, type EntityManager } from "typeorm";
import { Person, Project, type FieldType, type FormAudience, type FormLevel } from "../../entities";
import { toDate } from "../../shared/dates";
import type { RequestContext } from "../context";
import { answerIsEmpty, decodeAnswer, parseChoiceOptions, type FieldAnswer } from "../forms/field-value-codec";
import { resolveOwnedProject } from "../group-scope";

// Batch reads for nested user data (the GraphQL facade's DataLoaders sit on these). Each function
// reads any number of registrations in one statement per call, so a request's statement count
// does not grow with the number of users, forms or children it touches. Pure reads: no rules.

/** Who a registration is: enough to place it, the rest is loaded on demand. */
export interface RegistrationRef {
  uid: number;
  groupId: number;
  cloginId: number;
  /** The parent's clogin_id for a child in a family project, else null. */
  parentCloginId: number | null;
}

export interface FormRow {
  id: number;
  projectId: number;
  name: string;
  mandatory: boolean;
  audience: FormAudience;
  level: FormLevel;
}

/** A form in a registration's form set. */
export interface RegistrationFormRow {
  uid: number;
  form: FormRow;
  completed: boolean;
  completedAt: Date | null;
  submittedAt: Date | null;
}

export interface FieldRow {
  /** The wire identifier `f_<form>_<n>`. */
  identifier: string;
  formId: number;
  mappedName: string | null;
  label: string;
  type: FieldType;
  mandatory: boolean;
  options: string[];
}

export interface FieldValueRow {
  uid: number;
  field: FieldRow;
  answer: FieldAnswer;
  updatedAt: Date;
}

export interface EmailRecordRow {
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
}

export interface TagRow {
  id: number;
  name: string;
}

export interface PersonRow {
  cloginId: number;
  username: string;
  mainEmail: string | null;
  firstName: string | null;
  lastName: string | null;
}

/** A registration in a project, addressed by the wire pair (group_id, clogin_id). */
export interface ProjectPersonKey {
  groupId: number;
  cloginId: number;
}

export const projectPersonKey = (key: ProjectPersonKey) => `${key.groupId}:${key.cloginId}`;

type Row = Record<string, unknown>;
const text = (value: unknown) => (value == null ? null : String(value));
const dateOrNull = (value: unknown) => (value == null ? null : toDate(value as Date | string));

// Bounded IN lists (DataLoader batches are capped to this as well).
export const READ_CHUNK = 500;

async function chunked<K>(keys: readonly K[], read: (chunk: K[]) => Promise<void>): Promise<void> {
  const unique = [...new Set(keys)];
  for (let i = 0; i < unique.length; i += READ_CHUNK) await read(unique.slice(i, i + READ_CHUNK));
}

function groupBy<K, V>(rows: V[], keyOf: (row: V) => K): Map<K, V[]> {
  const grouped = new Map<K, V[]>();
  for (const row of rows) {
    const key = keyOf(row);
    const list = grouped.get(key);
    if (list) list.push(row);
    else grouped.set(key, [row]);
  }
  return grouped;
}

const REF_COLUMNS = "r.uid, r.project_id, r.person_id, r.connected_to";

function toRef(row: Row): RegistrationRef {
  return {
    uid: sqlNumber(row.uid),
    groupId: sqlNumber(row.project_id),
    cloginId: sqlNumber(row.person_id),
    parentCloginId: row.connected_to == null ? null : sqlNumber(row.connected_to),
  };
}

function toField(row: Row): FieldRow {
  return {
    identifier: String(row.field_id),
    formId: sqlNumber(row.field_form_id),
    mappedName: text(row.field_name),
    label: String(row.field_label),
    type: String(row.field_type) as FieldType,
    mandatory: sqlFlag(row.field_mandatory),
    options: parseChoiceOptions(text(row.field_options)),
  };
}

const FIELD_COLUMNS = `f.id AS field_id, f.form_id AS field_form_id, f.name AS field_name, f.label AS field_label,
       f.field_type AS field_type, f.mandatory AS field_mandatory, f.choice_options AS field_options`;

/** Registrations by (group_id, clogin_id), e.g. the parents of children. */
export async function readRegistrationsByPerson(
  em: EntityManager,
  keys: readonly ProjectPersonKey[],
): Promise<Map<string, RegistrationRef>> {
  const found = new Map<string, RegistrationRef>();
  const rows = await readByProjectAndColumn(em, "person_id", keys);
  for (const row of rows)
    found.set(projectPersonKey({ groupId: sqlNumber(row.project_id), cloginId: sqlNumber(row.person_id) }), toRef(row));
  return found;
}

/** Children of the given parents (registrations of the same project whose connected_to is the parent), by uid. */
export async function readChildren(
  em: EntityManager,
  parents: readonly ProjectPersonKey[],
): Promise<Map<string, RegistrationRef[]>> {
  const rows = await readByProjectAndColumn(em, "connected_to", parents);
  const refs = rows.map(toRef);
  return groupBy(refs, (ref) => projectPersonKey({ groupId: ref.groupId, cloginId: ref.parentCloginId ?? 0 }));
}

// `(project_id = ? AND column IN (…)) OR …`, one group per project: row-value IN lists are not portable.
async function readByProjectAndColumn(
  em: EntityManager,
  column: "person_id" | "connected_to",
  keys: readonly ProjectPersonKey[],
): Promise<Row[]> {
  const byProject = new Map<number, Set<number>>();
  for (const key of keys) {
    const set = byProject.get(key.groupId) ?? new Set<number>();
    set.add(key.cloginId);
    byProject.set(key.groupId, set);
  }
  if (byProject.size === 0) return [];
  const clauses: string[] = [];
  const parameters: number[] = [];
  for (const [groupId, ids] of byProject) {
    clauses.push(`(r.project_id = ? AND r.${column} IN (${sqlPlaceholders(ids.size)}))`);
    parameters.push(groupId, ...ids);
  }
  return em.query(`SELECT ${REF_COLUMNS} FROM registration r WHERE ${clauses.join(" OR ")} ORDER BY r.uid`, parameters);
}

/** Each registration's form set in form order, with completion. */
export async function readFormSets(
  em: EntityManager,
  uids: readonly number[],
): Promise<Map<number, RegistrationFormRow[]>> {
  const all: RegistrationFormRow[] = [];
  await chunked(uids, async (chunk) => {
    const rows: Row[] = await em.query(
      `SELECT rf.registration_id, rf.completed, rf.completed_at, rf.submitted_at,
              f.id, f.project_id, f.name, f.mandatory, f.audience, f.audience_level
         FROM registration_form rf JOIN form f ON f.id = rf.form_id
        WHERE rf.registration_id IN (${sqlPlaceholders(chunk.length)})
        ORDER BY f.sort_order, f.id`,
      chunk,
    );
    for (const row of rows) {
      all.push({
        uid: sqlNumber(row.registration_id),
        form: {
          id: sqlNumber(row.id),
          projectId: sqlNumber(row.project_id),
          name: String(row.name),
          mandatory: sqlFlag(row.mandatory),
          audience: String(row.audience) as FormAudience,
          level: String(row.audience_level) as FormLevel,
        },
        completed: sqlFlag(row.completed),
        completedAt: dateOrNull(row.completed_at),
        submittedAt: dateOrNull(row.submitted_at),
      });
    }
  });
  return groupBy(all, (row) => row.uid);
}

/** Fields of forms, in form order. */
export async function readFieldsOfForms(
  em: EntityManager,
  formIds: readonly number[],
): Promise<Map<number, FieldRow[]>> {
  const all: FieldRow[] = [];
  await chunked(formIds, async (chunk) => {
    const rows: Row[] = await em.query(
      `SELECT ${FIELD_COLUMNS} FROM field f WHERE f.form_id IN (${sqlPlaceholders(chunk.length)}) ORDER BY f.sort_order, f.id`,
      chunk,
    );
    all.push(...rows.map(toField));
  });
  return groupBy(all, (field) => field.formId);
}

/** Each registration's stored answers, decoded, in form and field order. */
export async function readFieldValues(
  em: EntityManager,
  uids: readonly number[],
): Promise<Map<number, FieldValueRow[]>> {
  const all: FieldValueRow[] = [];
  await chunked(uids, async (chunk) => {
    const rows: Row[] = await em.query(
      `SELECT v.registration_id, v.value, v.updated_at, ${FIELD_COLUMNS}
         FROM field_value v JOIN field f ON f.id = v.field_id JOIN form fo ON fo.id = f.form_id
        WHERE v.registration_id IN (${sqlPlaceholders(chunk.length)})
        ORDER BY fo.sort_order, fo.id, f.sort_order, f.id`,
      chunk,
    );
    for (const row of rows) {
      const field = toField(row);
      all.push({
        uid: sqlNumber(row.registration_id),
        field,
        answer: decodeAnswer(field.type, String(row.value)),
        updatedAt: toDate(row.updated_at as Date | string),
      });
    }
  });
  return groupBy(all, (row) => row.uid);
}

/** Each registration's email history, oldest first. */
export async function readEmailRecords(
  em: EntityManager,
  uids: readonly number[],
): Promise<Map<number, EmailRecordRow[]>> {
  const all: EmailRecordRow[] = [];
  await chunked(uids, async (chunk) => {
    const rows: Row[] = await em.query(
      `SELECT e.id, e.registration_id, e.from_address, e.to_addresses, e.cc_addresses, e.bcc_addresses,
              e.subject, e.body, e.admin_id, e.recorded_at, e.origin
         FROM email_record e WHERE e.registration_id IN (${sqlPlaceholders(chunk.length)})
        ORDER BY e.recorded_at, e.id`,
      chunk,
    );
    for (const row of rows) {
      all.push({
        id: sqlNumber(row.id),
        uid: sqlNumber(row.registration_id),
        from: String(row.from_address),
        to: String(row.to_addresses),
        cc: text(row.cc_addresses),
        bcc: text(row.bcc_addresses),
        subject: String(row.subject),
        body: String(row.body),
        adminId: row.admin_id == null ? null : sqlNumber(row.admin_id),
        recordedAt: toDate(row.recorded_at as Date | string),
        origin: String(row.origin) === "trigger" ? "trigger" : "api",
      });
    }
  });
  return groupBy(all, (row) => row.uid);
}

/** Each registration's tags, by tag id. */
export async function readTags(em: EntityManager, uids: readonly number[]): Promise<Map<number, TagRow[]>> {
  const all: (TagRow & { uid: number })[] = [];
  await chunked(uids, async (chunk) => {
    const rows: Row[] = await em.query(
      `SELECT rt.registration_id, t.id, t.name FROM registration_tag rt JOIN tag t ON t.id = rt.tag_id
        WHERE rt.registration_id IN (${sqlPlaceholders(chunk.length)}) ORDER BY t.id`,
      chunk,
    );
    for (const row of rows)
      all.push({ uid: sqlNumber(row.registration_id), id: sqlNumber(row.id), name: String(row.name) });
  });
  const grouped = groupBy(all, (row) => row.uid);
  return new Map([...grouped].map(([uid, tags]) => [uid, tags.map(({ id, name }) => ({ id, name }))]));
}

/** Persons (the registrant's account data, never the password hash) by clogin_id. */
export async function readPersons(em: EntityManager, cloginIds: readonly number[]): Promise<Map<number, PersonRow>> {
  const persons = new Map<number, PersonRow>();
  await chunked(cloginIds, async (chunk) => {
    const rows = await em.find(Person, {
      where: { id: In(chunk) },
      select: { id: true, username: true, mainEmail: true, firstName: true, lastName: true },
    });
    for (const p of rows)
      persons.set(p.id, {
        cloginId: p.id,
        // A child made without a main email has no login; it reads as an empty username.
        username: p.username ?? "",
        mainEmail: p.mainEmail,
        firstName: p.firstName,
        lastName: p.lastName,
      });
  });
  return persons;
}

export async function readProjects(em: EntityManager, groupIds: readonly number[]): Promise<Map<number, Project>> {
  const projects = new Map<number, Project>();
  await chunked(groupIds, async (chunk) => {
    for (const project of await em.findBy(Project, { id: In(chunk) })) projects.set(project.id, project);
  });
  return projects;
}

/**
 * Some project of the organization, or null when it has none: the organization-wide project list
 * of the domain is addressed through one of its projects (as the legacy envelope always is).
 */
export async function readFirstProjectId(em: EntityManager, organizationId: number): Promise<number | null> {
  const project = await em.findOne(Project, { where: { organizationId }, select: { id: true }, order: { id: "ASC" } });
  return project?.id ?? null;
}

/** The form's mandatory fields that hold no answer for this registration, in form order. */
export function missingMandatoryFields(fields: readonly FieldRow[], values: readonly FieldValueRow[]): FieldRow[] {
  const answers = new Map(values.map((value) => [value.field.identifier, value.answer]));
  return fields.filter((field) => field.mandatory && answerIsEmpty(answers.get(field.identifier)));
}

/** Which users of a project a page lists. Absent members do not filter. */
export interface UserListFilter {
  /** A status id; 0 selects users without a status (as the legacy `status_id` "0"). */
  statusId?: number | null;
  /** true: only users whose status is excluding; false: only the others. */
  excluded?: boolean | null;
  /** `parent`: parents and individuals (no connected_to); `child`: children of a family project. */
  level?: "parent" | "child" | null;
  /** Case-insensitive substring of first name, last name, username or main email. */
  search?: string | null;
}

export interface UserPage {
  users: RegistrationRef[];
  hasNextPage: boolean;
}

function filterSql(groupId: number, filter: UserListFilter): { where: string; parameters: unknown[] } {
  const conditions = ["r.project_id = ?"];
  const parameters: unknown[] = [groupId];
  if (filter.statusId === 0) conditions.push("r.status_id IS NULL");
  else if (filter.statusId != null) {
    conditions.push("r.status_id = ?");
    parameters.push(filter.statusId);
  }
  if (filter.excluded === true) conditions.push("s.is_excluded = 1");
  if (filter.excluded === false) conditions.push("(s.is_excluded IS NULL OR s.is_excluded = 0)");
  if (filter.level === "parent") conditions.push("r.connected_to IS NULL");
  if (filter.level === "child") conditions.push("r.connected_to IS NOT NULL");
  const search = filter.search?.trim().toLowerCase();
  if (search) {
    const pattern = `%${search.replace(/[!%_]/g, (c) => `!${c}`)}%`;
    conditions.push(
      "(LOWER(p.first_name) LIKE ? ESCAPE '!' OR LOWER(p.last_name) LIKE ? ESCAPE '!' OR LOWER(p.username) LIKE ? ESCAPE '!' OR LOWER(p.main_email) LIKE ? ESCAPE '!')",
    );
    parameters.push(pattern, pattern, pattern, pattern);
  }
  return { where: conditions.join(" AND "), parameters };
}

const LIST_FROM = "FROM registration r JOIN person p ON p.id = r.person_id LEFT JOIN status s ON s.id = r.status_id";

/**
 * A page of a project's users in uid order, after a uid (keyset: the cost does not depend on how
 * deep the page is). Checks that the caller's organization owns the project.
 */
export async function listUsersPage(
  ctx: RequestContext,
  request: { groupId: number; first: number; afterUid: number | null; filter: UserListFilter },
): Promise<UserPage> {
  await resolveOwnedProject(ctx, request.groupId);
  const { where, parameters } = filterSql(request.groupId, request.filter);
  const limit = Math.max(0, Math.trunc(request.first)) + 1;
  const keyset = request.afterUid == null ? "" : " AND r.uid > ?";
  const rows: Row[] = await ctx.em.query(
    `SELECT ${REF_COLUMNS} ${LIST_FROM} WHERE ${where}${keyset} ORDER BY r.uid LIMIT ${limit}`,
    request.afterUid == null ? parameters : [...parameters, request.afterUid],
  );
  const refs = rows.map(toRef);
  return { users: refs.slice(0, limit - 1), hasNextPage: refs.length === limit };
}

/** How many users of a project match the filter (the caller has checked ownership). */
export async function countUsers(em: EntityManager, groupId: number, filter: UserListFilter): Promise<number> {
  const { where, parameters } = filterSql(groupId, filter);
  const rows: Row[] = await em.query(`SELECT COUNT(*) AS total ${LIST_FROM} WHERE ${where}`, parameters);
  return sqlNumber(rows[0]?.total);
}
